/*
 * The solver's arithmetic on extreme coordinates, through the public API:
 * every case is solved with every search (the grid with each pruning, the
 * late BVH, the BVH), both FindMin2 methods and with and without crowded
 * cells' grids, on the CPU backend and, where a GPU is present, the CUDA
 * backend.  Each tree must be exactly the independent reference's (Prim on
 * the documented working points), or the solve must refuse, with a reason
 * the reference confirms (gemst_outcome_ok, src/tools/expected.h).
 *
 * The cases reproduce what once hung or came out wrong: a bounding box of
 * subnormal width (the scale 2^-k overflowed, the grid plan spun forever),
 * a crowded cell of subnormal coordinates (its cell side did not grow), and
 * double-precision trees that translation to the box's minimum rounded
 * (distinct points merged, a tree 3.5 times too long) or whose squared
 * distances underflowed silently.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "tools/expected.h"

#define FLOAT GRIDEMST_PRECISION_FLOAT
#define DOUBLE GRIDEMST_PRECISION_DOUBLE

/* The searches: the grid with each pruning (0-2), static pruning with the
 * late BVH from iteration 1 (3), the BVH (4). */
#define SEARCHES 5

static gridemst_options options(gridemst_backend backend, int prec, int search, int list, int crowded)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = backend;
    o.precision = prec;
    o.threads = 1;
    o.tuning.findmin2 = list ? GRIDEMST_FINDMIN2_LIST : GRIDEMST_FINDMIN2_ATOMIC;
    o.tuning.crowded_cell = crowded ? 1 : 0;
    if (search == 4) {
        o.nns = GRIDEMST_NNS_BVH;
    } else {
        o.tuning.prune = search == 0   ? GRIDEMST_PRUNE_NONE
                         : search == 1 ? GRIDEMST_PRUNE_DYNAMIC
                                       : GRIDEMST_PRUNE_STATIC;
        o.tuning.late_bvh = search == 3 ? 1 : 0;
    }
    return o;
}

static const char *search_name(int search)
{
    static const char *names[SEARCHES] = {"grid none", "grid dynamic", "grid static", "late BVH", "BVH"};
    return names[search];
}

/* Solves the set every way on the backend; each outcome must be the
 * expected one (gemst_outcome_ok). */
static void check_every_way(gridemst_backend backend, const double *c, int64_t n, int dim, int prec,
                            const gemst_expected *e, const char *name)
{
    for (int search = 0; search < SEARCHES; search++)
        for (int list = 0; list <= 1; list++)
            for (int crowded = 0; crowded <= 1; crowded++) {
                gridemst_options o = options(backend, prec, search, list, crowded);
                gridemst_result r = GRIDEMST_RESULT_INIT;
                gridemst_error err = {0};
                char why[300];
                int rc = gridemst_solve(c, GRIDEMST_FLOAT64, n, dim, &o, &r, &err);
                REQUIRE(gemst_outcome_ok(e, rc, &err, &r, why, sizeof why), "%s, %s, %s, %s, findmin2 %s%s: %s",
                        name, backend == GRIDEMST_BACKEND_CPU ? "cpu" : "cuda", prec == DOUBLE ? "double" : "float",
                        search_name(search), list ? "list" : "atomic", crowded ? ", crowded 1" : "", why);
                gridemst_result_free(&r);
            }
}

/* The set in both precisions, on the CPU and (where present) the GPU.
 * expect_double: 1 when the double tree must be solved, 0 when it must be
 * refused (the reference decides; this checks the case is what it claims). */
