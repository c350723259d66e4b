/*
 * HDBSCAN*'s mutual-reachability tree (options.min_samples >= 2) against
 * gemst_prim_mr_reference (src/tools/prim.h): core distances by sorting all
 * distances, then Prim on the complete graph in double, ties broken by the
 * edge order.  On float32 points solved in double precision both measure
 * the same squared lengths (the solver's frame is a translation and a
 * power-of-two scale, exact on such points), so the tree, unique under the
 * edge order, must be the reference's edge for edge, duplicates included.
 * In float precision the weights agree to the rounding of the coordinates.
 * Then: the same tree from both indexes, any thread count and every run;
 * the argument checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "dup_sets.h"
#include "tools/generate.h"
#include "tools/prim.h"

/* The searches of the tree: the grid's core distances then the late BVH
 * from the first iteration (the default), the grid alone (late_bvh -1),
 * the BVH alone. */
enum { GRID_THEN_BVH, GRID_ONLY, BVH_ONLY, GRID_LATER_BVH, SEARCHES };
static const char *const search_names[] = {"grid then BVH", "grid", "BVH", "grid, BVH from iteration 2"};

static gridemst_result solve_mr(const gemst_pointset *ps, int64_t k, int search, gridemst_precision prec,
                                int threads)
{
    gridemst_options o = cpu_defaults(threads);
    o.nns = search == BVH_ONLY ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    o.tuning.late_bvh = search == GRID_ONLY ? -1 : search == GRID_LATER_BVH ? 2 : 0;
    o.precision = prec;
    o.min_samples = k;
    gridemst_result r = solve_with(ps->coords, ps->dtype, ps->n, ps->dim, &o);
    REQUIRE(r.stats.prune == GRIDEMST_PRUNE_NONE, "the mutual-reachability tree must search with prune none, got %s",
            gridemst_prune_name(r.stats.prune));
    const int switched =
        r.stats.n_unique > 8 && (search == GRID_THEN_BVH || (search == GRID_LATER_BVH && r.stats.iterations > 2));
    REQUIRE(r.stats.late_bvh_iteration == (!switched ? -1 : search == GRID_LATER_BVH ? 2 : 0),
            "%s: the late BVH from iteration %d", search_names[search], r.stats.late_bvh_iteration);
    check_iteration_stats(&r.stats, "mutual reachability");
    return r;
}

/* The reference tree; the test stops when memory runs out. */
static double reference(const gemst_pointset *ps, int64_t k, gridemst_edge *ref)
{
    double total = gemst_prim_mr_reference(ps->coords, ps->dtype, ps->n, ps->dim, k, ref);
    REQUIRE(total >= 0.0, "out of memory for the reference");
    return total;
}

/* The tree is the reference's, edge for edge. */
static void require_reference_edges(const gridemst_result *r, const gridemst_edge *ref, const char *what)
{
    for (int64_t e = 0; e < r->n_edges; e++)
        REQUIRE(r->edges[e].u == ref[e].u && r->edges[e].v == ref[e].v && r->edges[e].w == ref[e].w,
                "%s: edge %lld is (%lld, %lld, %.17g), reference (%lld, %lld, %.17g)", what, (long long)e,
                (long long)r->edges[e].u, (long long)r->edges[e].v, r->edges[e].w, (long long)ref[e].u,
                (long long)ref[e].v, ref[e].w);
}

typedef struct {
    gemst_gen_kind kind;
    int dim, dups;
    int64_t n, k;
} mr_case;

