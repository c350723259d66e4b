/*
 * The border step's inner points (border.h): points within a round's limit
 * that no edge the round still needs can end at, left out of its set B.
 * One definition for the host (border.c) and the first part's device
 * (cuda/cuda_parts_border.cu), so that both leave out the same points.
 *
 * After a round at limit L, every edge of the whole set shorter than the
 * cover joins points of one component (border.h), and only a crossing edge
 * shorter than the next cover can join two.  Its ends are within sqrt(L')
 * of each other (L' the next limit) and both have gaps within L'.  So a
 * point of the next set whose every other point there within sqrt(L') lies
 * in its own component (as Kruskal left the components) cannot end such an
 * edge.  The test looks through cells of side at least sqrt(L'): a point
 * is inner when its cell and the 3^dim around it hold points of its
 * component only, or none.  Cells are known by a 64-bit mix of their
 * integer coordinates; cells that share a key are tested as one, which
 * can only leave fewer points out.  The cells are made and merged as
 * arrays sorted by key (gemst_inner_cells), and looked up in a hash table
 * of them (gemst_inner_table, hash_slots.h).
 */
#ifndef GEMST_PARTS_INNER_H
#define GEMST_PARTS_INNER_H

#include <math.h>
#include <stdint.h>

#include "common.h"
#include "hash_slots.h"

/* The cells' side for limit: sqrt(limit), and room for the rounding of a
 * coordinate's quotient by it (working coordinates lie within [-2, 2], so
 * the quotients' rounding moves them by less than 2^-51 / side: two points
 * nearer than sqrt(limit) stay in neighbouring cells). */
static inline double gemst_inner_side(double limit)
{
    return sqrt(limit) * (1.0 + 0x1p-20) + 0x1p-40;
}

/* A bijection of 64-bit values that spreads every bit over all of them
 * (splitmix64's finisher). */
static inline GEMST_HD uint64_t gemst_inner_mix(uint64_t h)
{
    h ^= h >> 30;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 27;
    h *= UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 31);
}

/* The key of the cell at integer coordinates q (3, the third 0 in 2D): the
 * coordinates mixed in one after another, so that cells share keys only
 * by chance.  (A sum of products of the coordinates with odd constants
 * gave the cells (x, y, 0) and (-x, -y, 0) one key for odd x and y.) */
static inline GEMST_HD uint64_t gemst_inner_key(const int64_t q[3])
{
    uint64_t h = gemst_inner_mix((uint64_t)q[0]);
    h = gemst_inner_mix(h ^ (uint64_t)q[1]);
    h = gemst_inner_mix(h ^ (uint64_t)q[2]);
    return h == GEMST_HASH_FREE ? h - 1 : h; /* never a free slot's: that cell shares another's key */
}

/* The integer coordinates of the cell of working point w (dim values). */
static inline GEMST_HD void gemst_inner_cell(const double *w, int dim, double side, int64_t q[3])
{
    for (int d = 0; d < 3; d++) {
        const double x = d < dim ? floor(w[d] / side) : 0.0;
        q[d] = (int64_t)fmax(fmin(x, 0x1p62), -0x1p62);
    }
}

/* The cells: n keys ascending, and the least and greatest component of
 * each one's points. */
typedef struct gemst_inner_cells {
    const uint64_t *key;
    const uint32_t *lo, *hi;
    int64_t n;
} gemst_inner_cells;

/* The cells in a hash table (hash_slots.h): each cell's key at its slot,
 * and its least and greatest component at the same slot. */
typedef struct gemst_inner_table {
    const uint64_t *key;
    const uint32_t *lo, *hi;
    int bits;
} gemst_inner_table;

/* Whether the cell at q and those around it hold points of component
 * `comp` only, or none. */
static inline GEMST_HD int gemst_inner_alone(const gemst_inner_table *cells, const int64_t q[3], int dim,
                                             uint32_t comp)
{
    const int reach_z = dim == 3 ? 1 : 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -reach_z; dz <= reach_z; dz++) {
                const int64_t around[3] = {q[0] + dx, q[1] + dy, q[2] + dz};
                const int64_t slot = gemst_hash_find(cells->key, cells->bits, gemst_inner_key(around));
                if (slot >= 0 && (cells->lo[slot] != comp || cells->hi[slot] != comp))
                    return 0;
            }
    return 1;
}

#endif
