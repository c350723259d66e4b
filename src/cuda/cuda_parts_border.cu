/*
 * A round of the border step over parts on devices (parts/device_border.h).
 * Each part, on its device and all at once: its points within the limit
 * (the first `held` of its order by gap) get their cells' keys and their
 * components as Kruskal left them, and make its cells (inner.h).  The
 * parts' cells go to the first part's device, which merges them (a cell's
 * least and greatest component as two rows of it) and sends the merged
 * cells back.  Each part then tests its own points against them, and
 * where few enough are kept, sends those to the first part's device,
 * where they are sorted by id and solved; the tree's edges between safe
 * components come to host memory.  What travels between devices goes by
 * gemst_devices_transfer (NCCL or copies) from the parts' peer buffers.
 */
#include <cub/cub.cuh>

#include "cuda/cuda_devices.cuh"
#include "cuda/cuda_download.cuh"
#include "cuda/cuda_parts_kept.cuh"
#include "parts/device_border.h"
#include "parts/inner.h"

/* Each point within the limit (position k of the order by gap): its cell
 * key, and its component (plus base) as Kruskal left them. */
static __global__ void k_border_keys(const uint32_t *by_gap, const uint32_t *comp, const double *w, int64_t held,
                                     uint32_t base, const uint32_t *root, int dim, double side, uint64_t *key,
                                     uint32_t *now)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= held)
        return;
    const uint32_t q = by_gap[k];
    int64_t cell[3];
    gemst_inner_cell(w + 3 * (size_t)q, dim, side, cell);
    key[k] = gemst_inner_key(cell);
    now[k] = root[comp[q] + base];
}

/* 1 where a run of equal keys (sorted) starts. */
static __global__ void k_inner_starts(const uint64_t *key, int64_t m, uint32_t *start)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        start[k] = k == 0 || key[k] != key[k - 1];
}

/* Each cell's key and the least and greatest component of its rows
 * (lo and hi set to all ones and zeros before). */
static __global__ void k_inner_cells(const uint64_t *key, const uint32_t *comp, const uint32_t *start,
                                     const uint32_t *cell, int64_t m, uint64_t *cell_key, uint32_t *lo, uint32_t *hi)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    const uint32_t c = cell[k] + start[k] - 1; /* the exclusive count of starts, plus this one's */
    if (start[k])
        cell_key[c] = key[k];
    atomicMin(&lo[c], comp[k]);
    atomicMax(&hi[c], comp[k]);
}

/* The merged cells' rows: each part's cell as two, its least and its
 * greatest component (n cells at key, lo, hi; rows at 2 n). */
static __global__ void k_cell_rows(const uint64_t *key, const uint32_t *lo, const uint32_t *hi, int64_t n,
                                   uint64_t *row_key, uint32_t *row_comp)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    row_key[k] = row_key[n + k] = key[k];
    row_comp[k] = lo[k];
    row_comp[n + k] = hi[k];
}

/* The n merged cells into a hash table (its keys free before): each at a
 * slot of its own, their keys being distinct. */
static __global__ void k_cells_table(const uint64_t *key, const uint32_t *lo, const uint32_t *hi, int64_t n, int bits,
                                     uint64_t *slot_key, uint32_t *slot_lo, uint32_t *slot_hi)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    int taken;
    const uint32_t slot = gemst_hash_slot(slot_key, bits, key[k], &taken);
    slot_lo[slot] = lo[k];
    slot_hi[slot] = hi[k];
}

/* 1 for the points within the limit that are not inner. */
static __global__ void k_border_keep(const uint32_t *by_gap, const double *w, const uint32_t *now, int64_t held,
                                     int dim, double side, gemst_inner_table cells, uint32_t *keep)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= held)
        return;
    int64_t cell[3];
    gemst_inner_cell(w + 3 * (size_t)by_gap[k], dim, side, cell);
    keep[k] = !gemst_inner_alone(&cells, cell, dim, now[k]);
}

