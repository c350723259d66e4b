/* A part's boundary store: its fill from the part's arrays, in gap order,
 * in host memory or on the part's device (device_store.h). */
#include "parts/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "cpu/radix_sort.h"
#include "parts/device_store.h"
#include "parts/grow_arrays.h"

/* Grows every per-point array to hold want points. */
static int grow(gemst_part_store *s, int64_t want)
{
    void **const arrays[] = {(void **)&s->at, (void **)&s->id, (void **)&s->comp, (void **)&s->cell,
                             (void **)&s->by_cell, (void **)&s->gap, (void **)&s->sent, (void **)&s->w};
    const size_t bytes[] = {4, 8, 4, 4, 4, 8, 8, 24};
    return gemst_grow_arrays(arrays, bytes, sizeof bytes / sizeof bytes[0], &s->cap, want);
}

/*
 * The store's points by cell, again after an extension: every position
 * sorted by cell, stably (a cell's points stay in store order), and each
 * cell's start, the first position of the order not in a cell before it.
 * On `threads` threads: the work is the store's and the cells', which
 * grow with the part.  Returns -1 out of memory.
 */
static int index_cells(gemst_part_store *s, int threads)
{
    const int64_t n = s->n, room = n > 0 ? n : 1;
    uint64_t *cell = malloc(sizeof *cell * (size_t)room), *cell_tmp = malloc(sizeof *cell_tmp * (size_t)room);
    uint32_t *at_tmp = malloc(sizeof *at_tmp * (size_t)room);
    int rc = cell && cell_tmp && at_tmp ? 0 : -1;
    if (rc == 0) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t a = 0; a < n; a++) {
            cell[a] = s->cell[a];
            s->by_cell[a] = (uint32_t)a;
        }
        rc = gemst_radix_sort(cell, s->by_cell, (size_t)n, gemst_bits_for((uint64_t)s->n_cells), cell_tmp, at_tmp,
                              threads);
    }
    if (rc == 0) {
        /* position i starts the cells after its predecessor's, up to its own (the end: up to the last) */
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i <= n; i++) {
            if (i > 0 && i < n && cell[i - 1] == cell[i])
                continue;
            const int64_t lo = i > 0 ? (int64_t)cell[i - 1] + 1 : 0, hi = i < n ? (int64_t)cell[i] : s->n_cells;
            for (int64_t k = lo; k <= hi; k++)
                s->cell_start[k] = (uint32_t)i;
        }
    }
    free(cell);
    free(cell_tmp);
    free(at_tmp);
    return rc;
}

/* Ids on the part's device (where host memory holds none). */
static int ids_on_device(const gemst_part *part)
{
    return part->on_device && gemst_device_store_has_ids(part->on_device);
}

/* The components and ids of the uncertain edges' ends, two an edge, into
 * *comp and *id (malloc'd): gathered on the part's device, or from host
 * memory. */
static int edge_ends(const gemst_part *part, uint32_t **comp, gemst_gid **id, gridemst_error *err)
{
    const size_t ends = 2 * (size_t)part->n_uncertain, room = ends > 0 ? ends : 1;
    uint32_t *point = malloc(sizeof *point * room);
    *comp = malloc(sizeof **comp * room);
    *id = malloc(sizeof **id * room);
    int rc = point && *comp && *id ? GRIDEMST_OK : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (int64_t k = 0; rc == GRIDEMST_OK && k < part->n_uncertain; k++) {
        const gemst_parts_edge *e = &part->uncertain_edge[k];
        point[2 * k] = e->lo;
        point[2 * k + 1] = e->hi;
    }
    if (rc == GRIDEMST_OK && part->on_device)
        rc = gemst_device_store_comps(part->on_device, point, (int64_t)ends, part->comp_base, *comp, *id, err);
    else if (rc == GRIDEMST_OK)
        for (size_t k = 0; k < ends; k++)
            (*comp)[k] = part->comp[point[k]];
    for (size_t k = 0; rc == GRIDEMST_OK && !ids_on_device(part) && k < ends; k++)
        (*id)[k] = part->id[point[k]];
    free(point);
    return rc;
}

