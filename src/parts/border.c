/* The border step of a partitioned solve (border.h). */
#include "parts/border.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/radix_sort.h"
#include "parts/border_cells.h"
#include "parts/device_border.h"
#include "parts/flagged.h"
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

/* What a round sends: each part's cells to the first part, the merged
 * cells from it to every other part, and (where B is solved) each part's
 * points kept to it. */
static void count_sent(gemst_parts_ctx *c, const gemst_border_counts *n, int solved)
{
    const int P = c->parts;
    int64_t sent[GEMST_MAX_PARTS * GEMST_MAX_PARTS] = {0}; /* [s * P + p]: from part s to part p */
    for (int p = 0; p < P; p++) {
        sent[p * P] = n->cells[p];
        sent[p] = n->merged;
    }
    gemst_xchg_count_alltoall(&c->xchg, sent, GEMST_BORDER_CELL_BYTES);
    if (!solved)
        return;
    memset(sent, 0, sizeof sent);
    for (int p = 0; p < P; p++)
        sent[p * P] = n->kept[p];
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
    return GRIDEMST_OK;
}

/* A part's points within the limit (its store's first `held`): each one's
 * component as Kruskal left them (root[] of its safe component), their
 * cells, and the positions of those kept (not inner). */
typedef struct {
    int64_t held;
    uint32_t *now;
    gemst_inner_cells cells;
    uint32_t *kept_at;
    int64_t kept;
} part_rows;

static void part_rows_free(part_rows *r)
{
    free(r->now);
    free(r->kept_at);
    gemst_border_cells_free(&r->cells);
}

/* Part p's rows: their components, and their cells. */
static int rows_cells(const gemst_parts_ctx *c, const gemst_part_store *s, const gemst_border_inner *inner,
                      part_rows *r)
{
    const size_t room = (size_t)(r->held > 0 ? r->held : 1);
    uint64_t *key = malloc(sizeof *key * room);
    r->now = malloc(sizeof *r->now * room);
    int rc = key && r->now ? 0 : -1;
    if (rc == 0) {
#pragma omp parallel for num_threads(gemst_parts_threads(c, r->held)) schedule(static)
        for (int64_t a = 0; a < r->held; a++) {
            int64_t q[3];
            gemst_inner_cell(s->w + 3 * a, c->metric.dim, inner->side, q);
            key[a] = gemst_inner_key(q);
            r->now[a] = inner->root[s->comp[a]];
        }
        rc = gemst_border_cells_of(key, r->now, r->held, c->threads, &r->cells);
    }
    free(key);
    return rc;
}

/* Part p's rows that are not inner, by their position in its store. */
static int rows_kept(const gemst_parts_ctx *c, const gemst_part_store *s, const gemst_border_inner *inner,
                     const gemst_inner_table *merged, part_rows *r)
{
    const size_t room = (size_t)(r->held > 0 ? r->held : 1);
    uint8_t *flag = malloc(room);
    r->kept_at = malloc(sizeof *r->kept_at * room);
    if (!flag || !r->kept_at) {
        free(flag);
        return -1;
    }
    const int threads = gemst_parts_threads(c, r->held);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t a = 0; a < r->held; a++) {
        int64_t q[3];
        gemst_inner_cell(s->w + 3 * a, c->metric.dim, inner->side, q);
        flag[a] = !gemst_inner_alone(merged, q, c->metric.dim, r->now[a]);
    }
    r->kept = gemst_flagged(flag, r->held, r->kept_at, threads);
    free(flag);
    return 0;
}