/* The kept points at their ranks (the flags' exclusive count): each one's
 * id, component plus base and dim working coordinates. */
static __global__ void k_border_rows(const uint32_t *by_gap, const uint32_t *comp, const double *w,
                                     const uint32_t *place, gemst_id_runs runs, const uint32_t *keep,
                                     const uint32_t *rank, int64_t held, uint32_t base, int dim, gemst_gid *id_out,
                                     uint32_t *comp_out, double *w_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= held || !keep[k])
        return;
    const uint32_t q = by_gap[k], j = rank[k];
    id_out[j] = gemst_id_of(&runs, q, place[q]);
    comp_out[j] = comp[q] + base;
    for (int d = 0; d < dim; d++)
        w_out[dim * (size_t)j + d] = w[3 * (size_t)q + d];
}

static __global__ void k_border_iota(uint32_t *index, int64_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        index[i] = (uint32_t)i;
}

/* B's points in the order of their ids: from[k] is the k-th's row. */
static __global__ void k_border_order(const uint32_t *from, int64_t m, int dim, const uint32_t *comp, const double *w,
                                      uint32_t *comp_out, double *w_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    const uint32_t r = from[k];
    comp_out[k] = comp[r];
    for (int d = 0; d < dim; d++)
        w_out[dim * k + d] = w[dim * (size_t)r + d];
}

/* 1 where a tree edge joins different safe components. */
static __global__ void k_border_flags(const gemst_parts_edge *tree, int64_t m, const uint32_t *comp, uint32_t *flag)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        flag[k] = comp[tree[k].lo] != comp[tree[k].hi];
}

/* The flagged edges at their ranks (the flags' exclusive count), in ids
 * and components. */
static __global__ void k_border_between(const gemst_parts_edge *tree, int64_t m, const uint32_t *flag,
                                        const uint32_t *rank, const gemst_gid *id, const uint32_t *comp,
                                        gemst_store_edge *out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m || !flag[k])
        return;
    const gemst_parts_edge e = tree[k];
    out[rank[k]] = gemst_store_edge{{e.d2, id[e.lo], id[e.hi]}, comp[e.lo], comp[e.hi]};
}

/* The exclusive count of the m flags into rank, and their sum. */
static int count_flags(gemst_dmem *mem, const uint32_t *flag, uint32_t *rank, int64_t m, int64_t *sum,
                       gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, flag, rank, m, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "counting the points near the borders", err));
    GEMST_CU(cub::DeviceScan::ExclusiveSum(temp, bytes, flag, rank, m, s));
    gemst_dfree(mem, temp);
    uint32_t last[2] = {0, 0};
    GEMST_CU(cudaMemcpyAsync(&last[0], rank + m - 1, sizeof last[0], cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaMemcpyAsync(&last[1], flag + m - 1, sizeof last[1], cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    *sum = (int64_t)last[0] + last[1];
    return GRIDEMST_OK;
}

extern "C" int gemst_device_border_ready(const gemst_device_gaps *g)
{
    return g && g->by_gap && g->comp && g->w && g->id;
}

/* Cells in device memory: keys ascending, each one's least and greatest
 * component. */
struct device_cells {
    uint64_t *key;
    uint32_t *lo, *hi;
    int64_t n;
};

/* The cells of m rows (key, comp: m >= 1), their arrays from out (a peer
 * buffer: they travel), the work's from mem. */
static int cells_of(gemst_dmem *mem, gemst_dmem *out, const uint64_t *key, const uint32_t *comp, int64_t m,
                    device_cells *cells, gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    uint64_t *key_sorted;
    uint32_t *comp_sorted, *start, *cell;
    GEMST_DALLOC(mem, key_sorted, m, "the cells near the borders");
    GEMST_DALLOC(mem, comp_sorted, m, "the cells near the borders");
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key_sorted, comp, comp_sorted, m, 0, 64, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "sorting the cells near the borders", err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, key, key_sorted, comp, comp_sorted, m, 0, 64, s));
    gemst_dfree(mem, temp);
    GEMST_DALLOC(mem, start, m, "the cells near the borders");
    GEMST_DALLOC(mem, cell, m, "the cells near the borders");
    k_inner_starts<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(key_sorted, m, start);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, start, cell, m, &cells->n, err));
    GEMST_DALLOC(out, cells->key, cells->n, "the cells near the borders");
    GEMST_DALLOC(out, cells->lo, cells->n, "the cells near the borders");
    GEMST_DALLOC(out, cells->hi, cells->n, "the cells near the borders");
    GEMST_CU(cudaMemsetAsync(cells->lo, 0xff, sizeof *cells->lo * (size_t)cells->n, s));
    GEMST_CU(cudaMemsetAsync(cells->hi, 0, sizeof *cells->hi * (size_t)cells->n, s));
    k_inner_cells<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(key_sorted, comp_sorted, start, cell, m,
                                                                     cells->key, cells->lo, cells->hi);
    GEMST_LAUNCHED();
    gemst_dfree(mem, key_sorted);
    gemst_dfree(mem, comp_sorted);
    gemst_dfree(mem, start);
    gemst_dfree(mem, cell);
    GEMST_CU(cudaStreamSynchronize(s)); /* the cells travel from another thread's stream */
    return GRIDEMST_OK;
}

