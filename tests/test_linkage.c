/*
 * Single linkage from the tree against methods that never see a tree:
 * the merges against naive agglomerative clustering over all pairwise
 * distances (Lance-Williams single-linkage update), the flat clusters
 * against the same stopped at k clusters, and the cut against
 * friends-of-friends by breadth-first search over all pairs within the
 * linking length.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"

static double dist(const double *p, int dim, int64_t i, int64_t j)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double t = p[i * dim + d] - p[j * dim + d];
        s += t * t;
    }
    return sqrt(s);
}

static gridemst_result solve(const double *p, int64_t n, int dim)
{
    return solve_cpu(p, GRIDEMST_FLOAT64, n, dim, 0, GRIDEMST_PRECISION_DOUBLE);
}

/* Naive agglomerative single linkage: merges[s] for s < steps, and each
 * point's cluster after `steps` merges (the index of the cluster's
 * surviving slot).  Cluster ids follow SciPy: points 0..n-1, merge s
 * makes n + s. */
static void agglomerate(const double *p, int64_t n, int dim, int64_t steps, gridemst_merge *merges, int64_t *slot_of)
{
    double *d = xcalloc((size_t)(n * n), sizeof *d);
    int64_t *id = xcalloc((size_t)n, sizeof *id), *size = xcalloc((size_t)n, sizeof *size);
    char *alive = xcalloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) {
        id[i] = i;
        size[i] = 1;
        alive[i] = 1;
        slot_of[i] = i;
        for (int64_t j = 0; j < n; j++)
            d[i * n + j] = dist(p, dim, i, j);
    }
    for (int64_t s = 0; s < steps; s++) {
        int64_t bi = -1, bj = -1;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++)
                if (alive[i] && alive[j] && (bi < 0 || d[i * n + j] < d[bi * n + bj]))
                    bi = i, bj = j;
        merges[s].a = id[bi] < id[bj] ? id[bi] : id[bj];
        merges[s].b = id[bi] < id[bj] ? id[bj] : id[bi];
        merges[s].distance = d[bi * n + bj];
        merges[s].size = size[bi] + size[bj];
        /* bj joins bi; single linkage keeps the smaller distance */
        for (int64_t k = 0; k < n; k++) {
            double m = fmin(d[bi * n + k], d[bj * n + k]);
            d[bi * n + k] = d[k * n + bi] = m;
        }
        alive[bj] = 0;
        size[bi] += size[bj];
        id[bi] = n + s;
        for (int64_t k = 0; k < n; k++)
            if (slot_of[k] == bj)
                slot_of[k] = bi;
    }
    free(d);
    free(id);
    free(size);
    free(alive);
}

/* Labels from any grouping: groups of fewer than min_size points are -1,
 * the others numbered in order of their first point. */
static int64_t number_groups(const int64_t *group, int64_t n, int64_t min_size, int64_t *labels)
{
    int64_t *count = xcalloc((size_t)n, sizeof *count), *name = xcalloc((size_t)n, sizeof *name);
    for (int64_t i = 0; i < n; i++) {
        count[group[i]]++;
        name[i] = -2;
    }
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = group[i];
        if (name[g] == -2)
            name[g] = count[g] < min_size ? -1 : next++;
        labels[i] = name[g];
    }
    free(count);
    free(name);
    return next;
}

/* Friends-of-friends: the groups of the graph joining points within
 * linking length b, by breadth-first search; group ids are point ids. */
static void friends_of_friends(const double *p, int64_t n, int dim, double b, int64_t *group)
{
    int64_t *queue = xcalloc((size_t)n, sizeof *queue);
    for (int64_t i = 0; i < n; i++)
        group[i] = -1;
    for (int64_t s = 0; s < n; s++) {
        if (group[s] >= 0)
            continue;
        int64_t head = 0, tail = 0;
        group[s] = s;
        queue[tail++] = s;
        while (head < tail) {
            int64_t i = queue[head++];
            for (int64_t j = 0; j < n; j++)
                if (group[j] < 0 && dist(p, dim, i, j) <= b) {
                    group[j] = s;
                    queue[tail++] = j;
                }
        }
    }
    free(queue);
}

