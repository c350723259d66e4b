/*
 * Real TSPLIB instances through the reader and the solver.
 *
 * The strongest check: the tree's length under the instance's own integer
 * metric (gemst_tsplib_tree_length) equals the minimum spanning tree of that
 * metric found by an O(n^2) Prim on the integer distances.  That holds
 * because each TSPLIB metric is a non-decreasing function of the Euclidean
 * distance (of the unit vectors, for GEO), so a Euclidean MST is also an MST
 * of the rounded metric.  The integer distances are computed here by a
 * second implementation of the TSPLIB95 formulas, sharing no code with
 * src/tools/tsplib_metric.c; Held-Karp on the two smallest GEO instances
 * checks that implementation against the published optimal tours.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tools/io.h"
#include "tools/prim.h"

/* ----------------------------------------------------------------- TSPLIB95 distances, written again */

typedef int64_t (*tsp_dist_fn)(const double *a, const double *b);

static int64_t nint(double x)
{
    return (int64_t)(x + 0.5);
}

static int64_t euc_2d(const double *a, const double *b)
{
    double xd = a[0] - b[0], yd = a[1] - b[1];
    return nint(sqrt(xd * xd + yd * yd));
}

static int64_t euc_3d(const double *a, const double *b)
{
    double xd = a[0] - b[0], yd = a[1] - b[1], zd = a[2] - b[2];
    return nint(sqrt(xd * xd + yd * yd + zd * zd));
}

static int64_t ceil_2d(const double *a, const double *b)
{
    double xd = a[0] - b[0], yd = a[1] - b[1];
    return (int64_t)ceil(sqrt(xd * xd + yd * yd));
}

static int64_t att(const double *a, const double *b)
{
    double xd = a[0] - b[0], yd = a[1] - b[1];
    double rij = sqrt((xd * xd + yd * yd) / 10.0);
    int64_t tij = nint(rij);
    return (double)tij < rij ? tij + 1 : tij;
}

/* TSPLIB95: deg = (int) x; min = x - deg; rad = PI * (deg + 5.0 * min / 3.0) / 180.0 */
static double geo_radians(double x)
{
    const double PI = 3.141592;
    int deg = (int)x;
    double min = x - deg;
    return PI * (deg + 5.0 * min / 3.0) / 180.0;
}

static int64_t geo(const double *a, const double *b)
{
    const double RRR = 6378.388;
    double lat_i = geo_radians(a[0]), lon_i = geo_radians(a[1]);
    double lat_j = geo_radians(b[0]), lon_j = geo_radians(b[1]);
    double q1 = cos(lon_i - lon_j);
    double q2 = cos(lat_i - lat_j);
    double q3 = cos(lat_i + lat_j);
    return (int)(RRR * acos(0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)) + 1.0);
}

static tsp_dist_fn metric_of(const char *type)
{
    static const struct {
        const char *name;
        tsp_dist_fn fn;
    } table[] = {{"EUC_2D", euc_2d}, {"EUC_3D", euc_3d}, {"CEIL_2D", ceil_2d}, {"ATT", att}, {"GEO", geo}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(type, table[i].name) == 0)
            return table[i].fn;
    ck_abort_msg("no metric %s", type);
    return NULL;
}

/* Prim's algorithm on the complete graph of the integer metric; the MST's total. */
static int64_t integer_mst(const gemst_pointset *ps)
{
    tsp_dist_fn dist = metric_of(ps->tsp.edge_weight_type);
    const int64_t n = ps->n;
    const int dim = ps->tsp.orig_dim;
    const double *p = ps->tsp.orig;
    int64_t *best = malloc((size_t)n * sizeof *best);
    char *done = calloc((size_t)n, 1);
    ck_assert(best && done);
    for (int64_t i = 0; i < n; i++)
        best[i] = INT64_MAX;
    best[0] = 0;
    int64_t total = 0;
    for (int64_t step = 0; step < n; step++) {
        int64_t u = -1;
        for (int64_t i = 0; i < n; i++)
            if (!done[i] && (u < 0 || best[i] < best[u]))
                u = i;
        done[u] = 1;
        total += best[u];
        for (int64_t i = 0; i < n; i++) {
            if (!done[i]) {
                int64_t d = dist(p + u * dim, p + i * dim);
                if (d < best[i])
                    best[i] = d;
            }
        }
    }
    free(best);
    free(done);
    return total;
}

