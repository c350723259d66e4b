/*
 * A part's halo: the points of other parts near it, which its searches for
 * crossing edges look through.  It grows only when a search needs more
 * (requests.h says which points come and when); no point comes twice.
 *
 * The points are searched through a k-d tree whose nodes carry the one
 * component of their points (or none), so that a search skips the parts
 * of the tree in its own component, as ArborX's single-tree traversal does.
 * The halo grows by many points at its first round and by few at the later
 * ones: those are added to the tree (kdtree.h) rather than built into a
 * new one, so that a round costs what it adds.
 */
#ifndef GEMST_PARTS_HALO_H
#define GEMST_PARTS_HALO_H

#include "parts/kdtree.h"
#include "parts/parts.h"

struct gemst_halo {
    int64_t n, cap;
    double *w;                /* working coordinates, 3 per point */
    gemst_gid *id;            /* ids in the whole set */
    uint32_t *comp;           /* safe components */
    gemst_kdtree tree;
    uint32_t *label;          /* each node's component root; GEMST_NONE when its points are in several */
    /* the points again in the tree's order (tree.order[i]'s at i), so that a search scans a leaf's points
     * in one stretch of memory: */
    double *w_at;
    gemst_gid *id_at;
    uint32_t *comp_at;
    uint32_t *root_at;        /* each one's component root (gemst_halo_label) */
    int64_t cap_at;
};

/* The bytes of one point as parts send it: id, safe component, coordinates
 * in the working precision. */
size_t gemst_halo_record_bytes(const gemst_parts_metric *m);

/* Writes the point at position a of a part's store (store.h) as a record at r. */
void gemst_halo_record(const gemst_parts_metric *m, const gemst_part_store *s, int64_t a, char *r);

/* Adds count received records to the halo and to its tree (with up to
 * `threads` threads). */
int gemst_halo_add(gemst_halo *h, const gemst_parts_metric *m, const char *records, int64_t count, int threads,
                   gridemst_error *err);

/* Each node's component for the roots of this Boruvka iteration (root[c]:
 * the root of safe component c), on up to `threads` threads. */
void gemst_halo_label(gemst_halo *h, const uint32_t *root, int threads);

/*
 * The least edge, in the edge order, from point q (working coordinates at,
 * id qid, component root q_root) to a halo point of another component
 * (by the roots of the last gemst_halo_label, after the last addition), no
 * longer than the bound *bound: the bits of a squared length (non-negative
 * doubles order as their bits) no shorter than the least edge leaving q's
 * component, which other threads may lower at the same time, and which
 * the search lowers to what it finds.  Returns 1 and *e with the far
 * point's component in *to, or 0 when there is none.  *searched: the
 * bound as the search last read it; every halo point of another component
 * within it was looked at, so that *e is the least edge to those of them
 * (kept_answer.h).
 */
int gemst_halo_nearest(const gemst_halo *h, const gemst_parts_metric *m, const double at[3], gemst_gid qid,
                       uint32_t q_root, uint64_t *bound, gemst_gid_edge *e, uint32_t *to, double *searched);

/* A squared length as bound bits, and back. */
uint64_t gemst_halo_bound_bits(double d2);
double gemst_halo_bound_d2(uint64_t bits);

void gemst_halo_free(gemst_halo *h);

#endif
