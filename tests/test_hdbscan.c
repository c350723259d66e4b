/*
 * gridemst_hdbscan through the public API: its arguments, and what every
 * result must satisfy, checked from the condensed tree's definition (each
 * point leaves the tree once; a cluster holds the points below it; lambdas
 * grow from a cluster's birth; labels, probabilities and scores in range)
 * and from the tree (a cluster's points are joined by its edges among
 * them).  The agreement with scikit-learn and the hdbscan package is
 * tests/hdbscan.sh's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "tools/generate.h"

static gridemst_result mr_tree(const gemst_pointset *ps, int64_t min_samples, int threads)
{
    gridemst_options o = cpu_defaults(threads);
    o.min_samples = min_samples;
    return solve_with(ps->coords, ps->dtype, ps->n, ps->dim, &o);
}

static gridemst_hdbscan_result cluster(const gridemst_result *tree, const gridemst_hdbscan_options *o)
{
    gridemst_hdbscan_result h;
    gridemst_error err;
    gridemst_hdbscan_result_init(&h);
    REQUIRE(gridemst_hdbscan(tree, o, &h, &err) == GRIDEMST_OK, "%s", err.message);
    return h;
}

/* The invariants of one result over the tree. */
static void check_result(const gridemst_result *tree, const gridemst_hdbscan_result *h, int64_t mcs, int connected,
                         const char *what)
{
    const int64_t n = tree->n, k = h->n_tree_clusters;
    int64_t *seen = xcalloc((size_t)n, sizeof *seen), *points = xcalloc((size_t)k, sizeof *points);
    int64_t *parent = xcalloc((size_t)k, sizeof *parent), *size = xcalloc((size_t)k, sizeof *size);
    double *birth = xcalloc((size_t)k, sizeof *birth);
    for (int64_t i = 0; i < k; i++)
        parent[i] = -1;
    for (int64_t r = 0; r < h->n_rows; r++) {
        const gridemst_condensed_row *row = &h->condensed[r];
        REQUIRE(row->parent >= n && row->parent < n + k && row->child >= 0 && row->child < n + k,
                "%s: row %lld names %lld -> %lld", what, (long long)r, (long long)row->parent, (long long)row->child);
        REQUIRE(row->lambda >= birth[row->parent - n], "%s: row %lld leaves before its parent's birth", what,
                (long long)r);
        if (row->child < n) {
            REQUIRE(row->child_size == 1 && seen[row->child]++ == 0, "%s: point %lld left twice", what,
                    (long long)row->child);
            for (int64_t c = row->parent - n; c >= 0; c = parent[c])
                points[c]++;
        } else {
            const int64_t c = row->child - n;
            REQUIRE(c > row->parent - n && parent[c] < 0 && row->child_size >= mcs,
                    "%s: cluster %lld born twice, before its parent or small", what, (long long)row->child);
            parent[c] = row->parent - n;
            size[c] = row->child_size;
            birth[c] = row->lambda;
        }
    }
    for (int64_t i = 0; i < n; i++)
        REQUIRE(seen[i] == 1, "%s: point %lld is not in the condensed tree", what, (long long)i);
    REQUIRE(points[0] == n, "%s: the root holds %lld of %lld points", what, (long long)points[0], (long long)n);
    for (int64_t c = 1; c < k; c++)
        REQUIRE(points[c] == size[c], "%s: cluster %lld holds %lld points, born with %lld", what, (long long)(n + c),
                (long long)points[c], (long long)size[c]);
    /* each label names one cluster, with no point of another label under it */
    for (int64_t r = 0; r < h->n_rows; r++) {
        const gridemst_condensed_row *row = &h->condensed[r];
        if (row->child >= n)
            continue;
        const int64_t l = h->labels[row->child];
        const double p = h->probabilities[row->child], s = h->outlier_scores[row->child];
        REQUIRE(l >= -1 && l < h->n_clusters, "%s: label %lld", what, (long long)l);
        REQUIRE(p >= 0.0 && p <= 1.0 && (l >= 0 || p == 0.0), "%s: probability %g with label %lld", what, p,
                (long long)l);
        REQUIRE(s >= 0.0 && s <= 1.0, "%s: outlier score %g", what, s);
    }
    /* A selected cluster is a component of the tree's edges below some
     * length, so its points are joined by the tree's edges among them (not
     * so for the root alone under allow_single_cluster, which labels only
     * the points that stay long enough). */
    if (!connected)
        goto out;
    int64_t *uf = xcalloc((size_t)n, sizeof *uf);
    for (int64_t i = 0; i < n; i++)
        uf[i] = i;
    for (int64_t e = 0; e < tree->n_edges; e++) {
        const gridemst_edge *ed = &tree->edges[e];
        if (h->labels[ed->u] < 0 || h->labels[ed->u] != h->labels[ed->v])
            continue;
        int64_t a = ed->u, b = ed->v;
        while (uf[a] != a)
            a = uf[a] = uf[uf[a]];
        while (uf[b] != b)
            b = uf[b] = uf[uf[b]];
        uf[a] = b;
    }
    int64_t *root_of = xcalloc((size_t)(h->n_clusters + 1), sizeof *root_of);
    for (int64_t i = 0; i < n; i++) {
        if (h->labels[i] < 0)
            continue;
        int64_t a = i;
        while (uf[a] != a)
            a = uf[a];
        if (root_of[h->labels[i]] == 0)
            root_of[h->labels[i]] = a + 1;
        REQUIRE(root_of[h->labels[i]] == a + 1, "%s: label %lld is not connected in the tree", what,
                (long long)h->labels[i]);
    }
    free(root_of);
    free(uf);
out:
    free(seen);
    free(points);
    free(parent);
    free(size);
    free(birth);
}

