/*
 * The crowded cells' grids (grid/subgrid.h), precision-generic, included
 * by cuda_solve.cuh: a cell holding more than the crowding threshold's
 * points gets a grid of its own over its points' box, and a cell of that
 * grid crowded enough gets one in turn, up to GEMST_NEST_DEPTH levels.
 * Level by level: the crowded cells' bitmap and list, each one's grid
 * planned, their tables and their points sorted by sub-cell; then the
 * bitmap of the nested grids.  The kernels first, then their host steps.
 */
#include <thrust/iterator/counting_iterator.h>

#include "grid/subgrid.h"

/* The crowded cells' bitmap (grid.h), a word per thread, and into count[w]
 * the word's crowded cells (count has words + 1 entries, the last 0) ... */
static __global__ void GEMST_FN(k_crowd_bits)(uint64_t cells, uint32_t words, uint32_t crowded,
                                            const uint32_t *cell_start, gemst_crowd_word *crowd, uint32_t *count)
{
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w > words)
        return;
    uint64_t bits = 0;
    for (uint64_t k = (uint64_t)w * 64; w < words && k < cells && k < (uint64_t)w * 64 + 64; k++)
        if (cell_start[k + 1] - cell_start[k] > crowded)
            bits |= (uint64_t)1 << (k % 64);
    if (w < words)
        crowd[w].bits = bits;
    count[w] = (uint32_t)__popcll(bits);
}

/* ... and after their exclusive scan, each word's rank and, where list is
 * not NULL, the crowded cells' list. */
static __global__ void GEMST_FN(k_crowd_ranks)(uint32_t words, const uint32_t *rank, gemst_crowd_word *crowd,
                                             uint32_t *list)
{
    GEMST_INDEX(w, words);
    crowd[w].rank = rank[w];
    uint32_t at = rank[w];
    for (uint64_t bits = crowd[w].bits; list && bits; bits &= bits - 1)
        list[at++] = w * 64 + (uint32_t)__ffsll((long long)bits) - 1;
}

/* The nested grids' bits (grid.h: the sub-cells at positions cell[0..m)
 * of sub_start), in a zeroed bitmap ... */
static __global__ void GEMST_FN(k_nest_bits)(uint32_t m, const uint32_t *cell, gemst_crowd_word *nest)
{
    GEMST_INDEX(j, m);
    atomicOr((unsigned long long *)&nest[cell[j] / 64].bits, 1ull << (cell[j] % 64));
}

/* ... and each word's count of them, for the ranks (k_crowd_ranks). */
static __global__ void GEMST_FN(k_word_counts)(uint32_t words, const gemst_crowd_word *crowd, uint32_t *count)
{
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w <= words)
        count[w] = w < words ? (uint32_t)__popcll(crowd[w].bits) : 0u;
}

/* One block per cell start[cell[k]] .. start[cell[k] + 1] (a crowded main
 * cell, or a crowded sub-cell): the box of its points and its grid
 * (grid/subgrid.h); where divides is not NULL, whether the grid divides
 * the cell. */
static __global__ void GEMST_FN(k_subgrid_plan)(gemst_grid g, const uint32_t *start, const uint32_t *cell,
                                              gemst_subgrid *sub, uint8_t *divides)
{
    typedef cub::BlockReduce<gemst_real, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x;
    const uint32_t b = start[cell[k]], e = start[cell[k] + 1];
    const gemst_real *axes[3] = {g.x, g.y, g.z};
    gemst_real lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < g.dim; d++) {
        gemst_real l = GEMST_REAL_INF, h = -GEMST_REAL_INF;
        for (uint32_t p = b + threadIdx.x; p < e; p += blockDim.x) {
            l = axes[d][p] < l ? axes[d][p] : l;
            h = axes[d][p] > h ? axes[d][p] : h;
        }
        lo[d] = Reduce(tmp).Reduce(l, cuda::minimum<>());
        __syncthreads();
        hi[d] = Reduce(tmp).Reduce(h, cuda::maximum<>());
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        GEMST_FN(gemst_subgrid_plan)(g.dim, lo, hi, e - b, &sub[k]);
        if (divides)
            divides[k] = (uint8_t)GEMST_FN(gemst_subgrid_divides)(&sub[k]);
    }
}

