/*
 * The CUDA backend's kernels, precision-generic (see real.h): each is a thin
 * loop over points or roots around the per-point functions the CPU backend
 * calls too (grid/grid.h, nns/search.h, graph/boruvka.h).
 */
#ifndef GEMST_CUDA_KERNELS_CUH
#define GEMST_CUDA_KERNELS_CUH

#include <cub/cub.cuh>

#include "cuda/cuda_common.cuh"
#include "grid/grid.h"
#include "grid/subgrid.h"
#include "nns/cell_fallback.h"
#include "bvh/bvh_query.h"
#include "bvh/labels.h"
#include "nns/late_bvh.h"
#include "nns/block.h"
#include "cuda/cuda_lone.cuh"

/* A list whose length is known on the device only: threads past *count
 * return.  Launches are sized by a host-side upper bound. */
#define GEMST_LIST_INDEX(a, count)                                                                                \
    uint32_t a = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (a >= (uint32_t)*(count))                                                                                  \
        return;

#define GEMST_INDEX(i, n)                                                                                         \
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (i >= (n))                                                                                                 \
        return;

/* ---------------------------------------------------------------- grid */

/* Per-block bounding box and first non-finite point of the caller's
 * coordinates; reduced across blocks by bbox_final. */
#define GEMST_BBOX_BLOCKS 1024
typedef struct {
    double lo[3], hi[3];
    long long bad; /* smallest index of a point with a NaN or infinite coordinate, or n */
} gemst_bbox;

template <typename T>
static __global__ void GEMST_FN(k_bbox)(const T *coords, int64_t n, int dim, gemst_bbox *out)
{
    typedef cub::BlockReduce<double, GEMST_THREADS> ReduceD;
    typedef cub::BlockReduce<long long, GEMST_THREADS> ReduceL;
    __shared__ union {
        typename ReduceD::TempStorage d;
        typename ReduceL::TempStorage l;
    } tmp;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    long long bad = n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        GEMST_UNROLL /* over 3 axes, not dim: lo and hi stay in registers (d_working_point) */
        for (int d = 0; d < 3; d++) {
            if (d >= dim)
                break;
            double v = (double)coords[i * dim + d];
            if (!isfinite(v)) {
                bad = i < bad ? i : bad;
                continue;
            }
            lo[d] = fmin(lo[d], v);
            hi[d] = fmax(hi[d], v);
        }
    for (int d = 0; d < 3; d++) {
        double l = ReduceD(tmp.d).Reduce(lo[d], cuda::minimum<>());
        __syncthreads();
        double h = ReduceD(tmp.d).Reduce(hi[d], cuda::maximum<>());
        __syncthreads();
        if (threadIdx.x == 0) {
            out[blockIdx.x].lo[d] = l;
            out[blockIdx.x].hi[d] = h;
        }
    }
    long long b = ReduceL(tmp.l).Reduce(bad, cuda::minimum<>());
    if (threadIdx.x == 0)
        out[blockIdx.x].bad = b;
}

/* The bounding box of n caller points on the device (k_bbox, then the
 * blocks' boxes reduced here); GRIDEMST_ERR_INPUT naming the first point
 * with a non-finite coordinate. */
template <typename T>
static int GEMST_FN(gemst_cuda_bbox)(gemst_dmem *mem, cudaStream_t s, const T *coords, int64_t n, int dim, double lo[3],
                                    double hi[3], gridemst_error *err)
{
    unsigned blocks = gemst_blocks((uint64_t)n);
    if (blocks > GEMST_BBOX_BLOCKS)
        blocks = GEMST_BBOX_BLOCKS;
    gemst_bbox *d_part, part[GEMST_BBOX_BLOCKS];
    GEMST_DALLOC(mem, d_part, blocks, "the bounding box");
    GEMST_FN(k_bbox)<T><<<blocks, GEMST_THREADS, 0, s>>>(coords, n, dim, d_part);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(part, d_part, sizeof *part * blocks, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    gemst_dfree(mem, d_part);
    long long bad = n;
    for (int d = 0; d < 3; d++) {
        lo[d] = d < dim ? INFINITY : 0.0;
        hi[d] = d < dim ? -INFINITY : 0.0;
    }
    for (unsigned b = 0; b < blocks; b++) {
        for (int d = 0; d < dim; d++) {
            lo[d] = part[b].lo[d] < lo[d] ? part[b].lo[d] : lo[d];
            hi[d] = part[b].hi[d] > hi[d] ? part[b].hi[d] : hi[d];
        }
        bad = part[b].bad < bad ? part[b].bad : bad;
    }
    if (bad < n)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "point %lld has a non-finite coordinate", bad);
    return GRIDEMST_OK;
}