static const mr_case cases[] = {
    {GEMST_GEN_BLOBS, 2, 0, 10000, 10},  {GEMST_GEN_BLOBS, 3, 0, 10000, 10},   {GEMST_GEN_UNIFORM, 2, 0, 10000, 5},
    {GEMST_GEN_UNIFORM, 3, 0, 10000, 5}, {GEMST_GEN_BLOBS, 2, 1, 10000, 4},    {GEMST_GEN_UNIFORM, 3, 1, 10000, 12},
    {GEMST_GEN_LATTICE, 2, 0, 3000, 7},  {GEMST_GEN_CLUSTERED, 3, 1, 6000, 2},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* Edge for edge against the reference, in double precision, on both
 * indexes; in float precision the weights within the coordinates'
 * rounding. */
START_TEST(test_against_prim)
{
    const mr_case *c = &cases[_i];
    gemst_pointset ps = make_set(c->kind, c->n, c->dim, c->dups, 40 + (uint64_t)_i);
    gridemst_edge *ref = xcalloc((size_t)c->n, sizeof *ref);
    double total = reference(&ps, c->k, ref);
    for (int search = 0; search < SEARCHES; search++) {
        gridemst_result r = solve_mr(&ps, c->k, search, GRIDEMST_PRECISION_DOUBLE, 2);
        REQUIRE(r.n_edges == c->n - 1, "case %d: %lld edges", _i, (long long)r.n_edges);
        REQUIRE(fabs(r.total_weight - total) <= 1e-9 * total, "case %d %s: weight %.17g, reference %.17g", _i,
                search_names[search], r.total_weight, total);
        char what[64];
        snprintf(what, sizeof what, "case %d %s", _i, search_names[search]);
        require_reference_edges(&r, ref, what);
        gridemst_result_free(&r);
        r = solve_mr(&ps, c->k, search, GRIDEMST_PRECISION_FLOAT, 2);
        double extent = 0.0;
        for (int64_t e = 0; e < r.n_edges; e++)
            extent = fmax(extent, ref[e].w);
        for (int64_t e = 0; e < r.n_edges; e++)
            REQUIRE(fabs(r.edges[e].w - ref[e].w) <= 1e-5 * extent,
                    "case %d %s float: weight %lld is %.9g, reference %.9g", _i, search_names[search], (long long)e,
                    r.edges[e].w, ref[e].w);
        gridemst_result_free(&r);
    }
    free(ref);
    gemst_pointset_free(&ps);
}
END_TEST

/* min_samples 0 and 1 give the Euclidean tree. */
START_TEST(test_small_min_samples)
{
    gemst_pointset ps = make_set(GEMST_GEN_UNIFORM, 2000, 2, 1, 9);
    gridemst_result plain = solve_cpu(ps.coords, ps.dtype, ps.n, ps.dim, 1, GRIDEMST_PRECISION_FLOAT);
    for (int k = 0; k <= 1; k++) {
        gridemst_options o = cpu_defaults(1);
        o.min_samples = k;
        o.nns = GRIDEMST_NNS_GRID;
        gridemst_result r = solve_with(ps.coords, ps.dtype, ps.n, ps.dim, &o);
        REQUIRE(same_edges(&r, &plain), "min_samples %d: not the Euclidean tree", k);
        REQUIRE(r.stats.prune == GRIDEMST_PRUNE_STATIC, "min_samples %d: the grid's default strategy changed", k);
        gridemst_result_free(&r);
    }
    gridemst_result_free(&plain);
    gemst_pointset_free(&ps);
}
END_TEST

/* The same edges from both indexes, 1 and 2 threads, and repeated runs. */
START_TEST(test_identical_everywhere)
{
    const int dim = 2 + _i;
    gemst_pointset ps = make_set(GEMST_GEN_BLOBS, 60000, dim, 1, 3);
    gridemst_result first = solve_mr(&ps, 10, GRID_THEN_BVH, GRIDEMST_PRECISION_FLOAT, 2);
    const int search[] = {GRID_THEN_BVH, GRID_ONLY, GRID_ONLY, BVH_ONLY, BVH_ONLY, GRID_LATER_BVH, GRID_THEN_BVH};
    const int threads[] = {2, 1, 2, 1, 2, 2, 1};
    for (int t = 0; t < 7; t++) {
        gridemst_result r = solve_mr(&ps, 10, search[t], GRIDEMST_PRECISION_FLOAT, threads[t]);
        REQUIRE(same_edges(&r, &first), "%dD: %s with %d threads gave another tree", dim, search_names[search[t]],
                threads[t]);
        gridemst_result_free(&r);
    }
    gridemst_result_free(&first);
    gemst_pointset_free(&ps);
}
END_TEST

/* Every point a copy of a few: core distances of 0 where the copies reach
 * min_samples, and the tree still the reference's. */
START_TEST(test_few_distinct_points)
{
    const int64_t n = 500;
    double *p = xcalloc((size_t)n * 2, sizeof *p);
    uint64_t seed = 5;
    for (int64_t i = 0; i < n; i++) {
        int64_t which = (int64_t)rng_below(&seed, 6);
        p[2 * i] = (double)(which % 3);
        p[2 * i + 1] = (double)(which / 3) * 0.5;
    }
    gemst_pointset ps = {.n = n, .dim = 2, .dtype = GRIDEMST_FLOAT64, .coords = p};
    const int64_t ks[] = {2, 50, 120, 400, 500};
    gridemst_edge *ref = xcalloc((size_t)n, sizeof *ref);
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        reference(&ps, ks[t], ref);
        for (int search = 0; search < SEARCHES; search++) {
            gridemst_result r = solve_mr(&ps, ks[t], search, GRIDEMST_PRECISION_DOUBLE, 1);
            char what[64];
            snprintf(what, sizeof what, "k %lld %s", (long long)ks[t], search_names[search]);
            require_reference_edges(&r, ref, what);
            gridemst_result_free(&r);
        }
    }
    free(ref);
    free(p);
}
END_TEST

START_TEST(test_bad_arguments)
{
    const double p[6] = {0, 0, 1, 0, 0, 1};
    gridemst_options o = cpu_defaults(1);
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    o.min_samples = -1;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "min_samples"),
            "min_samples -1: %s", err.message);
    o.min_samples = 4;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "exceeds"),
            "min_samples above n: %s", err.message);
    o.min_samples = 3;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err) == GRIDEMST_OK, "min_samples n: %s", err.message);
    REQUIRE(r.n_edges == 2, "%lld edges", (long long)r.n_edges);
    gridemst_result_free(&r);
    o.partitions = 2;
    int rc = gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err);
    REQUIRE(rc == GRIDEMST_ERR_UNSUPPORTED && strstr(err.message, "mutual-reachability"), "partitions: %s",
            err.message);
}
END_TEST

static Suite *mr_suite(void)
{
    Suite *s = suite_create("mutual_reachability");
    TCase *tp = tcase_create("prim");
    tcase_set_timeout(tp, 300);
    tcase_add_loop_test(tp, test_against_prim, 0, N_CASES);
    tcase_add_test(tp, test_few_distinct_points);
    suite_add_tcase(s, tp);
    TCase *ti = tcase_create("identical");
    tcase_set_timeout(ti, 300);
    tcase_add_test(ti, test_small_min_samples);
    tcase_add_loop_test(ti, test_identical_everywhere, 0, 2);
    tcase_add_test(ti, test_bad_arguments);
    suite_add_tcase(s, ti);
    return s;
}

int main(void)
{
    return run_suite(mr_suite());
}
