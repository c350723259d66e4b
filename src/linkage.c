/* Single linkage from a tree: SciPy's linkage matrix and flat clusters. */
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "linkage.h"
#include "struct_size.h"

/* Union-find over points with the cluster id of each set's root. */
typedef struct {
    int64_t *parent, *size, *id;
} forest;

static int forest_init(forest *f, int64_t n, gridemst_error *err)
{
    size_t bytes = sizeof(int64_t) * (size_t)(n > 0 ? n : 1);
    f->parent = malloc(bytes);
    f->size = malloc(bytes);
    f->id = malloc(bytes);
    if (!f->parent || !f->size || !f->id) {
        free(f->parent);
        free(f->size);
        free(f->id);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points' clusters",
                          (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        f->parent[i] = i;
        f->size[i] = 1;
        f->id[i] = i;
    }
    return GRIDEMST_OK;
}

static void forest_free(forest *f)
{
    free(f->parent);
    free(f->size);
    free(f->id);
}

static int64_t forest_find(forest *f, int64_t x)
{
    while (f->parent[x] != x) {
        f->parent[x] = f->parent[f->parent[x]];
        x = f->parent[x];
    }
    return x;
}

/* Joins the sets of u and v; returns the new root. */
static int64_t forest_union(forest *f, int64_t ru, int64_t rv)
{
    if (f->size[ru] < f->size[rv]) {
        int64_t t = ru;
        ru = rv;
        rv = t;
    }
    f->parent[rv] = ru;
    f->size[ru] += f->size[rv];
    return ru;
}

int gemst_tree_argument(const gridemst_result *caller, gridemst_result *tree, gridemst_error *err)
{
    if (!caller)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "tree must not be NULL");
    gridemst_result_init(tree);
    int rc = gemst_struct_import(&gemst_result_kind, caller, tree, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (tree->n < 0 || tree->n_edges != (tree->n > 1 ? tree->n - 1 : 0) || (tree->n_edges > 0 && !tree->edges))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "not a spanning tree: %lld edges for %lld points",
                          (long long)tree->n_edges, (long long)tree->n);
    for (int64_t e = 0; e < tree->n_edges; e++) {
        const gridemst_edge *ed = &tree->edges[e];
        if (ed->u < 0 || ed->v >= tree->n || ed->u >= ed->v)
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "edge %lld (%lld, %lld) is not u < v < n",
                              (long long)e, (long long)ed->u, (long long)ed->v);
        /* Merge order and cuts read the edges as sorted: say so when not. */
        if (!(ed->w >= 0.0) || (e > 0 && !(ed->w >= ed[-1].w)))
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "edge %lld: weights must be numbers >= 0 in increasing order", (long long)e);
    }
    return GRIDEMST_OK;
}

gridemst_status gridemst_linkage(const gridemst_result *caller, gridemst_merge *rows, gridemst_error *err)
{
    gridemst_result t, *tree = &t;
    int rc = gemst_tree_argument(caller, tree, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (tree->n_edges > 0 && !rows)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "rows must not be NULL");
    return gemst_linkage_rows(tree, NULL, rows, err);
}

int gemst_linkage_rows(const gridemst_result *tree, const uint8_t *first_v, gridemst_merge *rows, gridemst_error *err)
{
    forest f;
    int rc;
    if ((rc = forest_init(&f, tree->n, err)) != GRIDEMST_OK)
        return rc;
    for (int64_t e = 0; e < tree->n_edges; e++) {
        int64_t ru = forest_find(&f, tree->edges[e].u), rv = forest_find(&f, tree->edges[e].v);
        if (ru == rv) {
            forest_free(&f);
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "edge %lld closes a cycle: not a tree",
                              (long long)e);
        }
        int64_t a = f.id[ru], b = f.id[rv];
        rows[e].a = first_v ? (first_v[e] ? b : a) : a < b ? a : b;
        rows[e].b = first_v ? (first_v[e] ? a : b) : a < b ? b : a;
        rows[e].distance = tree->edges[e].w;
        int64_t root = forest_union(&f, ru, rv);
        rows[e].size = f.size[root];
        f.id[root] = tree->n + e;
    }
    forest_free(&f);
    return GRIDEMST_OK;
}

int gemst_label_components(int64_t n, const gridemst_edge *edges, int64_t m, int64_t min_size, int64_t *labels,
                           int64_t *n_labels, gridemst_error *err)
{
    if (min_size < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "minimum cluster size must be >= 0, got %lld",
                          (long long)min_size);
    if (n > 0 && !labels)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "labels must not be NULL");
    forest f;
    int rc = forest_init(&f, n, err);
    if (rc != GRIDEMST_OK)
        return rc;
    for (int64_t e = 0; e < m; e++) {
        int64_t ru = forest_find(&f, edges[e].u), rv = forest_find(&f, edges[e].v);
        if (ru != rv)
            forest_union(&f, ru, rv);
    }
    /* Numbers in the order of each cluster's smallest point: the first
     * point met of a set names it (f.id reused as the root's label). */
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++)
        f.id[i] = -2;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = forest_find(&f, i);
        if (f.id[r] == -2)
            f.id[r] = f.size[r] < min_size ? -1 : next++;
        labels[i] = f.id[r];
    }
    if (n_labels)
        *n_labels = next;
    forest_free(&f);
    return GRIDEMST_OK;
}

/* Labels from the forest of the tree's first `keep` edges. */
static int label_components(const gridemst_result *tree, int64_t keep, int64_t min_size, int64_t *labels,
                            int64_t *n_clusters, gridemst_error *err)
{
    return gemst_label_components(tree->n, tree->edges, keep, min_size, labels, n_clusters, err);
}

gridemst_status gridemst_clusters_k(const gridemst_result *caller, int64_t k, int64_t min_size, int64_t *labels,
                                    int64_t *n_clusters, gridemst_error *err)
{
    gridemst_result t, *tree = &t;
    int rc = gemst_tree_argument(caller, tree, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (k < 1)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the number of clusters must be >= 1, got %lld",
                          (long long)k);
    int64_t keep = tree->n_edges - (k - 1);
    return label_components(tree, keep > 0 ? keep : 0, min_size, labels, n_clusters, err);
}

gridemst_status gridemst_clusters_cut(const gridemst_result *caller, double distance, int64_t min_size,
                                      int64_t *labels, int64_t *n_clusters, gridemst_error *err)
{
    gridemst_result t, *tree = &t;
    int rc = gemst_tree_argument(caller, tree, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (!(distance >= 0.0))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the cut distance must be a number >= 0");
    int64_t keep = 0; /* edges are sorted by w: keep the prefix with w <= distance */
    while (keep < tree->n_edges && tree->edges[keep].w <= distance)
        keep++;
    return label_components(tree, keep, min_size, labels, n_clusters, err);
}
