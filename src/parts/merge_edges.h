/*
 * Lists of edges, each in the edge order, merged into one on all of a
 * loop's threads: the last step of a partitioned solve, where each part's
 * tree comes in the edge order, its safe edges to be kept in ids of the
 * whole set, and the boundary's few edges join them.  A sort of the whole
 * tree would pass over it eight times; the merge reads each edge once.
 */
#ifndef GEMST_PARTS_MERGE_EDGES_H
#define GEMST_PARTS_MERGE_EDGES_H

#include <stdint.h>

#include "parts/parts.h"

/* One list: edge[0 .. count) in the edge order, of which those k where
 * keep[k] (every one when keep is NULL) are merged. */
typedef struct {
    const gemst_parts_edge *edge;
    int64_t count;
    const uint8_t *keep;
} gemst_edge_list;

/* The ends of edges[0 .. count) renumbered in place, lo as id[lo] and hi
 * as id[hi], on up to `threads` OpenMP threads: ids below 2^32 (the host
 * puts together trees of no more points; over several devices, more go to
 * the devices' assembly, device_assemble.h).  id must keep the order of
 * the ends (a part numbers its points in the order of their ids), so that
 * edges in the edge order stay in it.  A pass of its own, ahead of the
 * merge: its lookups, independent of each other, overlap, where inside the
 * merge each edge's would hold up the choice of the next. */
void gemst_parts_edges_in_ids(gemst_parts_edge *edges, int64_t count, const gemst_gid *id, int threads);

/* The kept edges of the k lists merged into lo, hi and d2 (room for every
 * kept edge) in the edge order, on up to `threads` OpenMP threads; their
 * number into *merged.  Returns 0, or -1 when out of host memory (nothing
 * written then). */
int gemst_parts_merge_edges(const gemst_edge_list *list, int k, int threads, uint32_t *lo, uint32_t *hi, double *d2,
                            int64_t *merged);

/* Sorts edges[0 .. m) into the edge order. */
void gemst_parts_sort_edges(gemst_parts_edge *edges, int64_t m);

#endif
