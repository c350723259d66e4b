/* The border step of a partitioned solve (border.h). */
#include "parts/border.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/radix_sort.h"
#include "parts/device_border.h"
#include "parts/flagged.h"
#include "parts/inner.h"
#include "parts/requests.h"
#include "parts/store.h"

/* The points of B, gathered from the parts' stores in the order of their
 * ids. */
typedef struct {
    int64_t n;
    gemst_gid *id;
    uint32_t *comp;
    double *w; /* 3 a point */
} border_points;

static void border_points_free(border_points *b)
{
    free(b->id);
    free(b->comp);
    free(b->w);
    memset(b, 0, sizeof *b);
}

/* B's points go to the first part, which solves B: held[p] of them from
 * part p, counted as exchanged. */
static void count_sent(gemst_parts_ctx *c, const int64_t *held)
{
    int64_t sent[GEMST_MAX_PARTS * GEMST_MAX_PARTS] = {0}; /* [s * P + p]: from part s to part p */
    for (int p = 0; p < c->parts; p++)
        sent[p * c->parts] = held[p];
    gemst_xchg_count_alltoall(&c->xchg, sent, sizeof(gemst_gid) + sizeof(uint32_t) + sizeof(double) * c->metric.dim);
}

/* Every part's store filled to limit, and how many of its points are
 * within it (held[p]). */
static int fill_stores(gemst_parts_ctx *c, gemst_part *parts, double limit, int64_t *held, gridemst_error *err)
{
    for (int p = 0; p < c->parts; p++) {
        int rc = parts[p].store->limit < limit ? gemst_store_fill(&parts[p], limit, c->threads, err) : GRIDEMST_OK;
        if (rc == GRIDEMST_OK)
            rc = gemst_store_count(&parts[p], limit, &held[p], err);
        if (rc != GRIDEMST_OK)
            return rc;
    }
    count_sent(c, held);
    return GRIDEMST_OK;
}

/* B at limit: the points of every part's store within it, sorted by id. */
static int gather(gemst_parts_ctx *c, gemst_part *parts, double limit, border_points *b, gridemst_error *err)
{
    int64_t held[GEMST_MAX_PARTS], part_at[GEMST_MAX_PARTS + 1] = {0}; /* part p's points from part_at[p] on */
    int rc = fill_stores(c, parts, limit, held, err);
    for (int p = 0; p < c->parts; p++)
        part_at[p + 1] = part_at[p] + held[p];
    const int64_t m = b->n = part_at[c->parts];
    if (rc == GRIDEMST_OK && m > UINT32_MAX)
        rc = gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "%lld points near the parts' borders", (long long)m);
    if (rc != GRIDEMST_OK)
        return rc;
    const size_t room = (size_t)(m > 0 ? m : 1);
    uint64_t *key = malloc(sizeof *key * room), *key_tmp = malloc(sizeof *key_tmp * room);
    uint32_t *from = malloc(sizeof *from * room), *from_tmp = malloc(sizeof *from_tmp * room);
    b->id = malloc(sizeof *b->id * room);
    b->comp = malloc(sizeof *b->comp * room);
    b->w = malloc(sizeof *b->w * 3 * room);
    rc = key && key_tmp && from && from_tmp && b->id && b->comp && b->w
             ? GRIDEMST_OK
             : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points near the borders",
                          (long long)m);
    /* the parts' points one after another, each part's in its store's order; then in the order of their ids */
    for (int p = 0; rc == GRIDEMST_OK && p < c->parts; p++) {
        const gemst_part_store *s = parts[p].store;
#pragma omp parallel for num_threads(gemst_parts_threads(c, held[p])) schedule(static)
        for (int64_t a = 0; a < held[p]; a++) {
            key[part_at[p] + a] = s->id[a];
            from[part_at[p] + a] = (uint32_t)(part_at[p] + a);
        }
    }
    if (rc == GRIDEMST_OK &&
        gemst_radix_sort(key, from, (size_t)m, gemst_bits_for((uint64_t)c->pb->n), key_tmp, from_tmp, c->threads) != 0)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory sorting %lld points", (long long)m);
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(static)
        for (int64_t k = 0; k < m; k++) {
            int p = 0; /* the part whose run holds from[k] */
            while (part_at[p + 1] <= (int64_t)from[k])
                p++;
            const gemst_part_store *s = parts[p].store;
            const int64_t a = (int64_t)from[k] - part_at[p];
            b->id[k] = key[k];
            b->comp[k] = s->comp[a];
            memcpy(b->w + 3 * k, s->w + 3 * a, 3 * sizeof *b->w);
        }
    }
    free(key);
    free(key_tmp);
    free(from);
    free(from_tmp);
    return rc;
}

