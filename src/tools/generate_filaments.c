/*
 * Filaments: points along smooth random curves with a small transverse
 * scatter, like the cosmic web's filaments, neurons or roads
 * (generate_shapes.h describes the model and how thick it is).
 *
 * Each curve is a uniform cubic B-spline (smooth: continuous curvature)
 * through the nodes of a persistent random walk: it starts at a uniform
 * place in a uniform direction, steps FILAMENT_STEP, and turns by adding
 * FILAMENT_TURN times a vector uniform in the unit ball to its direction (a
 * typical turn of 20 degrees per step: radii of curvature about 0.1).  A
 * step that would leave the unit cube is reflected at the face like a
 * billiard ball, so every node, and the spline in their convex hull, stays
 * inside.  With FILAMENT_NODES nodes a curve is about 0.8 long.
 *
 * There are FILAMENT_COUNT_3D curves in 3D and FILAMENT_COUNT_2D in 2D: the
 * plane fills up with curves much faster than space, and these counts give
 * both sets about the same mean gap between neighbouring curves (volume /
 * length in 2D, sqrt(volume / length) in 3D: about 0.06).
 *
 * A point picks a curve in proportion to its length, a place uniform in arc
 * length on it (through a table of chord lengths), and an offset uniform in
 * the disc (segment in 2D) of the filament's radius normal to the curve.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tools/generate_random.h"
#include "tools/generate_shapes.h"

#define FILAMENT_COUNT_3D 300
#define FILAMENT_COUNT_2D 20
#define FILAMENT_STEP 0.05
#define FILAMENT_TURN 0.5

static double normalize(int dim, double v[3])
{
    double q = 0.0;
    for (int d = 0; d < dim; d++)
        q += v[d] * v[d];
    q = sqrt(q);
    for (int d = 0; d < dim; d++)
        v[d] /= q;
    return q;
}

/* The nodes of curve f: a persistent random walk inside the unit cube. */
static void walk(const gemst_filaments *m, uint64_t key, int f)
{
    double(*node)[3] = m->node[f];
    rng r = rng_at(key, (uint64_t)f);
    double dir[3], turn[3];
    for (int d = 0; d < m->dim; d++)
        node[0][d] = rng_unit(&r);
    rng_direction(&r, m->dim, dir);
    for (int j = 1; j < GEMST_FILAMENT_NODES; j++) {
        for (int d = 0; d < m->dim; d++) {
            double x = node[j - 1][d] + FILAMENT_STEP * dir[d];
            if (x < 0.0 || x > 1.0)
                dir[d] = -dir[d];
            node[j][d] = node[j - 1][d] + FILAMENT_STEP * dir[d];
        }
        rng_ball(&r, m->dim, turn);
        for (int d = 0; d < m->dim; d++)
            dir[d] += FILAMENT_TURN * turn[d];
        normalize(m->dim, dir);
    }
}

/* Position x and derivative dx of curve f at t in [0, 1) of segment j. */
static void spline_at(const gemst_filaments *m, int f, int j, double t, double x[3], double dx[3])
{
    const double(*p)[3] = (const double(*)[3])m->node[f] + j;
    double s = 1.0 - t, t2 = t * t, t3 = t2 * t;
    double b0 = s * s * s, b1 = 3.0 * t3 - 6.0 * t2 + 4.0, b2 = -3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0, b3 = t3;
    double d0 = -s * s, d1 = 3.0 * t2 - 4.0 * t, d2 = -3.0 * t2 + 2.0 * t + 1.0, d3 = t2;
    for (int d = 0; d < m->dim; d++) {
        x[d] = (b0 * p[0][d] + b1 * p[1][d] + b2 * p[2][d] + b3 * p[3][d]) / 6.0;
        dx[d] = (d0 * p[0][d] + d1 * p[1][d] + d2 * p[2][d] + d3 * p[3][d]) / 2.0;
    }
}