/* Grid k0 + k's table entries into size[k] and its points into count[k]. */
static __global__ void GEMST_FN(k_subgrid_sizes)(gemst_grid g, uint32_t k0, uint32_t grids, uint64_t *size,
                                               uint32_t *count)
{
    GEMST_INDEX(k, grids);
    uint32_t b, e;
    GEMST_FN(gemst_sub_range)(&g, k0 + k, &b, &e);
    size[k] = GEMST_FN(gemst_subgrid_table_size)(&g.sub[k0 + k]);
    count[k] = e - b;
}

/* Grid k0 + k's table offset, from the scanned sizes after `first`. */
static __global__ void GEMST_FN(k_subgrid_tables)(uint32_t k0, uint32_t grids, uint64_t first, const uint64_t *offset,
                                                gemst_subgrid *sub)
{
    GEMST_INDEX(k, grids);
    sub[k0 + k].table = (uint32_t)(first + offset[k]);
}

/* One block per grid k0 + k (blockIdx.x = k): its points' sort keys (k
 * above sub_bits bits of sub-cell) and their places, from base[k] on. */
static __global__ void GEMST_FN(k_sub_keys)(gemst_grid g, uint32_t k0, const uint32_t *base, int sub_bits,
                                          uint64_t *key, uint32_t *place)
{
    const uint32_t k = blockIdx.x;
    uint32_t b, e;
    GEMST_FN(gemst_sub_range)(&g, k0 + k, &b, &e);
    gemst_cells sc;
    GEMST_FN(gemst_sub_cells)(&g, k0 + k, &sc);
    for (uint32_t p = b + threadIdx.x; p < e; p += blockDim.x) {
        gemst_real pt[3] = {g.x[p], g.y[p], g.z ? g.z[p] : (gemst_real)0};
        uint32_t a = base[k] + (p - b);
        key[a] = ((uint64_t)k << sub_bits) | GEMST_FN(gemst_sub_cell_of)(&sc, pt);
        place[a] = p;
    }
}

/* Which positions of sub_start, from `first` on, hold a cell of grids k0
 * .. k0 + blocks - 1 (one block each) crowded enough to nest (grid.h):
 * flag[t - first], 0 for each table's closing entry. */
static __global__ void GEMST_FN(k_nest_flags)(uint32_t k0, const gemst_subgrid *sub, const uint32_t *sub_start,
                                            uint64_t first, uint8_t *flag)
{
    const uint32_t k = k0 + blockIdx.x, table = sub[k].table;
    const uint32_t cells = GEMST_FN(gemst_subgrid_table_size)(&sub[k]) - 1;
    for (uint32_t j = threadIdx.x; j <= cells; j += blockDim.x) {
        const uint32_t t = table + j;
        flag[t - first] = (uint8_t)(j < cells && sub_start[t + 1] - sub_start[t] > GEMST_NEST_CROWDED);
    }
}

/* The grids' tables from the sorted keys (grid k0 + key's grid part): the
 * point at place[a] starts every sub-cell after the previous point's up to
 * its own, and the last point of a grid ends the rest. */
static __global__ void GEMST_FN(k_sub_table)(uint32_t m, int sub_bits, uint32_t k0, const uint64_t *key,
                                           const uint32_t *place, const gemst_subgrid *sub, uint32_t *sub_start)
{
    GEMST_INDEX(a, m);
    const uint64_t mask = ((uint64_t)1 << sub_bits) - 1;
    const uint32_t k = (uint32_t)(key[a] >> sub_bits), j = (uint32_t)(key[a] & mask);
    uint32_t *table = sub_start + sub[k0 + k].table;
    const uint32_t first = a > 0 && (uint32_t)(key[a - 1] >> sub_bits) == k ? (uint32_t)(key[a - 1] & mask) + 1 : 0;
    for (uint32_t t = first; t <= j; t++)
        table[t] = place[a];
    if (a + 1 == m || (uint32_t)(key[a + 1] >> sub_bits) != k) {
        const uint32_t cells = GEMST_FN(gemst_subgrid_table_size)(&sub[k0 + k]) - 1;
        for (uint32_t t = j + 1; t <= cells; t++)
            table[t] = place[a] + 1;
    }
}

