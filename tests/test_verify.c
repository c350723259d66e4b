/*
 * The tree check behind --verify (src/tools/tree_check.h): the solver's
 * trees pass, and trees that are wrong in each way it looks for fail:
 * shape (count, ids, order, cycles), lengths, and edges (in double any
 * edge not the reference's; in float one whose swap is beyond rounding,
 * while a swap within float rounding passes); and the check of the edges
 * alone, for trees too large for Prim.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "tools/prim.h"
#include "tools/tree_check.h"

#define FLOAT GRIDEMST_PRECISION_FLOAT
#define DOUBLE GRIDEMST_PRECISION_DOUBLE

/* Checks edges (m of them) and returns the outcome; reason, when wanted,
 * must mention `why`. */
static int check(const double *c, int64_t n, int dim, int prec, const gridemst_edge *edges, int64_t m,
                 const char *why)
{
    gemst_tree_check out;
    int rc = gemst_check_tree(c, GRIDEMST_FLOAT64, n, dim, prec, edges, m, &out);
    REQUIRE(rc >= 0, "out of memory");
    if (why)
        REQUIRE(rc == 0 && strstr(out.reason, why) != NULL, "expected a failure (%s), got %d: %s", why, rc,
                out.reason);
    else
        REQUIRE(rc == 1 && out.reason[0] == '\0', "expected a pass: %s", out.reason);
    return rc;
}

static gridemst_result solve(const double *c, int64_t n, int dim, int prec)
{
    return solve_cpu(c, GRIDEMST_FLOAT64, n, dim, 1, prec);
}

/* Sorts a copy of a tree after a change, so that only the change fails. */
static gridemst_edge *sorted_copy(const gridemst_result *r)
{
    gridemst_edge *e = xcalloc((size_t)r->n_edges + 1, sizeof *e);
    memcpy(e, r->edges, sizeof *e * (size_t)r->n_edges);
    return e;
}

/* The solver's trees pass in both precisions; the same trees with one
 * length changed by one unit in the last place fail in double. */
START_TEST(test_solver_trees_pass)
{
    for (int dim = 2; dim <= 3; dim++) {
        const int64_t n = 2000;
        double *c = random_points(n, dim, 3 + (uint64_t)dim);
        for (int prec = FLOAT; prec <= DOUBLE; prec++) {
            gridemst_result r = solve(c, n, dim, prec);
            check(c, n, dim, prec, r.edges, r.n_edges, NULL);
            gridemst_edge *e = sorted_copy(&r);
            e[n / 2].w = nextafter(e[n / 2].w, 0.0);
            if (prec == DOUBLE)
                check(c, n, dim, prec, e, r.n_edges, "the reference's");
            else
                check(c, n, dim, prec, e, r.n_edges, NULL); /* far within float rounding */
            e[n / 2].w = r.edges[n / 2].w * 1.001;
            gemst_edges_sort(e, r.n_edges);
            check(c, n, dim, prec, e, r.n_edges, "tolerance");
            free(e);
            gridemst_result_free(&r);
        }
        free(c);
    }
}
END_TEST

/* Trees that are not spanning trees in (w, u, v) order. */
START_TEST(test_shape)
{
    const int64_t n = 50;
    double *c = random_points(n, 2, 9);
    gridemst_result r = solve(c, n, 2, DOUBLE);
    gridemst_edge *e = sorted_copy(&r);
    check(c, n, 2, DOUBLE, e, n - 2, "48 edges for 50 points, expected 49");
    e[3].u = e[3].v;
    check(c, n, 2, DOUBLE, e, n - 1, "is not a pair u < v");
    memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
    gridemst_edge t = e[4];
    e[4] = e[5];
    e[5] = t;
    check(c, n, 2, DOUBLE, e, n - 1, "not in (w, u, v) order");
    memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
    e[n - 2] = e[0]; /* the longest edge replaced by a copy of the shortest: a cycle (and out of order) */
    e[n - 2].w = e[n - 3].w * 2;
    check(c, n, 2, DOUBLE, e, n - 1, "closes a cycle");
    free(e);
    gridemst_result_free(&r);
    free(c);
}
END_TEST

/*
 * A near tie: (0, 0), (1, 0), (1, 1 + 1e-12) and (0, 1).  The reference
 * joins 2 to 3 (length sqrt(1 + 1e-24), 1 in double); 1 to 2 (1 + 1e-12)
 * instead is a swap float rounding allows and double does not.  Joining 0
 * to 2 (length sqrt 2) fails in both, by its length, and by its edge where
 * it is given the reference's length.
 */