/* Working coordinate of the caller's point i along axis d. */
template <typename T>
static __device__ __forceinline__ gemst_real GEMST_FN(d_working)(const T *coords, int dim, gemst_frame f, uint32_t i,
                                                               int d)
{
    return (gemst_real)gemst_frame_working(&f, (double)coords[(size_t)i * dim + d], d);
}

/* The caller's point i in working coordinates (0 for the axes past dim).
 * The loop runs over 3 axes, unrolled, rather than up to dim: with dim
 * known at run time only, p was indexed at run time and lived in local
 * memory (H100, 1e7 points: k_cell_keys 562 -> 73 us, k_morton_keys 575
 * -> 84 us). */
template <typename T>
static __device__ __forceinline__ void GEMST_FN(d_working_point)(const T *coords, int dim, gemst_frame f, uint32_t i,
                                                               gemst_real p[3])
{
    GEMST_UNROLL
    for (int d = 0; d < 3; d++)
        p[d] = d < dim ? GEMST_FN(d_working)(coords, dim, f, i, d) : (gemst_real)0;
}

/* Each point's cell (the sort key) and its index (the sort value). */
template <typename T>
static __global__ void GEMST_FN(k_cell_keys)(const T *coords, uint32_t n, gemst_frame f, gemst_grid g, uint32_t *key,
                                           uint32_t *val)
{
    GEMST_INDEX(i, n);
    gemst_real p[3];
    int32_t c[3];
    gemst_cells top;
    GEMST_FN(d_working_point)(coords, g.dim, f, i, p);
    GEMST_FN(gemst_top_cells)(&g, &top);
    GEMST_FN(gemst_cell_coords)(&top, p, c);
    key[i] = gemst_cell_index(g.nc, c[0], c[1], c[2]);
    val[i] = i;
}

/* Working coordinates in cell order, gathered by caller id. */
template <typename T>
static __global__ void GEMST_FN(k_gather_working)(const T *coords, uint32_t n, gemst_frame f, int dim, const uint32_t *oid,
                                                gemst_real *x, gemst_real *y, gemst_real *z)
{
    GEMST_INDEX(i, n);
    uint32_t o = oid[i];
    x[i] = GEMST_FN(d_working)(coords, dim, f, o, 0);
    y[i] = GEMST_FN(d_working)(coords, dim, f, o, 1);
    if (dim == 3)
        z[i] = GEMST_FN(d_working)(coords, dim, f, o, 2);
}

/* The cell table from points sorted by cell (cell_table in cuda_solve.cuh):
 * the last point of each non-empty cell writes where the next cell's points
 * begin into the entry after its cell. */
static __global__ void GEMST_FN(k_cell_ends)(const uint32_t *key, uint32_t n, uint32_t *cell_start)
{
    GEMST_INDEX(i, n);
    if (i + 1 == n || key[i + 1] != key[i])
        cell_start[key[i] + 1] = i + 1;
}

/* The BVH's sort keys: each point's Morton code (bvh/morton.h, of the same
 * working coordinates as the CPU's) and its index. */
template <typename T>
static __global__ void GEMST_FN(k_morton_keys)(const T *coords, uint32_t n, gemst_frame f, int dim, uint64_t *code,
                                             uint32_t *val)
{
    GEMST_INDEX(i, n);
    gemst_real p[3];
    GEMST_FN(d_working_point)(coords, dim, f, i, p);
    const double w[3] = {(double)p[0], (double)p[1], (double)p[2]};
    code[i] = gemst_morton_in(dim, w, f.lo, f.unit);
    val[i] = i;
}

/* 1 where a run of equal sorted codes starts after point 0; their
 * inclusive sum numbers the runs, which then serve as the duplicate
 * search's cells (exact duplicates share a code). */
static __global__ void GEMST_FN(k_code_run_starts)(const uint64_t *code, uint32_t n, uint32_t *start)
{
    GEMST_INDEX(i, n);
    start[i] = i > 0 && code[i] != code[i - 1];
}

static __device__ __forceinline__ int GEMST_FN(d_same_point)(const gemst_real *x, const gemst_real *y,
                                                            const gemst_real *z, uint32_t a, uint32_t b)
{
    return x[a] == x[b] && y[a] == y[b] && (!z || z[a] == z[b]);
}

/* Cells with more points than this are deduplicated by sorting. */
#define GEMST_SMALL_CELL 32

/* rep[i] = the first point of i's cell equal to i (points of a cell are in
 * caller-id order, so it has the smallest id); points of crowded cells are
 * flagged for the sorting path instead. */