/* Curve f's arc-length table: chord lengths between its substeps, summed. */
static double arc_table(const gemst_filaments *m, int f)
{
    double *arc = m->arc[f], prev[3], x[3], dx[3];
    arc[0] = 0.0;
    spline_at(m, f, 0, 0.0, prev, dx);
    for (int k = 1; k < GEMST_FILAMENT_TABLE; k++) {
        int j = (k - 1) / GEMST_FILAMENT_SUBSTEPS;
        spline_at(m, f, j, (double)(k - (j * GEMST_FILAMENT_SUBSTEPS)) / GEMST_FILAMENT_SUBSTEPS, x, dx);
        double q = 0.0;
        for (int d = 0; d < m->dim; d++) {
            q += (x[d] - prev[d]) * (x[d] - prev[d]);
            prev[d] = x[d];
        }
        arc[k] = arc[k - 1] + sqrt(q);
    }
    return arc[GEMST_FILAMENT_TABLE - 1];
}

int gemst_filaments_init(gemst_filaments *m, int64_t n, int dim, uint64_t seed, gridemst_error *err)
{
    memset(m, 0, sizeof *m);
    m->dim = dim;
    m->count = dim == 3 ? FILAMENT_COUNT_3D : FILAMENT_COUNT_2D;
    m->key = stream_key(seed, GEMST_GEN_FILAMENTS, STREAM_POINTS);
    size_t count = (size_t)m->count;
    m->node = malloc(count * sizeof *m->node);
    m->arc = malloc(count * sizeof *m->arc);
    m->cdf = malloc(count * sizeof *m->cdf);
    m->guide = malloc(count * sizeof *m->guide);
    if (!m->node || !m->arc || !m->cdf || !m->guide)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the filaments' curves");
    uint64_t key = stream_key(seed, GEMST_GEN_FILAMENTS, STREAM_SHAPES);
    double total = 0.0;
    for (int f = 0; f < m->count; f++) {
        walk(m, key, f);
        total += arc_table(m, f);
        m->cdf[f] = total;
    }
    choice_finish(m->cdf, m->guide, m->count);
    m->length = total;
    m->radius = 0.5 * fmin(GEMST_THIN_FRACTION * total / (double)n, GEMST_THIN_MAX);
    return GRIDEMST_OK;
}

void gemst_filaments_free(gemst_filaments *m)
{
    free(m->node);
    free(m->arc);
    free(m->cdf);
    free(m->guide);
    memset(m, 0, sizeof *m);
}

/* The table entry k with arc[k] <= u < arc[k + 1] (u below the curve's length). */
static int arc_find(const double *arc, double u)
{
    int lo = 0, hi = GEMST_FILAMENT_TABLE - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (arc[mid] <= u)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void gemst_filaments_point(const gemst_filaments *m, int64_t i, float *p)
{
    const int dim = m->dim;
    rng r = rng_at(m->key, (uint64_t)i);
    int f = choice_pick(m->cdf, m->guide, m->count, rng_unit(&r));
    const double *arc = m->arc[f];
    double u = rng_unit(&r) * arc[GEMST_FILAMENT_TABLE - 1];
    int k = arc_find(arc, u);
    double chord = arc[k + 1] - arc[k];
    double tau = (k + (chord > 0.0 ? (u - arc[k]) / chord : 0.0)) / GEMST_FILAMENT_SUBSTEPS;
    int j = (int)tau < GEMST_FILAMENT_SEGMENTS ? (int)tau : GEMST_FILAMENT_SEGMENTS - 1;
    double x[3], tangent[3], e1[3], e2[3] = {0.0, 0.0, 0.0}, v[3] = {0.0, 0.0, 0.0}; /* 2D: v[1], e2 stay 0 */
    spline_at(m, f, j, tau - j, x, tangent);
    if (normalize(dim, tangent) == 0.0 || !isfinite(tangent[0])) {
        /* a cusp (the walk reversed at a face): any normal will do */
        tangent[0] = 1.0;
        tangent[1] = tangent[2] = 0.0;
    }
    gemst_complete_basis(dim, tangent, e1, e2);
    rng_ball(&r, dim - 1, v);
    for (int d = 0; d < dim; d++)
        x[d] += m->radius * (v[0] * e1[d] + v[1] * e2[d]);
    store_unit(dim, x, p);
}