/* Replaces *p, of `count` entries, by a buffer of `room` entries that
 * starts with them. */
template <typename T>
static int GEMST_FN(dgrow)(cuda_ctx *c, T **p, size_t count, size_t room, const char *what, gridemst_error *err)
{
    T *q;
    GEMST_DALLOC(&c->mem, q, room, what);
    if (count)
        GEMST_CU(cudaMemcpyAsync(q, *p, count * sizeof *q, cudaMemcpyDeviceToDevice, c->s));
    gemst_dfree(&c->mem, *p);
    *p = q;
    return GRIDEMST_OK;
}

/* The crowded main cells: the bitmap, their list, and their grids planned
 * (grid/subgrid.h); g->n_top = g->n_sub of them. */
static int GEMST_FN(plan_top_crowded)(cuda_ctx *c, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t words = (uint32_t)gemst_crowd_words(c->cells);
    uint32_t *rank, n_top = 0;
    GEMST_DALLOC(&c->mem, c->crowd, words, "crowded cells");
    GEMST_DALLOC(&c->mem, rank, (size_t)words + 1, "crowded cells");
    GEMST_FN(k_crowd_bits)<<<gemst_blocks((uint64_t)words + 1), GEMST_THREADS, 0, c->s>>>(
        c->cells, words, g->crowded, g->cell_start, c->crowd, rank);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, rank, rank, words + 1, c->s));
    GEMST_CU(cudaMemcpyAsync(&n_top, rank + words, sizeof n_top, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if (n_top == 0) {
        gemst_dfree(&c->mem, rank);
        gemst_dfree(&c->mem, c->crowd);
        c->crowd = NULL;
        return GRIDEMST_OK;
    }
    GEMST_DALLOC(&c->mem, c->sub_cell, n_top, "crowded cells");
    GEMST_FN(k_crowd_ranks)<<<gemst_blocks(words), GEMST_THREADS, 0, c->s>>>(words, rank, c->crowd, c->sub_cell);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, rank);
    GEMST_DALLOC(&c->mem, c->sub, n_top, "crowded cells' grids");
    GEMST_FN(k_subgrid_plan)<<<n_top, GEMST_THREADS, 0, c->s>>>(*g, g->cell_start, c->sub_cell, c->sub, NULL);
    GEMST_LAUNCHED();
    g->n_top = g->n_sub = n_top;
    g->sub_cell = c->sub_cell;
    g->crowd = c->crowd;
    g->sub = c->sub;
    return GRIDEMST_OK;
}

/* Grids k0 .. n_sub - 1 (planned, their cells listed): their tables after
 * the *total entries of sub_start so far, and their points sorted by their
 * cells (stably: a radix sort of (grid, sub-cell) keys over their points). */
