/* A part's halo: its points, its k-d tree and the searches through it. */
#include "parts/halo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "parts/grow_arrays.h"
#include "parts/store.h"

/* A record: the id, the component, then the coordinates. */
enum { RECORD_COMP = sizeof(gemst_gid), RECORD_XYZ = RECORD_COMP + sizeof(uint32_t) };

uint64_t gemst_halo_bound_bits(double d2)
{
    uint64_t bits;
    memcpy(&bits, &d2, sizeof bits);
    return bits;
}

double gemst_halo_bound_d2(uint64_t bits)
{
    double d2;
    memcpy(&d2, &bits, sizeof d2);
    return d2;
}

size_t gemst_halo_record_bytes(const gemst_parts_metric *m)
{
    return RECORD_XYZ + (size_t)m->dim * (m->in_double ? sizeof(double) : sizeof(float));
}

void gemst_halo_record(const gemst_parts_metric *m, const gemst_part_store *s, int64_t a, char *r)
{
    memcpy(r, &s->id[a], sizeof s->id[a]);
    memcpy(r + RECORD_COMP, &s->comp[a], sizeof s->comp[a]);
    for (int d = 0; d < m->dim; d++) {
        const double v = s->w[3 * (size_t)a + d];
        if (m->in_double) {
            memcpy(r + RECORD_XYZ + 8 * d, &v, sizeof v);
        } else {
            const float f = (float)v; /* exact: a float32 working coordinate */
            memcpy(r + RECORD_XYZ + 4 * d, &f, sizeof f);
        }
    }
}

static void read_record(const gemst_parts_metric *m, const char *r, gemst_gid *id, uint32_t *comp, double w[3])
{
    memcpy(id, r, sizeof *id);
    memcpy(comp, r + RECORD_COMP, sizeof *comp);
    w[0] = w[1] = w[2] = 0.0;
    for (int d = 0; d < m->dim; d++) {
        if (m->in_double) {
            memcpy(&w[d], r + RECORD_XYZ + 8 * d, sizeof w[d]);
        } else {
            float f;
            memcpy(&f, r + RECORD_XYZ + 4 * d, sizeof f);
            w[d] = f;
        }
    }
}

int gemst_halo_add(gemst_halo *h, const gemst_parts_metric *m, const char *records, int64_t count, int threads,
                   gridemst_error *err)
{
    const size_t rb = gemst_halo_record_bytes(m);
    void **const arrays[] = {(void **)&h->w, (void **)&h->id, (void **)&h->comp};
    const size_t bytes[] = {3 * sizeof *h->w, sizeof *h->id, sizeof *h->comp};
    if (gemst_grow_arrays(arrays, bytes, sizeof bytes / sizeof bytes[0], &h->cap, h->n + count) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a halo of %lld points",
                          (long long)(h->n + count));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < count; k++)
        read_record(m, records + rb * (size_t)k, &h->id[h->n + k], &h->comp[h->n + k],
                    h->w + 3 * (size_t)(h->n + k));
    h->n += count;
    const int rc = gemst_kdtree_add(&h->tree, h->w, h->n, threads, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const size_t nodes = (size_t)(h->tree.n_node > 0 ? h->tree.n_node : 1);
    uint32_t *label = realloc(h->label, sizeof *label * nodes);
    if (label)
        h->label = label;
    void **const at[] = {(void **)&h->w_at, (void **)&h->id_at, (void **)&h->comp_at, (void **)&h->root_at};
    const size_t at_bytes[] = {3 * sizeof *h->w_at, sizeof *h->id_at, sizeof *h->comp_at, sizeof *h->root_at};
    if (!label || gemst_grow_arrays(at, at_bytes, 4, &h->cap_at, h->n) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the tree of a halo of %lld points",
                          (long long)h->n);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < h->n; i++) {
        const uint32_t j = h->tree.order[i];
        memcpy(h->w_at + 3 * (size_t)i, h->w + 3 * (size_t)j, 3 * sizeof *h->w_at);
        h->id_at[i] = h->id[j];
        h->comp_at[i] = h->comp[j];
    }
    return GRIDEMST_OK;
}

