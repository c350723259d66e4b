/*
 * Static pruning's search for lone points (precision-generic, included by
 * cuda_search.cuh).
 *
 * A point far from every other (an outlier, the noise between clusters)
 * walks ring after ring of empty cells before it meets its K nearest, and
 * ring r of a 3D grid costs about 8 r^2 row and cell lookups.  On one
 * thread that walk held up the whole search kernel, which lasts as long as
 * its slowest thread: varden 3D 1e6 points, seed 2, static search 57 ms
 * (seed 1: 14; with the warps 4.8 and 3.1).  So the per-thread walk
 * (k_static_prepare) stops after GEMST_LONE_RINGS rings and lists the
 * point, and a warp searches it here.  Its lanes take each ring's rows
 * between them.  First they count their points, up to the first ring that
 * holds one and the first K points met, whose greatest distance bounds the
 * K-th nearest (lone_start).  Then they scan the rows that may hold a point
 * within each lane's K-th distance, every non-empty range by all the
 * lanes, and merge their lists at the end of each ring (lone_knn).  A
 * crowded cell is read whole, not through its own grid.
 *
 * The result is gemst_knn's: the K nearest points in edge order are unique,
 * the rings skipped hold no point, the bounds only prune what lies beyond
 * K points already known, and the search stops on the same test
 * (gemst_knn_ring_done).  The kernel, k_static_lone, is with the other
 * search kernels in cuda_search.cuh.
 */
#ifndef GEMST_CUDA_LONE_CUH
#define GEMST_CUDA_LONE_CUH

#include "nns/search.h"

/* Rings a thread walks before its point goes to a warp.  Fewer spare the
 * lone points more and cost dense sets more.  H200, device ms with 3 / 6 /
 * 12 rings (without the warps): varden 3D 1e6 seed 2 12.1 / 13.0 / 19.8
 * (65.4); varden 3D 1e7 seeds 1-3 47.3 / 48.4 / 46.0 (45.7), 56.1 / 58.6 /
 * 64.7 (64.4), 47.2 / 48.0 / 50.1 (50.1); blobs 2D 1e7 27.6 / 26.6 / 26.8
 * (26.5); blobs 3D 1e7 58.1 / 57.7 / 57.7 (56.9). */
#define GEMST_LONE_RINGS 6

/* Blocks of the lone search's launch: its warps loop over the list, whose
 * length only the device knows. */
#define GEMST_LONE_BLOCKS 1024

#define GEMST_WARP 32
#define GEMST_WARP_ALL 0xffffffffu

/* The cells of row (y, z) of the main grid in ring r around cell c, as up
 * to two spans of x: the row's cells c[0] - r .. c[0] + r when the row lies
 * at Chebyshev distance r from c, else its two end cells, clipped to the
 * grid; an absent span has xa > xb. */
template <int DIM>
static __device__ void GEMST_FN(lone_ring_row)(const gemst_grid *g, const int32_t c[3], int r, int32_t y, int32_t z,
                                             int32_t xa[2], int32_t xb[2])
{
    const int32_t dy = y > c[1] ? y - c[1] : c[1] - y, dz = z > c[2] ? z - c[2] : c[2] - z;
    const int32_t lo = c[0] - r, hi = c[0] + r;
    if (dy == r || (DIM == 3 && dz == r)) {
        xa[0] = lo > 0 ? lo : 0;
        xb[0] = hi < g->nc[0] ? hi : g->nc[0] - 1;
        xa[1] = 1;
        xb[1] = 0;
        return;
    }
    xa[0] = xb[0] = lo; /* absent when off the grid */
    if (lo < 0)
        xa[0] = 1, xb[0] = 0;
    xa[1] = xb[1] = hi;
    if (hi >= g->nc[0])
        xa[1] = 1, xb[1] = 0;
}

/* The points of cells xa..xb of row (y, z), in [*b, *e) (empty when the
 * span is), and a lower bound on their squared distance from the query. */