static __global__ void GEMST_FN(k_dup_small)(const uint32_t *key, const uint32_t *cell_start, uint32_t n,
                                           const gemst_real *x, const gemst_real *y, const gemst_real *z,
                                           uint32_t *rep, uint8_t *crowded)
{
    GEMST_INDEX(i, n);
    uint32_t s = cell_start[key[i]], e = cell_start[key[i] + 1];
    crowded[i] = e - s > GEMST_SMALL_CELL;
    if (crowded[i])
        return;
    uint32_t j = s;
    while (!GEMST_FN(d_same_point)(x, y, z, j, i))
        j++;
    rep[i] = j;
}

static __device__ __forceinline__ uint32_t GEMST_FN(d_coord_hash)(gemst_real x, gemst_real y, gemst_real z)
{
    gemst_real v[3] = {x, y, z};
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int d = 0; d < 3; d++) {
        uint64_t bits = 0;
        memcpy(&bits, &v[d], sizeof v[d]);
        h ^= bits + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Sort keys of crowded points: (cell, coordinate hash); the sort is stable,
 * so equal points stay in caller-id order. */
static __global__ void GEMST_FN(k_crowded_keys)(const uint32_t *pos, const int *count, const uint32_t *key,
                                              const gemst_real *x, const gemst_real *y, const gemst_real *z,
                                              uint64_t *key64)
{
    GEMST_LIST_INDEX(a, count);
    uint32_t i = pos[a];
    key64[a] = ((uint64_t)key[i] << 32) | GEMST_FN(d_coord_hash)(x[i], y[i], z ? z[i] : (gemst_real)0);
}

/* Representatives of crowded points: the first equal point of their run of
 * equal (cell, hash) keys. */
static __global__ void GEMST_FN(k_dup_crowded)(const uint32_t *pos, const uint64_t *key64, const int *count,
                                             const gemst_real *x, const gemst_real *y, const gemst_real *z,
                                             uint32_t *rep)
{
    GEMST_LIST_INDEX(a, count);
    uint32_t run = a;
    while (run > 0 && key64[run - 1] == key64[a])
        run--;
    while (!GEMST_FN(d_same_point)(x, y, z, pos[run], pos[a]))
        run++;
    rep[pos[a]] = pos[run];
}

#if GEMST_REAL_IS_DOUBLE
/* Double precision: each duplicate whose caller point differs from its
 * representative's (a coordinate underflowed when scaled) offers its pair
 * key to *first (grid_plan.h). */
template <typename T>
static __global__ void GEMST_FN(k_merged_distinct)(const T *coords, int dim, uint32_t n, const uint32_t *oid,
                                                 const uint32_t *rep, unsigned long long *first)
{
    GEMST_INDEX(i, n);
    if (rep[i] == i)
        return;
    const uint32_t a = oid[i], b = oid[rep[i]];
    for (int d = 0; d < dim; d++)
        if (coords[(size_t)a * dim + d] != coords[(size_t)b * dim + d]) {
            atomicMin(first, (unsigned long long)gemst_pair_key(a, b));
            return;
        }
}
#endif

/* Each of the m tree edges between unique points whose squared length is
 * below GEMST_D2_TINY offers its pair key to *first (grid_plan.h). */
static __global__ void GEMST_FN(k_tiny_edges)(uint32_t m, const uint32_t *lo, const uint32_t *hi, const gemst_real *d2,
                                            unsigned long long *first)
{
    GEMST_INDEX(e, m);
    if (d2[e] < GEMST_D2_TINY)
        atomicMin(first, (unsigned long long)gemst_pair_key(lo[e], hi[e]));
}

static __global__ void GEMST_FN(k_iota)(uint32_t n, uint32_t *out)
{
    GEMST_INDEX(i, n);
    out[i] = i;
}

static __global__ void GEMST_FN(k_unique_flags)(const uint32_t *rep, uint32_t n, uint32_t *flag)
{
    GEMST_INDEX(i, n);
    flag[i] = rep[i] == i;
}

/* Unique points to their compacted places; the others to duplicate edges.
 * rank[i] = unique points before i. */
static __global__ void GEMST_FN(k_compact_unique)(uint32_t n, const uint32_t *rep, const uint32_t *rank,
                                                const uint32_t *key, const uint32_t *oid, const gemst_real *x,
                                                const gemst_real *y, const gemst_real *z, uint32_t *ukey,
                                                uint32_t *uoid, gemst_real *ux, gemst_real *uy, gemst_real *uz,
                                                uint32_t *dup_lo, uint32_t *dup_hi)
{
    GEMST_INDEX(i, n);
    if (rep[i] == i) {
        uint32_t u = rank[i];
        ukey[u] = key[i];
        uoid[u] = oid[i];
        ux[u] = x[i];
        uy[u] = y[i];
        if (z)
            uz[u] = z[i];
    } else {
        uint32_t d = i - rank[i];
        dup_lo[d] = oid[rep[i]];
        dup_hi[d] = oid[i];
    }
}

/* The unique points' codes, as k_compact_unique places the points. */
static __global__ void GEMST_FN(k_compact_codes)(uint32_t n, const uint32_t *rep, const uint32_t *rank,
                                               const uint64_t *code, uint64_t *ucode)
{
    GEMST_INDEX(i, n);
    if (rep[i] == i)
        ucode[rank[i]] = code[i];
}

/* ---------------------------------------------------------------- grid fill */

/* One thread per cell of twice the side (grid_plan.h's gemst_grid_fill):
 * sums[0] += its occupied cells, sums[1] += their squared counts, sums[2]
 * += its own squared count. */
static __global__ void GEMST_FN(k_grid_fill)(const uint32_t *cell_start, gemst_grid g, unsigned long long *sums)
{
    typedef cub::BlockReduce<unsigned long long, GEMST_THREADS> Sum;
    __shared__ typename Sum::TempStorage tmp;
    const int32_t half[3] = {(g.nc[0] + 1) / 2, (g.nc[1] + 1) / 2, g.dim == 3 ? (g.nc[2] + 1) / 2 : 1};
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long mine[3] = {0, 0, 0};
    if (i < (uint64_t)half[0] * half[1] * half[2]) {
        const int32_t c[3] = {(int32_t)(i % half[0]), (int32_t)(i / half[0] % half[1]),
                              (int32_t)(i / half[0] / half[1])};
        unsigned long long total = 0;
        for (int dz = 0; dz < (g.dim == 3 ? 2 : 1); dz++)
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    const int32_t x = 2 * c[0] + dx, y = 2 * c[1] + dy, z = g.dim == 3 ? 2 * c[2] + dz : 0;
                    if (x >= g.nc[0] || y >= g.nc[1] || z >= g.nc[2])
                        continue;
                    const uint32_t k = gemst_cell_index(g.nc, x, y, z);
                    const unsigned long long count = cell_start[k + 1] - cell_start[k];
                    mine[0] += count > 0;
                    mine[1] += count * count;
                    total += count;
                }
        mine[2] = total * total;
    }
    for (int s = 0; s < 3; s++) {
        const unsigned long long block = Sum(tmp).Sum(mine[s]);
        __syncthreads();
        if (threadIdx.x == 0 && block)
            atomicAdd(&sums[s], block);
    }
}

