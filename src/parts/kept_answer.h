/*
 * What a point's last search through its halo proved, kept from one
 * boundary Boruvka iteration to the next (docs/partitioned.md, "Why the
 * tree is exact", step 3).
 *
 * A search from q with the bound B (halo.h) looks at every halo point of
 * another component within the final bound C it reports, and returns the
 * least edge of those; the halo holds every other part's point nearer to
 * q's cell than its reach (requests.h).  So after the search, with
 * `below` the lesser of just above C and what the reach covers:
 *
 *   among the points of the other parts in another component than q's,
 *   those at a squared length below `below` have no edge from q less
 *   than e (in the edge order), and e is one of them when `to` is not
 *   GEMST_NONE; with `to` GEMST_NONE there are none.
 *
 * The statement is about the other parts' points, not the halo's: points
 * added to the halo later leave it true.  Components only merge, so the
 * points of another component only become fewer, and it stays true until
 * e's far end joins q's component.  While e's far end is elsewhere, e is
 * q's least edge to another component: every point beyond `below` is
 * farther than e.  Once it has joined, or with no e, it still bounds the
 * lengths of q's edges to another component from below.
 */
#ifndef GEMST_PARTS_KEPT_ANSWER_H
#define GEMST_PARTS_KEPT_ANSWER_H

#include <math.h>

#include "parts/parts.h"

typedef struct gemst_kept_answer {
    gemst_gid_edge e;   /* the least edge below `below`, when `to` is not GEMST_NONE */
    double below;       /* the squared length up to which the statement holds (excluded) */
    uint32_t to;        /* e's far end's safe component; GEMST_NONE: no edge below `below` */
} gemst_kept_answer;

/* Nothing known yet. */
static inline gemst_kept_answer gemst_kept_none(void)
{
    const gemst_kept_answer k = {{INFINITY, UINT64_MAX, UINT64_MAX}, 0.0, GEMST_NONE};
    return k;
}

/* What a search proved: it found e to component `to` (found != 0) and
 * looked at every halo point of another component within `searched`, from
 * a cell whose reach covers the edges shorter than `covers`. */
static inline gemst_kept_answer gemst_kept_from_search(int found, const gemst_gid_edge *e, uint32_t to,
                                                       double searched, double covers)
{
    const double after = nextafter(searched, INFINITY);
    gemst_kept_answer k = gemst_kept_none();
    k.below = after < covers ? after : covers;
    if (found && e->d2 < k.below) {
        k.e = *e;
        k.to = to;
    }
    return k;
}

/* 1 when e is still q's least edge to another component (root: each safe
 * component's root now; q_root: q's component's). */
static inline int gemst_kept_holds(const gemst_kept_answer *k, const uint32_t *root, uint32_t q_root)
{
    return k->to != GEMST_NONE && root[k->to] != q_root;
}

/* Where e no longer holds: no edge from q to another part's point of
 * another component is shorter than this. */
static inline double gemst_kept_lower(const gemst_kept_answer *k)
{
    return k->to != GEMST_NONE ? k->e.d2 : k->below;
}

#endif