static int GEMST_FN(sort_level)(cuda_ctx *c, uint32_t k0, uint64_t *total, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t grids = g->n_sub - k0;
    uint64_t *size, added = 0;
    uint32_t *base, m = 0;
    GEMST_DALLOC(&c->mem, size, (size_t)grids + 1, "crowded cells' grids");
    GEMST_DALLOC(&c->mem, base, (size_t)grids + 1, "crowded cells' grids");
    /* the scans' last entries: their totals */
    GEMST_CU(cudaMemsetAsync(size + grids, 0, sizeof *size, c->s));
    GEMST_CU(cudaMemsetAsync(base + grids, 0, sizeof *base, c->s));
    GEMST_FN(k_subgrid_sizes)<<<gemst_blocks(grids), GEMST_THREADS, 0, c->s>>>(*g, k0, grids, size, base);
    GEMST_LAUNCHED();
    /* the largest table, for the sort keys' width */
    uint64_t *largest, largest_host = 0;
    GEMST_DALLOC(&c->mem, largest, 1, "crowded cells' grids");
    GEMST_CUB(c, cub::DeviceReduce::Max(temp, temp_bytes, size, largest, grids, c->s));
    GEMST_CU(cudaMemcpyAsync(&largest_host, largest, sizeof largest_host, cudaMemcpyDeviceToHost, c->s));
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, size, size, grids + 1, c->s));
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, base, base, grids + 1, c->s));
    GEMST_FN(k_subgrid_tables)<<<gemst_blocks(grids), GEMST_THREADS, 0, c->s>>>(k0, grids, *total, size, c->sub);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(&added, size + grids, sizeof added, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaMemcpyAsync(&m, base + grids, sizeof m, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, largest);
    gemst_dfree(&c->mem, size);
    if (*total + added > UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "crowded cells' grids of %llu cells exceed 32-bit indices",
                          (unsigned long long)(*total + added));
    GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub_start, *total, *total + added, "crowded cells' grids", err));
    g->sub_start = c->sub_start;
    *total += added;

    uint64_t *key, *key2;
    uint32_t *place, *from;
    GEMST_DALLOC(&c->mem, key, m, "crowded points");
    GEMST_DALLOC(&c->mem, key2, m, "crowded points");
    GEMST_DALLOC(&c->mem, place, m, "crowded points");
    GEMST_DALLOC(&c->mem, from, m, "crowded points");
    /* keys of sub_bits bits of sub-cell (a table's last entry is no cell) under the grid's rank in the level,
       and only their bits sorted: fewer radix passes than with the sub-cell in the low 32 bits */
    int sub_bits = 1;
    while (sub_bits < 32 && (largest_host - 2) >> sub_bits)
        sub_bits++;
    int bits = sub_bits + 1;
    while (bits < 64 && (uint64_t)(grids - 1) >> (bits - sub_bits))
        bits++;
    GEMST_FN(k_sub_keys)<<<grids, GEMST_THREADS, 0, c->s>>>(*g, k0, base, sub_bits, key, place);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, base);
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, key2, place, from, m, 0, bits, c->s));
    gemst_dfree(&c->mem, key);
    gemst_real *tmp;
    GEMST_DALLOC(&c->mem, tmp, m, "crowded points");
    gemst_real *axes[3] = {(gemst_real *)g->x, (gemst_real *)g->y, (gemst_real *)g->z};
    for (int d = 0; d < g->dim; d++) {
        GEMST_FN(k_gather)<gemst_real><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, from, axes[d], tmp);
        GEMST_LAUNCHED();
        GEMST_FN(k_scatter)<gemst_real><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, place, tmp, axes[d]);
        GEMST_LAUNCHED();
    }
    gemst_dfree(&c->mem, tmp);
    uint32_t *tmp_id;
    GEMST_DALLOC(&c->mem, tmp_id, m, "crowded points");
    GEMST_FN(k_gather)<uint32_t><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, from, g->oid, tmp_id);
    GEMST_LAUNCHED();
    GEMST_FN(k_scatter)<uint32_t><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, place, tmp_id, (uint32_t *)g->oid);
    GEMST_LAUNCHED();
    GEMST_FN(k_sub_table)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, sub_bits, k0, key2, place, c->sub,
                                                                      c->sub_start);
    GEMST_LAUNCHED();
    void *done[] = {tmp_id, key2, place, from};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        gemst_dfree(&c->mem, done[i]);
    return GRIDEMST_OK;
}

/* The cells of grids k0 .. n_sub - 1 (their tables: sub_start's positions
 * first .. end - 1) crowded enough to nest (grid.h) whose own grid divides
 * them: listed after the grids so far, with their grids planned. */