/* Optimal tour length by Held-Karp dynamic programming (n <= 16 here). */
static int64_t held_karp(const gemst_pointset *ps)
{
    tsp_dist_fn dist = metric_of(ps->tsp.edge_weight_type);
    const int n = (int)ps->n, m = n - 1; /* node 0 is the start; subsets of the other m */
    const double *p = ps->tsp.orig;
    const int dim = ps->tsp.orig_dim;
    int64_t d[16][16];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            d[i][j] = dist(p + i * dim, p + j * dim);
    const size_t subsets = (size_t)1 << m;
    int64_t *cost = malloc(subsets * m * sizeof *cost); /* cost[S][j]: 0 -> S -> j, ending at j in S */
    ck_assert_ptr_nonnull(cost);
    for (size_t i = 0; i < subsets * m; i++)
        cost[i] = INT64_MAX;
    for (int j = 0; j < m; j++)
        cost[((size_t)1 << j) * m + j] = d[0][j + 1];
    for (size_t s = 1; s < subsets; s++)
        for (int j = 0; j < m; j++) {
            int64_t c = cost[s * m + j];
            if (c == INT64_MAX)
                continue;
            for (int k = 0; k < m; k++) {
                size_t t = s | (size_t)1 << k;
                if (t != s && c + d[j + 1][k + 1] < cost[t * m + k])
                    cost[t * m + k] = c + d[j + 1][k + 1];
            }
        }
    int64_t best = INT64_MAX;
    for (int j = 0; j < m; j++)
        if (cost[(subsets - 1) * m + j] + d[j + 1][0] < best)
            best = cost[(subsets - 1) * m + j] + d[j + 1][0];
    free(cost);
    return best;
}

/* ----------------------------------------------------------------- helpers */

static void read_instance(const char *file, gemst_pointset *ps)
{
    char path[1024];
    gridemst_error err = {0};
    snprintf(path, sizeof path, "%s", TSPLIB_FILE("") );
    strncat(path, file, sizeof path - strlen(path) - 1);
    int rc = gemst_read_tsplib(path, ps, NULL, NULL, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "%s: %s", file, err.message);
}