static void check_set(const double *c, int64_t n, int dim, int expect_double, const char *name)
{
    for (int prec = FLOAT; prec <= DOUBLE; prec++) {
        gemst_expected e;
        REQUIRE_CMP(gemst_expect(c, GRIDEMST_FLOAT64, n, dim, prec, &e), ==, GRIDEMST_OK);
        if (prec == DOUBLE)
            REQUIRE(expect_double == (e.kind == GEMST_EXPECT_TREE), "%s: the reference %s the double tree", name,
                    expect_double ? "refuses" : "accepts");
        check_every_way(GRIDEMST_BACKEND_CPU, c, n, dim, prec, &e, name);
        if (gridemst_cuda_device_count() > 0)
            check_every_way(GRIDEMST_BACKEND_CUDA, c, n, dim, prec, &e, name);
        gemst_expected_free(&e);
    }
}

/* ----------------------------------------------------------------- hangs */

/* A box 1e-310 wide: 2^-k was 2^1029, infinite, and the grid plan grew its
 * cell side forever. */
START_TEST(test_subnormal_box)
{
    const double c[] = {0, 0, 1e-310, 0};
    check_set(c, 2, 2, 1, "a box 1e-310 wide");
    const double c3[] = {0, 0, 0, 5e-324, 0, 1e-315, -2e-320, 3e-310, 0, 4e-323, 4e-323, 4e-323};
    check_set(c3, 4, 3, 1, "subnormal 3D points");
}
END_TEST

/* Coordinates from 1e-311 to 3e307 with crowded cells of one point: a
 * crowded cell's box of subnormal working coordinates got a subnormal cell
 * side that growing by 1.25 left unchanged.  In double precision its
 * points are too close together next to 3e307 (refused); float rounds them
 * together. */
START_TEST(test_subnormal_crowded_cell)
{
    const double c[] = {2.5506902573942e-311,  -0.0,
                        -2.8157876032270465e-15, 3.0293694753353736e+307,
                        0.0,                   9.0142745761146e-311,
                        2.54458609934608e-302, 9.391491627785107e-301,
                        -2.907121950882298e-14, 5.276294143623982e-301,
                        -0.0,                  -2.030545619549923e-14,
                        -0.0926506623785866,   -1.859062658947e-311};
    check_set(c, 7, 2, 0, "1e-311 to 3e307");
}
END_TEST

/* 600 distinct points whose float working coordinates are subnormal, and
 * one far away: their crowded cell's box is subnormal in float. */
START_TEST(test_subnormal_float_cell)
{
    const int64_t n = 601;
    double *c = xcalloc((size_t)n * 2, sizeof *c);
    c[0] = 1.0;
    for (int64_t i = 1; i < n; i++) {
        c[2 * i] = (double)i * 1e-42;
        c[2 * i + 1] = (double)(i % 7) * 3e-43;
    }
    check_set(c, n, 2, 1, "float-subnormal cell");
    free(c);
}
END_TEST

/* ----------------------------------------------------------------- wide spans in double precision */

/* A tiny tetrahedron beside a point at z = -1e9: translating z by -1e9
 * rounded 2e-9 away, and the tree joined 0 and 3 at length 0. */
START_TEST(test_translation_rounding)
{
    const double c[] = {0, 0, 0, 3e-9, 0, 0, 0, 1e-9, 0, 0, 0, 2e-9, 1, 1, -1e9};
    check_set(c, 5, 3, 1, "tetrahedron beside -1e9");
}
END_TEST

/* 500 points in a 1e-9 cube and one at 1e7: the translated tree was 3.5
 * times too long. */
START_TEST(test_small_cube_far_point)
{
    const int64_t n = 501;
    double *c = xcalloc((size_t)n * 3, sizeof *c);
    uint64_t seed = 5;
    for (int64_t i = 0; i < 500 * 3; i++)
        c[i] = rng_unit(&seed) * 1e-9;
    c[500 * 3] = 1e7;
    check_set(c, n, 3, 1, "1e-9 cube and 1e7");
    free(c);
}
END_TEST

/* 0, 1e-200 and 1e200: double cannot hold (1e-200)^2 next to (1e200)^2, and
 * the tree joined 0 and 1 at length 0; now refused, naming them. */
