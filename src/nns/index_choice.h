/*
 * The index that nns auto searches: the uniform grid or the BVH, from the
 * number of points and how they fill space, on the GPU at the grid's cell
 * size, on the CPU at the scale of the points' neighbours (the end of this
 * comment).
 *
 * Below GEMST_INDEX_SMALL_SET points a GPU solve takes 1 to 3 ms, mostly
 * fixed costs, and the BVH's fewer passes win on every shape measured
 * (H200: uniform 2D and 3D tie at 1e5 points and favour the BVH below;
 * normal sets favour it up to 3e5): the BVH, with nothing measured.
 *
 * Above, the grid sizes its cells for points that fill their bounding box:
 * about three points per cell over the box's volume.  Its searches cost
 * what the cells around a point hold, so they are cheapest where every cell
 * holds about as many points as the plan: uniform points, lattices.  Points
 * in clusters, on curves or surfaces, or of a varying density (a normal
 * distribution, cities) crowd into some cells and leave others empty; the
 * grid's searches then scan the crowded cells and cross the empty ones,
 * while the BVH's cost hardly depends on the points' layout.  The measure
 * is the points' density contrast at the grid's scale: how many other
 * points share a point's cell, on average over the points, divided by what
 * points spread evenly over the box would give (1 for uniform points,
 * 2 when they fill half the box evenly, 2 to 2,000 for the cities,
 * normal, clustered, surface and curve sets measured).  The solve
 * searches the grid when the contrast is at most
 * GEMST_INDEX_EVEN_CONTRAST, else the BVH.
 *
 * It is measured in a sample: points evenly spaced in the caller's order
 * (gemst_index_sample_size of them), with their Morton codes (bvh/morton.h), equal codes
 * counted once (the searches see each point once: duplicates are joined
 * before, by edges of length 0); a cell of the power-of-two level nearest
 * the grid's planned side is a value of the codes' prefix.  Hash tables
 * count the distinct codes met in each cell, in one pass over the sample
 * in any order, so that the GPU measures in one kernel.  A sample's pairs
 * sharing a cell estimate the whole set's without bias.
 *
 * On the CPU the BVH's search goes a leaf of points at a time (cpu/
 * cpu_bvh_search.h), over leaves that are the cells of a K-d split: its
 * cost is that of the leaves around each leaf within its points' radii,
 * which grows with the dimension the points fill around their neighbours,
 * not with how clusters spread them over the box.  The grid's cost there
 * follows the crowded cells it scans and the empty ones it crosses.  The
 * CPU measures that correlation dimension from the same sample at the
 * finest cell size where the sample has GEMST_INDEX_LOCAL_PAIRS pairs
 * sharing a cell (so within the densest clusters, whose points fill the
 * space there), and searches the BVH when it is below
 * GEMST_INDEX_CPU_BVH_DIM (curves, and points that fill at most a plane
 * around their neighbours: surfaces, and sets in the plane) and the points
 * do not fill their box evenly (a contrast above GEMST_INDEX_EVEN_CONTRAST).
 * Measured at 1e6 points on one thread (user time, docs/experiments.md),
 * the BVH took 0.5 to 0.7 of the grid's time along curves, 0.68 to 0.92 on
 * clustered sets in the plane, 0.90 to 1.03 on surfaces in space and 1.08
 * on a normal set in the plane, but 1.28 on uniform points in the plane
 * and 1.1 to 1.8 on uniform, normal and blob volumes (0.77 to 1.26 on
 * other mixtures of Gaussians in space, with no measure found to tell
 * them apart).
 */
#ifndef GEMST_INDEX_CHOICE_H
#define GEMST_INDEX_CHOICE_H

#include "common.h"
#include "atomics.h"
#include "hash_slots.h"
#include "grid/grid_plan.h"

#define GEMST_INDEX_SMALL_SET 100000
/* The sample's size: enough points that an even fill would give
 * GEMST_INDEX_EVEN_PAIRS ordered pairs sharing a cell, so that the
 * measure's Poisson error stays within 1 / sqrt(EVEN_PAIRS / 2), 3%, at
 * any number of cells.  (A sample of a fixed size does not: 65,536 points
 * over the 1.3e8 cells planned for 8e8 points meet 32 pairs on average,
 * and uniform sets of that size measured 1.5 and more.)  At least
 * GEMST_INDEX_SAMPLE_LEAST points (the CPU's local dimension reads the
 * finer levels of the same sample), at most GEMST_INDEX_SAMPLE_MOST. */