static int64_t find(int64_t *parent, int64_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* n - 1 edges, u < v, in range, sorted by length, joining all points. */
static void check_tree(const gridemst_result *res, int64_t n)
{
    ck_assert_int_eq(res->n_edges, n - 1);
    int64_t *parent = malloc((size_t)n * sizeof *parent);
    ck_assert_ptr_nonnull(parent);
    for (int64_t i = 0; i < n; i++)
        parent[i] = i;
    int64_t components = n;
    for (int64_t i = 0; i < res->n_edges; i++) {
        const gridemst_edge *e = &res->edges[i];
        ck_assert(0 <= e->u && e->u < e->v && e->v < n);
        /* Not (w, u, v): the solver orders by squared length in its working coordinates, and two squared
         * lengths a bit apart can have the same rounded square root (nu3496 has such a pair). */
        if (i > 0)
            ck_assert_msg(res->edges[i - 1].w <= e->w, "edge %lld shorter than the one before", (long long)i);
        int64_t a = find(parent, e->u), b = find(parent, e->v);
        if (a != b) {
            parent[a] = b;
            components--;
        }
    }
    ck_assert_int_eq(components, 1);
    free(parent);
}

/* ----------------------------------------------------------------- instances */

static const struct instance {
    const char *file;
    int64_t n;
    const char *type;
} instances[] = {
    {"burma14.tsp", 14, "GEO"},      {"ulysses16.tsp", 16, "GEO"},   {"ulysses22.tsp", 22, "GEO"},
    {"wi29.tsp", 29, "EUC_2D"},      {"att48.tsp", 48, "ATT"},       {"eil51.tsp", 51, "EUC_2D"},
    {"berlin52.tsp", 52, "EUC_2D"},  {"st70.tsp", 70, "EUC_2D"},     {"gr96.tsp", 96, "GEO"},
    {"kroA100.tsp", 100, "EUC_2D"},  {"ch130.tsp", 130, "EUC_2D"},   {"gr137.tsp", 137, "GEO"},
    {"a280.tsp", 280, "EUC_2D"},     {"lin318.tsp", 318, "EUC_2D"},  {"att532.tsp", 532, "ATT"},
    {"gr666.tsp", 666, "GEO"},       {"uy734.tsp", 734, "EUC_2D"},   {"lu980.tsp", 980, "EUC_2D"},
    {"dsj1000.tsp", 1000, "CEIL_2D"}, {"pr1002.tsp", 1002, "EUC_2D"}, {"u1060.tsp", 1060, "EUC_2D"},
    {"d1291.tsp", 1291, "EUC_2D"},   {"fl1577.tsp", 1577, "EUC_2D"}, {"rw1621.tsp", 1621, "EUC_2D"},
    {"u1817.tsp", 1817, "EUC_2D"},   {"mu1979.tsp", 1979, "EUC_2D"}, {"nu3496.tsp", 3496, "EUC_2D"},
};

START_TEST(solve_instance)
{
    const struct instance *in = &instances[_i];
    gemst_pointset ps;
    read_instance(in->file, &ps);
    ck_assert_int_eq(ps.n, in->n);
    ck_assert_str_eq(ps.tsp.edge_weight_type, in->type);
    ck_assert_int_eq(ps.dim, strcmp(in->type, "GEO") == 0 ? 3 : 2);

    /* the reference: Euclidean MST by the library's brute-force Prim, and the integer-metric MST by ours */
    gridemst_edge *ref = malloc((size_t)(ps.n - 1) * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    double ref_total = gemst_prim_reference(ps.coords, ps.dtype, ps.n, ps.dim, ref);
    ck_assert(ref_total >= 0);
    int64_t want_length = integer_mst(&ps);

    /* double precision with the default threads, float with one thread (a second code path, and quick on a
     * loaded machine where OpenMP's spinning threads wait for a core) */
    const gridemst_precision precisions[] = {GRIDEMST_PRECISION_DOUBLE, GRIDEMST_PRECISION_FLOAT};
    for (int k = 0; k < 2; k++) {
        gridemst_options opt;
        gridemst_options_init(&opt);
        opt.backend = GRIDEMST_BACKEND_CPU;
        opt.precision = precisions[k];
        opt.threads = k;
        gridemst_result res = GRIDEMST_RESULT_INIT;
        gridemst_error err = {0};
        int rc = gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &opt, &res, &err);
        ck_assert_msg(rc == GRIDEMST_OK, "%s: %s", in->file, err.message);
        check_tree(&res, ps.n);
        if (precisions[k] == GRIDEMST_PRECISION_DOUBLE) {
            ck_assert_msg(fabs(res.total_weight - ref_total) <= 1e-9 * ref_total, "%s: total %.17g, Prim %.17g",
                          in->file, res.total_weight, ref_total);
            /* every MST of a graph has the same sorted list of weights */
            for (int64_t i = 0; i < res.n_edges; i++)
                ck_assert_msg(fabs(res.edges[i].w - ref[i].w) <= 1e-9 * (ref[i].w + 1e-300), "%s: edge %lld",
                              in->file, (long long)i);
        }
        int64_t length = -1;
        ck_assert_int_eq(gemst_tsplib_tree_length(&ps, res.edges, res.n_edges, &length), 0);
        ck_assert_msg(length == want_length, "%s (%s): tree length %lld under %s, integer Prim %lld", in->file,
                      gridemst_precision_name(precisions[k]), (long long)length, in->type, (long long)want_length);
        /* the BVH index gives the identical tree */
        gridemst_result bvh = GRIDEMST_RESULT_INIT;
        opt.nns = GRIDEMST_NNS_BVH;
        rc = gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &opt, &bvh, &err);
        ck_assert_msg(rc == GRIDEMST_OK, "%s, BVH: %s", in->file, err.message);
        ck_assert_msg(same_edges(&res, &bvh), "%s (%s): the BVH's tree differs from the grid's", in->file,
                      gridemst_precision_name(precisions[k]));
        gridemst_result_free(&bvh);
        gridemst_result_free(&res);
    }
    free(ref);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(duplicates_kept)
{
    /* lu980 repeats 346 points and rw1621 755: each repeat is joined by a zero-length edge */
    const struct {
        const char *file;
        int64_t dups;
    } cases[] = {{"lu980.tsp", 346}, {"rw1621.tsp", 755}};
    for (int c = 0; c < 2; c++) {
        gemst_pointset ps;
        read_instance(cases[c].file, &ps);
        gridemst_options opt;
        gridemst_options_init(&opt);
        opt.backend = GRIDEMST_BACKEND_CPU;
        gridemst_result res = GRIDEMST_RESULT_INIT;
        gridemst_error err;
        ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &opt, &res, &err), GRIDEMST_OK);
        int64_t zero = 0;
        for (int64_t i = 0; i < res.n_edges; i++)
            zero += res.edges[i].w == 0.0;
        ck_assert_int_eq(zero, cases[c].dups);
        ck_assert_int_eq(res.stats.n_duplicates, cases[c].dups);
        gridemst_result_free(&res);
        gemst_pointset_free(&ps);
    }
}
END_TEST

