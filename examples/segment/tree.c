/* The spanning tree of the pixels: one exact 3D EMST for one colour
 * coordinate; for three, the minimum spanning tree of the union of the
 * exact trees of the ten 3D projections (segment.h says why). */
#include "segment.h"
#include "unionfind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int no_memory(gridemst_error *err)
{
    err->code = GRIDEMST_ERR_NO_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory for the spanning tree");
    return GRIDEMST_ERR_NO_MEMORY;
}

/* The library's edge order: (w, u, v). */
static int edge_order(const void *pa, const void *pb)
{
    const gridemst_edge *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* The distance of pixels u and v in (x, y, lambda c): position and every
 * colour coordinate. */
static double distance(const seg_image *img, const double *c, int dims, double lambda, int64_t u, int64_t v)
{
    double dx = (double)(u % img->width - v % img->width), dy = (double)(u / img->width - v / img->width);
    double d2 = dx * dx + dy * dy;
    for (int k = 0; k < dims; k++) {
        double dc = lambda * (c[u * dims + k] - c[v * dims + k]);
        d2 += dc * dc;
    }
    return sqrt(d2);
}

/* Kruskal on the candidate edges e[0 .. m), sorted in place: the first
 * n - 1 of e become the minimum spanning tree, in edge order. */
static int kruskal(int64_t n, gridemst_edge *e, int64_t m, gridemst_error *err)
{
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    uint32_t *size = malloc((size_t)n * sizeof *size);
    if (!parent || !size) {
        free(parent);
        free(size);
        return no_memory(err);
    }
    uf_reset(parent, size, n);
    qsort(e, (size_t)m, sizeof *e, edge_order);
    int64_t kept = 0;
    for (int64_t i = 0; i < m && kept < n - 1; i++) {
        uint32_t a = uf_find(parent, (uint32_t)e[i].u), b = uf_find(parent, (uint32_t)e[i].v);
        if (a != b) {
            uf_join(parent, size, a, b);
            e[kept++] = e[i];
        }
    }
    free(parent);
    free(size);
    if (kept != n - 1) { /* each tree spans the pixels, so their union does */
        err->code = GRIDEMST_ERR_INTERNAL;
        snprintf(err->message, sizeof err->message, "the candidate edges do not span the image");
        return GRIDEMST_ERR_INTERNAL;
    }
    return GRIDEMST_OK;
}

/* The 3-element subsets of the point's coordinates, 0 .. D-1 (D = 3 or 5),
 * in lexicographic order: *count of them in axes. */
static void projections(int d, int axes[10][3], int *count)
{
    *count = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            for (int k = j + 1; k < d; k++) {
                axes[*count][0] = i, axes[*count][1] = j, axes[*count][2] = k;
                ++*count;
            }
}

int seg_tree_build(const seg_image *img, seg_features f, double lambda, const gridemst_options *opt, seg_tree *t,
                   gridemst_error *err)
{
    int64_t n = img->width * img->height;
    int dims = seg_colour_dims(img, f), axes[10][3], count;
    projections(2 + dims, axes, &count);
    memset(t, 0, sizeof *t);
    t->n = n;
    t->solves = count;
    double *c = seg_colours(img, f);
    /* the tree so far and the next projection's (+1: never malloc(0)) */
    gridemst_edge *e = malloc((2 * (size_t)(n > 0 ? n - 1 : 0) + 1) * sizeof *e);
    if (!c || !e) {
        free(c);
        free(e);
        return no_memory(err);
    }
    int64_t m = 0;
    int rc = GRIDEMST_OK;
    for (int p = 0; p < count && rc == GRIDEMST_OK; p++) {
        float *xyz = seg_points(img, c, dims, lambda, axes[p]);
        if (!xyz) {
            rc = no_memory(err);
            break;
        }
        gridemst_result tree = GRIDEMST_RESULT_INIT;
        rc = gridemst_solve(xyz, GRIDEMST_FLOAT32, n, 3, opt, &tree, err);
        free(xyz);
        if (rc != GRIDEMST_OK)
            break;
        for (int64_t i = 0; i < tree.n_edges; i++, m++) {
            gridemst_edge x = tree.edges[i];
            /* one projection is the points themselves: the tree is the
             * answer, weights included; otherwise every edge gets its full
             * distance */
            e[m].u = x.u < x.v ? x.u : x.v;
            e[m].v = x.u < x.v ? x.v : x.u;
            e[m].w = count == 1 ? x.w : distance(img, c, dims, lambda, x.u, x.v);
        }
        t->stats = tree.stats;
        gridemst_result_free(&tree);
        /* The minimum spanning tree of the union so far: an edge left out
         * is the heaviest of a cycle of the union, so it stays out of the
         * final tree (under the (w, u, v) order, which makes that tree
         * unique), and two trees' edges at a time are enough memory. */
        if (p > 0) {
            rc = kruskal(n, e, m, err);
            m = n - 1;
        }
    }
    free(c);
    if (rc != GRIDEMST_OK) {
        free(e);
        return rc;
    }
    t->edges = e;
    t->n_edges = n > 0 ? n - 1 : 0;
    return GRIDEMST_OK;
}

void seg_tree_free(seg_tree *t)
{
    free(t->edges);
    memset(t, 0, sizeof *t);
}