/* What the round reads of the parts, and what it leaves on each one's
 * device: work (its pool) and peer (cudaMalloc: what travels) buffers,
 * each part's components as Kruskal left them (now) and its cells, the
 * merged cells (received by each part; made on the first part's device),
 * its flags and ranks of the points kept, and those points' rows. */
struct border_round {
    gemst_devices *d;
    gemst_device_gaps *const *gaps;
    const int64_t *held;
    const uint32_t *comp_base;
    const gemst_border_inner *inner;
    int dim;
    gemst_dmem work[GEMST_MAX_DEVICES], peer[GEMST_MAX_DEVICES];
    uint32_t *now[GEMST_MAX_DEVICES];
    device_cells cells[GEMST_MAX_DEVICES], merged[GEMST_MAX_DEVICES];
    uint32_t *keep[GEMST_MAX_DEVICES], *rank[GEMST_MAX_DEVICES];
    int64_t kept[GEMST_MAX_DEVICES];
    gemst_gid *id[GEMST_MAX_DEVICES];
    uint32_t *comp[GEMST_MAX_DEVICES];
    double *w[GEMST_MAX_DEVICES];
    int rc[GEMST_MAX_DEVICES];
    gridemst_error err[GEMST_MAX_DEVICES];
};

/* Part p's cells, on its device. */
static int part_cells(border_round *r, int p, gridemst_error *err)
{
    const int64_t held = r->held[p];
    if (held == 0)
        return GRIDEMST_OK;
    const gemst_device_gaps *g = r->gaps[p];
    gemst_dmem *mem = &r->work[p];
    uint32_t *root;
    uint64_t *key;
    GEMST_DALLOC(mem, root, r->inner->n_comp, "the components near the borders");
    GEMST_CU(cudaMemcpyAsync(root, r->inner->root, sizeof *root * (size_t)r->inner->n_comp, cudaMemcpyHostToDevice,
                             mem->s));
    GEMST_DALLOC(mem, key, held, "the cells near the borders");
    GEMST_DALLOC(mem, r->now[p], held, "the cells near the borders");
    k_border_keys<<<gemst_blocks((uint64_t)held), GEMST_THREADS, 0, mem->s>>>(
        g->by_gap, g->comp, g->w, held, r->comp_base[p], root, r->dim, r->inner->side, key, r->now[p]);
    GEMST_LAUNCHED();
    GEMST_TRY(cells_of(mem, &r->peer[p], key, r->now[p], held, &r->cells[p], err));
    gemst_dfree(mem, key);
    gemst_dfree(mem, root);
    return GRIDEMST_OK;
}

/* The parts' cells, received on the first part's device (total of them),
 * merged there. */
