/* gridemst_hdbscan: the options, the condensed tree (condense.h), the
 * flat clusters (select.h), and the result's memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/condense.h"
#include "cluster/select.h"
#include "linkage.h"
#include "struct_size.h"

gridemst_status gridemst_hdbscan_options_init_size(gridemst_hdbscan_options *caller, size_t struct_size)
{
    gridemst_hdbscan_options opt;
    memset(&opt, 0, sizeof opt);
    opt.struct_size = sizeof opt;
    opt.min_cluster_size = 5;
    opt.selection = GRIDEMST_SELECTION_EOM;
    return (gridemst_status)gemst_struct_init(&gemst_hdbscan_options_kind, caller, struct_size, &opt);
}

static int check_options(const gridemst_hdbscan_options *o, gridemst_error *err)
{
    if (o->min_cluster_size < 2)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "min_cluster_size must be >= 2, got %lld",
                          (long long)o->min_cluster_size);
    if ((unsigned)o->selection > GRIDEMST_SELECTION_LEAF)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown cluster selection method %d",
                          (int)o->selection);
    if (!(o->cluster_selection_epsilon >= 0.0) || !isfinite(o->cluster_selection_epsilon))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "cluster_selection_epsilon must be a finite number >= 0");
    if (o->max_cluster_size < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "max_cluster_size must be >= 0 (0 = no limit), got %lld",
                          (long long)o->max_cluster_size);
    return GRIDEMST_OK;
}

/* The per-point outputs, and the per-cluster stabilities for k clusters. */
static int alloc_result(gridemst_hdbscan_result *out, int64_t n, int64_t k, gridemst_error *err)
{
    const size_t m = (size_t)(n > 0 ? n : 1);
    out->n = n;
    out->labels = malloc(sizeof *out->labels * m);
    out->probabilities = malloc(sizeof *out->probabilities * m);
    out->outlier_scores = malloc(sizeof *out->outlier_scores * m);
    out->stability = calloc((size_t)(k > 0 ? k : 1), sizeof *out->stability);
    out->n_tree_clusters = k;
    if (!out->labels || !out->probabilities || !out->outlier_scores || !out->stability)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the clusters of %lld points",
                          (long long)n);
    return GRIDEMST_OK;
}

/* Fewer than two points: no hierarchy; a lone point is noise. */
static void no_hierarchy(gridemst_hdbscan_result *out)
{
    for (int64_t i = 0; i < out->n; i++) {
        out->labels[i] = -1;
        out->probabilities[i] = 0.0;
        out->outlier_scores[i] = 0.0;
    }
}

/* gridemst_hdbscan on the library's own layout of the structs. */
static int cluster(const gridemst_result *tree, const gridemst_hdbscan_options *opt, gridemst_hdbscan_result *out,
                   gridemst_error *err)
{
    gridemst_hdbscan_options o;
    gridemst_hdbscan_options_init(&o);
    int rc = opt ? gemst_struct_import(&gemst_hdbscan_options_kind, opt, &o, err) : GRIDEMST_OK;
    if (rc == GRIDEMST_OK)
        rc = check_options(&o, err);
    gridemst_result t;
    if (rc == GRIDEMST_OK)
        rc = gemst_tree_argument(tree, &t, err);
    if (rc != GRIDEMST_OK)
        return rc;
    tree = &t;
    gemst_condensed c = {0};
    if (tree->n >= 2)
        rc = gemst_condense(tree, o.min_cluster_size, &c, err);
    if (rc == GRIDEMST_OK)
        rc = alloc_result(out, tree->n, c.n_clusters, err);
    if (rc == GRIDEMST_OK && tree->n < 2)
        no_hierarchy(out);
    else if (rc == GRIDEMST_OK)
        rc = gemst_select_clusters(&c, &o, out, err);
    if (rc != GRIDEMST_OK) {
        gemst_condensed_free(&c);
        gridemst_hdbscan_free(out);
        return rc;
    }
    out->n_rows = c.n_rows;
    out->condensed = c.rows; /* the result owns them now */
    return GRIDEMST_OK;
}

gridemst_status gridemst_hdbscan(const gridemst_result *tree, const gridemst_hdbscan_options *opt,
                                 gridemst_hdbscan_result *out, gridemst_error *err)
{
    if (err) {
        err->code = GRIDEMST_OK;
        err->message[0] = '\0';
    }
    if (!out)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "out must not be NULL");
    int rc = gemst_struct_check(&gemst_hdbscan_result_kind, out, err);
    if (rc != GRIDEMST_OK)
        return rc;
    gridemst_hdbscan_result full;
    gridemst_hdbscan_result_init(&full);
    rc = cluster(tree, opt, &full, err);
    gemst_struct_export(&gemst_hdbscan_result_kind, out, &full);
    return (gridemst_status)rc;
}

void gridemst_hdbscan_free(gridemst_hdbscan_result *out)
{
    gridemst_hdbscan_result full;
    gridemst_hdbscan_result_init(&full);
    if (!out || gemst_struct_import(&gemst_hdbscan_result_kind, out, &full, NULL) != GRIDEMST_OK)
        return;
    free(full.labels);
    free(full.probabilities);
    free(full.outlier_scores);
    free(full.condensed);
    free(full.stability);
    gridemst_hdbscan_result_init(&full);
    gemst_struct_export(&gemst_hdbscan_result_kind, out, &full);
}
