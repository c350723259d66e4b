/* Unit tests of the synthetic point sets (src/tools/generate.c).  Every
 * statistical check uses a fixed seed and generous bounds: none can flake. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "testutil.h"
#include "tools/generate.h"

#define SEED 20210601u
#define N_SMALL 20000
#define N_STATS 100000

/* Loop tests run over index _i = 2 * kind + (dim - 2); those of a kind
 * without that dimension (tori 2D) return at once: test_empty checks that
 * asking for it fails. */
#define KIND_COUNT 9
#define LOOP_END (2 * KIND_COUNT)
#define LOOP_KIND(i) ((gemst_gen_kind)((i) / 2))
#define LOOP_DIM(i) (2 + (i) % 2)
#define LOOP_SKIP_MISSING(i)                                                                                      \
    do {                                                                                                          \
        if (!gemst_gen_kind_has_dim(LOOP_KIND(i), LOOP_DIM(i)))                                                   \
            return;                                                                                               \
    } while (0)

/* Generates a set, checking the call and the header fields; returns the
 * coordinates (free them). */
static float *gen(gemst_gen_kind kind, int64_t n, int dim, uint64_t seed)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_generate(kind, n, dim, seed, &ps, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "%s %dD: %s", gemst_gen_kind_name(kind), dim, err.message);
    ck_assert_int_eq(ps.n, n);
    ck_assert_int_eq(ps.dim, dim);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT32);
    ck_assert_int_eq(ps.is_tsplib, 0);
    return ps.coords;
}

static int same(const float *a, const float *b, int64_t n, int dim)
{
    return memcmp(a, b, (size_t)n * (size_t)dim * sizeof *a) == 0;
}

/* The power of two every coordinate of the kind is a multiple of. */
static double quantum(gemst_gen_kind kind)
{
    switch (kind) {
    case GEMST_GEN_NORMAL:
        return ldexp(1.0, -20);
    case GEMST_GEN_LATTICE:
        return 1.0;
    default:
        return ldexp(1.0, -24);
    }
}

/* ------------------------------------------------------------ names and errors */

START_TEST(test_names)
{
    const char *names[] = {"uniform", "normal", "clustered", "lattice", "blobs", "shells", "planes", "tori",
                           "filaments"};
    for (int k = 0; k < KIND_COUNT; k++) {
        gemst_gen_kind parsed = GEMST_GEN_BLOBS;
        ck_assert_int_eq(gemst_parse_gen_kind(names[k], &parsed), 0);
        ck_assert_int_eq(parsed, k);
        ck_assert_str_eq(gemst_gen_kind_name((gemst_gen_kind)k), names[k]);
    }
    gemst_gen_kind untouched = GEMST_GEN_NORMAL;
    ck_assert_int_eq(gemst_parse_gen_kind("gaussian", &untouched), -1);
    ck_assert_int_eq(gemst_parse_gen_kind("", &untouched), -1);
    ck_assert_int_eq(untouched, GEMST_GEN_NORMAL);
    ck_assert_str_eq(gemst_gen_kind_name((gemst_gen_kind)KIND_COUNT), "unknown");
    ck_assert_str_eq(gemst_gen_kind_name((gemst_gen_kind)-1), "unknown");
    /* the usage texts' list names every kind, in order */
    char list[256] = "";
    for (int k = 0; k < KIND_COUNT; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "|" : "", names[k]);
    ck_assert_str_eq(list, GEMST_GEN_KIND_NAMES);
    /* every kind has 3D; all but tori have 2D; none has other dimensions */
    for (int k = 0; k < KIND_COUNT; k++) {
        ck_assert(gemst_gen_kind_has_dim((gemst_gen_kind)k, 3));
        ck_assert_int_eq(gemst_gen_kind_has_dim((gemst_gen_kind)k, 2), k != GEMST_GEN_TORI);
        ck_assert(!gemst_gen_kind_has_dim((gemst_gen_kind)k, 1) && !gemst_gen_kind_has_dim((gemst_gen_kind)k, 4));
    }
}
END_TEST

static void expect_failure(gemst_gen_kind kind, int64_t n, int dim, int code)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    ck_assert_int_eq(gemst_generate(kind, n, dim, SEED, &ps, &err), code);
    ck_assert_int_eq(err.code, code);
    ck_assert_msg(err.message[0] != '\0', "no message for n=%lld dim=%d", (long long)n, dim);
    ck_assert_ptr_null(ps.coords);
    ck_assert_int_eq(ps.n, 0);
}

