/* Answering halo requests: a k-d tree over a part's own points whose nodes
 * remember the parts that have all their points. */
#include "parts/requests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts/halo.h"

/* Region and box distances are computed in double, within a relative
 * 2^-50 of the exact ones: a point is sent for a reach rho when its
 * computed distance is below rho (1 + SEND_MARGIN), so that every point
 * nearer than rho is sent. */
#define SEND_MARGIN 0x1p-40

double gemst_reach_covers(double rho)
{
    return isinf(rho) ? INFINITY : gemst_parts_lower(rho);
}

double gemst_reach_for(double d2)
{
    return (d2 + 0x1p-140) / (1.0 - 0x1p-20) * (1.0 + 0x1p-30);
}

typedef struct {
    const gemst_parts_metric *m;
    gemst_part *s;
    uint64_t bit;             /* the asking part's */
    const gemst_box *box;
    double limit;
    char **out;
    int64_t *count, *cap;
    int failed;
} answer;

static void emit(answer *a, uint32_t q)
{
    const size_t rb = gemst_halo_record_bytes(a->m);
    if (*a->count == *a->cap) {
        const int64_t want = *a->cap > 0 ? 2 * *a->cap : 1024;
        char *grown = realloc(*a->out, rb * (size_t)want);
        if (!grown) {
            a->failed = 1;
            return;
        }
        *a->out = grown;
        *a->cap = want;
    }
    gemst_halo_record(a->m, a->s, q, *a->out + rb * (size_t)(*a->count)++);
    a->s->sent[q] |= a->bit;
}

/* The points of node k's subtree within reach; returns whether all of them
 * have now gone to the asking part. */
static int answer_node(answer *a, uint32_t k)
{
    gemst_part *s = a->s;
    const gemst_kd_node *nd = &s->own.node[k];
    if (s->node_sent[k] & a->bit)
        return 1;
    if (!(gemst_box_dist2(&nd->box, a->box) < a->limit))
        return 0;
    int all = 1;
    if (nd->left == GEMST_NONE) {
        for (uint32_t i = nd->begin; i < nd->end && !a->failed; i++) {
            const uint32_t q = s->own.order[i];
            if (s->sent[q] & a->bit)
                continue;
            const gemst_box at = gemst_point_box(s->w + 3 * (size_t)q);
            if (gemst_box_dist2(&at, a->box) < a->limit)
                emit(a, q);
            else
                all = 0;
        }
    } else {
        all = answer_node(a, nd->left);
        all &= answer_node(a, nd->right);
    }
    if (all && !a->failed)
        s->node_sent[k] |= a->bit;
    return all;
}

/* The part's own tree, at its first request. */
static int own_tree(gemst_part *s, gridemst_error *err)
{
    if (s->node_sent)
        return GRIDEMST_OK;
    int rc = gemst_kdtree_build(&s->own, s->w, s->n, err);
    if (rc != GRIDEMST_OK)
        return rc;
    s->node_sent = calloc((size_t)(s->own.n_node > 0 ? s->own.n_node : 1), sizeof *s->node_sent);
    s->sent = calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *s->sent);
    if (!s->node_sent || !s->sent)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory answering halo requests");
    return GRIDEMST_OK;
}

int gemst_part_answer(const gemst_parts_ctx *c, gemst_part *s, int p, const gemst_request *req, int64_t m,
                      char **out, int64_t *count, int64_t *cap, gridemst_error *err)
{
    if (s->n == 0 || m == 0)
        return GRIDEMST_OK;
    int rc = own_tree(s, err);
    answer a = {&c->metric, s, (uint64_t)1 << p, NULL, 0.0, out, count, cap, 0};
    for (int64_t k = 0; k < m && rc == GRIDEMST_OK && !a.failed; k++) {
        a.box = &req[k].box;
        a.limit = req[k].rho * (1.0 + SEND_MARGIN);
        answer_node(&a, 0);
    }
    if (a.failed)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld halo points", (long long)*count);
    return rc;
}
