/* Tests of the thin surfaces and the filaments (src/tools/generate_surfaces.c,
 * generate_filaments.c): every point lies where its model says, within the
 * stated thickness, spread across it; the models' measures and thicknesses
 * follow their documented rules (recomputed here by other means); and the
 * sets have the dimension of a surface or a curve, measured from the points
 * alone.  Fixed seeds and generous bounds: none can flake. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tools/generate.h"
#include "tools/generate_shapes.h"

#define SEED 20240229u
#define N_MODEL 20000
#define N_DIM 200000
#define QUANTUM_SLACK (2.0 * 0x1p-24) /* quantization: under 2^-24 per coordinate */

/* Generates a set (it must succeed); free the result. */
static float *gen(gemst_gen_kind kind, int64_t n, int dim)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_generate(kind, n, dim, SEED, &ps, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "%s %dD: %s", gemst_gen_kind_name(kind), dim, err.message);
    return ps.coords;
}

static double dot(int dim, const double *a, const double *b)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++)
        s += a[d] * b[d];
    return s;
}

/* ------------------------------------------------------------ surfaces */

/* The surfaces' loop: shells 2D, shells 3D, planes 2D, planes 3D, tori 3D. */
static const struct {
    gemst_gen_kind kind;
    int dim;
} SURFACES[] = {{GEMST_GEN_SHELLS, 2}, {GEMST_GEN_SHELLS, 3}, {GEMST_GEN_PLANES, 2}, {GEMST_GEN_PLANES, 3},
                {GEMST_GEN_TORI, 3}};
#define SURFACE_CASES ((int)(sizeof SURFACES / sizeof SURFACES[0]))

/* Signed distance from x to surface s, by its definition in generate_shapes.h. */
static double surface_depth(gemst_gen_kind kind, int dim, const gemst_surface *s, const double *x)
{
    double y[3];
    for (int d = 0; d < dim; d++)
        y[d] = x[d] - s->c[d];
    if (kind == GEMST_GEN_SHELLS)
        return sqrt(dot(dim, y, y)) - s->r;
    if (kind == GEMST_GEN_PLANES)
        return dot(dim, y, s->axis);
    double h = dot(3, y, s->axis), rho = sqrt(fmax(dot(3, y, y) - h * h, 0.0));
    return hypot(rho - s->r, h) - s->a;
}

/* A plane's area (length in 2D) inside the unit cube, by the midpoint rule on
 * a grid over its square of half-width sqrt(dim) / 2 around c. */
static double plane_measure(int dim, const gemst_surface *s)
{
    const int steps = 600;
    double half = 0.5 * sqrt((double)dim), cell = 2.0 * half / steps;
    int64_t inside = 0;
    for (int a = 0; a < steps; a++) {
        for (int b = 0; b < (dim == 3 ? steps : 1); b++) {
            double u = -half + (a + 0.5) * cell, v = dim == 3 ? -half + (b + 0.5) * cell : 0.0;
            int in = 1;
            for (int d = 0; d < dim; d++) {
                double x = s->c[d] + u * s->e1[d] + v * s->e2[d];
                in &= x >= 0.0 && x <= 1.0;
            }
            inside += in;
        }
    }
    return (double)inside * (dim == 3 ? cell * cell : cell);
}

static double surface_measure(gemst_gen_kind kind, int dim, const gemst_surface *s)
{
    const double pi = acos(-1.0);
    if (kind == GEMST_GEN_SHELLS)
        return dim == 3 ? 4.0 * pi * s->r * s->r : 2.0 * pi * s->r;
    if (kind == GEMST_GEN_PLANES)
        return plane_measure(dim, s);
    return 4.0 * pi * pi * s->r * s->a;
}

/* The model: sizes in their documented ranges, shells and tori inside the
 * cube, planes through its middle, orthonormal frames; the total measure
 * and the thickness by their rule. */