/* The cells of B's points (inner.h): their keys ascending, and the least
 * and greatest component of each one's points, into cells (malloc'd
 * arrays); comp[k] is point k's component. */
static int make_cells(const gemst_parts_ctx *c, const border_points *b, const uint32_t *comp, double side,
                      gemst_inner_cells *cells)
{
    const int64_t m = b->n;
    const size_t room = (size_t)(m > 0 ? m : 1);
    uint64_t *key = malloc(sizeof *key * room), *key_tmp = malloc(sizeof *key_tmp * room);
    uint32_t *at = malloc(sizeof *at * room), *at_tmp = malloc(sizeof *at_tmp * room);
    uint32_t *lo = malloc(sizeof *lo * room), *hi = malloc(sizeof *hi * room);
    int rc = key && key_tmp && at && at_tmp && lo && hi ? 0 : -1;
    if (rc == 0) {
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(static)
        for (int64_t k = 0; k < m; k++) {
            int64_t q[3];
            gemst_inner_cell(b->w + 3 * k, c->metric.dim, side, q);
            key[k] = gemst_inner_key(q);
            at[k] = (uint32_t)k;
        }
        rc = gemst_radix_sort(key, at, (size_t)m, 64, key_tmp, at_tmp, c->threads);
    }
    int64_t n = 0;
    for (int64_t k = 0; rc == 0 && k < m; k++) { /* each run of one key: a cell */
        if (k == 0 || key[k] != key[k - 1]) {
            key[n] = key[k];
            lo[n] = hi[n] = comp[at[k]];
            n++;
        }
        lo[n - 1] = comp[at[k]] < lo[n - 1] ? comp[at[k]] : lo[n - 1];
        hi[n - 1] = comp[at[k]] > hi[n - 1] ? comp[at[k]] : hi[n - 1];
    }
    free(key_tmp);
    free(at);
    free(at_tmp);
    *cells = (gemst_inner_cells){key, lo, hi, n};
    if (rc != 0) {
        free(key);
        free(lo);
        free(hi);
    }
    return rc;
}

/* B without its inner points (inner.h) at limit, its order kept; root[s]
 * is safe component s's component as Kruskal left them. */
static int drop_inner(const gemst_parts_ctx *c, double limit, const uint32_t *root, border_points *b,
                      gridemst_error *err)
{
    const int64_t m = b->n;
    const size_t room = (size_t)(m > 0 ? m : 1);
    const double side = gemst_inner_side(limit);
    const int threads = gemst_parts_threads(c, m);
    uint32_t *comp = malloc(sizeof *comp * room), *keep = malloc(sizeof *keep * room);
    uint8_t *flag = malloc(room);
    gemst_inner_cells cells = {NULL, NULL, NULL, 0};
    int rc = comp && keep && flag ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t k = 0; k < m; k++)
            comp[k] = root[b->comp[k]];
        rc = make_cells(c, b, comp, side, &cells) == 0 ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
    }
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t k = 0; k < m; k++) {
            int64_t q[3];
            gemst_inner_cell(b->w + 3 * k, c->metric.dim, side, q);
            flag[k] = !gemst_inner_alone(&cells, q, c->metric.dim, comp[k]);
        }
        const int64_t kept = gemst_flagged(flag, m, keep, threads);
        for (int64_t j = 0; j < kept; j++) { /* in order, each row to one at or before its own */
            const uint32_t k = keep[j];
            b->id[j] = b->id[k];
            b->comp[j] = b->comp[k];
            memmove(b->w + 3 * j, b->w + 3 * (size_t)k, 3 * sizeof *b->w);
        }
        b->n = kept;
    }
    free(comp);
    free(keep);
    free(flag);
    free((void *)cells.key);
    free((void *)cells.lo);
    free((void *)cells.hi);
    return rc == GRIDEMST_OK ? GRIDEMST_OK
                             : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points near the borders",
                                          (long long)m);
}

