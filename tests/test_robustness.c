/*
 * Robustness through the public API: the same input gives the identical
 * tree across runs and thread counts; permuting the input keeps the total
 * weight and the sorted weights bit for bit, and where all distances differ
 * (a unique tree) the same edges once mapped back; jobs beyond a memory
 * limit are refused before anything is allocated; extreme shapes (a 1e9 x 1
 * strip, a million copies of three points) solve correctly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "tools/generate.h"

/* 20 runs, and thread counts 1 to 4, give byte-identical edge lists (the
 * edge CSV is printed from these values). */
START_TEST(test_runs_and_threads_identical)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_NORMAL, 60000, 3, 5, &ps, &err), GRIDEMST_OK);
    gridemst_result first = solve_cpu(ps.coords, ps.dtype, ps.n, ps.dim, 2, GRIDEMST_PRECISION_FLOAT);
    for (int run = 0; run < 20; run++) {
        gridemst_result r = solve_cpu(ps.coords, ps.dtype, ps.n, ps.dim, 1 + run % 4, GRIDEMST_PRECISION_FLOAT);
        REQUIRE(same_edges(&first, &r), "run %d (%d threads) differs", run, 1 + run % 4);
        gridemst_result_free(&r);
    }
    gridemst_result_free(&first);
    free(ps.coords);
}
END_TEST

/* Input with no two equal distances (random doubles), with exact ties
 * (a lattice), and with duplicates, each permuted. */
typedef struct {
    const char *name;
    gemst_gen_kind kind;
    int duplicates; /* overwrite a third of the points with copies of others */
    int unique_tree;
} perm_case;

static const perm_case perm_cases[] = {
    {"uniform", GEMST_GEN_UNIFORM, 0, 1},
    {"lattice", GEMST_GEN_LATTICE, 0, 0},
    {"duplicates", GEMST_GEN_NORMAL, 1, 0},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_permutation_invariance)
{
    const perm_case *pc = &perm_cases[_i];
    const int64_t n = 20000;
    const int dim = 3;
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(pc->kind, n, dim, 9, &ps, &err), GRIDEMST_OK);
    float *p = ps.coords, *q = xcalloc((size_t)(n * dim), sizeof *q);
    uint64_t seed = 77;
    if (pc->duplicates)
        for (int64_t i = 0; i < n / 3; i++)
            memcpy(p + dim * (int64_t)rng_below(&seed, (uint64_t)n), p + dim * (int64_t)rng_below(&seed, (uint64_t)n),
                   sizeof *p * dim);
    if (pc->unique_tree) /* random doubles have no equal distances, floats on a grid might */
        for (int64_t i = 0; i < n * dim; i++)
            p[i] = (float)rng_unit(&seed);
    /* where[i]: the position of input point i in the permuted array */
    int64_t *where = xcalloc((size_t)n, sizeof *where), *perm = xcalloc((size_t)n, sizeof *perm);
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&seed, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t k = 0; k < n; k++) {
        memcpy(q + dim * k, p + dim * perm[k], sizeof *q * dim);
        where[perm[k]] = k;
    }
    /* double precision: float32 squared distances of random points can tie */
    gridemst_result a = solve_cpu(p, GRIDEMST_FLOAT32, n, dim, 0, GRIDEMST_PRECISION_DOUBLE);
    gridemst_result b = solve_cpu(q, GRIDEMST_FLOAT32, n, dim, 0, GRIDEMST_PRECISION_DOUBLE);
    REQUIRE(a.total_weight == b.total_weight, "%s: total %.17g vs %.17g", pc->name, a.total_weight, b.total_weight);
    double *wa = xcalloc((size_t)a.n_edges, sizeof *wa), *wb = xcalloc((size_t)b.n_edges, sizeof *wb);
    for (int64_t e = 0; e < a.n_edges; e++) {
        wa[e] = a.edges[e].w;
        wb[e] = b.edges[e].w;
    }
    qsort(wa, (size_t)a.n_edges, sizeof *wa, cmp_double);
    qsort(wb, (size_t)b.n_edges, sizeof *wb, cmp_double);
    REQUIRE(memcmp(wa, wb, sizeof *wa * (size_t)a.n_edges) == 0, "%s: sorted weights differ", pc->name);
    if (pc->unique_tree) {
        /* a's edges mapped to the permuted ids are b's. */
        gridemst_edge *mapped = xcalloc((size_t)a.n_edges, sizeof *mapped);
        for (int64_t e = 0; e < a.n_edges; e++) {
            int64_t u = where[a.edges[e].u], v = where[a.edges[e].v];
            mapped[e] = (gridemst_edge){u < v ? u : v, u < v ? v : u, a.edges[e].w};
        }
        for (int64_t e = 0; e < a.n_edges; e++) {
            /* both lists are sorted by w, all distinct: same position */
            REQUIRE(mapped[e].u == b.edges[e].u && mapped[e].v == b.edges[e].v, "%s: edge %lld (%lld, %lld) maps to (%lld, %lld), permuted tree has (%lld, %lld)",
                    pc->name, (long long)e, (long long)a.edges[e].u, (long long)a.edges[e].v, (long long)mapped[e].u,
                    (long long)mapped[e].v, (long long)b.edges[e].u, (long long)b.edges[e].v);
        }
        free(mapped);
    }
    gridemst_result_free(&a);
    gridemst_result_free(&b);
    free(wa);
    free(wb);
    free(where);
    free(perm);
    free(q);
    free(ps.coords);
}
END_TEST