/* ----------------------------------------------------------------- the metrics themselves */

START_TEST(geo_by_hand)
{
    gemst_pointset ps;
    gridemst_edge e = {0, 1, 0.0};
    int64_t length;

    /* burma14 nodes 1 (16.47, 96.10) and 2 (16.47, 94.44): same latitude 16 deg 47' = 16.7833 deg;
     * longitudes 96 deg 10' and 94 deg 44' differ by 1 deg 26' = 1.43333 deg = 0.0250163 rad.
     * Along one parallel the great circle is nearly the parallel's arc:
     * 0.0250163 * cos(16.7833 deg) = 0.0250163 * 0.957404 = 0.0239508 rad, times 6378.388 km = 152.77;
     * TSPLIB adds 1 and truncates: 153. */
    read_instance("burma14.tsp", &ps);
    ck_assert_int_eq(geo(ps.tsp.orig, ps.tsp.orig + 2), 153);
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), 0);
    ck_assert_int_eq(length, 153);
    gemst_pointset_free(&ps);

    /* ulysses22 nodes 1 (38.24, 20.42) and 2 (39.57, 26.15): 38.4 deg N 20.7 deg E to 39.95 deg N 26.25 deg E.
     * Haversine: dlat = 1.55 deg, dlon = 5.55 deg;
     * a = sin^2(0.775 deg) + cos(38.4 deg) cos(39.95 deg) sin^2(2.775 deg)
     *   = 0.00018295 + 0.783693 * 0.766605 * 0.00234391 = 0.00159113;
     * c = 2 asin(sqrt(a)) = 0.0797992 rad; 0.0797992 * 6378.388 = 508.99 km; + 1, truncated: 509. */
    read_instance("ulysses22.tsp", &ps);
    ck_assert_int_eq(geo(ps.tsp.orig, ps.tsp.orig + 2), 509);
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), 0);
    ck_assert_int_eq(length, 509);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(geo_optimal_tours)
{
    /* SOLUTIONS.txt: burma14 : 3323, ulysses16 : 6859 (TSPLIB's optimal tours, under GEO) */
    const struct {
        const char *file;
        int64_t tour;
    } cases[] = {{"burma14.tsp", 3323}, {"ulysses16.tsp", 6859}};
    for (int c = 0; c < 2; c++) {
        gemst_pointset ps;
        read_instance(cases[c].file, &ps);
        ck_assert_int_eq(held_karp(&ps), cases[c].tour);
        gemst_pointset_free(&ps);
    }
}
END_TEST

START_TEST(att_by_hand)
{
    /* att48 nodes 1 (6734, 1453) and 2 (2233, 10): dx = 4501, dy = 1443,
     * dx^2 + dy^2 = 20259001 + 2082249 = 22341250; / 10 = 2234125; sqrt = 1494.699;
     * nint = 1495, not below 1494.699, so the distance is 1495 */
    gemst_pointset ps;
    read_instance("att48.tsp", &ps);
    gridemst_edge e = {0, 1, 0.0};
    int64_t length;
    ck_assert_int_eq(att(ps.tsp.orig, ps.tsp.orig + 2), 1495);
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), 0);
    ck_assert_int_eq(length, 1495);
    gemst_pointset_free(&ps);
}
END_TEST

