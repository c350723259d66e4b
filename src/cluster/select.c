/* HDBSCAN*'s flat clusters from the condensed tree (select.h). */
#include "cluster/select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The clusters of the condensed tree, by index i = id - n (the root is 0;
 * a child's index is above its parent's). */
typedef struct {
    int64_t k;          /* clusters */
    int64_t *parent;    /* -1 for the root */
    int64_t *size;      /* points at birth (root: its child clusters' sizes, as scikit-learn sizes it) */
    int64_t *kid;       /* 2 per cluster: its child clusters in row order, or -1 */
    double *birth;      /* lambda of its birth (root: 0) */
    double *death;      /* the greatest lambda of its own rows (0 when it has none) */
    double *stability;  /* scikit-learn's, then the excess of mass's */
    uint8_t *selected;
    int64_t *label;     /* the selected clusters' labels, in the order of their ids */
    int64_t *index;     /* scratch: a cluster per cluster */
    double *reach;      /* scratch: a lambda per cluster */
    uint8_t *mark;      /* scratch: a flag per cluster */
} clusters;

static void clusters_free(clusters *t)
{
    void *arrays[] = {t->parent, t->size,  t->kid,   t->birth, t->death, t->stability,
                      t->selected, t->label, t->index, t->reach, t->mark};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
}

static int clusters_alloc(clusters *t, int64_t k, gridemst_error *err)
{
    memset(t, 0, sizeof *t);
    t->k = k;
    t->parent = malloc(sizeof *t->parent * (size_t)k);
    t->size = calloc((size_t)k, sizeof *t->size);
    t->kid = malloc(sizeof *t->kid * (size_t)(2 * k));
    t->birth = calloc((size_t)k, sizeof *t->birth);
    t->death = calloc((size_t)k, sizeof *t->death);
    t->stability = calloc((size_t)k, sizeof *t->stability);
    t->selected = calloc((size_t)k, 1);
    t->label = malloc(sizeof *t->label * (size_t)k);
    t->index = malloc(sizeof *t->index * (size_t)k);
    t->reach = malloc(sizeof *t->reach * (size_t)k);
    t->mark = calloc((size_t)k, 1);
    if (!t->parent || !t->size || !t->kid || !t->birth || !t->death || !t->stability || !t->selected || !t->label ||
        !t->index || !t->reach || !t->mark) {
        clusters_free(t);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld clusters", (long long)k);
    }
    for (int64_t i = 0; i < k; i++)
        t->parent[i] = t->kid[2 * i] = t->kid[2 * i + 1] = -1;
    return GRIDEMST_OK;
}

/* Parents, children, sizes, births and deaths from the rows, then the
 * stabilities: sum over a cluster's rows of (lambda - its birth) * the
 * child's size, added in row order (scikit-learn's _compute_stability). */
static void read_tree(const gemst_condensed *c, clusters *t)
{
    const int64_t n = c->n;
    for (int64_t r = 0; r < c->n_rows; r++) {
        const gridemst_condensed_row *row = &c->rows[r];
        const int64_t p = row->parent - n;
        t->death[p] = fmax(t->death[p], row->lambda);
        if (row->child < n)
            continue;
        const int64_t i = row->child - n;
        t->parent[i] = p;
        t->size[i] = row->child_size;
        t->birth[i] = row->lambda;
        t->kid[2 * p + (t->kid[2 * p] >= 0)] = i;
        if (p == 0)
            t->size[0] += row->child_size;
    }
    for (int64_t r = 0; r < c->n_rows; r++) {
        const gridemst_condensed_row *row = &c->rows[r];
        const int64_t p = row->parent - n;
        t->stability[p] += (row->lambda - t->birth[p]) * (double)row->child_size;
    }
}

/* Excess of mass: from the leaves up, a cluster is kept unless its
 * children's stabilities add up to more than its own (which it then takes
 * on) or it exceeds max_size; the kept clusters with no kept ancestor are
 * selected.  The root competes only with allow_single. */
static void select_eom(clusters *t, const gridemst_hdbscan_options *opt)
{
    const int64_t first = opt->allow_single_cluster ? 0 : 1;
    uint8_t *kept = t->selected;
    for (int64_t i = t->k - 1; i >= first; i--) {
        const double below = t->kid[2 * i] >= 0 ? t->stability[t->kid[2 * i]] + t->stability[t->kid[2 * i + 1]] : 0.0;
        const int too_big = opt->max_cluster_size > 0 && t->size[i] > opt->max_cluster_size;
        kept[i] = !(below > t->stability[i] || too_big);
        if (!kept[i])
            t->stability[i] = below;
    }
    /* top-down: a kept cluster under a kept one is not selected (kept[] becomes selected[]) */
    uint8_t *covered = t->mark;
    covered[0] = 0;
    for (int64_t i = 1; i < t->k; i++) {
        const int64_t p = t->parent[i];
        covered[i] = covered[p] || kept[p];
    }
    for (int64_t i = 0; i < t->k; i++)
        kept[i] = kept[i] && !covered[i];
}