/* The leaves first, each from its points, at once; then the inner nodes,
 * children first. */
void gemst_halo_label(gemst_halo *h, const uint32_t *root, int threads)
{
    const gemst_kdtree *t = &h->tree;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < t->n_node; k++) {
        const gemst_kd_node *nd = &t->node[k];
        if (nd->left != GEMST_NONE)
            continue;
        uint32_t label = root[h->comp_at[nd->begin]];
        for (uint32_t i = nd->begin; i < nd->end; i++) {
            h->root_at[i] = root[h->comp_at[i]];
            label = h->root_at[i] == label ? label : GEMST_NONE;
        }
        h->label[k] = label;
    }
    for (int64_t k = t->n_node - 1; k >= 0; k--) {
        const gemst_kd_node *nd = &t->node[k];
        if (nd->left != GEMST_NONE)
            h->label[k] = h->label[nd->left] == h->label[nd->right] ? h->label[nd->left] : GEMST_NONE;
    }
}

int gemst_halo_nearest(const gemst_halo *h, const gemst_parts_metric *m, const double at[3], gemst_gid qid,
                       uint32_t q_root, uint64_t *bound, gemst_gid_edge *e, uint32_t *to, double *searched)
{
    enum { MAX_STACK = 2 * GEMST_KD_MAX_DEPTH + 2 }; /* a path and its siblings */
    const gemst_kdtree *t = &h->tree;
    const gemst_box q = gemst_point_box(at);
    uint32_t stack[MAX_STACK];
    double stack_d2[MAX_STACK]; /* each node's box distance, computed when it was pushed */
    int top = 0, found = 0;
    double limit = INFINITY; /* an empty halo: every point of it looked at */
    if (t->n_node > 0) {
        stack[top] = 0;
        stack_d2[top++] = gemst_box_dist2(&t->node[0].box, &q);
    }
    while (top > 0) {
        const uint32_t k = stack[--top];
        const gemst_kd_node *nd = &t->node[k];
        limit = gemst_halo_bound_d2(gemst_load_relaxed_u64(bound));
        if (h->label[k] == q_root || gemst_parts_lower(stack_d2[top]) > limit)
            continue;
        if (nd->left != GEMST_NONE) { /* the nearer child first */
            const double dl = gemst_box_dist2(&t->node[nd->left].box, &q),
                         dr = gemst_box_dist2(&t->node[nd->right].box, &q);
            stack[top] = dl <= dr ? nd->right : nd->left;
            stack_d2[top++] = dl <= dr ? dr : dl;
            stack[top] = dl <= dr ? nd->left : nd->right;
            stack_d2[top++] = dl <= dr ? dl : dr;
            continue;
        }
        for (uint32_t i = nd->begin; i < nd->end; i++) {
            if (h->root_at[i] == q_root)
                continue;
            const double d2 = gemst_parts_d2(m, at, h->w_at + 3 * (size_t)i);
            if (d2 > limit)
                continue;
            const gemst_gid id = h->id_at[i];
            const gemst_gid_edge c = {d2, qid < id ? qid : id, qid < id ? id : qid};
            if (!found || gemst_gid_edge_less(&c, e)) {
                *e = c;
                *to = h->comp_at[i];
                found = 1;
                gemst_atomic_min_u64(bound, gemst_halo_bound_bits(d2));
                limit = d2 < limit ? d2 : limit;
            }
        }
    }
    *searched = limit;
    return found;
}

void gemst_halo_free(gemst_halo *h)
{
    if (!h)
        return;
    free(h->w);
    free(h->id);
    free(h->comp);
    gemst_kdtree_free(&h->tree);
    free(h->label);
    free(h->w_at);
    free(h->id_at);
    free(h->comp_at);
    free(h->root_at);
    memset(h, 0, sizeof *h);
}