/* ---------------------------------------------------------------- crowded cells */

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

/* tmp[a] = v[from[a]]: the values in sorted order ... */
template <typename T>
static __global__ void GEMST_FN(k_gather)(uint32_t m, const uint32_t *from, const T *v, T *tmp)
{
    GEMST_INDEX(a, m);
    tmp[a] = v[from[a]];
}

/* ... and back into the crowded cells' places: v[to[a]] = tmp[a]. */
template <typename T>
static __global__ void GEMST_FN(k_scatter)(uint32_t m, const uint32_t *to, const T *tmp, T *v)
{
    GEMST_INDEX(a, m);
    v[to[a]] = tmp[a];
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

/* ---------------------------------------------------------------- BVH */

/* The build (bvh/bvh_build.h): the tree's shape per internal node, then the
 * boxes bottom-up from every leaf (node labels zeroed before), the latter in
 * one instance per dimension (DIM), where the boxes' loops unroll. */
static __global__ void GEMST_FN(k_bvh_build_node)(const uint64_t *code, gemst_bvh b)
{
    GEMST_INDEX(i, b.n - 1);
    GEMST_FN(gemst_bvh_build_node)(code, b.n, i, b.node, b.parent);
}

template <int DIM>
static __global__ void GEMST_FN(k_bvh_fit)(gemst_bvh b, gemst_grid pts)
{
    GEMST_INDEX(j, b.n);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_fit_from_leaf)(&b, &pts, j);
}

/* Per iteration (bvh/labels.h): every root's bound reset ... */
static __global__ void GEMST_FN(k_bvh_reset_bounds)(const uint32_t *roots, const int *n_roots, gemst_word1 *ub)
{
    GEMST_LIST_INDEX(k, n_roots);
    ub[roots[k]] = gemst_edge_word1(GEMST_REAL_INF);
}

/* ... the breaks between Morton neighbours and their bounds (brk[n - 1] = 0,
 * so that the exclusive scan over n entries ends with the total) ... */
static __global__ void GEMST_FN(k_bvh_pair_bounds)(gemst_grid pts, const uint32_t *comp, gemst_word1 *ub, uint32_t *brk)
{
    GEMST_INDEX(j, pts.n);
    brk[j] = j + 1 < pts.n ? GEMST_FN(gemst_bvh_pair_bound)(&pts, comp, j, ub) : 0u;
}

/* ... and after the scan, the internal nodes' labels. */
static __global__ void GEMST_FN(k_bvh_labels)(gemst_bvh b, const uint32_t *comp, const uint32_t *brk)
{
    GEMST_INDEX(i, b.n - 1);
    b.node[i].label = GEMST_FN(gemst_bvh_node_label)(&b, comp, brk, i);
}