static int merge_cells(border_round *r, int64_t total, gridemst_error *err)
{
    gemst_devices *d = r->d;
    const int P = d->count;
    int64_t count[GEMST_MAX_DEVICES * GEMST_MAX_DEVICES] = {0};
    device_cells got;
    GEMST_CU(cudaSetDevice(d->ordinal[0]));
    GEMST_DALLOC(&r->peer[0], got.key, total, "the parts' cells near the borders");
    GEMST_DALLOC(&r->peer[0], got.lo, total, "the parts' cells near the borders");
    GEMST_DALLOC(&r->peer[0], got.hi, total, "the parts' cells near the borders");
    gemst_device_records kinds[3] = {{sizeof(uint64_t), {0}, {0}}, {sizeof(uint32_t), {0}, {0}},
                                     {sizeof(uint32_t), {0}, {0}}};
    for (int p = 0; p < P; p++) {
        count[(size_t)p * P] = r->cells[p].n;
        kinds[0].send[p] = (char *)r->cells[p].key;
        kinds[1].send[p] = (char *)r->cells[p].lo;
        kinds[2].send[p] = (char *)r->cells[p].hi;
    }
    kinds[0].recv[0] = (char *)got.key;
    kinds[1].recv[0] = (char *)got.lo;
    kinds[2].recv[0] = (char *)got.hi;
    GEMST_TRY(gemst_devices_transfer(d, count, 0, kinds, 3, err));
    GEMST_CU(cudaSetDevice(d->ordinal[0]));
    gemst_dmem *mem = &r->work[0];
    uint64_t *row_key;
    uint32_t *row_comp;
    GEMST_DALLOC(mem, row_key, 2 * total, "the parts' cells near the borders");
    GEMST_DALLOC(mem, row_comp, 2 * total, "the parts' cells near the borders");
    k_cell_rows<<<gemst_blocks((uint64_t)total), GEMST_THREADS, 0, mem->s>>>(got.key, got.lo, got.hi, total, row_key,
                                                                           row_comp);
    GEMST_LAUNCHED();
    GEMST_TRY(cells_of(mem, &r->peer[0], row_key, row_comp, 2 * total, &r->merged[0], err));
    gemst_dfree(mem, row_key);
    gemst_dfree(mem, row_comp);
    return GRIDEMST_OK;
}

/* The merged cells from the first part's device to every part's. */
static int send_merged(border_round *r, gridemst_error *err)
{
    gemst_devices *d = r->d;
    const int P = d->count;
    const int64_t n = r->merged[0].n;
    int64_t count[GEMST_MAX_DEVICES * GEMST_MAX_DEVICES] = {0};
    gemst_device_records kinds[3] = {{sizeof(uint64_t), {0}, {0}}, {sizeof(uint32_t), {0}, {0}},
                                     {sizeof(uint32_t), {0}, {0}}};
    kinds[0].send[0] = (char *)r->merged[0].key;
    kinds[1].send[0] = (char *)r->merged[0].lo;
    kinds[2].send[0] = (char *)r->merged[0].hi;
    for (int p = 1; p < P; p++) {
        count[p] = n;
        device_cells *to = &r->merged[p];
        to->n = n;
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        GEMST_DALLOC(&r->peer[p], to->key, n, "the cells near the borders");
        GEMST_DALLOC(&r->peer[p], to->lo, n, "the cells near the borders");
        GEMST_DALLOC(&r->peer[p], to->hi, n, "the cells near the borders");
        kinds[0].recv[p] = (char *)to->key;
        kinds[1].recv[p] = (char *)to->lo;
        kinds[2].recv[p] = (char *)to->hi;
    }
    return gemst_devices_transfer(d, count, 1, kinds, 3, err);
}

/* Part p's points within the limit tested against the merged cells, on
 * its device: how many are kept. */