START_TEST(test_errors)
{
    expect_failure(GEMST_GEN_UNIFORM, 10, 1, GRIDEMST_ERR_INVALID_ARGUMENT);
    expect_failure(GEMST_GEN_UNIFORM, 10, 4, GRIDEMST_ERR_INVALID_ARGUMENT);
    expect_failure(GEMST_GEN_LATTICE, 10, 0, GRIDEMST_ERR_INVALID_ARGUMENT);
    expect_failure(GEMST_GEN_NORMAL, -1, 2, GRIDEMST_ERR_INVALID_ARGUMENT);
    expect_failure(GEMST_GEN_BLOBS, INT64_MIN, 3, GRIDEMST_ERR_INVALID_ARGUMENT);
    expect_failure((gemst_gen_kind)KIND_COUNT, 10, 2, GRIDEMST_ERR_INVALID_ARGUMENT);
    /* n * dim * 4 overflows size_t. */
    expect_failure(GEMST_GEN_UNIFORM, INT64_MAX, 3, GRIDEMST_ERR_NO_MEMORY);
    /* 3.5e18 bytes fit size_t but no address space. */
    expect_failure(GEMST_GEN_UNIFORM, (int64_t)1 << 58, 3, GRIDEMST_ERR_NO_MEMORY);
    expect_failure(GEMST_GEN_CLUSTERED, (int64_t)1 << 58, 3, GRIDEMST_ERR_NO_MEMORY);
    expect_failure(GEMST_GEN_FILAMENTS, (int64_t)1 << 58, 3, GRIDEMST_ERR_NO_MEMORY);
    expect_failure(GEMST_GEN_TORI, 10, 2, GRIDEMST_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_empty)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    if (!gemst_gen_kind_has_dim(LOOP_KIND(_i), LOOP_DIM(_i))) {
        expect_failure(LOOP_KIND(_i), 0, LOOP_DIM(_i), GRIDEMST_ERR_INVALID_ARGUMENT);
        return;
    }
    ck_assert_int_eq(gemst_generate(LOOP_KIND(_i), 0, LOOP_DIM(_i), SEED, &ps, &err), GRIDEMST_OK);
    ck_assert_int_eq(ps.n, 0);
    ck_assert_int_eq(ps.dim, LOOP_DIM(_i));
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT32);
    free(ps.coords);
}
END_TEST

/* ------------------------------------------------------------ reproducibility */

START_TEST(test_reproducible)
{
    LOOP_SKIP_MISSING(_i);
    gemst_gen_kind kind = LOOP_KIND(_i);
    int dim = LOOP_DIM(_i);
    float *a = gen(kind, N_SMALL, dim, SEED);
    float *b = gen(kind, N_SMALL, dim, SEED);
    float *c = gen(kind, N_SMALL, dim, SEED + 1);
    ck_assert_msg(same(a, b, N_SMALL, dim), "%s %dD: same seed, different points", gemst_gen_kind_name(kind), dim);
    /* The lattice ignores the seed. */
    ck_assert_int_eq(same(a, c, N_SMALL, dim), kind == GEMST_GEN_LATTICE);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(test_thread_independent)
{
    LOOP_SKIP_MISSING(_i);
#ifdef _OPENMP
    gemst_gen_kind kind = LOOP_KIND(_i);
    int dim = LOOP_DIM(_i);
    int saved = omp_get_max_threads();
    float *sets[3];
    for (int t = 0; t < 3; t++) {
        omp_set_num_threads(t + 1);
        sets[t] = gen(kind, N_SMALL + 37, dim, SEED);
    }
    omp_set_num_threads(saved);
    for (int t = 1; t < 3; t++)
        ck_assert_msg(same(sets[0], sets[t], N_SMALL + 37, dim), "%s %dD: 1 and %d threads differ",
                      gemst_gen_kind_name(kind), dim, t + 1);
    for (int t = 0; t < 3; t++)
        free(sets[t]);
#endif
}
END_TEST

/* ------------------------------------------------------------ every kind */

/* Coordinates are finite multiples of the kind's quantum, span fewer than
 * 2^24 quanta, and translating them to the minimum is exact in float32. */
START_TEST(test_dyadic)
{
    LOOP_SKIP_MISSING(_i);
    gemst_gen_kind kind = LOOP_KIND(_i);
    int dim = LOOP_DIM(_i);
    double q = quantum(kind);
    float *p = gen(kind, N_SMALL, dim, SEED);
    for (int d = 0; d < dim; d++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < N_SMALL; i++) {
            double x = p[i * dim + d];
            ck_assert_msg(isfinite(x), "%s: point %lld not finite", gemst_gen_kind_name(kind), (long long)i);
            ck_assert_msg(x / q == floor(x / q), "%s: %.17g not a multiple of %g", gemst_gen_kind_name(kind), x, q);
            lo = fmin(lo, x);
            hi = fmax(hi, x);
        }
        ck_assert_double_lt((hi - lo) / q, ldexp(1.0, 24));
        for (int64_t i = 0; i < N_SMALL; i++) {
            double diff = (double)p[i * dim + d] - lo;
            ck_assert_msg((double)(float)diff == diff, "%s: x - min = %.17g inexact", gemst_gen_kind_name(kind), diff);
        }
    }
    free(p);
}
END_TEST