static void require_same_labels(const int64_t *got, const int64_t *want, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        REQUIRE(got[i] == want[i], "%s: point %lld has label %lld, expected %lld", what, (long long)i,
                (long long)got[i], (long long)want[i]);
}

/* Every merge row equals the naive one: same clusters, same size, the
 * same distance up to the rounding of the two distance computations. */
static void check_linkage(int64_t n, int dim, uint64_t seed)
{
    double *p = random_points(n, dim, seed);
    gridemst_result r = solve(p, n, dim);
    gridemst_merge *got = xcalloc((size_t)n, sizeof *got), *want = xcalloc((size_t)n, sizeof *want);
    int64_t *slot = xcalloc((size_t)n, sizeof *slot);
    gridemst_error err;
    REQUIRE(gridemst_linkage(&r, got, &err) == GRIDEMST_OK, "linkage failed: %s", err.message);
    agglomerate(p, n, dim, n - 1, want, slot);
    for (int64_t s = 0; s < n - 1; s++) {
        REQUIRE(got[s].a == want[s].a && got[s].b == want[s].b && got[s].size == want[s].size,
                "n=%lld %dD merge %lld: (%lld, %lld, size %lld), expected (%lld, %lld, size %lld)", (long long)n,
                dim, (long long)s, (long long)got[s].a, (long long)got[s].b, (long long)got[s].size,
                (long long)want[s].a, (long long)want[s].b, (long long)want[s].size);
        REQUIRE(fabs(got[s].distance - want[s].distance) <= 1e-12 * want[s].distance,
                "merge %lld: distance %.17g, expected %.17g", (long long)s, got[s].distance, want[s].distance);
    }
    REQUIRE_CMP(got[n - 2].size, ==, n);
    gridemst_result_free(&r);
    free(p);
    free(got);
    free(want);
    free(slot);
}

START_TEST(test_linkage_matches_agglomerative)
{
    check_linkage(2, 2, 1);
    check_linkage(3, 3, 2);
    check_linkage(90, 2, 3);
    check_linkage(70, 3, 4);
}
END_TEST

