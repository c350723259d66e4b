/* HDBSCAN*'s condensed tree (condense.h). */
#include "cluster/condense.h"

#include <math.h>
#include <stdlib.h>

#include "linkage.h"

/*
 * first_v[e]: whether edge e's endpoint v is the one on point 0's side,
 * the parent of u when the tree hangs from point 0.  Scikit-learn's Prim
 * from point 0 records each edge from that side, and its single linkage
 * lists that side's cluster first, which decides its cluster numbering.
 * A breadth-first walk over the tree's adjacency lists.
 */
static int side_of_point0(const gridemst_result *tree, uint8_t *first_v, gridemst_error *err)
{
    const int64_t n = tree->n, m = tree->n_edges;
    int64_t *start = calloc((size_t)n + 1, sizeof *start);
    int64_t *adj = malloc(sizeof *adj * (size_t)(2 * m));
    int64_t *parent = malloc(sizeof *parent * (size_t)n);
    int64_t *queue = malloc(sizeof *queue * (size_t)n);
    int rc = GRIDEMST_OK;
    if (!start || !adj || !parent || !queue) {
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the tree of %lld points",
                        (long long)n);
        goto out;
    }
    for (int64_t e = 0; e < m; e++) {
        start[tree->edges[e].u + 1]++;
        start[tree->edges[e].v + 1]++;
    }
    for (int64_t i = 0; i < n; i++) {
        start[i + 1] += start[i];
        parent[i] = start[i]; /* the next free slot of i's list, for now */
    }
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = tree->edges[e].u, v = tree->edges[e].v;
        adj[parent[u]++] = v;
        adj[parent[v]++] = u;
    }
    for (int64_t i = 0; i < n; i++)
        parent[i] = -1;
    parent[0] = 0;
    queue[0] = 0;
    for (int64_t head = 0, tail = 1; head < tail; head++) {
        const int64_t x = queue[head];
        for (int64_t k = start[x]; k < start[x + 1]; k++)
            if (parent[adj[k]] < 0) {
                parent[adj[k]] = x;
                queue[tail++] = adj[k];
            }
    }
    for (int64_t e = 0; e < m; e++)
        first_v[e] = parent[tree->edges[e].u] == tree->edges[e].v;
out:
    free(start);
    free(adj);
    free(parent);
    free(queue);
    return rc;
}

/* The walk's state: the hierarchy, and the rows written so far. */
typedef struct {
    int64_t n;
    const gridemst_merge *h;  /* merge i makes node n + i */
    int64_t *queue;           /* for the points of a subtree (2n - 1 nodes at most) */
    gemst_condensed *out;
} walk;

static int64_t node_size(const walk *w, int64_t x)
{
    return x < w->n ? 1 : w->h[x - w->n].size;
}

static void add_row(walk *w, int64_t parent, int64_t child, double lambda, int64_t size)
{
    gridemst_condensed_row *r = &w->out->rows[w->out->n_rows++];
    r->parent = parent;
    r->child = child;
    r->lambda = lambda;
    r->child_size = size;
}

/* The points of the subtree under node x leave cluster `label` at lambda,
 * in breadth-first order. */
static void points_leave(walk *w, int64_t x, int64_t label, double lambda)
{
    int64_t head = 0, tail = 0;
    w->queue[tail++] = x;
    while (head < tail) {
        const int64_t y = w->queue[head++];
        if (y < w->n) {
            add_row(w, label, y, lambda, 1);
            continue;
        }
        w->queue[tail++] = w->h[y - w->n].a;
        w->queue[tail++] = w->h[y - w->n].b;
    }
}

/* The walk from the root: each internal node carrying a cluster label
 * (relabel) splits, sheds the points of a small child, or dissolves. */
static int condense_walk(walk *w, int64_t mcs, gridemst_error *err)
{
    const int64_t n = w->n;
    int64_t *relabel = malloc(sizeof *relabel * (size_t)(n - 1)); /* by internal node */
    int64_t *nodes = malloc(sizeof *nodes * (size_t)(n - 1));     /* the breadth-first queue */
    if (!relabel || !nodes) {
        free(relabel);
        free(nodes);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the condensed tree of %lld points",
                          (long long)n);
    }
    int64_t next_label = n + 1, head = 0, tail = 0;
    nodes[tail++] = 2 * n - 2;
    relabel[n - 2] = n;
    while (head < tail) {
        const int64_t node = nodes[head++], label = relabel[node - n];
        const gridemst_merge *m = &w->h[node - n];
        const double lambda = m->distance > 0.0 ? 1.0 / m->distance : INFINITY;
        const int64_t kids[2] = {m->a, m->b};
        const int big[2] = {node_size(w, m->a) >= mcs, node_size(w, m->b) >= mcs};
        for (int k = 0; k < 2; k++) {
            if (!big[k]) {
                points_leave(w, kids[k], label, lambda);
                continue;
            }
            /* a big child is a node of 2 points or more, never a point */
            relabel[kids[k] - n] = big[1 - k] ? next_label++ : label;
            if (big[1 - k])
                add_row(w, label, relabel[kids[k] - n], lambda, node_size(w, kids[k]));
            nodes[tail++] = kids[k];
        }
    }
    w->out->n_clusters = next_label - n;
    free(relabel);
    free(nodes);
    return GRIDEMST_OK;
}

int gemst_condense(const gridemst_result *tree, int64_t mcs, gemst_condensed *out, gridemst_error *err)
{
    const int64_t n = tree->n;
    out->n = n;
    out->n_rows = 0;
    out->n_clusters = 0;
    /* every point once, and two rows per split, each child of mcs points or more */
    out->rows = malloc(sizeof *out->rows * (size_t)(n + 2 * (n / mcs) + 2));
    uint8_t *first_v = malloc((size_t)(n - 1));
    gridemst_merge *h = malloc(sizeof *h * (size_t)(n - 1));
    int64_t *queue = malloc(sizeof *queue * (size_t)(2 * n - 1));
    int rc = out->rows && first_v && h && queue
                 ? GRIDEMST_OK
                 : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the hierarchy of %lld points",
                              (long long)n);
    if (rc == GRIDEMST_OK)
        rc = side_of_point0(tree, first_v, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_linkage_rows(tree, first_v, h, err);
    if (rc == GRIDEMST_OK) {
        walk w = {n, h, queue, out};
        rc = condense_walk(&w, mcs, err);
    }
    free(first_v);
    free(h);
    free(queue);
    if (rc != GRIDEMST_OK)
        gemst_condensed_free(out);
    return rc;
}

void gemst_condensed_free(gemst_condensed *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n_rows = 0;
    c->n_clusters = 0;
}
