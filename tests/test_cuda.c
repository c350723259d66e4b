/*
 * The CUDA backend against the CPU backend: on every set, every pruning
 * strategy, the BVH index, every FindMin2 method and precision must give the
 * identical edge list
 * (DESIGN.md, exactness rules 1, 2 and 5).  Skipped (exit 77) where no GPU
 * is present.  The CPU result is itself checked against brute-force Prim
 * for the smaller sets by test_emst.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"
#include "grid/grid_plan.h"
#include "tools/generate.h"
#include "tools/prim.h"

#define PI 3.14159265358979323846

typedef struct {
    const char *name;
    gemst_gen_kind kind; /* or -1 for a hand-made set */
    int64_t n;
    int dim;
} gpu_case;

static const gpu_case cases[] = {
    {"uniform", GEMST_GEN_UNIFORM, 1000, 2},      {"uniform", GEMST_GEN_UNIFORM, 1000, 3},
    {"uniform", GEMST_GEN_UNIFORM, 100000, 2},    {"uniform", GEMST_GEN_UNIFORM, 100000, 3},
    {"uniform", GEMST_GEN_UNIFORM, 1000000, 2},   {"uniform", GEMST_GEN_UNIFORM, 1000000, 3},
    {"normal", GEMST_GEN_NORMAL, 20000, 2},       {"normal", GEMST_GEN_NORMAL, 300000, 3},
    {"clustered", GEMST_GEN_CLUSTERED, 20000, 2}, {"clustered", GEMST_GEN_CLUSTERED, 300000, 3},
    {"blobs", GEMST_GEN_BLOBS, 20000, 2},         {"blobs", GEMST_GEN_BLOBS, 300000, 3},
    {"lattice", GEMST_GEN_LATTICE, 20000, 2},     {"lattice", GEMST_GEN_LATTICE, 200000, 3},
};

/* Hand-made sets: heavy duplicates, a line, a circle, near-duplicates
 * (points a few units in the last place apart, where slab pruning must not
 * be trusted). */
static void make_special(int which, int64_t n, int dim, gemst_pointset *ps)
{
    double *v = calloc((size_t)(n * dim), sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int64_t i = 0; i < n; i++) {
        double t = (double)i / (double)n;
        if (which == 0) { /* 3 distinct points, many copies, plus some spread */
            int k = (int)(i % 7);
            v[i * dim] = k < 3 ? k : t;
            v[i * dim + 1] = k < 3 ? 2 * k : 1 - t;
        } else if (which == 1) { /* evenly spaced on a line: long hook chains */
            v[i * dim] = (double)i;
            v[i * dim + 1] = (double)i;
        } else if (which == 2) { /* a circle: many equal distances */
            v[i * dim] = cos(2 * PI * t);
            v[i * dim + 1] = sin(2 * PI * t);
        } else { /* 64 centres, each point a few ulps (in double) or exactly (in float) off its centre */
            double c = (double)(i % 64) / 64.0;
            v[i * dim] = c + ldexp((double)(i % 5) - 2.0, -50);
            v[i * dim + 1] = c * c + ldexp((double)(i % 3) - 1.0, -50);
        }
        if (dim == 3)
            v[i * dim + 2] = which == 1 ? (double)i : which == 3 ? ldexp((double)(i % 7), -51) : 0.5;
    }
    memset(ps, 0, sizeof *ps);
    ps->n = n;
    ps->dim = dim;
    ps->dtype = GRIDEMST_FLOAT64;
    ps->coords = v;
}

static void solve_or_fail(const gemst_pointset *ps, const gridemst_options *o, gridemst_result *r)
{
    gridemst_error err;
    int rc = gridemst_solve(ps->coords, ps->dtype, ps->n, ps->dim, o, r, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "solve failed (%d): %s", rc, err.message);
}

/* Sets larger than $GEMST_TEST_MAX_N points are skipped (for runs under
 * compute-sanitizer, which slows kernels a hundredfold). */
static int too_large(int64_t n)
{
    const char *max = getenv("GEMST_TEST_MAX_N");
    return max && n > atoll(max);
}

/* The GPU must reproduce the CPU's (grid) tree exactly, for every strategy:
 * the grid with each pruning strategy, the BVH (STRATEGY_BVH), and static
 * pruning with the late BVH from iteration 3 on (STRATEGY_LATE_BVH).
 * occupancy: the grid's target points per cell, crowded: the crowding
 * threshold (0: the defaults). */
