/*
 * Slabs: a partition of the directions around a query point q into cones
 * whose every pairwise angle is below 60 degrees (DESIGN.md, rule 3).  For
 * the nearest point p of a slab (in edge order) and any other point w of the
 * same slab, |pw| < |qw|: the edge (q, w) is the longest of the cycle
 * q-p-w and never in the tree (the uniqueness property, Qiao & Creput 2021,
 * section 3.1).
 *
 * 2D: 8 sectors of 45 degrees, by the signs of dx and dy and whether
 *     |dy| > |dx|.
 * 3D: 48 cones, by the dominant axis, the signs of dx, dy, dz, and which of
 *     the two other axes is larger; the widest angle in a cone is 54.7
 *     degrees (between (1,0,0) and (1,1,1)).  The paper's 24 regions reach
 *     exactly 60 degrees and are not used.
 * Boundaries go to one slab by fixed rules: a zero component counts as
 * positive, and ties in magnitude go to the earlier axis.
 */
#ifndef GEMST_SLAB_H
#define GEMST_SLAB_H

#include "real.h"

#define GEMST_SLABS_2D 8
#define GEMST_SLABS_3D 48

static inline GEMST_HD int gemst_slab_count(int dim)
{
    return dim == 2 ? GEMST_SLABS_2D : GEMST_SLABS_3D;
}

/* The mask with one bit per slab of the dimension. */
static inline GEMST_HD uint64_t gemst_slab_full_mask(int dim)
{
    return dim == 2 ? (uint64_t)0xff : (((uint64_t)1 << GEMST_SLABS_3D) - 1);
}

static inline GEMST_HD int gemst_slab_2d(gemst_real dx, gemst_real dy)
{
    gemst_real ax = dx < 0 ? -dx : dx;
    gemst_real ay = dy < 0 ? -dy : dy;
    int dominant_y = ay > ax;
    return dominant_y * 4 + (dx < 0) * 2 + (dy < 0);
}

static inline GEMST_HD int gemst_slab_3d(gemst_real dx, gemst_real dy, gemst_real dz)
{
    gemst_real ax = dx < 0 ? -dx : dx;
    gemst_real ay = dy < 0 ? -dy : dy;
    gemst_real az = dz < 0 ? -dz : dz;
    int signs = (dx < 0) * 4 + (dy < 0) * 2 + (dz < 0);
    int dominant, second_larger;
    if (ax >= ay && ax >= az) {
        dominant = 0;
        second_larger = az > ay; /* the others are y, z */
    } else if (ay >= az) {
        dominant = 1;
        second_larger = az > ax; /* the others are x, z */
    } else {
        dominant = 2;
        second_larger = ay > ax; /* the others are x, y */
    }
    return dominant * 16 + second_larger * 8 + signs;
}

/*
 * The extreme rays of slab s (unit vectors; every direction of the slab is
 * a non-negative combination of them): 2 in 2D, 3 in 3D.  Returns how many.
 * 2D slab {x >= |y|, signs}: (1,0), (1,1)/sqrt2 with the signs; 3D slab with
 * dominant axis a, second axis b: e_a, (e_a + e_b)/sqrt2, (1,1,1)/sqrt3,
 * with the signs.
 */
static inline GEMST_HD int gemst_slab_rays(int dim, int s, double ray[3][3])
{
    const double r2 = 0.70710678118654752440, r3 = 0.57735026918962576451;
    for (int i = 0; i < 3; i++)
        ray[i][0] = ray[i][1] = ray[i][2] = 0.0;
    if (dim == 2) {
        int a = s / 4, b = 1 - a;
        double sign[2] = {(s & 2) ? -1.0 : 1.0, (s & 1) ? -1.0 : 1.0};
        ray[0][a] = sign[a];
        ray[1][a] = sign[a] * r2;
        ray[1][b] = sign[b] * r2;
        return 2;
    }
    int a = s / 16, second_larger = (s / 8) & 1;
    int others[3][2] = {{1, 2}, {0, 2}, {0, 1}};
    int b = others[a][second_larger], c = others[a][1 - second_larger];
    double sign[3] = {(s & 4) ? -1.0 : 1.0, (s & 2) ? -1.0 : 1.0, (s & 1) ? -1.0 : 1.0};
    ray[0][a] = sign[a];
    ray[1][a] = sign[a] * r2;
    ray[1][b] = sign[b] * r2;
    ray[2][a] = sign[a] * r3;
    ray[2][b] = sign[b] * r3;
    ray[2][c] = sign[c] * r3;
    return 3;
}

/* Slab of the direction from q to p, d = p - q. */
static inline GEMST_HD int gemst_slab(int dim, gemst_real dx, gemst_real dy, gemst_real dz)
{
    return dim == 2 ? gemst_slab_2d(dx, dy) : gemst_slab_3d(dx, dy, dz);
}

#endif