static int part_keep(border_round *r, int p, gridemst_error *err)
{
    const int64_t held = r->held[p];
    r->kept[p] = 0;
    if (held == 0)
        return GRIDEMST_OK;
    gemst_dmem *mem = &r->work[p];
    const device_cells *m = &r->merged[p];
    const int bits = gemst_hash_bits((uint64_t)m->n);
    const size_t slots = (size_t)1 << bits;
    uint64_t *slot_key;
    uint32_t *slot_lo, *slot_hi;
    GEMST_DALLOC(mem, slot_key, slots, "the cells near the borders");
    GEMST_DALLOC(mem, slot_lo, slots, "the cells near the borders");
    GEMST_DALLOC(mem, slot_hi, slots, "the cells near the borders");
    GEMST_CU(cudaMemsetAsync(slot_key, 0xff, sizeof *slot_key * slots, mem->s)); /* GEMST_HASH_FREE */
    k_cells_table<<<gemst_blocks((uint64_t)m->n), GEMST_THREADS, 0, mem->s>>>(m->key, m->lo, m->hi, m->n, bits,
                                                                             slot_key, slot_lo, slot_hi);
    GEMST_LAUNCHED();
    const gemst_inner_table cells = {slot_key, slot_lo, slot_hi, bits};
    GEMST_DALLOC(mem, r->keep[p], held, "the points near the borders kept");
    GEMST_DALLOC(mem, r->rank[p], held, "the points near the borders kept");
    k_border_keep<<<gemst_blocks((uint64_t)held), GEMST_THREADS, 0, mem->s>>>(
        r->gaps[p]->by_gap, r->gaps[p]->w, r->now[p], held, r->dim, r->inner->side, cells, r->keep[p]);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, r->keep[p], r->rank[p], held, &r->kept[p], err));
    gemst_dfree(mem, slot_key);
    gemst_dfree(mem, slot_lo);
    gemst_dfree(mem, slot_hi);
    return GRIDEMST_OK;
}

/* Part p's kept points' rows, on its device. */
static int part_rows(border_round *r, int p, gridemst_error *err)
{
    const gemst_device_gaps *g = r->gaps[p];
    gemst_dmem *peer = &r->peer[p];
    const int64_t held = r->held[p], kept = r->kept[p];
    GEMST_DALLOC(peer, r->id[p], kept, "a part's points near the borders");
    GEMST_DALLOC(peer, r->comp[p], kept, "a part's points near the borders");
    GEMST_DALLOC(peer, r->w[p], r->dim * kept, "a part's points near the borders");
    if (kept > 0) {
        k_border_rows<<<gemst_blocks((uint64_t)held), GEMST_THREADS, 0, r->work[p].s>>>(
            g->by_gap, g->comp, g->w, g->id, g->runs, r->keep[p], r->rank[p], held, r->comp_base[p], r->dim, r->id[p],
            r->comp[p], r->w[p]);
        GEMST_LAUNCHED();
    }
    return GRIDEMST_OK;
}

/* Runs step(r, p, err) for every part at once, each on its device. */
template <typename F> static int each_part(border_round *r, F step, gridemst_error *err)
{
    gemst_devices *d = r->d;
    gemst_each_device_at_once(d->count, [&](int p) {
        gemst_device_scope on(d->ordinal[p]);
        r->rc[p] = on.ok ? step(r, p, &r->err[p])
                         : gemst_fail(&r->err[p], GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[p]);
    });
    for (int p = 0; p < d->count; p++)
        if (r->rc[p] != GRIDEMST_OK) {
            if (err)
                *err = r->err[p];
            return r->rc[p];
        }
    return GRIDEMST_OK;
}

/* The kept points from every part to the first part's device, one after
 * another: rows (its peer buffers). */