/* A host memory cap below the job's need is refused up front, with the
 * bytes named; a negative cap is an invalid argument. */
START_TEST(test_host_memory_limit)
{
    gemst_pointset ps;
    gridemst_error err;
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 100000, 3, 1, &ps, &err), GRIDEMST_OK);
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.max_host_bytes = 1 << 20;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_NO_MEMORY);
    REQUIRE(strstr(err.message, "bytes of host memory") != NULL, "message: %s", err.message);
    REQUIRE(r.n_edges == 0 && r.edges == NULL, "a refused job left a result");
    o.max_host_bytes = (int64_t)1 << 32;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_OK);
    gridemst_result_free(&r);
    o.max_host_bytes = -1;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err),
                     GRIDEMST_ERR_INVALID_ARGUMENT);
    free(ps.coords);
}
END_TEST

/* More than 2^32 - 2 points are refused before any is read (coords point
 * at one point only), named with the limit: on the CPU, also in virtual
 * parts, and beyond what 64 devices take. */
START_TEST(test_point_count_limits)
{
    const double one[3] = {0, 0, 0};
    const int64_t n = ((int64_t)1 << 32) + 5;
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    for (int parts = 0; parts <= 4; parts += 4) {
        o.partitions = parts;
        ck_assert_int_eq(gridemst_solve(one, GRIDEMST_FLOAT64, n, 3, &o, &r, &err), GRIDEMST_ERR_INPUT);
        REQUIRE(strstr(err.message, "4294967301 points exceed the limit of 4294967294 on one device or the cpu"),
                "%d parts: %s", parts, err.message);
        REQUIRE(r.n_edges == 0 && r.edges == NULL, "a refused job left a result");
    }
    ck_assert_int_eq(gridemst_solve(one, GRIDEMST_FLOAT64, 65 * ((int64_t)UINT32_MAX - 1), 3, &o, &r, &err),
                     GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "exceed the limit of 274877906816"), "%s", err.message);
}
END_TEST

/* A million points on a 1e9 x 1 strip (and its 3D twin): the grid adapts
 * its cells to the thin axis; the tree is the sorted chain along x. */