int gemst_store_create(gemst_part *part, gridemst_error *err)
{
    gemst_part_store *s = part->store = calloc(1, sizeof *part->store);
    if (!s)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    const char *mode = getenv("GRIDEMST_PARTS_STORE");
    s->exact = mode && strcmp(mode, "exact") == 0;
    s->limit = -INFINITY;
    s->n_cells = part->n_cells;
    s->n_edges = part->n_uncertain;
    s->cell_start = calloc((size_t)part->n_cells + 1, sizeof *s->cell_start);
    s->edge = malloc(sizeof *s->edge * (size_t)(part->n_uncertain > 0 ? part->n_uncertain : 1));
    if (!s->cell_start || !s->edge)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the boundary of a part of %lld points",
                          (long long)part->n);
    uint32_t *comp = NULL;
    gemst_gid *id = NULL;
    const int rc = edge_ends(part, &comp, &id, err);
    for (int64_t k = 0; rc == GRIDEMST_OK && k < part->n_uncertain; k++) {
        const gemst_gid_edge in_ids = {part->uncertain_edge[k].d2, id[2 * k], id[2 * k + 1]};
        s->edge[k] = (gemst_store_edge){in_ids, comp[2 * k], comp[2 * k + 1]};
    }
    free(comp);
    free(id);
    if (rc != GRIDEMST_OK)
        return rc;
    s->typical_d2 = part->median_d2;
    return GRIDEMST_OK;
}

/* Positions s->n .. end - 1 from the part's arrays in host memory. */
static void host_rows(const gemst_part *part, gemst_part_store *s, int64_t end, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t a = s->n; a < end; a++) {
        const uint32_t q = part->by_gap[a];
        s->at[a] = q;
        s->comp[a] = part->comp[q];
        s->cell[a] = part->cell_of[q];
        s->gap[a] = part->gap[q];
        memcpy(s->w + 3 * (size_t)a, part->w + 3 * (size_t)q, 3 * sizeof *s->w);
    }
}

/* The same from the part's device (the ids too where it has them, else
 * from host memory, after). */
static int device_rows(const gemst_part *part, gemst_part_store *s, int64_t end, gridemst_error *err)
{
    const int64_t a = s->n;
    const gemst_store_rows to = {s->at + a, s->comp + a, s->cell + a, s->gap + a, s->w + 3 * (size_t)a, s->id + a};
    return gemst_device_store_rows(part->on_device, a, end, part->comp_base, &to, err);
}

int gemst_store_fill(gemst_part *part, double limit, int threads, gridemst_error *err)
{
    gemst_part_store *s = part->store;
    int64_t end = s->n;
    if (part->on_device) {
        const int rc = gemst_device_store_end(part->on_device, s->n, limit, &end, err);
        if (rc != GRIDEMST_OK)
            return rc;
    } else {
        while (end < part->n && part->gap[part->by_gap[end]] <= limit)
            end++;
    }
    if (grow(s, end) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the boundary's %lld points",
                          (long long)end);
    if (part->on_device) {
        const int rc = device_rows(part, s, end, err);
        if (rc != GRIDEMST_OK)
            return rc;
    } else {
        host_rows(part, s, end, threads);
    }
    const int ids_here = !ids_on_device(part);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t a = s->n; a < end; a++) {
        if (ids_here)
            s->id[a] = part->id[s->at[a]];
        s->sent[a] = 0;
        /* the cell's "all its points sent" is of the points held: not so with a new one */
        gemst_store_relaxed_u64(&part->cell_sent[s->cell[a]], 0);
    }
    s->limit = limit;
    if (end > s->n) {
        s->n = end;
        s->extensions++;
        if (index_cells(s, threads) != 0)
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the cells of %lld points",
                              (long long)end);
    }
    return GRIDEMST_OK;
}

int gemst_store_reach(gemst_part *part, double need, int threads, gridemst_error *err)
{
    const gemst_part_store *s = part->store;
    if (need <= s->limit)
        return GRIDEMST_OK;
    const double more = GEMST_STORE_GROWTH * s->limit;
    return gemst_store_fill(part, s->exact || !(more > need) ? need : more, threads, err);
}

int gemst_store_count(const gemst_part *part, double limit, int64_t *count, gridemst_error *err)
{
    const gemst_part_store *s = part->store;
    if (part->on_device && limit > s->limit)
        return gemst_device_store_end(part->on_device, s->n, limit, count, err);
    /* the first position whose gap passes limit: in the store, or in the part's arrays past it */
    const int in_store = limit <= s->limit;
    int64_t lo = in_store ? 0 : s->n, hi = in_store ? s->n : part->n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if ((in_store ? s->gap[mid] : part->gap[part->by_gap[mid]]) <= limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    *count = lo;
    return GRIDEMST_OK;
}

void gemst_store_free(gemst_part_store *s)
{
    if (!s)
        return;
    void *arrays[] = {s->at, s->id, s->comp, s->cell, s->gap, s->w, s->sent, s->by_cell, s->cell_start, s->edge};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(s);
}
