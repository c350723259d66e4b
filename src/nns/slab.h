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

/*
 * The uniqueness property in computed arithmetic.  For q, p, w in one slab
 * with a = |qp| <= b = |qw|: |qw|^2 - |pw|^2 >= 2ab cos(54.7) - a^2 >=
 * 0.155 ab, while each computed squared distance is within 5 eps b^2 of its
 * value.  The computed order then agrees with geometry when a > 65 eps b.
 * Float's working coordinates lie in the unit cube, so b <= sqrt 3 and
 * a >= 128 eps suffices; double's lie in [-1, 1]^3 (grid/grid_plan.h), so
 * b <= 2 sqrt 3 and a >= 256 eps.  Slab reasoning (pruning, closing,
 * certainty) is used only for points at least that far from q; nearer
 * ones, near-duplicates of q, are treated like any other point.
 */
#if GEMST_REAL_IS_DOUBLE
#define GEMST_SLAB_MIN_D2 ((gemst_real)0x1p-90) /* (256 * 2^-53)^2 */
#else
#define GEMST_SLAB_MIN_D2 ((gemst_real)0x1p-34) /* (128 * 2^-24)^2 */
#endif

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

/* In comparisons and bit operations alone, without branches: the slab
 * depends on the data, and a branch per axis test is mispredicted on
 * neighbours spread around the query. */
static inline GEMST_HD int gemst_slab_3d(gemst_real dx, gemst_real dy, gemst_real dz)
{
    gemst_real ax = dx < 0 ? -dx : dx;
    gemst_real ay = dy < 0 ? -dy : dy;
    gemst_real az = dz < 0 ? -dz : dz;
    int signs = (dx < 0) * 4 + (dy < 0) * 2 + (dz < 0);
    int x_dominant = (ax >= ay) & (ax >= az);
    int y_dominant = !x_dominant & (ay >= az);
    int z_dominant = !x_dominant & !y_dominant;
    /* which of the two other axes is larger: z over y, z over x, y over x */
    int second_larger = (x_dominant & (az > ay)) | (y_dominant & (az > ax)) | (z_dominant & (ay > ax));
    return (y_dominant + 2 * z_dominant) * 16 + second_larger * 8 + signs;
}

/*
 * For d that makes an acute angle with every direction of 2D slab s: the
 * smallest dot product of d with a unit direction of the slab, the minimum
 * over its two extreme rays (every direction of the cone is a non-negative
 * combination of them).  Otherwise the result is not positive, which is
 * all the caller needs to know.  For slab {x >= |y|} with its signs the
 * rays are (sx, 0) and (sx, sy)/sqrt2.
 */
static inline GEMST_HD double gemst_slab_min_dot_2d(int s, double dx, double dy)
{
    const double r2 = 0.70710678118654752440;
    double sx = (s & 2) ? -dx : dx, sy = (s & 1) ? -dy : dy; /* d with the slab's signs folded in */
    double along = s / 4 ? sy : sx, across = s / 4 ? sx : sy; /* the dominant axis first */
    double diagonal = (along + across) * r2;
    return along < diagonal ? along : diagonal;
}

/* Slab of the direction from q to p, d = p - q. */
static inline GEMST_HD int gemst_slab(int dim, gemst_real dx, gemst_real dy, gemst_real dz)
{
    return dim == 2 ? gemst_slab_2d(dx, dy) : gemst_slab_3d(dx, dy, dz);
}

#endif
