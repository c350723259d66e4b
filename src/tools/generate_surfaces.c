/*
 * Thin surfaces: shells, planes and tori (generate_shapes.h describes the
 * models and how thick they are).
 *
 *   shells  SHELL_COUNT spheres (circles in 2D) with radii log-uniform in
 *           [0.05, 0.25): surfaces of widely varying curvature
 *   planes  PLANE_COUNT planes (lines in 2D) at random orientations through
 *           points uniform in [0.25, 0.75)^dim, cut by the unit cube: thin
 *           slabs across the cube
 *   tori    TORUS_COUNT tori at random orientations, major radii log-uniform
 *           in [0.1, 0.25), tube radii a quarter to a half of that
 *
 * Each shell or torus lies inside the unit cube: its centre is drawn at
 * least its bounding radius from every face.  Surfaces may cross one
 * another.  A point picks a surface in proportion to its measure, a place
 * uniform on it, and a depth uniform across the thickness.
 */
#include <math.h>
#include <string.h>

#include "tools/generate_random.h"
#include "tools/generate_shapes.h"

#define SHELL_COUNT 12
#define SHELL_R_MIN 0.05
#define SHELL_R_RANGE 5.0
#define PLANE_COUNT 12
#define PLANE_AREA_SAMPLES (1 << 16) /* estimate a plane's area to about 0.5% */
#define TORUS_COUNT 8
#define TORUS_R_MIN 0.1
#define TORUS_R_RANGE 2.5
#define TORUS_TUBE_MIN 0.25 /* tube radius / major radius */
#define TORUS_TUBE_MAX 0.5

void gemst_complete_basis(int dim, const double a[3], double e1[3], double e2[3])
{
    if (dim == 2) {
        e1[0] = -a[1];
        e1[1] = a[0];
        return;
    }
    /* Gram-Schmidt from the coordinate axis least aligned with a */
    int k = fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2]) ? 0 : fabs(a[1]) <= fabs(a[2]) ? 1 : 2;
    double q = 0.0;
    for (int d = 0; d < 3; d++) {
        e1[d] = (d == k) - a[k] * a[d];
        q += e1[d] * e1[d];
    }
    for (int d = 0; d < 3; d++)
        e1[d] /= sqrt(q);
    e2[0] = a[1] * e1[2] - a[2] * e1[1];
    e2[1] = a[2] * e1[0] - a[0] * e1[2];
    e2[2] = a[0] * e1[1] - a[1] * e1[0];
}

/* A place on plane s drawn uniformly from the square (segment in 2D) of
 * half-width sqrt(dim) / 2 around c, which holds the plane's part inside
 * the unit cube; 0 if it falls outside the cube. */
static int plane_place(int dim, const gemst_surface *s, rng *r, double x[3])
{
    double half = 0.5 * sqrt((double)dim), u = half * (2.0 * rng_unit(r) - 1.0);
    double v = dim == 3 ? half * (2.0 * rng_unit(r) - 1.0) : 0.0;
    int inside = 1;
    for (int d = 0; d < dim; d++) {
        x[d] = s->c[d] + u * s->e1[d] + v * s->e2[d];
        inside &= x[d] >= 0.0 && x[d] <= 1.0;
    }
    return inside;
}

/* Plane b: through a point uniform in the cube's middle, at a uniform
 * orientation; c becomes the point of the plane nearest the cube's centre.
 * Returns its area (length in 2D) inside the cube, estimated from the share
 * of its square's places that fall inside. */
static double draw_plane(int dim, gemst_surface *s, rng *r)
{
    double q = 0.0, x[3];
    rng_direction(r, dim, s->axis);
    gemst_complete_basis(dim, s->axis, s->e1, s->e2);
    for (int d = 0; d < dim; d++) {
        s->c[d] = 0.25 + 0.5 * rng_unit(r);
        q += (s->c[d] - 0.5) * s->axis[d];
    }
    for (int d = 0; d < dim; d++)
        s->c[d] = 0.5 + q * s->axis[d];
    int inside = 0;
    for (int k = 0; k < PLANE_AREA_SAMPLES; k++)
        inside += plane_place(dim, s, r, x);
    return (double)inside / PLANE_AREA_SAMPLES * (dim == 3 ? 3.0 : sqrt(2.0));
}