/* One list of candidates in the edge order, as Kruskal reads it. */
typedef struct {
    const gemst_store_edge *edge;
    int64_t n, next;
} cand_list;

/* Kruskal over the candidates shorter than cover, from every list at once
 * in the edge order: the edges it adds appended to edges. */
static void kruskal(cand_list *list, int n_lists, double cover, uint32_t *parent, gemst_gid_edge *edges,
                    int64_t *n_edges)
{
    for (;;) {
        const gemst_store_edge *least = NULL;
        int pick = -1;
        for (int l = 0; l < n_lists; l++)
            if (list[l].next < list[l].n && (!least || gemst_gid_edge_less(&list[l].edge[list[l].next].e, &least->e))) {
                pick = l;
                least = &list[l].edge[list[l].next];
            }
        if (!least || !(least->e.d2 < cover))
            return;
        list[pick].next++;
        const uint32_t ra = gemst_parts_find(parent, least->comp_lo), rb = gemst_parts_find(parent, least->comp_hi);
        if (ra == rb)
            continue;
        parent[ra > rb ? ra : rb] = ra > rb ? rb : ra;
        edges[(*n_edges)++] = least->e;
    }
}

/* B's tree's edges between different safe components (the others join
 * points that safe edges join already), in its order, with their ends'
 * ids and components, into *out (malloc'd, *n_out). */
static int tree_between(const gemst_parts_ctx *c, const gemst_parts_edge *tree, int64_t n_tree,
                        const border_points *b, gemst_store_edge **out, int64_t *n_out, gridemst_error *err)
{
    *n_out = 0;
    const size_t room = (size_t)(n_tree > 0 ? n_tree : 1);
    *out = malloc(sizeof **out * room);
    uint8_t *flag = malloc(room);
    uint32_t *at = malloc(sizeof *at * room);
    const int threads = gemst_parts_threads(c, n_tree);
    int rc = *out && flag && at ? GRIDEMST_OK
                                : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld edges",
                                             (long long)n_tree);
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t k = 0; k < n_tree; k++)
            flag[k] = b->comp[tree[k].lo] != b->comp[tree[k].hi];
        *n_out = gemst_flagged(flag, n_tree, at, threads);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t j = 0; j < *n_out; j++) {
            const gemst_parts_edge *e = &tree[at[j]];
            (*out)[j] = (gemst_store_edge){{e->d2, b->id[e->lo], b->id[e->hi]}, b->comp[e->lo], b->comp[e->hi]};
        }
    }
    free(flag);
    free(at);
    return rc;
}

/* B at limit gathered from the parts' stores in host memory and solved:
 * its tree's edges between safe components into *between, its size into
 * *n_points. */
static int between_on_host(gemst_parts_ctx *c, gemst_part *parts, double limit, const gemst_border_inner *inner,
                           gemst_store_edge **between, int64_t *n_between, int64_t *n_points, gridemst_error *err)
{
    border_points b = {0};
    int rc = gather(c, parts, limit, &b, err);
    if (rc == GRIDEMST_OK && b.n >= 2) /* as on the devices: fewer, nothing to solve nor to leave out */
        rc = drop_inner(c, limit, inner->root, &b, err);
    *n_points = b.n;
    gemst_parts_edge *tree = NULL;
    int64_t n_tree = 0;
    if (rc == GRIDEMST_OK && b.n <= inner->most)
        rc = gemst_parts_solve_working(c, b.w, b.n, &tree, &n_tree, err);
    if (rc == GRIDEMST_OK)
        rc = tree_between(c, tree, n_tree, &b, between, n_between, err);
    free(tree);
    border_points_free(&b);
    return rc;
}