START_TEST(test_invariants)
{
    const gemst_gen_kind kinds[] = {GEMST_GEN_BLOBS, GEMST_GEN_CLUSTERED, GEMST_GEN_LATTICE};
    gemst_pointset ps;
    gridemst_error err;
    REQUIRE(gemst_generate(kinds[_i], 6000, 2 + _i % 2, 7, &ps, &err) == GRIDEMST_OK, "%s", err.message);
    gridemst_result tree = mr_tree(&ps, 8, 2);
    for (int sel = GRIDEMST_SELECTION_EOM; sel <= GRIDEMST_SELECTION_LEAF; sel++)
        for (int single = 0; single <= 1; single++) {
            gridemst_hdbscan_options o;
            gridemst_hdbscan_options_init(&o);
            o.min_cluster_size = 12;
            o.selection = sel;
            o.allow_single_cluster = single;
            gridemst_hdbscan_result h = cluster(&tree, &o);
            REQUIRE(h.n == ps.n, "n %lld", (long long)h.n);
            check_result(&tree, &h, o.min_cluster_size, !single, gridemst_cluster_selection_name(sel));
            gridemst_hdbscan_free(&h);
        }
    gridemst_result_free(&tree);
    gemst_pointset_free(&ps);
}
END_TEST

/* The whole pipeline gives the same clusters for 1 and 2 threads and every
 * run. */