/* The tree length of one edge between two hand-made points under a metric. */
static int64_t one_edge(const char *type, int dim, const double *a, const double *b)
{
    double orig[6];
    memcpy(orig, a, dim * sizeof *a);
    memcpy(orig + dim, b, dim * sizeof *b);
    gemst_pointset ps = {.n = 2, .dim = dim, .dtype = GRIDEMST_FLOAT64, .coords = orig, .is_tsplib = 1};
    snprintf(ps.tsp.edge_weight_type, sizeof ps.tsp.edge_weight_type, "%s", type);
    ps.tsp.orig_dim = dim;
    ps.tsp.orig = orig;
    gridemst_edge e = {0, 1, 0.0};
    int64_t length = -1;
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), 0);
    return length;
}

START_TEST(rounding_rules)
{
    const double o[3] = {0, 0, 0}, p345[2] = {3, 4}, p25[2] = {1.5, 2}, p11[2] = {1, 1};
    const double p10[2] = {10, 0}, p3040[2] = {30, 40}, p122[3] = {1, 2, 2};
    ck_assert_int_eq(one_edge("EUC_2D", 2, o, p345), 5);
    ck_assert_int_eq(one_edge("EUC_2D", 2, o, p25), 3);    /* 2.5 rounds up */
    ck_assert_int_eq(one_edge("EUC_2D", 2, o, p11), 1);    /* 1.414 rounds down */
    ck_assert_int_eq(one_edge("CEIL_2D", 2, o, p11), 2);   /* 1.414 up */
    ck_assert_int_eq(one_edge("CEIL_2D", 2, o, p345), 5);
    ck_assert_int_eq(one_edge("ATT", 2, o, p10), 4);       /* sqrt(10) = 3.16: nint 3 < 3.16, so 4 */
    ck_assert_int_eq(one_edge("ATT", 2, o, p3040), 16);    /* sqrt(250) = 15.81: nint 16 */
    ck_assert_int_eq(one_edge("EUC_3D", 3, o, p122), 3);
    ck_assert_int_eq(one_edge("GEO", 2, o, o), 1);         /* TSPLIB's GEO is never 0 */
}
END_TEST

START_TEST(no_integer_length)
{
    double xy[4] = {0, 0, 1, 1};
    gemst_pointset ps = {.n = 2, .dim = 2, .dtype = GRIDEMST_FLOAT64, .coords = xy};
    gridemst_edge e = {0, 1, 1.0};
    int64_t length = 7;
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), -1); /* not TSPLIB */
    ps.is_tsplib = 1;
    ps.tsp.orig = xy;
    ps.tsp.orig_dim = 2;
    const char *types[] = {"MAN_2D", "MAX_2D", "XRAY1", ""};
    for (int i = 0; i < 4; i++) {
        snprintf(ps.tsp.edge_weight_type, sizeof ps.tsp.edge_weight_type, "%s", types[i]);
        ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 1, &length), -1);
    }
    snprintf(ps.tsp.edge_weight_type, sizeof ps.tsp.edge_weight_type, "EUC_2D");
    gridemst_edge bad = {0, 2, 1.0}; /* endpoint out of range */
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &bad, 1, &length), -1);
    ck_assert_int_eq(length, 7);
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, &e, 0, &length), 0); /* no edges: 0 */
    ck_assert_int_eq(length, 0);
}
END_TEST

static Suite *tsplib_suite(void)
{
    Suite *s = suite_create("tsplib");
    TCase *solve = tcase_create("solve");
    tcase_set_timeout(solve, 60);
    tcase_add_loop_test(solve, solve_instance, 0, (int)(sizeof instances / sizeof instances[0]));
    tcase_add_test(solve, duplicates_kept);
    suite_add_tcase(s, solve);

    TCase *metric = tcase_create("metric");
    tcase_add_test(metric, geo_by_hand);
    tcase_add_test(metric, geo_optimal_tours);
    tcase_add_test(metric, att_by_hand);
    tcase_add_test(metric, rounding_rules);
    tcase_add_test(metric, no_integer_length);
    suite_add_tcase(s, metric);
    return s;
}

int main(void)
{
    return run_suite(tsplib_suite());
}