/* FindMin1 on the BVH (bvh/bvh_query.h) in two steps.  First every point
 * that searches nothing settles, and those that search are listed, each
 * block's in their (Morton) order: a block-wide scan and one atomic per
 * block.  In the late iterations few points search, scattered one or two to
 * a warp (blobs 3D 1e7: 3% of the points, in 27% of the warps, when the
 * late BVH takes over), and a warp lasts as long as its longest search ... */
static __global__ void GEMST_FN(k_bvh_triage)(gemst_bvh b, gemst_grid pts, const uint32_t *comp, gemst_word1 *ub,
                                            gemst_real *best_d2, uint32_t *best_to, uint32_t *list, int *n_list)
{
    typedef cub::BlockScan<int, GEMST_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    __shared__ int base;
    const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    int searches = 0;
    if (q < b.points) {
        searches = GEMST_FN(gemst_bvh_searches)(comp, ub, best_d2, best_to, q);
        if (!searches) /* ub only falls: this call does not search either */
            GEMST_FN(gemst_bvh_findmin1_point)(&b, &pts, comp, ub, best_d2, best_to, q);
    }
    int at, total;
    Scan(tmp).ExclusiveSum(searches, at, total);
    if (threadIdx.x == 0 && total)
        base = atomicAdd(n_list, total);
    __syncthreads();
    if (searches)
        list[base + at] = q;
}

/* ... then the listed points search, side by side; one instance per
 * dimension (DIM), where the box distances unroll. */
template <int DIM>
static __global__ void GEMST_FN(k_bvh_findmin1)(gemst_bvh b, gemst_grid pts, const uint32_t *comp, gemst_word1 *ub,
                                              gemst_real *best_d2, uint32_t *best_to, const uint32_t *list,
                                              const int *n_list)
{
    GEMST_LIST_INDEX(a, n_list);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_findmin1_point)(&b, &pts, comp, ub, best_d2, best_to, list[a]);
}

/* The late BVH (nns/late_bvh.h): each grid point's lower bound from the
 * static search ... */
static __global__ void GEMST_FN(k_late_bounds)(gemst_grid g, gemst_findmin1_state st)
{
    GEMST_INDEX(q, g.n);
    st.best_d2[q] = GEMST_FN(gemst_late_bvh_bound)(&g, &st, q);
}

/* ... the grid points' Morton codes and their places, for the sort ... */
static __global__ void GEMST_FN(k_late_codes)(gemst_grid g, uint64_t *code, uint32_t *order)
{
    GEMST_INDEX(k, g.n);
    code[k] = GEMST_FN(gemst_late_bvh_code)(&g, k);
    order[k] = k;
}

/* ... each leaf's code, its first point's ... */
static __global__ void GEMST_FN(k_late_leaf_codes)(uint32_t leaves, uint32_t leaf, const uint64_t *code,
                                                 uint64_t *leaf_code)
{
    GEMST_INDEX(j, leaves);
    leaf_code[j] = code[(size_t)j * leaf];
}

/* ... the order's inverse, for the move into it: inv[order[k]] = k ... */
static __global__ void GEMST_FN(k_late_inverse)(uint32_t n, const uint32_t *order, uint32_t *inv)
{
    GEMST_INDEX(k, n);
    inv[order[k]] = k;
}

/* ... the labels (points) moved and renamed ... */
static __global__ void GEMST_FN(k_late_relabel)(uint32_t n, const uint32_t *order, const uint32_t *inv,
                                              const uint32_t *label, uint32_t *moved)
{
    GEMST_INDEX(k, n);
    moved[k] = gemst_late_bvh_relabel(order, inv, label, k);
}

/* ... the root list renamed in place ... */
static __global__ void GEMST_FN(k_late_renumber)(uint32_t *list, const int *m, const uint32_t *inv)
{
    GEMST_LIST_INDEX(a, m);
    list[a] = inv[list[a]];
}

/* ... and after the build, every point listed active, with no edge. */
static __global__ void GEMST_FN(k_late_reset)(uint32_t n, uint32_t *active, uint32_t *best_to)
{
    GEMST_INDEX(i, n);
    active[i] = i;
    best_to[i] = GEMST_NONE;
}

/* ---------------------------------------------------------------- Boruvka */

static __global__ void GEMST_FN(k_init)(uint32_t n, uint32_t *comp, uint32_t *link, uint32_t *active, uint32_t *roots,
                                      uint32_t *best_to, gemst_real *rb2, uint64_t *open, uint64_t all_slabs)
{
    GEMST_INDEX(i, n);
    comp[i] = link[i] = active[i] = roots[i] = i;
    best_to[i] = GEMST_NONE;
    if (rb2)
        rb2[i] = GEMST_REAL_INF;
    if (open)
        open[i] = all_slabs;
}