static __device__ gemst_real GEMST_FN(lone_span)(const gemst_grid *g, const gemst_cells *top, const gemst_query *qq,
                                               int32_t xa, int32_t xb, int32_t y, int32_t z, uint32_t *b,
                                               uint32_t *e)
{
    *b = *e = 0;
    if (xa > xb)
        return GEMST_REAL_INF;
    *b = g->cell_start[gemst_cell_index(g->nc, xa, y, z)];
    *e = g->cell_start[gemst_cell_index(g->nc, xb, y, z) + 1];
    const gemst_real lo = GEMST_FN(gemst_cell_lo)(top, 0, xa), hi = GEMST_FN(gemst_cell_lo)(top, 0, xb + 1);
    const gemst_real gx = qq->q[0] < lo ? GEMST_SUB(lo, qq->q[0]) : qq->q[0] > hi ? GEMST_SUB(qq->q[0], hi) : 0;
    const gemst_real gy = GEMST_FN(gemst_axis_gap)(top, 1, qq->q[1], qq->q[1], y);
    const gemst_real gz = g->dim == 3 ? GEMST_FN(gemst_axis_gap)(top, 2, qq->q[2], qq->q[2], z) : (gemst_real)0;
    const gemst_real s = GEMST_ADD(GEMST_ADD(GEMST_MUL(gx, gx), GEMST_MUL(gy, gy)), GEMST_MUL(gz, gz));
    return GEMST_MUL(s, GEMST_LB_SHRINK);
}

/* The ring's rows inside the grid, numbered y fastest: *ylo, *zlo, and the
 * count of y values in *ny; returns the count of rows. */
template <int DIM>
static __device__ uint32_t GEMST_FN(lone_ring_rows)(const gemst_grid *g, const int32_t c[3], int r, int32_t *ylo,
                                                  int32_t *zlo, uint32_t *ny)
{
    *ylo = c[1] - r > 0 ? c[1] - r : 0;
    const int32_t yhi = c[1] + r < g->nc[1] ? c[1] + r : g->nc[1] - 1;
    *zlo = DIM == 3 && c[2] - r > 0 ? c[2] - r : 0;
    const int32_t zhi = DIM == 3 && c[2] + r < g->nc[2] ? c[2] + r : g->nc[2] - 1;
    *ny = (uint32_t)(yhi - *ylo + 1);
    return *ny * (uint32_t)(zhi - *zlo + 1);
}