START_TEST(test_underflow_refused)
{
    const double c[] = {0, 0, 1e-200, 0, 1e200, 0};
    check_set(c, 3, 2, 0, "0, 1e-200, 1e200");
    gridemst_options o;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = DOUBLE;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err = {0};
    REQUIRE_CMP(gridemst_solve(c, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "points 0 and 1 are distinct") != NULL, "message: %s", err.message);
}
END_TEST

/* Points near 1e-191 beside others near 1e-147 (found by the solver
 * fuzzer): their float working points, near the box's minimum corner, are
 * distinct but at float squared distance 0, where the duplicates' edges
 * join each copy to the smallest id of its equals, not of the points at
 * distance 0.  Float refuses them, naming two; double solves them. */
START_TEST(test_float_zero_distance)
{
    const double c[] = {9.6591860348135457e-147, 7.9511462343378514e-147, 1.0142937238028393e-147,
                        5.5962019320727731e-191, 1.0196934705736239e-193, 2.9640405550346893e-191,
                        5.5962019320727731e-191, 1.0196934705736239e-193, 2.9640405550346893e-191,
                        6.8225936785966138e-191, 8.3355654937686517e-191, 9.1994508784181783e-191,
                        9.6591860348135457e-147, 7.9511462343378503e-147, 1.0142937238028393e-147,
                        6.8225936785966138e-191, 8.3355654937686517e-191, 9.1994508784181783e-191};
    gemst_expected e;
    REQUIRE_CMP(gemst_expect(c, GRIDEMST_FLOAT64, 6, 3, FLOAT, &e), ==, GRIDEMST_OK);
    REQUIRE_CMP(e.kind, ==, GEMST_EXPECT_TOO_CLOSE);
    gemst_expected_free(&e);
    check_set(c, 6, 3, 1, "1e-191 beside 1e-147");
}
END_TEST

/* Two clusters of points near 1e69 with copies a unit in the last place
 * off, beside two near 1e282 (found by the solver fuzzer): the clusters'
 * working points lie within 2^-700 of each other, at squared distance 0,
 * and with crowded cells' grids the searches once led Boruvka into
 * inconsistent minima, an internal error, before the refusal. */
START_TEST(test_zero_distance_clusters)
{
    const int64_t n = 137;
    double *c = xcalloc((size_t)n * 3, sizeof *c);
    static const double far[2][3] = {{3.0e282, 4.2e282, 2.6e282}, {7.0e282, 6.8e282, 7.6e282}};
    static const double centre[2][3] = {{7e69, 6.8e69, 7.5e69}, {3.1e69, 3.9e69, 2.7e69}};
    for (uint64_t seed = 1; seed <= 20; seed++) {
        uint64_t s = seed;
        for (int64_t i = 0; i < n; i++)
            for (int d = 0; d < 3; d++) {
                const double *copy = &c[3 * rng_below(&s, (uint64_t)(i > 2 ? i - 2 : 1) + 2)];
                c[3 * i + d] = i < 2     ? far[i][d]
                               : i < 122 ? centre[rng_below(&s, 3) == 0][d] * (1 + 0.06 * (rng_unit(&s) - 0.5))
                                         : nextafter(copy[d], INFINITY);
            }
        char name[64];
        snprintf(name, sizeof name, "clusters near 1e69, set %llu", (unsigned long long)seed);
        check_set(c, n, 3, 0, name);
    }
    free(c);
}
END_TEST

/* A lattice 1e-173 apart and a copy 1e-186 apart, and one point at 6e-155:
 * in a crowded cell's grid, whose cells are far finer than a unit in the
 * last place of the far point's coordinate, the rows' trimming rounded
 * away the cells holding the nearest points in edge order (found by the
 * solver fuzzer: the edge to 6e-155 went to a larger id). */