/* The parts' points stayed on their devices, where a round gathers B. */
static int points_on_devices(const gemst_parts_ctx *c, const gemst_part *parts)
{
    int ready = c->xchg.devices != NULL;
    for (int p = 0; p < c->parts; p++)
        ready &= parts[p].n == 0 || gemst_device_border_ready(parts[p].on_device);
    return ready;
}

/* The same from the points the parts kept on their devices, gathered
 * and solved on the first part's device. */
static int between_on_devices(gemst_parts_ctx *c, gemst_part *parts, double limit, const gemst_border_inner *inner,
                              gemst_store_edge **between, int64_t *n_between, int64_t *n_points,
                              gridemst_error *err)
{
    int64_t held[GEMST_MAX_PARTS] = {0};
    uint32_t base[GEMST_MAX_PARTS] = {0};
    gemst_device_gaps *gaps[GEMST_MAX_PARTS] = {NULL};
    for (int p = 0; p < c->parts; p++) {
        const int rc = parts[p].n > 0 ? gemst_store_count(&parts[p], limit, &held[p], err) : GRIDEMST_OK;
        if (rc != GRIDEMST_OK)
            return rc;
        gaps[p] = parts[p].on_device;
        base[p] = parts[p].comp_base;
    }
    count_sent(c, held);
    const gemst_frame frame = gemst_parts_working_frame(c);
    gemst_problem solve;
    gemst_parts_border_problem(c, &frame, &solve);
    return gemst_devices_border_round(c->xchg.devices, gaps, held, base, inner, &solve, c->threads, between,
                                      n_between, n_points, err);
}

/* One round of the step at limit: B gathered and solved, its tree's edges
 * between safe components into *between (replacing the last round's), and
 * Kruskal over them and the uncertain edges.  *solved: 0 where the device
 * could not hold B's solve (nothing was added, *between kept). */
static int round_at(gemst_parts_ctx *c, gemst_part *parts, double limit, int64_t budget, uint32_t n_comp,
                    uint32_t *parent, gemst_gid_edge *edges, int64_t *n_edges, gemst_store_edge **between,
                    int64_t *n_between, gridemst_stats *st, int *solved, gridemst_error *err)
{
    gemst_store_edge *found = NULL;
    int64_t n_found = 0, n_points = 0;
    uint32_t *root = malloc(sizeof *root * (n_comp > 0 ? n_comp : 1)); /* each safe component's component */
    if (!root)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %u components", n_comp);
    for (uint32_t k = 0; k < n_comp; k++)
        root[k] = gemst_parts_find(parent, k);
    const gemst_border_inner inner = {root, n_comp, gemst_inner_side(limit), budget};
    int rc = points_on_devices(c, parts) ? between_on_devices(c, parts, limit, &inner, &found, &n_found, &n_points, err)
                                          : between_on_host(c, parts, limit, &inner, &found, &n_found, &n_points, err);
    free(root);
    *solved = rc == GRIDEMST_OK && n_points <= budget;
    if (!*solved) {
        free(found);
        return rc == GRIDEMST_ERR_DEVICE_MEMORY ? GRIDEMST_OK : rc; /* the boundary Boruvka takes over */
    }
    free(*between); /* the Boruvka, if it follows, takes the last round's */
    *between = found;
    *n_between = n_found;
    cand_list list[GEMST_MAX_PARTS + 1];
    for (int p = 0; p < c->parts; p++)
        list[p] = (cand_list){parts[p].store->edge, parts[p].store->n_edges, 0};
    list[c->parts] = (cand_list){*between, *n_between, 0};
    const int64_t before = *n_edges;
    kruskal(list, c->parts + 1, gemst_parts_lower(limit), parent, edges, n_edges);
    st->partition_border_points = n_points;
    st->partition_border_edges += *n_edges - before;
    st->partition_border_rounds++;
    return GRIDEMST_OK;
}

/* The edges B's tree left between components, offered with the first
 * part's uncertain edges to the boundary Boruvka: they are edges of the
 * whole set, so they bound the components' least edges from the start,
 * and the searches need not look farther than they reach. */