/* The grid searches come in three instances (CROWDED, gemst_crowded_instance):
 * with the crowded cells' path of nns/walk.h and its nested grids (2), with
 * the crowded cells' path alone (1), and without it for grids that have no
 * crowded cell (0).  There n_sub becomes the constant 0, or nest NULL, and
 * the compiler drops the path, which even unused slows the searches: the
 * crowded path by 13% (H200, normal 3D 1e7 points); the nested one keeps
 * the state of the grids around the innermost (ptxas, 3D static search:
 * 168 bytes of spill stores and a 296-byte stack frame, against 40 and 32
 * without it). */
#define GEMST_CROWDED_PATH(g, CROWDED)                                                                            \
    ((g).n_sub = (CROWDED) ? (g).n_sub : 0u, (g).nest = (CROWDED) == 2 ? (g).nest : NULL)

/* The two widest searches, the static one and the fallback, also come in
 * one instance per dimension (DIM), where every test of g.dim folds away,
 * and are compiled for more resident blocks of GEMST_THREADS per SM than
 * their registers allowed (the crowded fallback used 104, 2 blocks): H200,
 * 1e7 points, device time of uniform 3D 24.1 -> 23.1 ms, normal 3D 51.0 ->
 * 48.9, blobs 3D 114 -> 99, varden 3D 180 -> 159.  The fallback without the
 * crowded path keeps 3 blocks (72 registers): with 4, normal 3D's
 * iterations were 1.4 ms slower. */
#define GEMST_GRID_INSTANCE(g, DIM, CROWDED) (GEMST_CROWDED_PATH(g, CROWDED), (g).dim = (DIM))
#define GEMST_WIDE_SEARCH_BLOCKS(CROWDED) ((CROWDED) ? 4 : 3)

/* Static pruning's search, first pass (nns/block.h): each point's K
 * nearest from the block of its cell in its grid, the main one or its
 * crowded cell's; hard[i] = 1 for the points this cannot settle, which
 * k_static_prepare searches in full. */
template <int DIM>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_block)(gemst_grid g, uint32_t *cand, uint8_t *ncand, gemst_real *rb2, uint8_t *hard)
{
    GEMST_INDEX(i, g.n);
    g.dim = DIM;
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    const int K = gemst_knn_k(DIM);
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int count = GEMST_FN(gemst_block_search)(&g, &qq, K, GEMST_BLOCK_MAX_POINTS, kd2, kid);
    hard[i] = count < 0;
    if (count >= 0)
        ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                             cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* Static pruning's search in full, for the points of a list; a point still
 * searching after GEMST_LONE_RINGS rings goes to the lone list instead
 * (cuda_lone.cuh). */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_prepare)(gemst_grid g, const uint32_t *list, const int *n_list, uint32_t *cand,
                               uint8_t *ncand, gemst_real *rb2, uint32_t *lone, int *n_lone)
{
    GEMST_LIST_INDEX(a, n_list);
    const uint32_t i = list[a];
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int K = gemst_knn_k(DIM);
    int count = GEMST_FN(gemst_knn)(&g, &qq, K, GEMST_LONE_RINGS, kd2, kid);
    if (count < 0) {
        lone[atomicAdd(n_lone, 1)] = i;
        return;
    }
    ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                         cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* Static pruning's search for the points k_static_prepare listed as lone
 * (n_list of them), one warp each (cuda_lone.cuh): where the point's
 * neighbours start and a bound on the K-th (lone_start), its K nearest from
 * there (lone_knn), then its candidates, as k_static_prepare would have
 * written them. */
template <int DIM>
static __global__ void GEMST_FN(k_static_lone)(gemst_grid g, const uint32_t *list, const int *n_list, uint32_t *cand,
                                             uint8_t *ncand, gemst_real *rb2)
{
    g.dim = DIM;
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(&g, &top);
    const int K = gemst_knn_k(DIM);
    const uint32_t warps = gridDim.x * (blockDim.x / GEMST_WARP);
    for (uint32_t a = (blockIdx.x * blockDim.x + threadIdx.x) / GEMST_WARP; a < (uint32_t)*n_list; a += warps) {
        const uint32_t i = list[a];
        gemst_query qq;
        gemst_real bound2;
        gemst_real kd2[GEMST_KNN];
        uint32_t kid[GEMST_KNN];
        GEMST_FN(gemst_query_make)(&g, i, &qq);
        const int r0 = GEMST_FN(lone_start)<DIM>(&g, &top, &qq, K, &bound2);
        const int count = GEMST_FN(lone_knn)<DIM>(&g, &top, &qq, K, r0, bound2, kd2, kid);
        if (threadIdx.x % GEMST_WARP == 0)
            ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                                 cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
    }
}

/* One instance per strategy (PRUNE), so that each compiles to the
 * registers its own search needs. */
template <int PRUNE, int CROWDED>
static __global__ void GEMST_FN(k_findmin1)(gemst_grid g, gemst_findmin1_state st, const uint32_t *active,
                                          const int *n_active)
{
    GEMST_LIST_INDEX(a, n_active);
    GEMST_CROWDED_PATH(g, CROWDED);
    st.prune = PRUNE;
    GEMST_FN(gemst_findmin1_point)(&g, &st, active[a]);
}

/* FindMin2: see findmin2 in cuda_solve.cuh. */
static __global__ void GEMST_FN(k_reset_roots)(const uint32_t *roots, const int *n_roots, gemst_word1 *w1, uint64_t *w2,
                                             uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, roots[k]);
    if (head)
        head[roots[k]] = GEMST_NONE;
}

