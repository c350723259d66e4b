/*
 * The models behind the generators of thin surfaces (shells, planes, tori;
 * generate_surfaces.c) and of curves (filaments; generate_filaments.c).
 * gemst_generate() draws its points from them; the tests read them to check
 * that every point lies where its model says.
 *
 * Each model is a few components (surfaces or curves) inside the unit cube,
 * sampled with a uniform density over their total measure M (area of the
 * surfaces in 3D, length of the curves and of the 2D "surfaces").  Their
 * thickness is a fixed fraction of the mean spacing of the points within the
 * manifold, s = (M / n)^(1/k) with k its dimension (2 for surfaces in 3D,
 * else 1): GEMST_THIN_FRACTION = 1/4 of s, half a typical nearest-neighbour
 * distance along the manifold, so that a point's nearest neighbours lie
 * along the surface or the curve and not across it, whatever n.  The
 * thickness is at most GEMST_THIN_MAX = 0.01, below the components' sizes
 * (radii of 0.025 and more), which only sets of a few thousand points reach.
 */
#ifndef GEMST_GENERATE_SHAPES_H
#define GEMST_GENERATE_SHAPES_H

#include <stdint.h>

#include "gridemst.h"
#include "tools/generate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GEMST_THIN_FRACTION 0.25
#define GEMST_THIN_MAX 0.01

/* e1 (and in 3D e2) completing the unit vector a to an orthonormal basis
 * of the plane (2D: the line) normal to it. */
void gemst_complete_basis(int dim, const double a[3], double e1[3], double e2[3]);

/* ------------------------------------------------------------ surfaces */

#define GEMST_SURFACES_MAX 12

/*
 * One thin surface.  A shell is the sphere (circle in 2D) |x - c| = r.  A
 * plane is the plane (line in 2D) through c normal to axis, inside the unit
 * cube.  A torus (3D only) has major radius r around axis through c, and
 * minor (tube) radius a.  A point lies within the set's thickness / 2 of its
 * surface.
 */
typedef struct gemst_surface {
    double c[3];
    double axis[3];       /* planes and tori: a unit vector */
    double e1[3], e2[3];  /* planes and tori: with axis, an orthonormal basis (2D: e1 only, e2 0) */
    double r, a;          /* shells and tori */
} gemst_surface;

typedef struct gemst_surfaces {
    gemst_gen_kind kind; /* GEMST_GEN_SHELLS, _PLANES or _TORI */
    int dim;
    int count;
    double measure;      /* their total area (3D) or length (2D) */
    double thickness;    /* the full thickness: each point within thickness / 2 of its surface */
    uint64_t key;        /* the points' stream */
    gemst_surface s[GEMST_SURFACES_MAX];
    double cdf[GEMST_SURFACES_MAX]; /* shares of the points, by measure (choice_pick) */
    int guide[GEMST_SURFACES_MAX];
} gemst_surfaces;

/* The model of n points of a surface kind in dimension dim (tori: 3 only;
 * checked by the caller). */
void gemst_surfaces_init(gemst_surfaces *m, gemst_gen_kind kind, int64_t n, int dim, uint64_t seed);

/* Point i of the set, quantized into p[dim]. */
void gemst_surfaces_point(const gemst_surfaces *m, int64_t i, float *p);

/* ------------------------------------------------------------ filaments */

/*
 * Curves: uniform cubic B-splines, each through GEMST_FILAMENT_NODES control
 * points that a persistent random walk lays inside the unit cube; spline
 * segment j (0 <= j < GEMST_FILAMENT_NODES - 3) runs along nodes j to j + 3.
 * A point lies within radius of its curve, in the plane (line in 2D) normal
 * to the curve there.
 */
#define GEMST_FILAMENT_NODES 20
#define GEMST_FILAMENT_SEGMENTS (GEMST_FILAMENT_NODES - 3)
/* Arc-length table entries per spline segment (chords: lengths short by about 1e-4). */
#define GEMST_FILAMENT_SUBSTEPS 8
#define GEMST_FILAMENT_TABLE (GEMST_FILAMENT_SEGMENTS * GEMST_FILAMENT_SUBSTEPS + 1)

typedef struct gemst_filaments {
    int dim;
    int count;
    double length;    /* total */
    double radius;    /* half the thickness */
    uint64_t key;     /* the points' stream */
    double (*node)[GEMST_FILAMENT_NODES][3];  /* [count]: control points */
    double (*arc)[GEMST_FILAMENT_TABLE];      /* [count]: arc length at substep k, from 0 */
    double *cdf;      /* [count]: shares of the points, by length (choice_pick) */
    int *guide;       /* [count] */
} gemst_filaments;

/* The model of n points in dimension dim; GRIDEMST_ERR_NO_MEMORY (with a
 * message in err) when its tables cannot be allocated.  Release with
 * gemst_filaments_free, also after a failure. */
int gemst_filaments_init(gemst_filaments *m, int64_t n, int dim, uint64_t seed, gridemst_error *err);
void gemst_filaments_free(gemst_filaments *m);

/* Point i of the set, quantized into p[dim]. */
void gemst_filaments_point(const gemst_filaments *m, int64_t i, float *p);

#ifdef __cplusplus
}
#endif

#endif