#define NNS_STRATEGIES 5
#define STRATEGY_BVH 3
#define STRATEGY_LATE_BVH 4
static void compare_backends(const char *name, const gemst_pointset *ps, double occupancy, int64_t crowded)
{
    if (too_large(ps->n))
        return;
    for (int prec = 0; prec <= 1; prec++) {
        gridemst_options o;
        gridemst_result ref = GRIDEMST_RESULT_INIT;
        gridemst_options_init(&o);
        o.tuning.cell_occupancy = occupancy;
        o.tuning.crowded_cell = crowded;
        o.backend = GRIDEMST_BACKEND_CPU;
        o.precision = (gridemst_precision)prec;
        solve_or_fail(ps, &o, &ref);
        ck_assert_int_eq(ref.n_edges, ps->n - 1);
        for (int strategy = 0; strategy < NNS_STRATEGIES; strategy++)
            for (int fm = 0; fm <= 1; fm++) {
                gridemst_result got = GRIDEMST_RESULT_INIT;
                const int bvh = strategy == STRATEGY_BVH, late = strategy == STRATEGY_LATE_BVH;
                o.backend = GRIDEMST_BACKEND_CUDA;
                o.nns = bvh ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
                o.tuning.prune = bvh ? GRIDEMST_PRUNE_NONE : late ? GRIDEMST_PRUNE_STATIC : (gridemst_prune)strategy;
                o.tuning.late_bvh = late ? 3 : 0;
                o.tuning.findmin2 = (gridemst_findmin2)fm;
                solve_or_fail(ps, &o, &got);
                if (late) /* it took over where there was an iteration 3 and more than two leaves */
                    ck_assert_int_eq(got.stats.late_bvh_iteration,
                                     got.stats.iterations > 3 && got.stats.n_unique > 8 ? 3 : -1);
                ck_assert_int_eq(got.stats.backend, GRIDEMST_BACKEND_CUDA);
                ck_assert_int_eq(got.stats.nns, o.nns);
                if (bvh)
                    ck_assert_int_eq(got.stats.cells, 0);
                ck_assert_int_eq(got.n_edges, ref.n_edges);
                int64_t first = -1;
                for (int64_t e = 0; e < ref.n_edges && first < 0; e++)
                    if (got.edges[e].u != ref.edges[e].u || got.edges[e].v != ref.edges[e].v ||
                        got.edges[e].w != ref.edges[e].w)
                        first = e;
                ck_assert_msg(first < 0,
                              "%s n=%lld dim=%d %s nns=%s prune=%s late_bvh=%d findmin2=%s: edge %lld differs: gpu "
                              "(%lld,%lld,%.17g) cpu (%lld,%lld,%.17g)",
                              name, (long long)ps->n, ps->dim, gridemst_precision_name(o.precision),
                              gridemst_nns_name(o.nns), gridemst_prune_name(o.tuning.prune), o.tuning.late_bvh,
                              gridemst_findmin2_name(o.tuning.findmin2), (long long)first,
                              first < 0 ? 0LL : (long long)got.edges[first].u,
                              first < 0 ? 0LL : (long long)got.edges[first].v, first < 0 ? 0.0 : got.edges[first].w,
                              first < 0 ? 0LL : (long long)ref.edges[first].u,
                              first < 0 ? 0LL : (long long)ref.edges[first].v, first < 0 ? 0.0 : ref.edges[first].w);
                ck_assert_int_eq(got.stats.n_duplicates, ref.stats.n_duplicates);
                check_iteration_stats(&got.stats, name);
                ck_assert(got.stats.peak_device_bytes > 0);
                ck_assert(strlen(got.stats.device_name) > 0);
                gridemst_result_free(&got);
            }
        gridemst_result_free(&ref);
    }
}

START_TEST(test_generated_sets)
{
    const gpu_case *c = &cases[_i];
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(c->kind, c->n, c->dim, 7, &ps, &err), GRIDEMST_OK);
    compare_backends(c->name, &ps, 0, 0);
    free(ps.coords);
}
END_TEST