START_TEST(test_surface_model)
{
    gemst_gen_kind kind = SURFACES[_i].kind;
    int dim = SURFACES[_i].dim;
    gemst_surfaces m;
    gemst_surfaces_init(&m, kind, N_MODEL, dim, SEED);
    ck_assert_int_eq(m.count, kind == GEMST_GEN_TORI ? 8 : 12);
    double total = 0.0;
    for (int b = 0; b < m.count; b++) {
        const gemst_surface *s = &m.s[b];
        double reach = 0.0;
        if (kind == GEMST_GEN_SHELLS) {
            ck_assert(s->r >= 0.05 && s->r < 0.25);
            reach = s->r;
        } else if (kind == GEMST_GEN_TORI) {
            ck_assert(s->r >= 0.1 && s->r < 0.25);
            ck_assert(s->a >= 0.25 * s->r && s->a < 0.5 * s->r);
            reach = s->r + s->a;
        }
        for (int d = 0; d < dim; d++)
            ck_assert_msg(s->c[d] - reach >= 0.0 && s->c[d] + reach <= 1.0, "surface %d leaves the cube", b);
        if (kind != GEMST_GEN_SHELLS) {
            const double *f[3] = {s->axis, s->e1, s->e2};
            for (int p = 0; p < dim; p++)
                for (int q = 0; q < dim; q++)
                    ck_assert_double_eq_tol(dot(dim, f[p], f[q]), p == q, 1e-12);
        }
        if (kind == GEMST_GEN_PLANES) /* the plane passes through the middle of the cube */
            ck_assert_double_le(fabs(surface_depth(kind, dim, s, (const double[3]){0.5, 0.5, 0.5})),
                                0.25 * sqrt((double)dim));
        total += surface_measure(kind, dim, s);
    }
    ck_assert_double_eq_tol(m.measure / total, 1.0, 0.01);
    double spacing = pow(total / N_MODEL, 1.0 / (dim - 1));
    ck_assert_double_eq_tol(m.thickness / fmin(0.25 * spacing, 0.01), 1.0, 0.01);
    /* small sets reach the cap */
    gemst_surfaces_init(&m, kind, 10, dim, SEED);
    ck_assert_double_eq(m.thickness, 0.01);
}
END_TEST

/* Every point within half the thickness of a surface, and spread evenly
 * across the thickness (depths in four equal bins). */
START_TEST(test_surface_points)
{
    gemst_gen_kind kind = SURFACES[_i].kind;
    int dim = SURFACES[_i].dim;
    gemst_surfaces m;
    gemst_surfaces_init(&m, kind, N_MODEL, dim, SEED);
    float *p = gen(kind, N_MODEL, dim);
    int64_t bins[4] = {0};
    for (int64_t i = 0; i < N_MODEL; i++) {
        double x[3], best = INFINITY;
        for (int d = 0; d < dim; d++)
            x[d] = p[i * dim + d];
        for (int b = 0; b < m.count; b++) {
            double depth = surface_depth(kind, dim, &m.s[b], x);
            if (fabs(depth) < fabs(best))
                best = depth;
        }
        REQUIRE(fabs(best) <= 0.5 * m.thickness + QUANTUM_SLACK, "%s %dD: point %lld at %g from every surface",
                gemst_gen_kind_name(kind), dim, (long long)i, best);
        int bin = (int)floor((best / m.thickness + 0.5) * 4.0);
        bins[bin < 0 ? 0 : bin > 3 ? 3 : bin]++;
    }
    for (int k = 0; k < 4; k++)
        ck_assert_msg(fabs((double)bins[k] / N_MODEL - 0.25) < 0.03, "%s %dD: depth bin %d holds %lld",
                      gemst_gen_kind_name(kind), dim, k, (long long)bins[k]);
    free(p);
}
END_TEST

/* ------------------------------------------------------------ filaments */

/* Curve f at parameter t in [0, 1) of segment j, by de Boor's algorithm on
 * the uniform knots (the generator sums the basis polynomials). */
static void de_boor(const gemst_filaments *m, int f, int j, double t, double x[3])
{
    double q[4][3];
    memcpy(q, m->node[f][j], sizeof q);
    for (int r = 1; r <= 3; r++)
        for (int i = 3; i >= r; i--) {
            double alpha = (t + 3 - i) / (4 - r);
            for (int d = 0; d < m->dim; d++)
                q[i][d] = (1.0 - alpha) * q[i - 1][d] + alpha * q[i][d];
        }
    memcpy(x, q[3], sizeof q[3]);
}

#define CHORDS 64 /* per spline segment */

/* Distance from x to the chords of segment j of curve f. */
static double chords_distance(const gemst_filaments *m, int f, int j, const double *x)
{
    double best = INFINITY, a[3], b[3];
    de_boor(m, f, j, 0.0, a);
    for (int k = 1; k <= CHORDS; k++) {
        de_boor(m, f, j, (double)k / CHORDS, b);
        double ab[3], ax[3];
        for (int d = 0; d < m->dim; d++) {
            ab[d] = b[d] - a[d];
            ax[d] = x[d] - a[d];
        }
        double len2 = dot(m->dim, ab, ab), s = len2 > 0.0 ? fmin(fmax(dot(m->dim, ax, ab) / len2, 0.0), 1.0) : 0.0;
        double q = 0.0;
        for (int d = 0; d < m->dim; d++)
            q += (ax[d] - s * ab[d]) * (ax[d] - s * ab[d]);
        best = fmin(best, sqrt(q));
        memcpy(a, b, sizeof a);
    }
    return best;
}