#define GEMST_INDEX_EVEN_PAIRS 2048
#define GEMST_INDEX_SAMPLE_LEAST 65536
#define GEMST_INDEX_SAMPLE_MOST (1u << 23)
/* Half again an even fill's share of a cell: uniform sets measure 0.96 to
 * 1.03 (the box's last cells are partly outside it), the sets of a varying
 * density 2 and more. */
#define GEMST_INDEX_EVEN_CONTRAST 1.5
/* The CPU's pairs for a measure within 3% (Poisson: 1 / sqrt(pairs)), and
 * the dimension below which it searches the BVH: between surfaces and
 * volumes. */
#define GEMST_INDEX_LOCAL_PAIRS 1024
#define GEMST_INDEX_CPU_BVH_DIM 2.5

#ifdef __cplusplus
extern "C" {
#endif

/* The sample's size for n points in frame f (at most n). */
uint32_t gemst_index_sample_size(const gemst_frame *f, int64_t n);

/* Point k of the sample of m of n points (k n fits 64 bits: m is at most
 * GEMST_INDEX_SAMPLE_MOST, n within a partitioned solve's limit). */
static inline GEMST_HD uint64_t gemst_index_sample_point(uint64_t n, uint32_t m, uint32_t k)
{
    return (uint64_t)k * n / m;
}

/* The sample's hash tables (hash_slots.h), 2^bits slots each: the
 * distinct codes met, the cells met (code >> shift), and the distinct
 * codes met in each (codes have 63 bits at most: never GEMST_HASH_FREE). */
typedef struct {
    uint64_t *code;  /* the distinct codes met */
    uint64_t *cell;  /* the cells met */
    uint32_t *count; /* each cell's distinct codes so far */
    int bits;
} gemst_index_tables;

/* What the sample's codes add up to: the ordered pairs of distinct codes
 * sharing a cell, and the distinct codes. */
typedef struct {
    uint64_t pairs, distinct;
} gemst_index_counts;

/* Adds a sample's code to the tables and to *counts: one distinct code,
 * and 2 pairs for each distinct code added before it to its cell at shift.
 * A code met before adds nothing.  Over a cell's r distinct codes, in
 * whatever order they come, the pairs sum to 2 (0 + 1 + ... + r - 1) =
 * r (r - 1). */
static inline GEMST_HD void gemst_index_add(const gemst_index_tables *t, uint64_t code, int shift,
                                            gemst_index_counts *counts)
{
    int taken;
    gemst_hash_slot(t->code, t->bits, code, &taken);
    if (!taken)
        return;
    counts->distinct++;
    const uint32_t slot = gemst_hash_slot(t->cell, t->bits, code >> shift, &taken);
    counts->pairs += 2 * (uint64_t)gemst_atomic_add_u32(&t->count[slot], 1);
}

/* The code shift of the cells measured, for n points in frame f (the
 * box's sides in [0, 1] once scaled by f->unit): the power-of-two level
 * nearest the grid's planned side (gemst_grid_plan_make at the default
 * occupancy). */
int gemst_index_shift(const gemst_frame *f, int64_t n);

/* The density contrast the sample's counts give at shift: the mean over
 * its distinct codes of the others sharing their cell, over the mean that
 * codes spread evenly over the box of f would give; 0 for fewer than two
 * distinct codes. */
double gemst_index_contrast(const gemst_frame *f, int shift, gemst_index_counts counts);

/* Whether points of that contrast get the BVH. */
int gemst_index_prefers_bvh(double contrast);

/* The ordered pairs of the sorted distinct codes [0, m) sharing a cell at
 * the level of shift (a cell: equal code >> shift): r (r - 1) for each run
 * of r codes.  The CPU's measure, which scans many levels of one sorted
 * sample. */
uint64_t gemst_index_sorted_pairs(const uint64_t *code, uint32_t m, int shift);

/* Whether the CPU searches the BVH for points of dimension dim whose
 * sample has the m sorted distinct codes code[] and the density contrast
 * contrast (gemst_index_contrast at gemst_index_shift). */
int gemst_index_cpu_prefers_bvh(int dim, const uint64_t *code, uint32_t m, double contrast);

#ifdef __cplusplus
}
#endif

#endif