/* The refinement's reset: the roots of the listed points (several threads
 * may write the same root's reset values). */
static __global__ void GEMST_FN(k_reset_roots_of)(const uint32_t *pts, const int *m, const uint32_t *comp, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, r);
    if (head)
        head[r] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_list_push)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                           const uint32_t *best_to, int all_roots, uint32_t *head, uint32_t *next)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t q = pts[a];
    if (best_to[q] != GEMST_NONE && (!all_roots || comp[q] != q))
        gemst_list_push(head, next, comp[q], q);
}

static __global__ void GEMST_FN(k_list_min_roots)(const uint32_t *roots, const int *n_roots, const uint32_t *head,
                                                const uint32_t *next, const uint32_t *oid, const gemst_real *best_d2,
                                                const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                                uint32_t *win_out)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_list_min)(roots[k], head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

static __global__ void GEMST_FN(k_list_min_heads)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                                const uint32_t *head, const uint32_t *next, const uint32_t *oid,
                                                const gemst_real *best_d2, const uint32_t *best_to, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *win_out)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    if (head[r] == pts[a])
        GEMST_FN(gemst_list_min)(r, head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

/* One pass of the atomic FindMin2 (graph/boruvka.h) over the listed points;
 * passes 1 and 2 flag in shortest[a] the points the next pass must look at
 * (the others then cost it one byte read instead of their edge and
 * components). */
static __global__ void GEMST_FN(k_atomic_pass)(int pass, int both, const uint32_t *pts, const int *m,
                                             const uint32_t *comp, const uint32_t *oid, const gemst_real *best_d2,
                                             const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                             uint32_t *win_out, uint8_t *shortest)
{
    GEMST_LIST_INDEX(a, m);
    if (pass > 1 && !shortest[a])
        return;
    uint32_t q = pts[a];
    if (best_to[q] == GEMST_NONE) {
        if (pass == 1)
            shortest[a] = 0;
        return;
    }
    if (pass == 1)
        shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass1)(q, comp, best_d2, best_to, both, w1);
    else if (pass == 2)
        shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass2)(q, comp, oid, best_d2, best_to, both, w1, w2);
    else
        GEMST_FN(gemst_atomic_pass3)(q, comp, oid, best_d2, best_to, both, w1, w2, win_in, win_out);
}

/* Component breaks before their scan (nns/walk.h), into link. */
static __global__ void GEMST_FN(k_break_flags)(uint32_t n, const uint32_t *comp, uint32_t *link)
{
    GEMST_INDEX(i, n);
    link[i] = gemst_break_at(comp, i);
}

static __global__ void GEMST_FN(k_restore_links)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    link[roots[k]] = roots[k];
}

/* The fallback: which listed points need it ... */
static __global__ void GEMST_FN(k_fallback_flags)(gemst_findmin1_state st, const uint32_t *pts, const int *m,
                                                const gemst_word1 *w1, const uint64_t *w2, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    keep[a] = (uint8_t)GEMST_FN(gemst_fallback_needed)(&st, w1, w2, pts[a]);
}

/* ... each listed point's task (nns/cell_fallback.h) into task[a] ... */
static __global__ void GEMST_FN(k_fallback_tasks)(gemst_grid g, gemst_findmin1_state st, const uint32_t *pts,
                                                const int *m, const gemst_word1 *w1, const uint64_t *w2,
                                                uint8_t *task)
{
    GEMST_LIST_INDEX(a, m);
    task[a] = (uint8_t)GEMST_FN(gemst_fallback_task)(&g, &st, w1, w2, pts, a);
}