START_TEST(test_ranges)
{
    LOOP_SKIP_MISSING(_i);
    gemst_gen_kind kind = LOOP_KIND(_i);
    int dim = LOOP_DIM(_i);
    double lo = 0.0, hi = 1.0; /* half-open: [lo, hi) */
    if (kind == GEMST_GEN_NORMAL) {
        lo = nextafter(-8.0, 0.0);
        hi = 8.0;
    } else if (kind == GEMST_GEN_LATTICE) {
        hi = dim == 2 ? 142.0 : 28.0; /* ceil(20000^(1/dim)) */
    }
    float *p = gen(kind, N_SMALL, dim, SEED);
    for (int64_t i = 0; i < N_SMALL * dim; i++)
        ck_assert_msg(p[i] >= lo && p[i] < hi, "%s %dD: %g outside [%g, %g)", gemst_gen_kind_name(kind), dim,
                      (double)p[i], lo, hi);
    free(p);
}
END_TEST

/* ------------------------------------------------------------ distributions */

/* Per-axis mean and variance, and the covariance of the first two axes. */
static void moments(const float *p, int64_t n, int dim, double mean[3], double var[3], double *cov01)
{
    double s[3] = {0}, ss[3] = {0}, s01 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < dim; d++) {
            s[d] += p[i * dim + d];
            ss[d] += (double)p[i * dim + d] * p[i * dim + d];
        }
        s01 += (double)p[i * dim] * p[i * dim + 1];
    }
    for (int d = 0; d < dim; d++) {
        mean[d] = s[d] / n;
        var[d] = ss[d] / n - mean[d] * mean[d];
    }
    *cov01 = s01 / n - mean[0] * mean[1];
}

START_TEST(test_uniform_moments)
{
    int dim = 2 + _i;
    double mean[3], var[3], cov;
    float *p = gen(GEMST_GEN_UNIFORM, N_STATS, dim, SEED);
    moments(p, N_STATS, dim, mean, var, &cov);
    /* Standard errors: mean 0.0009, variance 0.0002, covariance 0.0003. */
    for (int d = 0; d < dim; d++) {
        ck_assert_double_eq_tol(mean[d], 0.5, 0.01);
        ck_assert_double_eq_tol(var[d], 1.0 / 12.0, 0.003);
    }
    ck_assert_double_eq_tol(cov, 0.0, 0.005);
    free(p);
}
END_TEST

START_TEST(test_normal_moments)
{
    int dim = 2 + _i;
    double mean[3], var[3], cov;
    float *p = gen(GEMST_GEN_NORMAL, N_STATS, dim, SEED);
    moments(p, N_STATS, dim, mean, var, &cov);
    /* Standard errors: mean 0.003, variance 0.0045, covariance 0.003. */
    for (int d = 0; d < dim; d++) {
        ck_assert_double_eq_tol(mean[d], 0.0, 0.02);
        ck_assert_double_eq_tol(var[d], 1.0, 0.03);
    }
    ck_assert_double_eq_tol(cov, 0.0, 0.02);
    /* About 4.6% of the values lie beyond two standard deviations. */
    int64_t tail = 0;
    for (int64_t i = 0; i < N_STATS * dim; i++)
        tail += fabsf(p[i]) > 2.0f;
    ck_assert_double_eq_tol((double)tail / (N_STATS * dim), 0.0455, 0.005);
    free(p);
}
END_TEST