/* Distance from x to the nearest curve; segments whose control points' box
 * (which holds the segment) lies farther than bound are skipped. */
static double curves_distance(const gemst_filaments *m, const double *x, double bound)
{
    double best = INFINITY;
    for (int f = 0; f < m->count; f++)
        for (int j = 0; j < GEMST_FILAMENT_SEGMENTS; j++) {
            int near = 1;
            for (int d = 0; d < m->dim && near; d++) {
                double lo = INFINITY, hi = -INFINITY;
                for (int k = j; k < j + 4; k++) {
                    lo = fmin(lo, m->node[f][k][d]);
                    hi = fmax(hi, m->node[f][k][d]);
                }
                near = x[d] >= lo - bound && x[d] <= hi + bound;
            }
            if (near)
                best = fmin(best, chords_distance(m, f, j, x));
        }
    return best;
}

/* The model: nodes inside the cube one step apart, the curves' total length
 * (chords of 64 per segment here, 8 in the generator) and the radius by
 * their rule. */
START_TEST(test_filament_model)
{
    int dim = 2 + _i;
    gemst_filaments m;
    gridemst_error err = {0};
    ck_assert_int_eq(gemst_filaments_init(&m, N_MODEL, dim, SEED, &err), GRIDEMST_OK);
    ck_assert_int_eq(m.count, dim == 3 ? 300 : 20);
    double total = 0.0;
    for (int f = 0; f < m.count; f++) {
        for (int k = 0; k < GEMST_FILAMENT_NODES; k++) {
            for (int d = 0; d < dim; d++)
                ck_assert(m.node[f][k][d] >= 0.0 && m.node[f][k][d] <= 1.0);
            if (k > 0) {
                double step[3];
                for (int d = 0; d < dim; d++)
                    step[d] = m.node[f][k][d] - m.node[f][k - 1][d];
                ck_assert_double_eq_tol(sqrt(dot(dim, step, step)), 0.05, 1e-12);
            }
        }
        for (int j = 0; j < GEMST_FILAMENT_SEGMENTS; j++) {
            double a[3], b[3];
            de_boor(&m, f, j, 0.0, a);
            for (int k = 1; k <= CHORDS; k++) {
                de_boor(&m, f, j, (double)k / CHORDS, b);
                double ab[3];
                for (int d = 0; d < dim; d++)
                    ab[d] = b[d] - a[d];
                total += sqrt(dot(dim, ab, ab));
                memcpy(a, b, sizeof a);
            }
        }
    }
    ck_assert_double_eq_tol(m.length / total, 1.0, 1e-3);
    ck_assert_double_eq_tol(m.radius / (0.5 * fmin(0.25 * total / N_MODEL, 0.01)), 1.0, 1e-3);
    gemst_filaments_free(&m);
}
END_TEST

/* Every point within the radius of a curve, spread across the tube: a
 * uniform disc (3D) keeps 3/4 of its points beyond half the radius, a
 * uniform segment (2D) half of them. */
START_TEST(test_filament_points)
{
    int dim = 2 + _i;
    gemst_filaments m;
    gridemst_error err = {0};
    ck_assert_int_eq(gemst_filaments_init(&m, N_MODEL, dim, SEED, &err), GRIDEMST_OK);
    const int64_t n = N_MODEL / 4; /* one point in 4: brute force is slow */
    float *p = gen(GEMST_GEN_FILAMENTS, N_MODEL, dim);
    double bound = 1.01 * m.radius + QUANTUM_SLACK;
    int64_t outer = 0;
    for (int64_t i = 0; i < n; i++) {
        double x[3];
        for (int d = 0; d < dim; d++)
            x[d] = p[4 * i * dim + d];
        double dist = curves_distance(&m, x, bound);
        REQUIRE(dist <= bound, "filaments %dD: point %lld at %g from every curve (radius %g)", dim,
                (long long)(4 * i), dist, m.radius);
        outer += dist > 0.5 * m.radius;
    }
    ck_assert_double_eq_tol((double)outer / n, dim == 3 ? 0.75 : 0.5, 0.03);
    free(p);
    gemst_filaments_free(&m);
}
END_TEST

/* ------------------------------------------------------------ dimension */