/* The GPU's grid with the default options: one cell size (3 points per
 * cell) and one crowding threshold (GEMST_CROWDED) on every set, never the
 * late BVH (nns/late_bvh.h: only when asked on the GPU), and the static
 * search's block pass from 500,000 points (nns/block.h).  On the large
 * skewed sets the CPU's tree, in full (the smaller ones are in cases[]). */
static const struct {
    gemst_gen_kind kind;
    int64_t n;
    int dim;
    int block;   /* whether the block pass runs: from 500,000 points */
    int compare; /* whether to compare the trees here */
} default_grid_sets[] = {
    {GEMST_GEN_NORMAL, 1000000, 3, 1, 1}, {GEMST_GEN_NORMAL, 1000000, 2, 1, 1},
    {GEMST_GEN_NORMAL, 300000, 3, 0, 0},  {GEMST_GEN_UNIFORM, 1000000, 3, 1, 0},
    {GEMST_GEN_BLOBS, 1000000, 3, 1, 1},  {GEMST_GEN_BLOBS, 1000000, 2, 1, 1},
    {GEMST_GEN_BLOBS, 300000, 3, 0, 0},
};

START_TEST(test_default_grid)
{
    const int64_t n = default_grid_sets[_i].n;
    gemst_pointset ps;
    gridemst_error err;
    if (too_large(n))
        return;
    ck_assert_int_eq(gemst_generate(default_grid_sets[_i].kind, n, default_grid_sets[_i].dim, 7, &ps, &err),
                     GRIDEMST_OK);
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CUDA;
    solve_or_fail(&ps, &o, &r);
    ck_assert_msg(r.stats.cell_occupancy == 3.0 && r.stats.crowded_cell == GEMST_CROWDED &&
                      r.stats.late_bvh_iteration == -1 && (r.stats.block_points > 0) == default_grid_sets[_i].block,
                  "set %d: occupancy %g, crowded from %lld, late BVH from iteration %d, %lld points settled in "
                  "blocks",
                  _i, r.stats.cell_occupancy, (long long)r.stats.crowded_cell, r.stats.late_bvh_iteration,
                  (long long)r.stats.block_points);
    if (default_grid_sets[_i].compare)
        compare_backends("the default grid", &ps, 0, 0);
    gridemst_result_free(&r);
    free(ps.coords);
}
END_TEST

/* Where the block pass runs by the cells' planned occupancy
 * (gemst_block_pass_pays): a block of 3^dim cells of that many points each
 * within GEMST_BLOCK_MAX_POINTS (160) or not. */
static const struct {
    int dim;
    double occupancy;
    int block;
} block_rule_sets[] = {{3, 5.0, 1}, {3, 8.0, 0}, {2, 16.0, 1}, {2, 24.0, 0}};

START_TEST(test_block_pass_rule)
{
    gemst_pointset ps;
    gridemst_error err;
    if (too_large(1000000))
        return;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 1000000, block_rule_sets[_i].dim, 7, &ps, &err), GRIDEMST_OK);
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.tuning.cell_occupancy = block_rule_sets[_i].occupancy;
    solve_or_fail(&ps, &o, &r);
    ck_assert_msg((r.stats.block_points > 0) == block_rule_sets[_i].block, "%dD, occupancy %g: %lld points settled",
                  ps.dim, o.tuning.cell_occupancy, (long long)r.stats.block_points);
    ck_assert_int_eq(r.n_edges, ps.n - 1);
    gridemst_result_free(&r);
    free(ps.coords);
}
END_TEST

/* Crowded cells (over GEMST_CROWDED points, so searched through a grid of
 * their own) from a large target occupancy, then crowded from 32 points at
 * the default occupancy, on both backends: clustered, blobs and uniform
 * sets, 2D and 3D.  The clustered sets' seeds crowd sub-cells of the GPU's
 * crowded cells again (nested grids; the CPU refines its cells for them
 * first); where both backends keep the same cells (uniform), they build
 * the same grids. */