START_TEST(test_lattice_points)
{
    /* 10 points in 2D: side 4, x varying fastest. */
    static const float first2[10][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1},
                                        {1, 1}, {2, 1}, {3, 1}, {0, 2}, {1, 2}};
    float *p = gen(GEMST_GEN_LATTICE, 10, 2, SEED);
    ck_assert(memcmp(p, first2, sizeof first2) == 0);
    free(p);

    /* 17 points in 2D: 16 would fill a 4 x 4 square, so side 5. */
    p = gen(GEMST_GEN_LATTICE, 17, 2, SEED);
    ck_assert(p[2 * 5] == 0.0f && p[2 * 5 + 1] == 1.0f);
    ck_assert(p[2 * 16] == 1.0f && p[2 * 16 + 1] == 3.0f);
    free(p);

    /* 27 points in 3D fill a 3 x 3 x 3 cube exactly. */
    p = gen(GEMST_GEN_LATTICE, 27, 3, SEED);
    ck_assert(p[3 * 1] == 1.0f && p[3 * 1 + 1] == 0.0f && p[3 * 1 + 2] == 0.0f);
    ck_assert(p[3 * 5] == 2.0f && p[3 * 5 + 1] == 1.0f && p[3 * 5 + 2] == 0.0f);
    ck_assert(p[3 * 26] == 2.0f && p[3 * 26 + 1] == 2.0f && p[3 * 26 + 2] == 2.0f);
    free(p);

    /* 28 points in 3D: side 4; point 27 = 3 + 4 * (2 + 4 * 1). */
    p = gen(GEMST_GEN_LATTICE, 28, 3, SEED);
    ck_assert(p[3 * 27] == 3.0f && p[3 * 27 + 1] == 2.0f && p[3 * 27 + 2] == 1.0f);
    free(p);

    /* A large set: integers, and point i recovers i. */
    int64_t n = 1000001, side = 101;
    p = gen(GEMST_GEN_LATTICE, n, 3, SEED);
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq((int64_t)p[3 * i] + side * ((int64_t)p[3 * i + 1] + side * (int64_t)p[3 * i + 2]), i);
    free(p);
}
END_TEST

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Seed spreader: most cells of a 16^dim histogram stay empty, and among
 * the others the fullest holds several times the median (uniform data:
 * every cell full, ratio about 1.2 in 2D, 1.8 in 3D). */
START_TEST(test_clustered_density)
{
    int dim = 2 + _i;
    int cells = dim == 2 ? 16 * 16 : 16 * 16 * 16;
    int *count = calloc((size_t)cells, sizeof *count);
    float *p = gen(GEMST_GEN_CLUSTERED, N_STATS, dim, SEED);
    for (int64_t i = 0; i < N_STATS; i++) {
        int cell = 0;
        for (int d = 0; d < dim; d++)
            cell = 16 * cell + (int)(p[i * dim + d] * 16.0f);
        count[cell]++;
    }
    qsort(count, (size_t)cells, sizeof *count, compare_int);
    int empty = 0;
    while (count[empty] == 0)
        empty++;
    int median = count[empty + (cells - empty) / 2], max = count[cells - 1];
    ck_assert_msg(empty > cells / 2, "%dD: only %d of %d cells empty", dim, empty, cells);
    ck_assert_msg(max >= 5 * median, "%dD: max %d, median %d", dim, max, median);
    free(count);
    free(p);
}
END_TEST

/* Blobs: many points sit much closer to their nearest neighbour than in a
 * uniform set of the same size, and the noise and the wide blobs leave
 * some farther away.  Brute-force nearest neighbours of 400 sample points. */
START_TEST(test_blobs_clustered)
{
    int dim = 2 + _i;
    const int samples = 400;
    /* Mean nearest-neighbour distance of n uniform points. */
    double uniform_nn = (dim == 2 ? 0.5 : 0.554) * pow(N_STATS, -1.0 / dim);
    float *p = gen(GEMST_GEN_BLOBS, N_STATS, dim, SEED);
    int close = 0, far = 0;
    for (int s = 0; s < samples; s++) {
        int64_t a = (int64_t)s * (N_STATS / samples);
        double best = INFINITY;
        for (int64_t j = 0; j < N_STATS; j++) {
            double q = 0.0;
            for (int d = 0; d < dim; d++) {
                double t = (double)p[a * dim + d] - p[j * dim + d];
                q += t * t;
            }
            if (j != a && q < best)
                best = q;
        }
        close += sqrt(best) < 0.1 * uniform_nn;
        far += sqrt(best) > uniform_nn;
    }
    ck_assert_msg(close >= samples / 4, "%dD: %d of %d points close to a neighbour", dim, close, samples);
    ck_assert_msg(far >= samples / 100, "%dD: %d of %d points far from all", dim, far, samples);
    free(p);
}
END_TEST

static Suite *generate_suite(void)
{
    Suite *s = suite_create("generate");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_errors);
    tcase_add_loop_test(tc, test_empty, 0, LOOP_END);
    suite_add_tcase(s, tc);

    tc = tcase_create("every kind");
    tcase_add_loop_test(tc, test_reproducible, 0, LOOP_END);
    tcase_add_loop_test(tc, test_thread_independent, 0, LOOP_END);
    tcase_add_loop_test(tc, test_dyadic, 0, LOOP_END);
    tcase_add_loop_test(tc, test_ranges, 0, LOOP_END);
    suite_add_tcase(s, tc);

    tc = tcase_create("distributions");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_uniform_moments, 0, 2);
    tcase_add_loop_test(tc, test_normal_moments, 0, 2);
    tcase_add_test(tc, test_lattice_points);
    tcase_add_loop_test(tc, test_clustered_density, 0, 2);
    tcase_add_loop_test(tc, test_blobs_clustered, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(generate_suite());
}