/* The k-th smallest of v[0..n) (v is reordered). */
static double select_kth(double *v, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The set's dimension as its points show it: around a sample point, doubling
 * the radius that holds its 16 nearest neighbours multiplies their count by
 * 2^dimension (4 on a surface in 3D, 2 on a curve, 8 in a volume).  The
 * median of log2(count(2r) / 16) over 100 sample points. */
static double measured_dimension(gemst_gen_kind kind, int dim)
{
    const int samples = 100, k = 16;
    float *p = gen(kind, N_DIM, dim);
    double *d2 = malloc(N_DIM * sizeof *d2), est[100];
    for (int s = 0; s < samples; s++) {
        int64_t a = (int64_t)s * (N_DIM / samples);
        for (int64_t j = 0; j < N_DIM; j++) {
            double q = 0.0;
            for (int d = 0; d < dim; d++) {
                double t = (double)p[a * dim + d] - p[j * dim + d];
                q += t * t;
            }
            d2[j] = q;
        }
        double r2 = select_kth(d2, N_DIM, k); /* d2[a] = 0 is the 0th */
        int64_t count = 0;
        for (int64_t j = 0; j < N_DIM; j++)
            count += d2[j] > 0.0 && d2[j] <= 4.0 * r2;
        est[s] = log2((double)count / k);
    }
    qsort(est, samples, sizeof *est, compare_double);
    free(d2);
    free(p);
    return 0.5 * (est[samples / 2 - 1] + est[samples / 2]);
}

START_TEST(test_dimension)
{
    static const struct {
        gemst_gen_kind kind;
        int dim;
        double expect;
    } cases[] = {{GEMST_GEN_UNIFORM, 3, 3}, {GEMST_GEN_UNIFORM, 2, 2}, {GEMST_GEN_SHELLS, 3, 2},
                 {GEMST_GEN_PLANES, 3, 2},  {GEMST_GEN_TORI, 3, 2},    {GEMST_GEN_FILAMENTS, 3, 1},
                 {GEMST_GEN_SHELLS, 2, 1},  {GEMST_GEN_PLANES, 2, 1},  {GEMST_GEN_FILAMENTS, 2, 1}};
    double got = measured_dimension(cases[_i].kind, cases[_i].dim);
    ck_assert_msg(fabs(got - cases[_i].expect) < 0.4, "%s %dD: dimension %.2f, expected %g",
                  gemst_gen_kind_name(cases[_i].kind), cases[_i].dim, got, cases[_i].expect);
}
END_TEST

/* ------------------------------------------------------------ the two indexes along curves */

/* Along curves, where the CPU searches its BVH with kNN-first's lists
 * (cpu/cpu_bvh_search.h), the BVH's tree is the grid's (static pruning, an
 * independent search), edge for edge, in float and in double, on two
 * threads (the backend runs one per 20000 points). */
START_TEST(test_curves_indexes)
{
    static const struct {
        gemst_gen_kind kind;
        int dim;
    } cases[] = {{GEMST_GEN_FILAMENTS, 3}, {GEMST_GEN_FILAMENTS, 2}, {GEMST_GEN_SHELLS, 2}, {GEMST_GEN_PLANES, 2}};
    const int64_t n = 60000;
    const int k = _i / 2, prec = _i % 2;
    float *c = gen(cases[k].kind, n, cases[k].dim);
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = prec ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
    o.threads = 2;
    o.nns = GRIDEMST_NNS_BVH;
    gridemst_result bvh = solve_with(c, GRIDEMST_FLOAT32, n, cases[k].dim, &o);
    o.nns = GRIDEMST_NNS_GRID;
    gridemst_result grid = solve_with(c, GRIDEMST_FLOAT32, n, cases[k].dim, &o);
    ck_assert_msg(bvh.n_edges == n - 1 && bvh.stats.threads == 2 && same_edges(&bvh, &grid),
                  "%s %dD, %s: %lld edges on %d threads, the grid's tree %s", gemst_gen_kind_name(cases[k].kind),
                  cases[k].dim, prec ? "double" : "float", (long long)bvh.n_edges, bvh.stats.threads,
                  same_edges(&bvh, &grid) ? "the same" : "differs");
    gridemst_result_free(&bvh);
    gridemst_result_free(&grid);
    free(c);
}
END_TEST

static Suite *shapes_suite(void)
{
    Suite *s = suite_create("shapes");
    TCase *tc = tcase_create("surfaces");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_surface_model, 0, SURFACE_CASES);
    tcase_add_loop_test(tc, test_surface_points, 0, SURFACE_CASES);
    suite_add_tcase(s, tc);

    tc = tcase_create("filaments");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_filament_model, 0, 2);
    tcase_add_loop_test(tc, test_filament_points, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("dimension");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_dimension, 0, 9);
    suite_add_tcase(s, tc);

    tc = tcase_create("indexes");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_curves_indexes, 0, 8);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(shapes_suite());
}