static int GEMST_FN(plan_nested)(cuda_ctx *c, uint32_t k0, uint64_t first, uint64_t end, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t span = (uint32_t)(end - first);
    uint8_t *flag;
    uint32_t *cell;
    int n_cell = 0, n_new = 0;
    GEMST_DALLOC(&c->mem, flag, span, "nested grids");
    GEMST_DALLOC(&c->mem, cell, span, "nested grids");
    GEMST_FN(k_nest_flags)<<<g->n_sub - k0, GEMST_THREADS, 0, c->s>>>(k0, c->sub, c->sub_start, first, flag);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, thrust::counting_iterator<uint32_t>((uint32_t)first),
                                            flag, cell, CNT(c, crowded), span, c->s));
    GEMST_CU(cudaMemcpyAsync(&n_cell, CNT(c, crowded), sizeof n_cell, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, flag);
    if (n_cell > 0) {
        gemst_subgrid *plan;
        uint8_t *divides;
        GEMST_DALLOC(&c->mem, plan, n_cell, "nested grids");
        GEMST_DALLOC(&c->mem, divides, n_cell, "nested grids");
        GEMST_FN(k_subgrid_plan)<<<n_cell, GEMST_THREADS, 0, c->s>>>(*g, c->sub_start, cell, plan, divides);
        GEMST_LAUNCHED();
        const size_t room = (size_t)g->n_sub + (size_t)n_cell;
        GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub_cell, g->n_sub, room, "nested grids", err));
        GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub, g->n_sub, room, "nested grids", err));
        GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, plan, divides, c->sub + g->n_sub, CNT(c, crowded),
                                                n_cell, c->s));
        GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, cell, divides, c->sub_cell + g->n_sub,
                                                CNT(c, crowded), n_cell, c->s));
        GEMST_CU(cudaMemcpyAsync(&n_new, CNT(c, crowded), sizeof n_new, cudaMemcpyDeviceToHost, c->s));
        GEMST_CU(cudaStreamSynchronize(c->s));
        gemst_dfree(&c->mem, plan);
        gemst_dfree(&c->mem, divides);
        g->n_sub += (uint32_t)n_new;
        g->sub_cell = c->sub_cell;
        g->sub = c->sub;
    }
    gemst_dfree(&c->mem, cell);
    return GRIDEMST_OK;
}

/* The bitmap of the nested grids' sub-cells over sub_start's `total`
 * positions (grid.h). */
static int GEMST_FN(nest_bitmap)(cuda_ctx *c, uint64_t total, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t nested = g->n_sub - g->n_top, words = (uint32_t)gemst_crowd_words(total);
    if (nested == 0)
        return GRIDEMST_OK;
    uint32_t *rank;
    GEMST_DALLOC(&c->mem, c->nest, words, "nested grids");
    GEMST_DALLOC(&c->mem, rank, (size_t)words + 1, "nested grids");
    GEMST_CU(cudaMemsetAsync(c->nest, 0, sizeof *c->nest * words, c->s));
    GEMST_FN(k_nest_bits)<<<gemst_blocks(nested), GEMST_THREADS, 0, c->s>>>(nested, c->sub_cell + g->n_top, c->nest);
    GEMST_LAUNCHED();
    GEMST_FN(k_word_counts)<<<gemst_blocks((uint64_t)words + 1), GEMST_THREADS, 0, c->s>>>(words, c->nest, rank);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, rank, rank, words + 1, c->s));
    GEMST_FN(k_crowd_ranks)<<<gemst_blocks(words), GEMST_THREADS, 0, c->s>>>(words, rank, c->nest, NULL);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, rank);
    g->nest = c->nest;
    return GRIDEMST_OK;
}

/* The crowded cells' grids (grid/subgrid.h) and the nested ones inside
 * them, level by level. */
static int GEMST_FN(build_subgrids)(cuda_ctx *c, gridemst_stats *stats, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    uint64_t total = 0;
    GEMST_TRY(GEMST_FN(plan_top_crowded)(c, err));
    uint32_t k0 = 0; /* the level's first grid */
    for (int level = 1; k0 < g->n_sub; level++) {
        const uint32_t k1 = g->n_sub;
        const uint64_t first = total;
        GEMST_TRY(GEMST_FN(sort_level)(c, k0, &total, err));
        if (level < GEMST_NEST_DEPTH)
            GEMST_TRY(GEMST_FN(plan_nested)(c, k0, first, total, err));
        k0 = k1;
    }
    GEMST_TRY(GEMST_FN(nest_bitmap)(c, total, err));
    stats->crowded_cells = g->n_top;
    stats->nested_cells = g->n_sub - g->n_top;
    return GRIDEMST_OK;
}