START_TEST(test_far_query_fine_subgrid)
{
    double *c = xcalloc(2 * 300, sizeof *c);
    int64_t n = 0;
    for (int k = 0; k < 2; k++)
        for (int i = -6; i <= 6; i++)
            for (int j = -6; j <= 6; j++)
                if (i * i + j * j <= 40) {
                    c[2 * n] = i * (k ? 1e-186 : 1e-173);
                    c[2 * n + 1] = j * (k ? 1e-186 : 1e-173);
                    n++;
                }
    c[2 * n] = 6e-155;
    n++;
    check_set(c, n, 2, 1, "lattices and a far point");
    free(c);
}
END_TEST

/* Coordinates spanning more than the largest double: double precision no
 * longer translates them, and each edge is finite (float still refuses);
 * an edge longer than the largest double is refused. */
START_TEST(test_span_beyond_double)
{
    const double c[] = {-1e308, 1, 0, 0, 1e308, 2};
    check_set(c, 3, 2, 1, "-1e308 to 1e308");
    const double far[] = {-1.7e308, 0, 1.7e308, 0};
    check_set(far, 2, 2, 0, "an edge of 3.4e308");
}
END_TEST

/* -0 and +0 are the same point: 40 copies of the origin with either sign
 * (a cell of more than 32 points, deduplicated by hashing its points' bits)
 * are one point and its duplicates. */
START_TEST(test_signed_zeros)
{
    const int64_t n = 43;
    double *c = xcalloc((size_t)n * 2, sizeof *c);
    for (int64_t i = 0; i < 40; i++) {
        c[2 * i] = i % 2 ? -0.0 : 0.0;
        c[2 * i + 1] = i % 3 ? 0.0 : -0.0;
    }
    c[80] = 1;
    c[83] = 1;
    c[84] = 1e-3;
    c[85] = 2e-3;
    check_set(c, n, 2, 1, "signed zeros");
    gridemst_result r = solve_cpu(c, GRIDEMST_FLOAT64, n, 2, 1, DOUBLE);
    REQUIRE_CMP(r.stats.n_duplicates, ==, 39);
    gridemst_result_free(&r);
    free(c);
}
END_TEST

/* Clusters 1e-6 wide (a few units in the last place of their coordinates)
 * at random places up to 1e9 from the origin, in 2D and 3D: translation
 * rounded most of their coordinates. */
START_TEST(test_clusters_far_apart)
{
    uint64_t seed = 11 + (uint64_t)_i;
    const int dim = 2 + _i % 2;
    const int64_t n = 300;
    double *c = xcalloc((size_t)n * dim, sizeof *c);
    double centre[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        if (i % 50 == 0)
            for (int d = 0; d < dim; d++)
                centre[d] = (rng_unit(&seed) - 0.5) * 2e9;
        for (int d = 0; d < dim; d++)
            c[i * dim + d] = centre[d] + rng_unit(&seed) * 1e-6;
    }
    check_set(c, n, dim, 1, "clusters 1e9 apart");
    free(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("precision");
    TCase *hang = tcase_create("hangs");
    tcase_set_timeout(hang, 60);
    tcase_add_test(hang, test_subnormal_box);
    tcase_add_test(hang, test_subnormal_crowded_cell);
    tcase_add_test(hang, test_subnormal_float_cell);
    suite_add_tcase(s, hang);
    TCase *wide = tcase_create("wide spans");
    tcase_set_timeout(wide, 120);
    tcase_add_test(wide, test_translation_rounding);
    tcase_add_test(wide, test_small_cube_far_point);
    tcase_add_test(wide, test_underflow_refused);
    tcase_add_test(wide, test_float_zero_distance);
    tcase_add_test(wide, test_zero_distance_clusters);
    tcase_add_test(wide, test_far_query_fine_subgrid);
    tcase_add_test(wide, test_span_beyond_double);
    tcase_add_test(wide, test_signed_zeros);
    tcase_add_loop_test(wide, test_clusters_far_apart, 0, 4);
    suite_add_tcase(s, wide);
    return run_suite(s);
}
