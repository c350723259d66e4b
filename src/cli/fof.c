/* --fof, --fof-b, --box: the groups, their labels and their catalogue. */
#include "cli/fof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tools/io.h"

int cli_fof_asked(const cli_args *a)
{
    return a->fof >= 0.0 || a->fof_b >= 0.0;
}

/* The mean spacing (volume / n)^(1/dim), of the box or else of the
 * points' bounding box. */
static int mean_spacing(const cli_args *a, const gemst_pointset *ps, double *spacing, gridemst_error *err)
{
    double volume = 1.0;
    for (int d = 0; d < ps->dim; d++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; a->box == 0.0 && i < ps->n; i++) {
            double v = gemst_pointset_coord(ps, i, d);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        volume *= a->box > 0.0 ? a->box : hi - lo;
    }
    if (!(volume > 0.0) || !isfinite(volume) || ps->n < 1)
        return gemst_fail(err, GRIDEMST_ERR_INPUT,
                          "--fof-b: the points' bounding box has no volume (or no finite one); give --fof D");
    *spacing = pow(volume / (double)ps->n, 1.0 / ps->dim);
    return GRIDEMST_OK;
}

/* Each point's position with its group unwrapped: in a periodic box, the
 * positions along the forest from the group's first point, each edge
 * taken as its minimum image (shorter than half the box), so that a group
 * across the box's faces stays whole; in open space the coordinates. */
static int unwrap(const gemst_pointset *ps, const gridemst_result *forest, double box, double *pos,
                  gridemst_error *err)
{
    const int64_t n = ps->n, m = forest->n_edges;
    const int dim = ps->dim;
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++) {
            double v = gemst_pointset_coord(ps, i, d);
            pos[i * dim + d] = box > 0.0 ? v - box * floor(v / box) : v;
        }
    if (box == 0.0)
        return GRIDEMST_OK;
    int64_t *start = calloc((size_t)n + 1, sizeof *start), *adj = malloc(sizeof *adj * (size_t)(2 * m + 1));
    int64_t *queue = malloc(sizeof *queue * (size_t)(n + 1));
    char *seen = calloc((size_t)n + 1, 1);
    if (!start || !adj || !queue || !seen) {
        free(start), free(adj), free(queue), free(seen);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for the groups of %lld points", (long long)n);
    }
    for (int64_t e = 0; e < m; e++) {
        start[forest->edges[e].u + 1]++;
        start[forest->edges[e].v + 1]++;
    }
    for (int64_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    memcpy(queue, start, sizeof *queue * (size_t)n); /* the fill cursors, until the walk */
    for (int64_t e = 0; e < m; e++) {
        const int64_t u = forest->edges[e].u, v = forest->edges[e].v;
        adj[queue[u]++] = v;
        adj[queue[v]++] = u;
    }
    for (int64_t s = 0; s < n; s++) {
        if (seen[s])
            continue;
        int64_t head = 0, tail = 0;
        queue[tail++] = s;
        seen[s] = 1;
        while (head < tail) {
            const int64_t u = queue[head++];
            for (int64_t k = start[u]; k < start[u + 1]; k++) {
                const int64_t v = adj[k];
                if (seen[v])
                    continue;
                seen[v] = 1;
                queue[tail++] = v;
                for (int d = 0; d < dim; d++) {
                    double step = pos[v * dim + d] - pos[u * dim + d];
                    step -= box * nearbyint(step / box);
                    pos[v * dim + d] = pos[u * dim + d] + step;
                }
            }
        }
    }
    free(start), free(adj), free(queue), free(seen);
    return GRIDEMST_OK;
}

static int by_size(const void *pa, const void *pb)
{
    const gemst_group *a = pa, *b = pb;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* The catalogue of the labelled groups, largest first, into --groups. */
static int write_groups(const cli_args *a, const gemst_pointset *ps, const gridemst_result *forest,
                        const int64_t *labels, int64_t count, gridemst_error *err)
{
    const int dim = ps->dim;
    double *pos = malloc(sizeof *pos * (size_t)(ps->n * dim + 1));
    double *lo = malloc(sizeof *lo * (size_t)(count * dim + 1)), *hi = malloc(sizeof *hi * (size_t)(count * dim + 1));
    gemst_group *g = calloc((size_t)count + 1, sizeof *g);
    int rc = pos && lo && hi && g ? GRIDEMST_OK
                                  : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for %lld groups",
                                               (long long)count);
    if (rc == GRIDEMST_OK)
        rc = unwrap(ps, forest, a->box, pos, err);
    if (rc == GRIDEMST_OK) {
        for (int64_t k = 0; k < count; k++) {
            g[k].id = k;
            for (int d = 0; d < dim; d++) {
                lo[k * dim + d] = INFINITY;
                hi[k * dim + d] = -INFINITY;
            }
        }
        for (int64_t i = 0; i < ps->n; i++) {
            const int64_t k = labels[i];
            if (k < 0)
                continue;
            g[k].size++;
            for (int d = 0; d < dim; d++) {
                const double v = pos[i * dim + d];
                g[k].centre[d] += v;
                lo[k * dim + d] = v < lo[k * dim + d] ? v : lo[k * dim + d];
                hi[k * dim + d] = v > hi[k * dim + d] ? v : hi[k * dim + d];
            }
        }
        for (int64_t k = 0; k < count; k++)
            for (int d = 0; d < dim; d++) {
                double c = g[k].centre[d] / (double)g[k].size;
                g[k].centre[d] = a->box > 0.0 ? c - a->box * floor(c / a->box) : c;
                g[k].extent[d] = hi[k * dim + d] - lo[k * dim + d];
            }
        qsort(g, (size_t)count, sizeof *g, by_size);
        rc = gemst_write_groups_csv(a->groups, g, count, dim, err);
    }
    free(pos), free(lo), free(hi), free(g);
    return rc;
}

int cli_fof_run(const cli_args *a, const gemst_pointset *ps, gridemst_result *forest, cli_fof *f,
                gridemst_error *err)
{
    memset(f, 0, sizeof *f);
    int rc = GRIDEMST_OK;
    f->linking_length = a->fof;
    f->box = a->box;
    if (a->fof_b >= 0.0) {
        double spacing = 0.0;
        rc = mean_spacing(a, ps, &spacing, err);
        f->linking_length = a->fof_b * spacing;
    }
    const double box[3] = {a->box, a->box, a->box};
    int64_t *labels = malloc(sizeof *labels * (size_t)(ps->n > 0 ? ps->n : 1));
    if (rc == GRIDEMST_OK && !labels)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of memory for %lld labels", (long long)ps->n);
    if (rc == GRIDEMST_OK)
        rc = gridemst_fof(ps->coords, ps->dtype, ps->n, ps->dim, f->linking_length, a->box > 0.0 ? box : NULL,
                          a->min_cluster_size, &a->opt, labels, &f->groups, forest, err);
    for (int64_t i = 0; rc == GRIDEMST_OK && i < ps->n; i++)
        f->noise_points += labels[i] < 0;
    if (rc == GRIDEMST_OK && a->labels)
        rc = gemst_write_labels(a->labels, labels, ps->n, err);
    if (rc == GRIDEMST_OK && a->groups)
        rc = write_groups(a, ps, forest, labels, f->groups, err);
    free(labels);
    return rc;
}