START_TEST(test_crowded_sets)
{
    static const gemst_gen_kind kinds[] = {GEMST_GEN_CLUSTERED, GEMST_GEN_BLOBS, GEMST_GEN_UNIFORM};
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(kinds[_i / 2], 20000, 2 + _i % 2, 5, &ps, &err), GRIDEMST_OK);
    compare_backends("crowded", &ps, 1000.0, 0);
    compare_backends("crowded from 32", &ps, 0, 32);
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT, ref = GRIDEMST_RESULT_INIT;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.tuning.cell_occupancy = 1000.0;
    o.backend = GRIDEMST_BACKEND_CPU;
    solve_or_fail(&ps, &o, &ref);
    o.backend = GRIDEMST_BACKEND_CUDA;
    solve_or_fail(&ps, &o, &r);
    ck_assert_msg(r.stats.crowded_cells > 0, "no crowded cell");
    if (kinds[_i / 2] == GEMST_GEN_CLUSTERED)
        ck_assert_msg(r.stats.nested_cells > 0, "no nested grid");
    if (kinds[_i / 2] == GEMST_GEN_UNIFORM) {
        ck_assert_int_eq(r.stats.cells, ref.stats.cells);
        ck_assert_int_eq(r.stats.crowded_cells, ref.stats.crowded_cells);
        ck_assert_int_eq(r.stats.nested_cells, ref.stats.nested_cells);
    }
    gridemst_result_free(&r);
    gridemst_result_free(&ref);
    free(ps.coords);
}
END_TEST

START_TEST(test_special_sets)
{
    static const char *names[] = {"duplicates", "line", "circle", "near-duplicates"};
    for (int dim = 2; dim <= 3; dim++) {
        gemst_pointset ps;
        make_special(_i, _i == 0 ? 200000 : _i == 3 ? 3000 : 50000, dim, &ps);
        compare_backends(names[_i], &ps, 0, 0);
        free(ps.coords);
    }
}
END_TEST

/* Isolated points: a dense cluster and ISOLATED_POINTS points spread over the
 * unit square or cube around it, whose nearest neighbours lie many rings
 * of cells away; which = 1 puts them all on a line (one row of cells).
 * Coordinates from a fixed linear congruential sequence. */
#define ISOLATED_CLUSTER 50000
#define ISOLATED_POINTS 40
static void make_isolated(int which, int dim, gemst_pointset *ps)
{
    const int64_t n = ISOLATED_CLUSTER + ISOLATED_POINTS;
    double *v = calloc((size_t)(n * dim), sizeof *v);
    ck_assert_ptr_nonnull(v);
    uint64_t state = 12345;
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const double u = (double)(state >> 11) * 0x1p-53;
            const double x = i < ISOLATED_CLUSTER ? 0.5 + 0.01 * u : u;
            v[i * dim + d] = which == 1 && d > 0 ? 0.5 : x;
        }
    memset(ps, 0, sizeof *ps);
    ps->n = n;
    ps->dim = dim;
    ps->dtype = GRIDEMST_FLOAT64;
    ps->coords = v;
}

/* The GPU's grid gives the CPU's tree on isolated points far from a dense
 * cluster, whose static search walks ring after ring of empty cells; the
 * reserved stats.lone_points stays 0. */
START_TEST(test_isolated_points)
{
    static const char *names[] = {"isolated points", "isolated points on a line"};
    gemst_pointset ps;
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    const int dim = 2 + _i % 2;
    make_isolated(_i / 2, dim, &ps);
    compare_backends(names[_i / 2], &ps, 0, 0);
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CUDA;
    solve_or_fail(&ps, &o, &r);
    ck_assert_int_eq(r.stats.lone_points, 0);
    gridemst_result_free(&r);
    free(ps.coords);
}
END_TEST

/* The late BVH with its default (auto): the CPU's rule switches on these
 * sets (the premise, checked), the GPU's Euclidean tree never does
 * (nns/late_bvh.h), and both give the same tree. */
static const struct {
    gemst_gen_kind kind;
    int64_t n;
    int dim;
} late_auto_sets[] = {
    {GEMST_GEN_BLOBS, 300000, 2},
    {GEMST_GEN_CLUSTERED, 20000, 2},
};