/* Draws surface b; returns its area (3D) or length (2D). */
static double draw_surface(gemst_surfaces *m, uint64_t key, int b)
{
    gemst_surface *s = &m->s[b];
    rng r = rng_at(key, (uint64_t)b);
    double reach; /* bounding radius */
    if (m->kind == GEMST_GEN_PLANES)
        return draw_plane(m->dim, s, &r);
    if (m->kind == GEMST_GEN_SHELLS) {
        s->r = rng_log_uniform(&r, SHELL_R_MIN, SHELL_R_RANGE);
        reach = s->r;
    } else {
        s->r = rng_log_uniform(&r, TORUS_R_MIN, TORUS_R_RANGE);
        s->a = s->r * (TORUS_TUBE_MIN + (TORUS_TUBE_MAX - TORUS_TUBE_MIN) * rng_unit(&r));
        reach = s->r + s->a;
        rng_direction(&r, m->dim, s->axis);
        gemst_complete_basis(m->dim, s->axis, s->e1, s->e2);
    }
    for (int d = 0; d < m->dim; d++)
        s->c[d] = reach + (1.0 - 2.0 * reach) * rng_unit(&r);
    if (m->kind == GEMST_GEN_SHELLS)
        return m->dim == 3 ? 2.0 * TWO_PI * s->r * s->r : TWO_PI * s->r;
    return TWO_PI * TWO_PI * s->r * s->a;
}

void gemst_surfaces_init(gemst_surfaces *m, gemst_gen_kind kind, int64_t n, int dim, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->dim = dim;
    m->count = kind == GEMST_GEN_SHELLS ? SHELL_COUNT : kind == GEMST_GEN_PLANES ? PLANE_COUNT : TORUS_COUNT;
    m->key = stream_key(seed, kind, STREAM_POINTS);
    uint64_t key = stream_key(seed, kind, STREAM_SHAPES);
    double total = 0.0;
    for (int b = 0; b < m->count; b++) {
        total += draw_surface(m, key, b);
        m->cdf[b] = total;
    }
    choice_finish(m->cdf, m->guide, m->count);
    m->measure = total;
    double spacing = pow(total / (double)n, 1.0 / (dim - 1));
    m->thickness = fmin(GEMST_THIN_FRACTION * spacing, GEMST_THIN_MAX);
}

/* A point depth from the torus s (uniform in area: the angle theta around
 * the tube is drawn with density proportional to the circle it sweeps). */
static void torus_point(const gemst_surface *s, rng *r, double depth, double x[3])
{
    double phi = TWO_PI * rng_unit(r), theta;
    do
        theta = TWO_PI * rng_unit(r);
    while (rng_unit(r) * (s->r + s->a) > s->r + s->a * cos(theta));
    double tube = s->a + depth;
    double rho = s->r + tube * cos(theta), h = tube * sin(theta);
    double cp = cos(phi), sp = sin(phi);
    for (int d = 0; d < 3; d++)
        x[d] = s->c[d] + rho * (cp * s->e1[d] + sp * s->e2[d]) + h * s->axis[d];
}

void gemst_surfaces_point(const gemst_surfaces *m, int64_t i, float *p)
{
    const int dim = m->dim;
    rng r = rng_at(m->key, (uint64_t)i);
    const gemst_surface *s = &m->s[choice_pick(m->cdf, m->guide, m->count, rng_unit(&r))];
    double depth = m->thickness * (rng_unit(&r) - 0.5); /* signed, from the surface */
    double x[3];
    switch (m->kind) {
    case GEMST_GEN_SHELLS: {
        double v[3] = {0.0, 0.0, 0.0};
        rng_direction(&r, dim, v);
        for (int d = 0; d < dim; d++)
            x[d] = s->c[d] + (s->r + depth) * v[d];
        break;
    }
    case GEMST_GEN_PLANES:
        while (!plane_place(dim, s, &r, x))
            ;
        for (int d = 0; d < dim; d++)
            x[d] += depth * s->axis[d];
        break;
    default:
        torus_point(s, &r, depth, x);
        break;
    }
    store_unit(dim, x, p);
}
