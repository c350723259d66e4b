/*
 * Step 4's first sub-steps (contract.c): each point's working coordinates
 * and Morton key, the points by key and the runs of one cell among them,
 * each cell's box and gap and each point's (parts/gap.h), and the points
 * by gap.  On the host's threads, or on the device that holds the part's
 * points (parts/device_gaps.h), with the same arrays bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "host_array.h"
#include "parts/device_gaps.h"
#include "parts/gap.h"
#include "parts/parts.h"
#include "parts/positions.h"
#include "cpu/radix_sort.h"

/* The points' working coordinates and Morton keys; order: the points by
 * key (key: 2 n entries, the second half scratch, as tmp). */
static int working_points(const gemst_parts_ctx *c, gemst_part *part, uint64_t *key, uint32_t *order, uint32_t *tmp)
{
    const int64_t n = part->n;
#pragma omp parallel for num_threads(gemst_parts_threads(c, n)) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        key[i] = gemst_parts_point(c, part->coords, i, part->w + 3 * i);
        order[i] = (uint32_t)i;
    }
    return gemst_radix_sort(key, order, (size_t)n, 64, key + n, tmp, gemst_parts_threads(c, n));
}

/* Where a new cell starts among the sorted keys. */
typedef struct {
    const uint64_t *key;
    int dim, level;
} cell_runs;

static int starts_cell(const void *arg, int64_t k)
{
    const cell_runs *r = arg;
    return gemst_gap_starts_cell(r->dim, r->level, r->key, k);
}

/* On the host: the points by key, and the cells' starts. */
static int host_cells(const gemst_parts_ctx *c, gemst_part *part, int level, uint64_t *key, uint32_t *tmp,
                      int64_t *runs, gridemst_error *err)
{
    if (working_points(c, part, key, part->by_key, tmp) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                          (long long)part->n);
    const cell_runs runs_of = {key, c->pb->dim, level};
    return gemst_parts_positions(part->n, starts_cell, &runs_of, gemst_parts_threads(c, part->n), part->cell_start,
                                 runs, err);
}

/* The gaps of the points of cell r, order[b .. e) (keys key[b .. e)), and
 * the cell's box. */
static void cell_gaps(const gemst_parts_ctx *c, int p, gemst_part *part, const uint64_t *key, const uint32_t *order,
                      int64_t r, int64_t b, int64_t e, int level)
{
    gemst_box *tight = &part->cell_box[r];
    *tight = gemst_point_box(part->w + 3 * (size_t)order[b]);
    for (int64_t k = b; k < e; k++) {
        const double *w = part->w + 3 * (size_t)order[k];
        part->cell_of[order[k]] = (uint32_t)r;
        for (int d = 0; d < 3; d++) {
            tight->lo[d] = w[d] < tight->lo[d] ? w[d] : tight->lo[d];
            tight->hi[d] = w[d] > tight->hi[d] ? w[d] : tight->hi[d];
        }
    }
    const double cell_gap = gemst_gap_of_cell(&c->space, c->range[p], key[b], level);
    for (int64_t k = b; k < e; k++)
        part->gap[order[k]] = gemst_gap_of_point(&c->space, c->range[p], cell_gap, part->w + 3 * (size_t)order[k]);
}

/* On the host: the cells' keys and boxes, the gaps, and the points by gap
 * (key and tmp as host_cells left them). */
static int host_gaps(const gemst_parts_ctx *c, int p, gemst_part *part, uint64_t *key, uint32_t *tmp,
                     gridemst_error *err)
{
    const int64_t n = part->n, runs = part->n_cells;
    const int dim = c->pb->dim, level = part->cell_level, threads = gemst_parts_threads(c, n);
    part->cell_start[runs] = (uint32_t)n;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (int64_t r = 0; r < runs; r++) {
        part->cell_key[r] = gemst_region_cell(dim, key[part->cell_start[r]], level);
        cell_gaps(c, p, part, key, part->by_key, r, part->cell_start[r], part->cell_start[r + 1], level);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        memcpy(&key[i], &part->gap[i], sizeof key[i]); /* non-negative doubles order as their bits */
        part->by_gap[i] = (uint32_t)i;
    }
    if (gemst_radix_sort(key, part->by_gap, (size_t)n, 64, key + n, tmp, threads) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                          (long long)n);
    return GRIDEMST_OK;
}