START_TEST(test_near_tie)
{
    const double c[] = {0, 0, 1, 0, 1, 1 + 1e-12, 0, 1};
    gridemst_result r = solve(c, 4, 2, DOUBLE);
    check(c, 4, 2, DOUBLE, r.edges, 3, NULL);
    gridemst_edge ref[3];
    REQUIRE_TRUE(gemst_prim_reference(c, GRIDEMST_FLOAT64, 4, 2, ref) > 0);
    REQUIRE_TRUE(ref[2].u == 2 && ref[2].v == 3);
    gridemst_edge swapped[3] = {ref[0], ref[1], {1, 2, 1 + 1e-12}};
    gemst_edges_sort(swapped, 3);
    check(c, 4, 2, FLOAT, swapped, 3, NULL);
    check(c, 4, 2, DOUBLE, swapped, 3, "the reference's");
    gridemst_edge far[3] = {ref[0], ref[1], {0, 2, sqrt(2.0)}};
    for (int prec = FLOAT; prec <= DOUBLE; prec++)
        check(c, 4, 2, prec, far, 3, "tolerance");
    far[2].w = ref[2].w; /* the right length on the wrong edge */
    gemst_edges_sort(far, 3);
    check(c, 4, 2, FLOAT, far, 3, "no edge longer than");
    check(c, 4, 2, DOUBLE, far, 3, "is not in the reference tree");
    gridemst_result_free(&r);
}
END_TEST

/* Checks the edges alone (m of them); the failure, when wanted, must
 * mention `why`. */
static void check_edges(const double *c, int64_t n, int dim, int prec, const gridemst_edge *edges, int64_t m,
                        const char *why)
{
    gemst_tree_check out;
    const int rc = gemst_check_edges(c, GRIDEMST_FLOAT64, n, dim, prec, edges, m, &out);
    if (why)
        REQUIRE(rc == 0 && strstr(out.reason, why) != NULL, "expected a failure (%s), got %d: %s", why, rc,
                out.reason);
    else
        REQUIRE(rc == 1 && out.reason[0] == '\0', "expected a pass: %s", out.reason);
}

/* The edges alone (gemst_check_edges), past Prim's reach: the solver's
 * trees pass in both precisions; a wrong count, an end that is no point,
 * edges out of order, a length 0.1% off (in double one unit in the last
 * place), and an end moved to another point fail. */
START_TEST(test_edges_only)
{
    const int64_t n = 30000;
    for (int dim = 2; dim <= 3; dim++) {
        double *c = random_points(n, dim, 17 + (uint64_t)dim);
        for (int prec = FLOAT; prec <= DOUBLE; prec++) {
            gridemst_result r = solve(c, n, dim, prec);
            check_edges(c, n, dim, prec, r.edges, r.n_edges, NULL);
            check_edges(c, n, dim, prec, r.edges, n - 2, "29998 edges for 30000 points");
            gridemst_edge *e = sorted_copy(&r);
            e[7].v = n;
            check_edges(c, n, dim, prec, e, n - 1, "edge 7 (");
            memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
            const gridemst_edge t = e[20000];
            e[20000] = e[20001];
            e[20001] = t;
            check_edges(c, n, dim, prec, e, n - 1, "edges 20000 and 20001 are not in");
            memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
            e[12345].w *= 1.001;
            gemst_edges_sort(e, n - 1);
            check_edges(c, n, dim, prec, e, n - 1, "long, its ends");
            memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
            e[29000].u = e[29000].u > 0 ? e[29000].u - 1 : e[29000].v + 1; /* moved: another length */
            if (e[29000].u > e[29000].v) {
                const int64_t x = e[29000].u;
                e[29000].u = e[29000].v;
                e[29000].v = x;
            }
            gemst_edges_sort(e, n - 1);
            check_edges(c, n, dim, prec, e, n - 1, "long, its ends");
            if (prec == DOUBLE) {
                memcpy(e, r.edges, sizeof *e * (size_t)(n - 1));
                e[321].w = nextafter(e[321].w, 0.0);
                gemst_edges_sort(e, n - 1);
                check_edges(c, n, dim, prec, e, n - 1, "long, its ends");
            }
            free(e);
            gridemst_result_free(&r);
        }
        free(c);
    }
}
END_TEST

/* The tree once returned for a tetrahedron beside z = -1e9 (translation
 * rounded 2e-9 to 0) fails; the solver's tree passes. */
START_TEST(test_old_wrong_tree)
{
    const double c[] = {0, 0, 0, 3e-9, 0, 0, 0, 1e-9, 0, 0, 0, 2e-9, 1, 1, -1e9};
    const gridemst_edge wrong[4] = {{0, 3, 0}, {0, 2, 1.0000000000000001e-09}, {0, 1, 3e-9}, {0, 4, 1e9}};
    check(c, 5, 3, DOUBLE, wrong, 4, "length 0 is 0");
    gridemst_result r = solve(c, 5, 3, DOUBLE);
    check(c, 5, 3, DOUBLE, r.edges, 4, NULL);
    gridemst_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("check");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_solver_trees_pass);
    tcase_add_test(tc, test_shape);
    tcase_add_test(tc, test_near_tie);
    tcase_add_test(tc, test_old_wrong_tree);
    tcase_add_test(tc, test_edges_only);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