static void select_leaves(clusters *t)
{
    for (int64_t i = 1; i < t->k; i++)
        t->selected[i] = t->kid[2 * i] < 0;
}

/* The distance at which cluster i split from its parent. */
static double birth_distance(const clusters *t, int64_t i)
{
    return 1.0 / t->birth[i];
}

/*
 * cluster_selection_epsilon (scikit-learn's epsilon_search): a selected
 * cluster born below epsilon gives way to its first ancestor born above it
 * (at the root's children the climb stops: at the root with
 * allow_single_cluster, else at the child itself).  up[i] is that ancestor
 * for every cluster, parents before children.
 */
static void select_epsilon(clusters *t, const gridemst_hdbscan_options *opt)
{
    const double eps = opt->cluster_selection_epsilon;
    int64_t *up = t->index;
    uint8_t *chosen = t->mark;
    memset(chosen, 0, (size_t)t->k);
    for (int64_t i = 1; i < t->k; i++) {
        const int64_t p = t->parent[i];
        if (p == 0)
            up[i] = opt->allow_single_cluster ? 0 : i;
        else
            up[i] = birth_distance(t, p) > eps ? p : up[p];
    }
    for (int64_t i = 1; i < t->k; i++)
        if (t->selected[i])
            chosen[birth_distance(t, i) < eps ? up[i] : i] = 1;
    memcpy(t->selected, chosen, (size_t)t->k);
}

/* Labels, probabilities and GLOSH scores, point by point from its row. */
static void label_points(const gemst_condensed *c, clusters *t, const gridemst_hdbscan_options *opt,
                         int64_t n_selected, gridemst_hdbscan_result *out)
{
    const int64_t n = c->n;
    int64_t *sel = t->index;   /* sel[i]: the nearest selected cluster at or above i, or -1 */
    double *reach = t->reach;  /* the greatest death in each subtree */
    for (int64_t i = 0; i < t->k; i++)
        sel[i] = t->selected[i] ? i : i == 0 ? -1 : sel[t->parent[i]];
    memcpy(reach, t->death, sizeof *reach * (size_t)t->k);
    for (int64_t i = t->k - 1; i > 0; i--)
        reach[t->parent[i]] = fmax(reach[t->parent[i]], reach[i]);
    /* only the root selected, with allow_single_cluster: the points that stay at least this long */
    const int root_alone = opt->allow_single_cluster && n_selected == 1 && t->selected[0];
    const double threshold = opt->cluster_selection_epsilon != 0.0 ? 1.0 / opt->cluster_selection_epsilon
                                                                   : t->death[0];
    for (int64_t r = 0; r < c->n_rows; r++) {
        const gridemst_condensed_row *row = &c->rows[r];
        if (row->child >= n)
            continue;
        const int64_t p = row->child, s = sel[row->parent - n];
        const double lambda = row->lambda;
        int64_t cluster = s > 0 ? s : root_alone && lambda >= threshold ? 0 : -1;
        out->labels[p] = cluster >= 0 ? t->label[cluster] : -1;
        out->probabilities[p] = 0.0;
        if (cluster >= 0) {
            const double top = t->death[cluster];
            out->probabilities[p] = top == 0.0 || isinf(lambda) ? 1.0 : fmin(lambda, top) / top;
        }
        const double deepest = reach[row->parent - n];
        out->outlier_scores[p] = deepest == 0.0 || !isfinite(lambda) ? 0.0 : (deepest - lambda) / deepest;
    }
}

int gemst_select_clusters(const gemst_condensed *c, const gridemst_hdbscan_options *opt, gridemst_hdbscan_result *out,
                          gridemst_error *err)
{
    clusters t;
    int rc = clusters_alloc(&t, c->n_clusters, err);
    if (rc != GRIDEMST_OK)
        return rc;
    read_tree(c, &t);
    memcpy(out->stability, t.stability, sizeof *t.stability * (size_t)t.k);
    if (opt->selection == GRIDEMST_SELECTION_EOM) {
        select_eom(&t, opt);
        const int root_only = t.selected[0];
        if (opt->cluster_selection_epsilon != 0.0 && t.k > 1 && !root_only)
            select_epsilon(&t, opt);
    } else if (t.k > 1) {
        select_leaves(&t);
        if (opt->cluster_selection_epsilon != 0.0)
            select_epsilon(&t, opt);
    }
    int64_t n_selected = 0;
    for (int64_t i = 0; i < t.k; i++)
        t.label[i] = t.selected[i] ? n_selected++ : -1;
    out->n_clusters = n_selected;
    label_points(c, &t, opt, n_selected, out);
    clusters_free(&t);
    return GRIDEMST_OK;
}