START_TEST(test_deterministic)
{
    gemst_pointset ps;
    gridemst_error err;
    REQUIRE(gemst_generate(GEMST_GEN_BLOBS, 40000, 3, 2, &ps, &err) == GRIDEMST_OK, "%s", err.message);
    gridemst_hdbscan_options o;
    gridemst_hdbscan_options_init(&o);
    o.min_cluster_size = 20;
    gridemst_result t1 = mr_tree(&ps, 20, 1);
    gridemst_hdbscan_result a = cluster(&t1, &o);
    for (int run = 0; run < 2; run++) {
        gridemst_result t2 = mr_tree(&ps, 20, 2);
        gridemst_hdbscan_result b = cluster(&t2, &o);
        REQUIRE(a.n_clusters == b.n_clusters && a.n_rows == b.n_rows &&
                    memcmp(a.labels, b.labels, sizeof *a.labels * (size_t)a.n) == 0 &&
                    memcmp(a.condensed, b.condensed, sizeof *a.condensed * (size_t)a.n_rows) == 0 &&
                    memcmp(a.outlier_scores, b.outlier_scores, sizeof *a.outlier_scores * (size_t)a.n) == 0,
                "run %d: another clustering", run);
        gridemst_hdbscan_free(&b);
        gridemst_result_free(&t2);
    }
    gridemst_hdbscan_free(&a);
    gridemst_result_free(&t1);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(test_arguments)
{
    const double p[8] = {0, 0, 1, 0, 0, 1, 5, 5};
    gridemst_result tree = solve_cpu(p, GRIDEMST_FLOAT64, 4, 2, 1, GRIDEMST_PRECISION_DOUBLE);
    gridemst_hdbscan_options o;
    gridemst_hdbscan_result h;
    gridemst_error err;
    gridemst_hdbscan_options_init(&o);
    gridemst_hdbscan_result_init(&h);
    o.min_cluster_size = 1;
    REQUIRE(gridemst_hdbscan(&tree, &o, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "min_cluster_size") && h.labels == NULL,
            "min_cluster_size 1: %s", err.message);
    gridemst_hdbscan_options_init(&o);
    o.cluster_selection_epsilon = -1.0;
    REQUIRE(gridemst_hdbscan(&tree, &o, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "epsilon"),
            "epsilon -1: %s", err.message);
    gridemst_hdbscan_options_init(&o);
    o.max_cluster_size = -3;
    REQUIRE(gridemst_hdbscan(&tree, &o, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "max_cluster_size"),
            "max_cluster_size -3: %s", err.message);
    gridemst_hdbscan_options_init(&o);
    o.selection = (gridemst_cluster_selection)7;
    REQUIRE(gridemst_hdbscan(&tree, &o, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "selection 7: %s", err.message);
    REQUIRE(gridemst_hdbscan(&tree, NULL, NULL, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "out NULL: %s", err.message);
    REQUIRE(gridemst_hdbscan(NULL, NULL, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "tree NULL: %s", err.message);
    /* a cycle is not a tree */
    tree.edges[2] = tree.edges[0];
    REQUIRE(gridemst_hdbscan(&tree, NULL, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "a cycle: %s", err.message);
    gridemst_result_free(&tree);
    /* fewer than two points: nothing to cluster, a lone point is noise */
    for (int64_t n = 0; n < 2; n++) {
        gridemst_result small = solve_cpu(p, GRIDEMST_FLOAT64, n, 2, 1, GRIDEMST_PRECISION_DOUBLE);
        REQUIRE(gridemst_hdbscan(&small, NULL, &h, &err) == GRIDEMST_OK, "n %lld: %s", (long long)n, err.message);
        REQUIRE(h.n == n && h.n_clusters == 0 && h.n_rows == 0 && (n == 0 || h.labels[0] == -1), "n %lld",
                (long long)n);
        gridemst_hdbscan_free(&h);
        gridemst_result_free(&small);
    }
    gridemst_hdbscan_free(NULL);
    REQUIRE(strcmp(gridemst_cluster_selection_name(GRIDEMST_SELECTION_LEAF), "leaf") == 0, "name");
    gridemst_cluster_selection s;
    REQUIRE(gridemst_parse_cluster_selection("eom", &s) == 0 && s == GRIDEMST_SELECTION_EOM &&
                gridemst_parse_cluster_selection("mass", &s) == -1,
            "parse");
}
END_TEST

static Suite *hdbscan_suite(void)
{
    Suite *s = suite_create("hdbscan");
    TCase *tc = tcase_create("hdbscan");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_invariants, 0, 3);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(hdbscan_suite());
}