START_TEST(test_late_bvh_auto)
{
    gemst_pointset ps;
    gridemst_error err;
    gridemst_options o;
    gridemst_result gpu = GRIDEMST_RESULT_INIT, cpu = GRIDEMST_RESULT_INIT;
    if (too_large(late_auto_sets[_i].n))
        return;
    ck_assert_int_eq(
        gemst_generate(late_auto_sets[_i].kind, late_auto_sets[_i].n, late_auto_sets[_i].dim, 7, &ps, &err),
        GRIDEMST_OK);
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    ck_assert_int_eq(o.tuning.late_bvh, 0);
    o.backend = GRIDEMST_BACKEND_CPU;
    solve_or_fail(&ps, &o, &cpu);
    ck_assert_msg(cpu.stats.late_bvh_iteration > 0, "set %d: the CPU's rule did not switch", _i);
    o.backend = GRIDEMST_BACKEND_CUDA;
    solve_or_fail(&ps, &o, &gpu);
    ck_assert_int_eq(gpu.stats.prune, GRIDEMST_PRUNE_STATIC);
    ck_assert_msg(gpu.stats.late_bvh_iteration == -1, "set %d: the GPU switched at iteration %d", _i,
                  gpu.stats.late_bvh_iteration);
    ck_assert_msg(same_edges(&gpu, &cpu), "set %d: the GPU's tree is not the CPU's", _i);
    gridemst_result_free(&gpu);
    gridemst_result_free(&cpu);
    free(ps.coords);
}
END_TEST

/* Against the independent reference directly, on the GPU alone. */
START_TEST(test_gpu_against_prim)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_NORMAL, 3000, 3, 11, &ps, &err), GRIDEMST_OK);
    gridemst_edge *ref = malloc(sizeof *ref * (size_t)(ps.n - 1));
    double total = gemst_prim_reference(ps.coords, ps.dtype, ps.n, ps.dim, ref);
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    solve_or_fail(&ps, &o, &r);
    ck_assert(fabs(r.total_weight - total) <= 1e-9 * total);
    for (int64_t e = 0; e < r.n_edges; e++)
        ck_assert(fabs(r.edges[e].w - ref[e].w) <= 1e-9 * ref[e].w + 1e-300);
    gridemst_result_free(&r);
    free(ref);
    free(ps.coords);
}
END_TEST

