/*
 * The grid build's kernels (precision-generic; the friends-of-friends build
 * uses them too): the caller points' working coordinates (in the frame of
 * their bounding box, cuda_bbox.cuh), their cell and Morton sort keys, the
 * cell table, exact duplicates found and compacted, and the checks of
 * distances too small for the precision (grid_plan.h).  Their host steps
 * are in cuda_grid_build.cuh.
 */
#ifndef GEMST_CUDA_GRID_KERNELS_CUH
#define GEMST_CUDA_GRID_KERNELS_CUH

#include "cuda/cuda_bbox.cuh"
#include "cuda/cuda_kernels.cuh"
#include "grid/grid.h"
#include "bvh/morton.h"

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

/* The cell table from points sorted by cell (cell_table in cuda_grid_build.cuh):
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

#endif
