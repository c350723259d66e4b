/* --linkage, --clusters, --cut, --hdbscan, --labels and HDBSCAN*'s files:
 * clusters from the tree. */
#include "cli/clusters.h"

#include <stdlib.h>

#include "common.h"
#include "tools/io.h"

static int write_linkage(const char *path, const gridemst_result *res, gridemst_error *err)
{
    int64_t m = res->n_edges;
    gridemst_merge *rows = malloc(sizeof *rows * (size_t)(m > 0 ? m : 1));
    if (!rows)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for %lld merges", (long long)m);
    int rc = gridemst_linkage(res, rows, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_write_linkage_csv(path, rows, m, err);
    free(rows);
    return rc;
}

/* Counts the noise points into *c and writes --labels. */
static int write_labels(const cli_args *a, const int64_t *labels, int64_t n, cli_clusters *c, gridemst_error *err)
{
    c->noise_points = 0;
    for (int64_t i = 0; i < n; i++)
        c->noise_points += labels[i] < 0;
    return a->labels ? gemst_write_labels(a->labels, labels, n, err) : GRIDEMST_OK;
}

static int flat_clusters(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err)
{
    int64_t *labels = malloc(sizeof *labels * (size_t)(res->n > 0 ? res->n : 1));
    if (!labels)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for %lld labels", (long long)res->n);
    int rc = a->clusters > 0
                 ? gridemst_clusters_k(res, a->clusters, a->min_cluster_size, labels, &c->count, err)
                 : gridemst_clusters_cut(res, a->cut, a->min_cluster_size, labels, &c->count, err);
    if (rc == GRIDEMST_OK)
        rc = write_labels(a, labels, res->n, c, err);
    free(labels);
    return rc;
}

/* HDBSCAN*'s clusters and files. */
static int hdbscan_clusters(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err)
{
    gridemst_hdbscan_result h;
    gridemst_hdbscan_result_init(&h);
    int rc = gridemst_hdbscan(res, &a->hdb, &h, err);
    if (rc != GRIDEMST_OK)
        return rc;
    c->count = h.n_clusters;
    rc = write_labels(a, h.labels, h.n, c, err);
    if (rc == GRIDEMST_OK && a->probabilities)
        rc = gemst_write_values(a->probabilities, h.probabilities, h.n, "probabilities", err);
    if (rc == GRIDEMST_OK && a->outlier_scores)
        rc = gemst_write_values(a->outlier_scores, h.outlier_scores, h.n, "outlier scores", err);
    if (rc == GRIDEMST_OK && a->condensed_tree)
        rc = gemst_write_condensed_csv(a->condensed_tree, h.condensed, h.n_rows, err);
    gridemst_hdbscan_free(&h);
    return rc;
}

int cli_clusters_asked(const cli_args *a)
{
    return a->clusters > 0 || a->cut >= 0.0 || a->hdbscan;
}

int cli_cluster(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err)
{
    int rc = GRIDEMST_OK;
    if (a->linkage)
        rc = write_linkage(a->linkage, res, err);
    if (rc == GRIDEMST_OK && a->hdbscan)
        rc = hdbscan_clusters(a, res, c, err);
    else if (rc == GRIDEMST_OK && cli_clusters_asked(a))
        rc = flat_clusters(a, res, c, err);
    return rc;
}