/* --clusters k for every k, with and without a minimum size. */
START_TEST(test_clusters_k_match_agglomerative)
{
    const int64_t n = 60;
    const int dim = 2;
    double *p = random_points(n, dim, 11);
    gridemst_result r = solve(p, n, dim);
    gridemst_merge *merges = xcalloc((size_t)n, sizeof *merges);
    int64_t *slot = xcalloc((size_t)n, sizeof *slot), *want = xcalloc((size_t)n, sizeof *want);
    int64_t *got = xcalloc((size_t)n, sizeof *got);
    gridemst_error err;
    for (int64_t k = 1; k <= n + 2; k++) {
        int64_t steps = k <= n ? n - k : 0;
        agglomerate(p, n, dim, steps, merges, slot);
        for (int64_t min_size = 0; min_size <= 4; min_size += 2) {
            int64_t count = -7;
            int64_t want_count = number_groups(slot, n, min_size, want);
            REQUIRE(gridemst_clusters_k(&r, k, min_size, got, &count, &err) == GRIDEMST_OK, "clusters_k: %s",
                    err.message);
            require_same_labels(got, want, n, "clusters_k");
            REQUIRE_CMP(count, ==, want_count);
        }
    }
    gridemst_result_free(&r);
    free(p);
    free(merges);
    free(slot);
    free(want);
    free(got);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Cuts between every two consecutive distinct tree weights, below the
 * shortest and above the longest, against friends-of-friends. */
static void check_cuts(const double *p, int64_t n, int dim)
{
    gridemst_result r = solve(p, n, dim);
    double *cuts = xcalloc((size_t)n + 1, sizeof *cuts);
    int64_t n_cuts = 0;
    cuts[n_cuts++] = r.n_edges ? r.edges[0].w * 0.5 : 0.0;
    for (int64_t e = 0; e + 1 < r.n_edges; e++)
        if (r.edges[e + 1].w > r.edges[e].w)
            cuts[n_cuts++] = 0.5 * (r.edges[e].w + r.edges[e + 1].w);
    cuts[n_cuts++] = r.n_edges ? r.edges[r.n_edges - 1].w * 2.0 : 1.0;
    qsort(cuts, (size_t)n_cuts, sizeof *cuts, cmp_double);
    int64_t *group = xcalloc((size_t)n, sizeof *group), *want = xcalloc((size_t)n, sizeof *want);
    int64_t *got = xcalloc((size_t)n, sizeof *got);
    gridemst_error err;
    for (int64_t c = 0; c < n_cuts; c++) {
        friends_of_friends(p, n, dim, cuts[c], group);
        int64_t min_size = c % 3; /* 0, 1, 2 */
        int64_t count, want_count = number_groups(group, n, min_size, want);
        REQUIRE(gridemst_clusters_cut(&r, cuts[c], min_size, got, &count, &err) == GRIDEMST_OK, "cut: %s",
                err.message);
        require_same_labels(got, want, n, "clusters_cut");
        REQUIRE_CMP(count, ==, want_count);
    }
    gridemst_result_free(&r);
    free(cuts);
    free(group);
    free(want);
    free(got);
}

START_TEST(test_cut_matches_friends_of_friends)
{
    double *p = random_points(400, 2, 21);
    check_cuts(p, 400, 2);
    free(p);
    p = random_points(300, 3, 22);
    check_cuts(p, 300, 3);
    free(p);
}
END_TEST

/* Exact duplicates and points on a lattice: ties everywhere.  A cut at a
 * weight itself keeps the edges of that weight (friends at exactly the
 * linking length). */
START_TEST(test_cut_with_ties_and_duplicates)
{
    const int64_t side = 12, n = side * side + 10;
    double *p = xcalloc((size_t)n * 2, sizeof *p);
    for (int64_t i = 0; i < side * side; i++) {
        p[2 * i] = (double)(i % side);
        p[2 * i + 1] = (double)(i / side) * 2.0; /* rows 2 apart: cuts at 1 give rows */
    }
    for (int64_t i = side * side; i < n; i++) { /* copies of points 0..9 */
        p[2 * i] = p[2 * (i - side * side)];
        p[2 * i + 1] = p[2 * (i - side * side) + 1];
    }
    check_cuts(p, n, 2);
    gridemst_result r = solve(p, n, 2);
    int64_t *group = xcalloc((size_t)n, sizeof *group), *want = xcalloc((size_t)n, sizeof *want);
    int64_t *got = xcalloc((size_t)n, sizeof *got);
    const double at[] = {0.0, 1.0, 2.0};
    const int64_t clusters_at[] = {n - 10, side, 1};
    gridemst_error err;
    for (int c = 0; c < 3; c++) {
        int64_t count;
        friends_of_friends(p, n, 2, at[c], group);
        number_groups(group, n, 0, want);
        REQUIRE(gridemst_clusters_cut(&r, at[c], 0, got, &count, &err) == GRIDEMST_OK, "cut: %s", err.message);
        require_same_labels(got, want, n, "cut at a weight");
        REQUIRE_CMP(count, ==, clusters_at[c]);
    }
    gridemst_result_free(&r);
    free(p);
    free(group);
    free(want);
    free(got);
}
END_TEST

START_TEST(test_small_trees)
{
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    const double one[2] = {3.0, 4.0};
    int64_t label = 9, count = 9;
    ck_assert_int_eq(gridemst_solve(one, GRIDEMST_FLOAT64, 1, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(gridemst_linkage(&r, NULL, &err), GRIDEMST_OK);
    ck_assert_int_eq(gridemst_clusters_k(&r, 3, 0, &label, &count, &err), GRIDEMST_OK);
    ck_assert_int_eq(label, 0);
    ck_assert_int_eq(count, 1);
    ck_assert_int_eq(gridemst_clusters_cut(&r, 0.0, 2, &label, &count, &err), GRIDEMST_OK);
    ck_assert_int_eq(label, -1);
    ck_assert_int_eq(count, 0);
    gridemst_result_free(&r);
    ck_assert_int_eq(gridemst_solve(one, GRIDEMST_FLOAT64, 0, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(gridemst_clusters_k(&r, 1, 0, NULL, NULL, &err), GRIDEMST_OK);
    gridemst_result_free(&r);
}
END_TEST

/* A hand-made three-point tree, to which bad edits are applied. */
static gridemst_edge good_edges[2] = {{0, 1, 1.0}, {1, 2, 2.0}};

static gridemst_result hand_tree(gridemst_edge *edges)
{
    gridemst_result r = GRIDEMST_RESULT_INIT;
    r.n = 3;
    r.n_edges = 2;
    r.edges = edges;
    return r;
}

START_TEST(test_bad_arguments)
{
    gridemst_error err;
    gridemst_merge rows[2];
    int64_t labels[3];
    gridemst_edge e[2];
    gridemst_result r = GRIDEMST_RESULT_INIT;
    const int bad = GRIDEMST_ERR_INVALID_ARGUMENT;

    ck_assert_int_eq(gridemst_linkage(NULL, rows, &err), bad);
    ck_assert_int_eq(gridemst_clusters_k(NULL, 1, 0, labels, NULL, &err), bad);
    ck_assert_int_eq(gridemst_clusters_cut(NULL, 1.0, 0, labels, NULL, &err), bad);

    memcpy(e, good_edges, sizeof e);
    r = hand_tree(e);
    ck_assert_int_eq(gridemst_linkage(&r, NULL, &err), bad);
    ck_assert_int_eq(gridemst_clusters_k(&r, 1, 0, NULL, NULL, &err), bad);
    ck_assert_int_eq(gridemst_clusters_k(&r, 0, 0, labels, NULL, &err), bad);
    ck_assert_ptr_nonnull(strstr(err.message, "number of clusters"));
    ck_assert_int_eq(gridemst_clusters_k(&r, 1, -1, labels, NULL, &err), bad);
    ck_assert_int_eq(gridemst_clusters_cut(&r, -1.0, 0, labels, NULL, &err), bad);
    ck_assert_int_eq(gridemst_clusters_cut(&r, NAN, 0, labels, NULL, &err), bad);
    ck_assert_int_eq(gridemst_linkage(&r, rows, &err), GRIDEMST_OK);

    e[1].w = 0.5; /* out of order */
    ck_assert_int_eq(gridemst_linkage(&r, rows, &err), bad);
    ck_assert_ptr_nonnull(strstr(err.message, "increasing order"));
    memcpy(e, good_edges, sizeof e);
    e[1].w = NAN;
    ck_assert_int_eq(gridemst_clusters_cut(&r, 1.0, 0, labels, NULL, &err), bad);
    memcpy(e, good_edges, sizeof e);
    e[1].u = 2, e[1].v = 1; /* u > v */
    ck_assert_int_eq(gridemst_linkage(&r, rows, &err), bad);
    memcpy(e, good_edges, sizeof e);
    e[1].v = 3; /* beyond n */
    ck_assert_int_eq(gridemst_clusters_k(&r, 2, 0, labels, NULL, &err), bad);
    memcpy(e, good_edges, sizeof e);
    e[1].u = 0, e[1].v = 1; /* a cycle, point 2 left out */
    ck_assert_int_eq(gridemst_linkage(&r, rows, &err), bad);
    ck_assert_ptr_nonnull(strstr(err.message, "cycle"));
    memcpy(e, good_edges, sizeof e);
    r.n_edges = 1; /* not n - 1 edges */
    ck_assert_int_eq(gridemst_linkage(&r, rows, &err), bad);
}
END_TEST

static Suite *linkage_suite(void)
{
    Suite *s = suite_create("linkage");
    TCase *tc = tcase_create("linkage");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_linkage_matches_agglomerative);
    tcase_add_test(tc, test_clusters_k_match_agglomerative);
    tcase_add_test(tc, test_cut_matches_friends_of_friends);
    tcase_add_test(tc, test_cut_with_ties_and_duplicates);
    tcase_add_test(tc, test_small_trees);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(linkage_suite());
}