static int gather_kept(border_round *r, int64_t total, gemst_gid **id, uint32_t **comp, double **w,
                       gridemst_error *err)
{
    gemst_devices *d = r->d;
    const int P = d->count;
    GEMST_TRY(each_part(r, part_rows, err));
    GEMST_CU(cudaSetDevice(d->ordinal[0]));
    GEMST_DALLOC(&r->peer[0], *id, total, "the points near the borders");
    GEMST_DALLOC(&r->peer[0], *comp, total, "the points near the borders");
    GEMST_DALLOC(&r->peer[0], *w, r->dim * total, "the points near the borders");
    int64_t count[GEMST_MAX_DEVICES * GEMST_MAX_DEVICES] = {0};
    gemst_device_records kinds[3] = {{sizeof(gemst_gid), {0}, {0}}, {sizeof(uint32_t), {0}, {0}},
                                     {sizeof(double) * (size_t)r->dim, {0}, {0}}};
    for (int p = 0; p < P; p++) {
        count[(size_t)p * P] = r->kept[p];
        kinds[0].send[p] = (char *)r->id[p];
        kinds[1].send[p] = (char *)r->comp[p];
        kinds[2].send[p] = (char *)r->w[p];
    }
    kinds[0].recv[0] = (char *)*id;
    kinds[1].recv[0] = (char *)*comp;
    kinds[2].recv[0] = (char *)*w;
    return gemst_devices_transfer(d, count, 0, kinds, 3, err);
}

/* B in the order of its ids on the first part's device: ids, components
 * and working coordinates (dim a point), in its memory (mem). */
static int sorted_points(gemst_dmem *mem, const gemst_gid *row_id, const uint32_t *row_comp, const double *row_w,
                         int64_t m, int dim, uint64_t most_id, gemst_gid **id, uint32_t **comp, double **w,
                         gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    uint32_t *row, *from;
    GEMST_DALLOC(mem, *id, m, "the points near the borders by id");
    GEMST_DALLOC(mem, row, m, "the points near the borders by id");
    GEMST_DALLOC(mem, from, m, "the points near the borders by id");
    k_border_iota<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(row, m);
    GEMST_LAUNCHED();
    int bits = 1;
    while (bits < 64 && most_id >> bits)
        bits++;
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, row_id, *id, row, from, m, 0, bits, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "sorting the points near the borders", err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, row_id, *id, row, from, m, 0, bits, s));
    gemst_dfree(mem, temp);
    gemst_dfree(mem, row);
    GEMST_DALLOC(mem, *comp, m, "the points near the borders by id");
    GEMST_DALLOC(mem, *w, dim * m, "the points near the borders by id");
    k_border_order<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(from, m, dim, row_comp, row_w, *comp, *w);
    GEMST_LAUNCHED();
    gemst_dfree(mem, from);
    return GRIDEMST_OK;
}

/* The tree's edges between safe components, into host memory. */
static int between_components(gemst_dmem *mem, const gemst_parts_edge *tree, int64_t m, const gemst_gid *id,
                              const uint32_t *comp, int threads, gemst_store_edge **between, int64_t *n_between,
                              gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    uint32_t *flag, *rank;
    gemst_store_edge *out;
    GEMST_DALLOC(mem, flag, m, "the border's tree's edges between components");
    GEMST_DALLOC(mem, rank, m, "the border's tree's edges between components");
    k_border_flags<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(tree, m, comp, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, m, n_between, err));
    GEMST_DALLOC(mem, out, *n_between, "the border's tree's edges between components");
    k_border_between<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(tree, m, flag, rank, id, comp, out);
    GEMST_LAUNCHED();
    *between = (gemst_store_edge *)malloc(sizeof **between * (size_t)(*n_between > 0 ? *n_between : 1));
    if (!*between)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld edges", (long long)*n_between);
    gemst_download down;
    int rc = gemst_download_open(&down, s, threads, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, *between, out, sizeof *out * (size_t)*n_between, err);
    gemst_download_close(&down);
    return rc;
}