START_TEST(test_extreme_strip)
{
    const int dim = 2 + _i;
    const int64_t n = 1000000;
    double *p = xcalloc((size_t)(n * dim), sizeof *p);
    uint64_t seed = 3;
    for (int64_t i = 0; i < n; i++) {
        p[i * dim] = 1e9 * (double)i / (double)n + 100.0 * rng_unit(&seed); /* increasing in i */
        for (int d = 1; d < dim; d++)
            p[i * dim + d] = rng_unit(&seed) * 1e-3;
    }
    gridemst_result r = solve_cpu(p, GRIDEMST_FLOAT64, n, dim, 0, GRIDEMST_PRECISION_DOUBLE);
    REQUIRE_CMP(r.n_edges, ==, n - 1);
    /* x steps of about 1000 dwarf the 1e-3 spread: the chain i - (i+1) */
    for (int64_t e = 0; e < r.n_edges; e++)
        REQUIRE(r.edges[e].v == r.edges[e].u + 1, "edge %lld is (%lld, %lld)", (long long)e,
                (long long)r.edges[e].u, (long long)r.edges[e].v);
    REQUIRE_CMP(r.stats.cells, <=, 4 * n + 1024);
    gridemst_result_free(&r);
    free(p);
}
END_TEST

/* A million points uniformly random on a 1e9 x 1 strip, the case:
 * random gaps along x leave long chains whose components are far apart in
 * cells, which once took the grid's fallback searches over ten minutes.
 * The tree must be the BVH's, edge for edge. */
START_TEST(test_random_strip)
{
    const int64_t n = 1000000;
    double *p = xcalloc((size_t)(n * 2), sizeof *p);
    uint64_t seed = 11;
    for (int64_t i = 0; i < 2 * n; i++)
        p[i] = i % 2 ? rng_unit(&seed) : 1e9 * rng_unit(&seed);
    gridemst_result grid = solve_cpu(p, GRIDEMST_FLOAT64, n, 2, 0, GRIDEMST_PRECISION_DOUBLE);
    gridemst_options o;
    gridemst_error err;
    gridemst_result bvh = GRIDEMST_RESULT_INIT;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    o.nns = GRIDEMST_NNS_BVH;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, n, 2, &o, &bvh, &err) == GRIDEMST_OK, "BVH: %s", err.message);
    REQUIRE_CMP(grid.n_edges, ==, n - 1);
    REQUIRE(same_edges(&grid, &bvh), "the grid's tree differs from the BVH's");
    REQUIRE_CMP(grid.stats.cells, <=, 4 * n + 1024);
    gridemst_result_free(&grid);
    gridemst_result_free(&bvh);
    free(p);
}
END_TEST

/* A million copies of three points: two zero-free edges and n - 3 zero
 * edges, each duplicate joined to the smallest id of its point. */
START_TEST(test_million_copies)
{
    const int64_t n = 1000000;
    const double pts[3][3] = {{0, 0, 0}, {3, 4, 0}, {3, 4, 12}};
    double *p = xcalloc((size_t)(n * 3), sizeof *p);
    for (int64_t i = 0; i < n; i++)
        memcpy(p + 3 * i, pts[i % 3], sizeof pts[0]);
    gridemst_result r = solve_cpu(p, GRIDEMST_FLOAT64, n, 3, 0, GRIDEMST_PRECISION_FLOAT);
    REQUIRE_CMP(r.n_edges, ==, n - 1);
    REQUIRE_CMP(r.stats.n_unique, ==, 3);
    for (int64_t e = 0; e < n - 3; e++)
        REQUIRE(r.edges[e].w == 0.0 && r.edges[e].u == r.edges[e].v % 3, "zero edge %lld is (%lld, %lld, %g)",
                (long long)e, (long long)r.edges[e].u, (long long)r.edges[e].v, r.edges[e].w);
    REQUIRE(r.edges[n - 3].w == 5.0 && r.edges[n - 3].u == 0 && r.edges[n - 3].v == 1, "first real edge");
    REQUIRE(r.edges[n - 2].w == 12.0 && r.edges[n - 2].u == 1 && r.edges[n - 2].v == 2, "second real edge");
    gridemst_result_free(&r);
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robustness");
    TCase *tc = tcase_create("robustness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_runs_and_threads_identical);
    tcase_add_test(tc, test_random_strip);
    tcase_add_loop_test(tc, test_permutation_invariance, 0, (int)(sizeof perm_cases / sizeof perm_cases[0]));
    tcase_add_test(tc, test_host_memory_limit);
    tcase_add_test(tc, test_point_count_limits);
    tcase_add_loop_test(tc, test_extreme_strip, 0, 2);
    tcase_add_test(tc, test_million_copies);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