static int offer_between(gemst_part *part, const gemst_store_edge *between, int64_t n, gridemst_error *err)
{
    if (n == 0) /* no round solved B */
        return GRIDEMST_OK;
    gemst_part_store *s = part->store;
    gemst_store_edge *grown = realloc(s->edge, sizeof *grown * (size_t)(s->n_edges + n > 0 ? s->n_edges + n : 1));
    if (!grown)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld edges",
                          (long long)(s->n_edges + n));
    memcpy(grown + s->n_edges, between, sizeof *between * (size_t)n);
    s->edge = grown;
    s->n_edges += n;
    return GRIDEMST_OK;
}

static int border(gemst_parts_ctx *c, gemst_part *parts, uint32_t n_comp, uint32_t *parent, gemst_gid_edge *edges,
                  int64_t *n_edges, gridemst_stats *st, gridemst_error *err)
{
    const char *mode = getenv("GRIDEMST_PARTS_BORDER");
    if (mode && strcmp(mode, "off") != 0 && strcmp(mode, "on") != 0 && strcmp(mode, "once") != 0 &&
        strcmp(mode, "all") != 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "GRIDEMST_PARTS_BORDER is \"%.64s\": off, on, once or all",
                          mode);
    const int on = mode ? strcmp(mode, "off") != 0 : c->xchg.devices != NULL;
    if (n_comp <= 1 || !on)
        return GRIDEMST_OK;
    const int once = mode && strcmp(mode, "once") == 0, all = mode && strcmp(mode, "all") == 0;
    double typical = 0.0; /* the parts' middling local tree edges */
    for (int p = 0; p < c->parts; p++)
        typical = parts[p].store->typical_d2 > typical ? parts[p].store->typical_d2 : typical;
    if (!(typical > 0.0))
        return GRIDEMST_OK;
    int64_t budget = 0;
    for (int p = 0; p < c->parts; p++)
        budget = parts[p].n > budget ? parts[p].n : budget;
    budget = once || all ? INT64_MAX : budget / 4;
    double limit = gemst_reach_for(4.0 * typical); /* twice a middling local tree edge */
    int rc = GRIDEMST_OK;
    uint32_t left = n_comp;
    gemst_store_edge *between = NULL; /* B's tree's edges left between components */
    int64_t n_between = 0;
    while (rc == GRIDEMST_OK) {
        int solved = 0;
        const int64_t before = *n_edges;
        rc = round_at(c, parts, limit, budget, n_comp, parent, edges, n_edges, &between, &n_between, st, &solved,
                      err);
        left -= (uint32_t)(*n_edges - before);
        if (rc != GRIDEMST_OK || !solved || left <= 1 || once)
            break;
        limit *= 4.0; /* twice the length */
    }
    if (rc == GRIDEMST_OK && left > 1) { /* the boundary Boruvka starts afresh */
        for (uint32_t k = 0; k < n_comp; k++)
            parent[k] = k;
        *n_edges = 0;
        st->partition_border_edges = 0;
    }
    if (rc == GRIDEMST_OK && left > 1)
        rc = offer_between(&parts[0], between, n_between, err);
    if (rc == GRIDEMST_OK && st->partition_border_rounds > 0) { /* what the first part tells the others */
        int64_t sent[GEMST_MAX_PARTS * GEMST_MAX_PARTS] = {0};
        for (int p = 1; p < c->parts; p++)
            sent[p] = left > 1 ? n_between : *n_edges;
        gemst_xchg_count_alltoall(&c->xchg, sent, left > 1 ? sizeof *between : sizeof *edges);
    }
    free(between);
    return rc;
}

int gemst_parts_border(gemst_parts_ctx *c, gemst_part *parts, uint32_t n_comp, uint32_t *parent,
                       gemst_gid_edge *edges, int64_t *n_edges, gridemst_stats *st, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    const int rc = border(c, parts, n_comp, parent, edges, n_edges, st, err);
    st->partition_border_ms += gemst_now_ms() - t0;
    return rc;
}