/* The round: B solved where it holds at most inner->most points. */
static int round_on(border_round *r, const gemst_problem *solve, int threads, gemst_border_counts *n,
                    gemst_store_edge **between, int64_t *n_between, gridemst_error *err)
{
    gemst_devices *d = r->d;
    const int P = d->count;
    GEMST_TRY(each_part(r, part_cells, err));
    int64_t total = 0;
    for (int p = 0; p < P; p++)
        total += n->cells[p] = r->cells[p].n;
    if (2 * total > (int64_t)UINT32_MAX) /* more rows than one merge takes */
        return GRIDEMST_OK;
    GEMST_TRY(merge_cells(r, total, err));
    n->merged = r->merged[0].n;
    GEMST_TRY(send_merged(r, err));
    GEMST_TRY(each_part(r, part_keep, err));
    int64_t kept = 0;
    for (int p = 0; p < P; p++)
        kept += n->kept[p] = r->kept[p];
    if (kept > r->inner->most || kept > (int64_t)UINT32_MAX)
        return GRIDEMST_OK;
    gemst_gid *row_id;
    uint32_t *row_comp;
    double *row_w;
    GEMST_TRY(gather_kept(r, kept, &row_id, &row_comp, &row_w, err));
    n->solved = 1;
    if (kept < 2)
        return GRIDEMST_OK;
    GEMST_CU(cudaSetDevice(d->ordinal[0]));
    gemst_dmem *mem = &r->work[0];
    gemst_gid *id;
    uint32_t *comp;
    double *w;
    GEMST_TRY(sorted_points(mem, row_id, row_comp, row_w, kept, r->dim, (uint64_t)(solve->n - 1), &id, &comp, &w,
                            err));
    gemst_problem lp = *solve;
    lp.coords = w;
    lp.on_device = 1;
    lp.dtype = GRIDEMST_FLOAT64;
    lp.n = kept;
    lp.raw_tree = 1;
    gemst_tree tree;
    gridemst_stats st;
    memset(&tree, 0, sizeof tree);
    memset(&st, 0, sizeof st);
    GEMST_TRY(gemst_cuda_solve(&lp, &tree, &st, err));
    GEMST_TRY(gemst_dadopt(mem, tree.part_edges, sizeof(gemst_parts_edge) * (size_t)tree.n_edges, err));
    gemst_dfree(mem, w);
    return between_components(mem, (const gemst_parts_edge *)tree.part_edges, tree.n_edges, id, comp, threads,
                              between, n_between, err);
}

extern "C" int gemst_devices_border_round(gemst_devices *d, gemst_device_gaps *const *gaps, const int64_t *held,
                                          const uint32_t *comp_base, const gemst_border_inner *inner,
                                          const gemst_problem *solve, int threads, gemst_border_counts *n,
                                          gemst_store_edge **between, int64_t *n_between, gridemst_error *err)
{
    *between = NULL;
    *n_between = 0;
    memset(n, 0, sizeof *n);
    int64_t within = 0;
    for (int p = 0; p < d->count; p++)
        within += n->kept[p] = held[p];
    if (within < 2) { /* nothing to solve, nor to leave out */
        n->solved = 1;
        return GRIDEMST_OK;
    }
    gemst_device_scope keep; /* the caller's device back on return */
    border_round *r = (border_round *)calloc(1, sizeof *r);
    if (!r)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    r->d = d;
    r->gaps = gaps;
    r->held = held;
    r->comp_base = comp_base;
    r->inner = inner;
    r->dim = solve->dim;
    for (int p = 0; p < d->count; p++) {
        gemst_dmem_init(&r->work[p], (cudaMemPool_t)d->ctx[p]->pool, gemst_devices_stream(d, p));
        gemst_dmem_init(&r->peer[p], NULL, gemst_devices_stream(d, p));
    }
    int rc = round_on(r, solve, threads, n, between, n_between, err);
    for (int p = 0; p < d->count; p++) { /* nothing queued may outlive the buffers */
        if (cudaSetDevice(d->ordinal[p]) == cudaSuccess)
            (void)cudaStreamSynchronize(gemst_devices_stream(d, p));
        gemst_dfree_all(&r->work[p]);
        gemst_dfree_all(&r->peer[p]);
    }
    (void)cudaGetLastError(); /* freeing: the status is rc's */
    free(r);
    if (rc != GRIDEMST_OK) {
        free(*between);
        *between = NULL;
        *n_between = 0;
    }
    return rc;
}