/* Sum and maximum over the warp. */
static __device__ uint32_t gemst_warp_sum(uint32_t v)
{
#pragma unroll
    for (int off = GEMST_WARP / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(GEMST_WARP_ALL, v, off);
    return v;
}

static __device__ gemst_real GEMST_FN(warp_max)(gemst_real v)
{
#pragma unroll
    for (int off = GEMST_WARP / 2; off > 0; off /= 2) {
        const gemst_real o = __shfl_xor_sync(GEMST_WARP_ALL, v, off);
        v = o > v ? o : v;
    }
    return v;
}

/* The lane's points before it in the warp (an exclusive prefix sum). */
static __device__ uint32_t gemst_warp_before(uint32_t v)
{
    const uint32_t lane = threadIdx.x % GEMST_WARP;
    uint32_t sum = v;
#pragma unroll
    for (int off = 1; off < GEMST_WARP; off *= 2) {
        const uint32_t o = __shfl_up_sync(GEMST_WARP_ALL, sum, off);
        if (lane >= (uint32_t)off)
            sum += o;
    }
    return sum - v;
}

/* The greatest squared distance from the query to the first `take` points
 * of the ranges [b[s], e[s]) other than the query itself (0 when none). */
static __device__ gemst_real GEMST_FN(lone_farthest)(const gemst_grid *g, const gemst_query *qq, const uint32_t b[2],
                                                   const uint32_t e[2], uint32_t take)
{
    gemst_real far = 0;
    for (int s = 0; s < 2; s++)
        for (uint32_t p = b[s]; p < e[s] && take > 0; p++)
            if (p != qq->idx) {
                const gemst_real d2 = GEMST_FN(gemst_dist2_q)(g, qq, p);
                far = d2 > far ? d2 : far;
                take--;
            }
    return far;
}

/* One row of a ring, for the lane that takes it: its spans' point ranges
 * [b[s], e[s]) and their lower bounds lb2[s] (lone_span); all empty when
 * the lane has none (j >= rows). */
template <int DIM>
static __device__ void GEMST_FN(lone_row_ranges)(const gemst_grid *g, const gemst_cells *top, const gemst_query *qq,
                                               int r, uint32_t j, uint32_t rows, int32_t ylo, int32_t zlo,
                                               uint32_t ny, uint32_t b[2], uint32_t e[2], gemst_real lb2[2])
{
    int32_t xa[2] = {1, 1}, xb[2] = {0, 0};
    const int32_t y = ylo + (int32_t)(j % ny), z = zlo + (int32_t)(j / ny);
    if (j < rows)
        GEMST_FN(lone_ring_row)<DIM>(g, qq->c, r, y, z, xa, xb);
    for (int s = 0; s < 2; s++)
        lb2[s] = GEMST_FN(lone_span)(g, top, qq, xa[s], xb[s], y, z, &b[s], &e[s]);
}

/* By the whole warp, for the query every lane holds: the first ring r0
 * around its cell that holds another point (the return value), and a
 * squared distance *bound2 within which K other points lie, from the first
 * K points met (infinity when the grid holds fewer).  Every lane gets both.
 * The lanes take a ring's rows between them and count their points; only
 * the K points are read. */
template <int DIM>
static __device__ int GEMST_FN(lone_start)(const gemst_grid *g, const gemst_cells *top, const gemst_query *qq, int K,
                                         gemst_real *bound2)
{
    const uint32_t lane = threadIdx.x % GEMST_WARP;
    int r0 = -1;
    uint32_t seen = 0;
    gemst_real far = 0;
    for (int r = 0;; r++) {
        int32_t ylo, zlo;
        uint32_t ny;
        const uint32_t rows = GEMST_FN(lone_ring_rows)<DIM>(g, qq->c, r, &ylo, &zlo, &ny);
        for (uint32_t base = 0; base < rows; base += GEMST_WARP) {
            uint32_t b[2], e[2];
            gemst_real lb2[2];
            GEMST_FN(lone_row_ranges)<DIM>(g, top, qq, r, base + lane, rows, ylo, zlo, ny, b, e, lb2);
            const int mine = (qq->idx >= b[0] && qq->idx < e[0]) || (qq->idx >= b[1] && qq->idx < e[1]);
            const uint32_t have = (e[0] - b[0]) + (e[1] - b[1]) - (uint32_t)mine;
            const uint32_t total = gemst_warp_sum(have);
            if (total == 0)
                continue;
            if (r0 < 0)
                r0 = r;
            /* the lanes' points in lane order: the first K - seen of them are read */
            const uint32_t before = gemst_warp_before(have), want = (uint32_t)K - seen;
            const uint32_t take = before >= want ? 0 : want - before < have ? want - before : have;
            const gemst_real lane_far = GEMST_FN(lone_farthest)(g, qq, b, e, take);
            far = GEMST_FN(warp_max)(lane_far > far ? lane_far : far);
            seen += total;
            if (seen >= (uint32_t)K) {
                *bound2 = far;
                return r0;
            }
        }
        if (GEMST_FN(gemst_ring_outer_lb2)(top, qq->q, qq->q, qq->c, r) == GEMST_REAL_INF) {
            *bound2 = GEMST_REAL_INF; /* the grid holds fewer than K other points */
            return r0 < 0 ? 0 : r0;
        }
    }
}

/* Every lane's list becomes the warp's K nearest of all the lanes' lists
 * (a point may sit in several: each list starts from the last merge, and
 * entries without a point stay at their distance); returns the count of
 * points in it. */
static __device__ int GEMST_FN(lone_merge)(const gemst_grid *g, int K, gemst_real kd2[GEMST_KNN],
                                         uint32_t kid[GEMST_KNN])
{
    gemst_real md2[GEMST_KNN];
    uint32_t mid[GEMST_KNN];
    int count = 0;
#pragma unroll
    for (int k = 0; k < GEMST_KNN; k++) {
        md2[k] = GEMST_REAL_INF;
        mid[k] = GEMST_NONE;
        if (k >= K)
            continue;
        /* the warp's least head in edge order (ids break ties of distance) */
        gemst_real d2 = kd2[0];
        uint32_t id = kid[0], po = GEMST_FN(gemst_knn_oid)(g, id);
#pragma unroll
        for (int off = GEMST_WARP / 2; off > 0; off /= 2) {
            const gemst_real od2 = __shfl_xor_sync(GEMST_WARP_ALL, d2, off);
            const uint32_t oid = __shfl_xor_sync(GEMST_WARP_ALL, id, off);
            const uint32_t opo = __shfl_xor_sync(GEMST_WARP_ALL, po, off);
            if (od2 < d2 || (od2 == d2 && opo < po)) {
                d2 = od2;
                id = oid;
                po = opo;
            }
        }
        md2[k] = d2;
        mid[k] = id;
        count += id != GEMST_NONE;
        if (id != GEMST_NONE && kid[0] == id) { /* taken: the lane's next entry is its head */
#pragma unroll
            for (int m = 0; m + 1 < GEMST_KNN; m++) {
                kd2[m] = kd2[m + 1];
                kid[m] = kid[m + 1];
            }
            kd2[GEMST_KNN - 1] = GEMST_REAL_INF;
            kid[GEMST_KNN - 1] = GEMST_NONE;
        }
    }
#pragma unroll
    for (int k = 0; k < GEMST_KNN; k++) {
        kd2[k] = md2[k];
        kid[k] = mid[k];
    }
    return count;
}

/* gemst_knn (search.h) without a ring cap, by the whole warp, for the query
 * every lane holds, from ring r0 (rings before it hold no point) with
 * K points known within squared distance bound2 (lone_start); every lane
 * gets the list.  The lanes take each ring's rows between them; a row's
 * ranges that may hold a point within the lane's K-th distance are scanned
 * one after another by all the lanes, and the lanes' lists are merged at
 * the end of each ring. */
template <int DIM>
static __device__ int GEMST_FN(lone_knn)(const gemst_grid *g, const gemst_cells *top, const gemst_query *qq, int K,
                                       int r0, gemst_real bound2, gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN])
{
    const uint32_t lane = threadIdx.x % GEMST_WARP;
    /* entries at bound2 without a point: every point within it precedes them (gemst_knn_before) */
    GEMST_FN(gemst_knn_clear)(kd2, kid);
#pragma unroll
    for (int k = 0; k < GEMST_KNN; k++)
        if (k < K)
            kd2[k] = bound2;
    for (int r = r0;; r++) {
        int32_t ylo, zlo;
        uint32_t ny;
        const uint32_t rows = GEMST_FN(lone_ring_rows)<DIM>(g, qq->c, r, &ylo, &zlo, &ny);
        int count = 0;
        for (uint32_t base = 0; base < rows; base += GEMST_WARP) {
            uint32_t b[2], e[2];
            gemst_real lb2[2];
            GEMST_FN(lone_row_ranges)<DIM>(g, top, qq, r, base + lane, rows, ylo, zlo, ny, b, e, lb2);
#pragma unroll
            for (int s = 0; s < 2; s++) {
                unsigned pending = __ballot_sync(GEMST_WARP_ALL, e[s] > b[s] && !(lb2[s] > kd2[K - 1]));
                while (pending) {
                    const int src = __ffs(pending) - 1;
                    pending &= pending - 1;
                    const uint32_t rb = __shfl_sync(GEMST_WARP_ALL, b[s], src);
                    const uint32_t re = __shfl_sync(GEMST_WARP_ALL, e[s], src);
                    for (uint32_t p = rb + lane; p < re; p += GEMST_WARP)
                        GEMST_FN(gemst_knn_offer)(g, qq, K, GEMST_FN(gemst_dist2_q)(g, qq, p), p, kd2, kid, &count);
                }
            }
        }
        count = GEMST_FN(lone_merge)(g, K, kd2, kid);
        if (GEMST_FN(gemst_knn_ring_done)(top, qq, K, r, kd2))
            return count;
    }
}

#endif