START_TEST(test_gpu_edge_cases)
{
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.nns = _i ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    double two[4] = {0, 0, 3, 4};
    ck_assert_int_eq(gridemst_solve(two, GRIDEMST_FLOAT64, 2, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(r.n_edges, 1);
    ck_assert(r.edges[0].w == 5.0);
    gridemst_result_free(&r);
    double same[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ck_assert_int_eq(gridemst_solve(same, GRIDEMST_FLOAT64, 4, 3, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(r.n_edges, 3);
    for (int e = 0; e < 3; e++) {
        ck_assert_int_eq(r.edges[e].u, 0);
        ck_assert_int_eq(r.edges[e].v, e + 1);
        ck_assert(r.edges[e].w == 0.0);
    }
    gridemst_result_free(&r);
    double bad[6] = {0, 0, NAN, 1, 2, 2};
    ck_assert_int_eq(gridemst_solve(bad, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), GRIDEMST_ERR_INPUT);
    ck_assert_msg(strstr(err.message, "point 1") != NULL, "message: %s", err.message);
    o.device = 1000;
    ck_assert_int_eq(gridemst_solve(two, GRIDEMST_FLOAT64, 2, 2, &o, &r, &err), GRIDEMST_ERR_NO_DEVICE);
}
END_TEST

/* A device memory cap below the job's need: CUDA refuses it up front; AUTO
 * solves it on the CPU and says so (grid, then BVH). */
START_TEST(test_device_memory_limit)
{
    gemst_pointset ps;
    gridemst_error err;
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT, cpu = GRIDEMST_RESULT_INIT;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 100000, 3, 3, &ps, &err), GRIDEMST_OK);
    gridemst_options_init(&o);
    o.nns = _i ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    o.max_device_bytes = 1 << 20;
    o.backend = GRIDEMST_BACKEND_CUDA;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_DEVICE_MEMORY);
    ck_assert_msg(strstr(err.message, "device memory") != NULL, "message: %s", err.message);
    o.backend = GRIDEMST_BACKEND_AUTO;
    solve_or_fail(&ps, &o, &r);
    ck_assert_int_eq(r.stats.backend, GRIDEMST_BACKEND_CPU);
    ck_assert_msg(strstr(r.stats.note, "CPU") != NULL, "note: %s", r.stats.note);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.max_device_bytes = 0;
    solve_or_fail(&ps, &o, &cpu);
    ck_assert(cpu.n_edges == r.n_edges && memcmp(cpu.edges, r.edges, sizeof *r.edges * (size_t)r.n_edges) == 0);
    gridemst_result_free(&r);
    gridemst_result_free(&cpu);
    free(ps.coords);
}
END_TEST

/* nns auto on the GPU: the BVH for a small set, the grid for points that
 * fill the space, the BVH for points along curves (circles in the plane);
 * on the CPU the grid for volumes and the BVH along the curves; each the
 * CPU's tree. */
static const struct {
    gemst_gen_kind kind;
    int64_t n;
    int dim;
    gridemst_nns chosen, cpu_chosen;
} auto_sets[] = {
    {GEMST_GEN_UNIFORM, 50000, 3, GRIDEMST_NNS_BVH, GRIDEMST_NNS_GRID},
    {GEMST_GEN_UNIFORM, 200000, 3, GRIDEMST_NNS_GRID, GRIDEMST_NNS_GRID},
    {GEMST_GEN_SHELLS, 200000, 2, GRIDEMST_NNS_BVH, GRIDEMST_NNS_BVH},
    {GEMST_GEN_NORMAL, 200000, 3, GRIDEMST_NNS_BVH, GRIDEMST_NNS_GRID},
};

START_TEST(test_auto_index)
{
    gemst_pointset ps;
    gridemst_error err;
    gridemst_options o;
    gridemst_result gpu = GRIDEMST_RESULT_INIT, cpu = GRIDEMST_RESULT_INIT;
    ck_assert_int_eq(gemst_generate(auto_sets[_i].kind, auto_sets[_i].n, auto_sets[_i].dim, 5, &ps, &err),
                     GRIDEMST_OK);
    gridemst_options_init(&o);
    ck_assert_int_eq(o.nns, GRIDEMST_NNS_AUTO);
    o.backend = GRIDEMST_BACKEND_CUDA;
    solve_or_fail(&ps, &o, &gpu);
    ck_assert_msg(gpu.stats.nns == auto_sets[_i].chosen, "set %d: index %s", _i, gridemst_nns_name(gpu.stats.nns));
    /* measured from 100,000 points on: about 1 for uniform points, above 1.5 for the BVH's */
    const double contrast = gpu.stats.density_contrast;
    ck_assert_msg(ps.n < 100000                                 ? contrast == 0.0
                  : auto_sets[_i].chosen == GRIDEMST_NNS_GRID ? contrast > 0.9 && contrast < 1.1
                                                                : contrast > 1.5,
                  "set %d: density contrast %g", _i, contrast);
    ck_assert_int_eq(gpu.stats.prune, gpu.stats.nns == GRIDEMST_NNS_BVH ? GRIDEMST_PRUNE_NONE : GRIDEMST_PRUNE_STATIC);
    o.backend = GRIDEMST_BACKEND_CPU;
    solve_or_fail(&ps, &o, &cpu);
    ck_assert_msg(cpu.stats.nns == auto_sets[_i].cpu_chosen, "set %d: the CPU's index %s", _i,
                  gridemst_nns_name(cpu.stats.nns));
    ck_assert_msg(same_edges(&gpu, &cpu), "set %d: the GPU's tree is not the CPU's", _i);
    gridemst_result_free(&gpu);
    gridemst_result_free(&cpu);
    free(ps.coords);
}
END_TEST

int main(void)
{
    if (gridemst_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("gpu_vs_cpu");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, test_generated_sets, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(tc, test_special_sets, 0, 4);
    tcase_add_loop_test(tc, test_crowded_sets, 0, 6);
    tcase_add_loop_test(tc, test_default_grid, 0, (int)(sizeof default_grid_sets / sizeof default_grid_sets[0]));
    tcase_add_loop_test(tc, test_block_pass_rule, 0, (int)(sizeof block_rule_sets / sizeof block_rule_sets[0]));
    tcase_add_loop_test(tc, test_isolated_points, 0, 4);
    tcase_add_loop_test(tc, test_late_bvh_auto, 0, (int)(sizeof late_auto_sets / sizeof late_auto_sets[0]));
    tcase_add_test(tc, test_gpu_against_prim);
    tcase_add_loop_test(tc, test_gpu_edge_cases, 0, 2);
    tcase_add_loop_test(tc, test_device_memory_limit, 0, 2);
    tcase_add_loop_test(tc, test_auto_index, 0, (int)(sizeof auto_sets / sizeof auto_sets[0]));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
