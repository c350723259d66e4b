/* --linkage, --clusters, --cut, --labels: single linkage from the tree. */
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

static int flat_clusters(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err)
{
    int64_t *labels = malloc(sizeof *labels * (size_t)(res->n > 0 ? res->n : 1));
    if (!labels)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for %lld labels", (long long)res->n);
    int rc = a->clusters > 0
                 ? gridemst_clusters_k(res, a->clusters, a->min_cluster_size, labels, &c->count, err)
                 : gridemst_clusters_cut(res, a->cut, a->min_cluster_size, labels, &c->count, err);
    c->noise_points = 0;
    for (int64_t i = 0; rc == GRIDEMST_OK && i < res->n; i++)
        c->noise_points += labels[i] < 0;
    if (rc == GRIDEMST_OK && a->labels)
        rc = gemst_write_labels(a->labels, labels, res->n, err);
    free(labels);
    return rc;
}

int cli_flat_clusters_asked(const cli_args *a)
{
    return a->clusters > 0 || a->cut >= 0.0;
}

int cli_cluster(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err)
{
    int rc = GRIDEMST_OK;
    if (a->linkage)
        rc = write_linkage(a->linkage, res, err);
    if (rc == GRIDEMST_OK && cli_flat_clusters_asked(a))
        rc = flat_clusters(a, res, c, err);
    return rc;
}