/* B: every part's rows kept, in the order of their ids. */
static int gather(gemst_parts_ctx *c, gemst_part *parts, const part_rows *rows, border_points *b, gridemst_error *err)
{
    int64_t part_at[GEMST_MAX_PARTS + 1] = {0}; /* part p's rows from part_at[p] on */
    for (int p = 0; p < c->parts; p++)
        part_at[p + 1] = part_at[p] + rows[p].kept;
    const int64_t m = b->n = part_at[c->parts];
    const size_t room = (size_t)(m > 0 ? m : 1);
    uint64_t *key = malloc(sizeof *key * room), *key_tmp = malloc(sizeof *key_tmp * room);
    uint32_t *from = malloc(sizeof *from * room), *from_tmp = malloc(sizeof *from_tmp * room);
    b->id = malloc(sizeof *b->id * room);
    b->comp = malloc(sizeof *b->comp * room);
    b->w = malloc(sizeof *b->w * 3 * room);
    int rc = key && key_tmp && from && from_tmp && b->id && b->comp && b->w
                 ? GRIDEMST_OK
                 : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points near the borders",
                              (long long)m);
    /* the parts' rows one after another; then in the order of their ids */
    for (int p = 0; rc == GRIDEMST_OK && p < c->parts; p++) {
        const gemst_part_store *s = parts[p].store;
#pragma omp parallel for num_threads(gemst_parts_threads(c, rows[p].kept)) schedule(static)
        for (int64_t j = 0; j < rows[p].kept; j++) {
            key[part_at[p] + j] = s->id[rows[p].kept_at[j]];
            from[part_at[p] + j] = (uint32_t)(part_at[p] + j);
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
            const int64_t a = rows[p].kept_at[(int64_t)from[k] - part_at[p]];
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

/* B at limit from the parts' stores in host memory, each part leaving out
 * its inner points against the merged cells, and solved where it holds at
 * most inner->most points: its tree's edges between safe components into
 * *between, what travelled into *n. */
static int between_on_host(gemst_parts_ctx *c, gemst_part *parts, double limit, const gemst_border_inner *inner,
                           gemst_border_counts *n, gemst_store_edge **between, int64_t *n_between,
                           gridemst_error *err)
{
    const int P = c->parts;
    part_rows rows[GEMST_MAX_PARTS];
    memset(rows, 0, sizeof rows);
    int64_t held[GEMST_MAX_PARTS] = {0}, within = 0;
    int rc = fill_stores(c, parts, limit, held, err);
    for (int p = 0; p < P; p++) {
        rows[p].held = n->kept[p] = held[p];
        within += held[p];
    }
    n->solved = rc == GRIDEMST_OK && within < 2;
    if (rc != GRIDEMST_OK || within < 2) /* as on the devices: fewer, nothing to solve nor to leave out */
        return rc;
    gemst_inner_cells part_cells[GEMST_MAX_PARTS], merged = {NULL, NULL, NULL, 0};
    int64_t total = 0;
    for (int p = 0; rc == GRIDEMST_OK && p < P; p++) {
        rc = rows_cells(c, parts[p].store, inner, &rows[p]) == 0 ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
        part_cells[p] = rows[p].cells;
        total += n->cells[p] = rows[p].cells.n;
    }
    const int merges = 2 * total <= (int64_t)UINT32_MAX; /* as on the devices: rows one merge takes */
    if (rc == GRIDEMST_OK && merges)
        rc = gemst_border_cells_merge(part_cells, P, c->threads, &merged) == 0 ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
    n->merged = merged.n;
    gemst_inner_table table = {NULL, NULL, NULL, 0};
    if (rc == GRIDEMST_OK && merges)
        rc = gemst_border_table_make(&merged, c->threads, &table) == 0 ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
    for (int p = 0; rc == GRIDEMST_OK && merges && p < P; p++) {
        rc = rows_kept(c, parts[p].store, inner, &table, &rows[p]) == 0 ? GRIDEMST_OK : GRIDEMST_ERR_NO_MEMORY;
        n->kept[p] = rows[p].kept;
    }
    gemst_border_table_free(&table);
    gemst_border_cells_free(&merged);
    if (rc != GRIDEMST_OK)
        rc = gemst_fail(err, rc, "out of host memory for %lld points near the borders", (long long)within);
    int64_t kept = 0;
    for (int p = 0; p < P; p++)
        kept += n->kept[p];
    border_points b = {0};
    gemst_parts_edge *tree = NULL;
    int64_t n_tree = 0;
    n->solved = merges && kept <= inner->most && kept <= (int64_t)UINT32_MAX;
    if (rc == GRIDEMST_OK && n->solved) {
        rc = gather(c, parts, rows, &b, err);
        if (rc == GRIDEMST_OK)
            rc = gemst_parts_solve_working(c, b.w, b.n, &tree, &n_tree, err);
        if (rc == GRIDEMST_OK)
            rc = tree_between(c, tree, n_tree, &b, between, n_between, err);
    }
    free(tree);
    border_points_free(&b);
    for (int p = 0; p < P; p++)
        part_rows_free(&rows[p]);
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

/* The same from the points the parts kept on their devices, each part's
 * cells and test on its device, B solved on the first part's. */
static int between_on_devices(gemst_parts_ctx *c, gemst_part *parts, double limit, const gemst_border_inner *inner,
                              gemst_border_counts *n, gemst_store_edge **between, int64_t *n_between,
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
    const gemst_frame frame = gemst_parts_working_frame(c);
    gemst_problem solve;
    gemst_parts_border_problem(c, &frame, &solve);
    return gemst_devices_border_round(c->xchg.devices, gaps, held, base, inner, &solve, c->threads, n, between,
                                      n_between, err);
}

/* One round of the step at limit: B gathered and solved, its tree's edges
 * between safe components into *between (replacing the last round's), and
 * Kruskal over them and the uncertain edges.  *solved: 0 where B held more
 * than the budget or the device could not hold its solve (nothing was
 * added, *between kept). */
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
    gemst_border_counts n;
    memset(&n, 0, sizeof n);
    int rc = points_on_devices(c, parts) ? between_on_devices(c, parts, limit, &inner, &n, &found, &n_found, err)
                                          : between_on_host(c, parts, limit, &inner, &n, &found, &n_found, err);
    free(root);
    for (int p = 0; p < c->parts; p++)
        n_points += n.kept[p];
    *solved = rc == GRIDEMST_OK && n.solved;
    count_sent(c, &n, *solved);
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