/* On the device: everything, the cells left there for device_cells, the
 * points' arrays too where the part's host arrays are not made (w NULL). */
static int device_points(const gemst_parts_ctx *c, int p, gemst_part *part, int level, gridemst_context *ctx,
                         const void *device_coords, gemst_device_gaps **g, int64_t *runs, gemst_gaps_times *times,
                         gridemst_error *err)
{
    const gemst_gaps_task task = {c->metric,    c->frame,      c->space, c->range[p], level,
                                  c->pb->dtype, device_coords, part->n,  gemst_parts_threads(c, part->n)};
    const gemst_gaps_points points = {part->w, part->gap, part->by_key, part->cell_of, part->by_gap};
    return gemst_device_gaps_run(ctx, &task, part->w ? &points : NULL, g, runs, times, err);
}

static int device_cells(gemst_part *part, gemst_device_gaps *g, gemst_gaps_times *times, gridemst_error *err)
{
    const gemst_gaps_cells cells = {part->cell_start, part->cell_key, part->cell_box};
    return gemst_device_gaps_cells(g, &cells, times, err);
}

/* The points' arrays in host memory. */
static int point_arrays(gemst_part *part, gridemst_error *err)
{
    const size_t n = (size_t)part->n;
    part->w = gemst_host_array(sizeof *part->w * 3 * n);
    part->gap = gemst_host_array(sizeof *part->gap * n);
    part->by_gap = gemst_host_array(sizeof *part->by_gap * n);
    part->by_key = gemst_host_array(sizeof *part->by_key * n);
    part->cell_of = gemst_host_array(sizeof *part->cell_of * n);
    part->cell_start = gemst_host_array(sizeof *part->cell_start * (n + 1));
    if (!part->w || !part->gap || !part->by_gap || !part->by_key || !part->cell_of || !part->cell_start)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                          (long long)n);
    return GRIDEMST_OK;
}

/* The cells' arrays, and the halo's bookkeeping (zeroed). */
static int cell_arrays(gemst_part *part, int64_t runs, gridemst_error *err)
{
    const size_t cells = (size_t)(runs > 0 ? runs : 1);
    int ok = (part->cell_box = gemst_host_array(sizeof *part->cell_box * cells)) &&
             (part->cell_key = gemst_host_array(sizeof *part->cell_key * cells)) &&
             (part->cell_rho = calloc(cells, sizeof *part->cell_rho)) &&
             (part->cell_sent = calloc(cells, sizeof *part->cell_sent));
    return ok ? GRIDEMST_OK
              : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                           (long long)part->n);
}

int gemst_part_gaps(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_context *ctx,
                    const void *device_coords, uint64_t *key, uint32_t *tmp, gemst_device_gaps **keep,
                    gridemst_error *err)
{
    const int level = gemst_region_level(c->pb->dim, c->pb->n, GEMST_GAP_CELL_POINTS);
    double t0 = gemst_now_ms();
    int rc = ctx && keep ? GRIDEMST_OK : point_arrays(part, err); /* kept on the device: none */
    part->gaps_alloc_ms = gemst_now_ms() - t0;
    if (rc != GRIDEMST_OK)
        return rc;
    gemst_device_gaps *g = NULL;
    gemst_gaps_times times = {0, 0};
    int64_t runs = 0;
    rc = ctx ? device_points(c, p, part, level, ctx, device_coords, &g, &runs, &times, err)
             : host_cells(c, part, level, key, tmp, &runs, err);
    part->n_cells = runs;
    part->cell_level = level;
    t0 = gemst_now_ms();
    if (rc == GRIDEMST_OK)
        rc = cell_arrays(part, runs, err);
    part->gaps_alloc_ms += gemst_now_ms() - t0;
    if (rc == GRIDEMST_OK)
        rc = ctx ? device_cells(part, g, &times, err) : host_gaps(c, p, part, key, tmp, err);
    if (keep)
        *keep = g;
    else
        gemst_device_gaps_free(g);
    part->gaps_device_ms = times.device_ms;
    part->gaps_copy_ms = times.copy_ms;
    return rc;
}