/* ... and the searches: pts[a] becomes the point whose edge improved, with
 * keep[a] set (keep is task, read first). */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, GEMST_WIDE_SEARCH_BLOCKS(CROWDED))
    GEMST_FN(k_fallback)(gemst_grid g, gemst_findmin1_state st, uint32_t *pts, const int *m, gemst_word1 *w1,
                         const uint32_t *win_in, const uint32_t *win_out, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    uint32_t improved = GEMST_FN(gemst_fallback_run)(&g, &st, w1, win_in, win_out, pts, a, keep[a]);
    keep[a] = improved != GEMST_NONE;
    if (improved != GEMST_NONE)
        pts[a] = improved;
}

/* Each root hooks along its component's minimum edge and stores it; the
 * longest of the edges stored into *longest, zeroed before.  An edge past
 * edge_cap is counted but not stored: only inconsistent minima could
 * produce it, and the host reports the count. */
static __global__ void GEMST_FN(k_connect)(const uint32_t *roots, const int *n_roots, const uint32_t *win_in,
                                         const uint32_t *win_out, const gemst_word1 *w1, const uint32_t *comp,
                                         const uint32_t *oid, uint32_t *link, uint32_t *edge_count, uint32_t edge_cap,
                                         uint32_t *edge_lo, uint32_t *edge_hi, gemst_real *edge_d2,
                                         gemst_word1 *longest)
{
    typedef cub::BlockReduce<gemst_word1, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    gemst_word1 w = 0;
    gemst_edge_key e;
    if (k < (uint32_t)*n_roots && GEMST_FN(gemst_hook)(roots[k], win_in, win_out, w1, comp, oid, link, &e)) {
        const uint32_t at = atomicAdd(edge_count, 1u);
        if (at < edge_cap) {
            GEMST_FN(gemst_store_edge)(e, at, edge_lo, edge_hi, edge_d2);
            w = gemst_edge_word1(e.d2);
        }
    }
    /* The longest edge, as a word1 (graph/edge_order.h: it orders lengths as unsigned integers), with one atomic
       per block: one per edge, on one word, made each iteration's merge 0.06 ms slower at 1e7 points (H100). */
    w = Reduce(tmp).Reduce(w, cuda::maximum<>());
    if (threadIdx.x == 0 && w > 0) {
        if (sizeof w == 8)
            atomicMax((unsigned long long *)longest, (unsigned long long)w);
        else
            atomicMax((unsigned int *)longest, (unsigned int)w);
    }
}

static __global__ void GEMST_FN(k_flatten_roots)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    gemst_flatten_root(link, roots[k]);
}

static __global__ void GEMST_FN(k_relabel)(uint32_t n, const uint32_t *link, uint32_t *comp)
{
    GEMST_INDEX(i, n);
    uint32_t r = link[comp[i]];
    if (r != comp[i])
        comp[i] = r;
}

/* Flags for the next iteration's lists; the points dropped from the active
 * list and those the fallback improved forget their edge. */
static __global__ void GEMST_FN(k_root_flags)(const uint32_t *roots, const int *n_roots, const uint32_t *link,
                                            uint8_t *keep)
{
    GEMST_LIST_INDEX(k, n_roots);
    keep[k] = link[roots[k]] == roots[k];
}

static __global__ void GEMST_FN(k_active_flags)(const uint32_t *active, const int *n_active, int prune,
                                              const uint8_t *ncand, const uint64_t *open, uint32_t *best_to,
                                              uint8_t *keep)
{
    GEMST_LIST_INDEX(a, n_active);
    uint32_t q = active[a];
    int alive = prune == GRIDEMST_PRUNE_STATIC ? ncand[q] > 0 : prune == GRIDEMST_PRUNE_DYNAMIC ? open[q] != 0 : 1;
    keep[a] = (uint8_t)alive;
    if (!alive)
        best_to[q] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_forget_extra)(const uint32_t *extra, const int *n_extra, uint32_t *best_to)
{
    GEMST_LIST_INDEX(a, n_extra);
    best_to[extra[a]] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_uncertain_flags)(uint32_t n, const gemst_real *rb2, uint8_t *keep)
{
    GEMST_INDEX(i, n);
    keep[i] = rb2[i] < GEMST_REAL_INF;
}

/* ---------------------------------------------------------------- edges */

/* The duplicates' edges after the unique points' tree: of length 0, or
 * dup_d2's (the mutual-reachability tree, cuda_core.cuh). */
static __global__ void GEMST_FN(k_append_dups)(uint32_t n_dup, const uint32_t *dup_lo, const uint32_t *dup_hi,
                                             const gemst_real *dup_d2, uint32_t offset, uint32_t *edge_lo,
                                             uint32_t *edge_hi, gemst_real *edge_d2)
{
    GEMST_INDEX(k, n_dup);
    edge_lo[offset + k] = dup_lo[k];
    edge_hi[offset + k] = dup_hi[k];
    edge_d2[offset + k] = dup_d2 ? dup_d2[k] : 0;
}

#endif
