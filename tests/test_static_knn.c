/*
 * The CPU's static search (src/cpu/cpu_knn.inc), compiled once per
 * precision (GEMST_REAL_IS_DOUBLE 0 or 1 from the build): every point's K
 * nearest points as the backend's cell-by-cell loop finds them (blocks
 * copied into one run, blocks searched by rows passing over far cells,
 * blocks beside crowded cells, crowded cells' sub-cells and the rest of
 * their cell, the walk where a block may hold a nested grid, and what each
 * leaves to the rings) must be exactly the brute force's,
 * entry by entry, with distances from gemst_dist2 (the one formula the
 * solver compares) and ties broken by caller id.
 *
 * Grids come from the real CPU build: uniform points with cells of about
 * 1 point and of hundreds, Gaussian blobs over noise with crowded cells,
 * blobs inside blobs (nested grids), lattices (every distance tied, ids
 * shuffled) and inputs full of exact duplicates.  Each case must reach the
 * path it was written for, so that a change of the search's choices cannot
 * leave a path untested.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cpu/cpu_grid.h"
#include "nns/search.h"
#include "cpu/cpu_knn.inc"
#include "brute_knn.h"

enum { IN_UNIFORM, IN_BLOBS, IN_NESTED, IN_LATTICE, IN_DUPLICATES };

/* The paths a query's search can take (counted per case). */
enum { P_RUN, P_ROWS, P_SUB, P_WALK, P_BEYOND, P_BESIDE, P_SUB_BEYOND, PATHS };

typedef struct {
    int dim;
    int kind;
    uint32_t n;        /* for IN_LATTICE: side^dim */
    double occupancy;  /* the main grid's target points per cell; 0: the library's */
    int64_t crowded;   /* cells of more points are crowded; 0: the library's */
    int must;          /* a path (P_*) the case must take at least once */
} knn_case;

static const knn_case cases[] = {
    {2, IN_UNIFORM, 3000, 1.0, 0, P_RUN},     /* cells of about 1 point */
    {3, IN_UNIFORM, 3000, 1.0, 0, P_RUN},
    {2, IN_UNIFORM, 4000, 60.0, 0, P_ROWS},   /* blocks of hundreds of points */
    {3, IN_UNIFORM, 4000, 30.0, 0, P_ROWS},
    {3, IN_UNIFORM, 1500, 0.05, 0, P_BEYOND}, /* sparse cells: the rings beyond the block */
    {2, IN_BLOBS, 3000, 24.0, 32, P_SUB},     /* crowded cells searched sub-cell by sub-cell */
    {3, IN_BLOBS, 3000, 24.0, 32, P_SUB},
    {2, IN_BLOBS, 3000, 24.0, 32, P_SUB_BEYOND}, /* their points whose lists leave their cell */
    {3, IN_BLOBS, 3000, 24.0, 32, P_SUB_BEYOND},
    {2, IN_BLOBS, 3000, 60.0, 0, P_BESIDE},   /* cells beside crowded ones */
    {3, IN_BLOBS, 3000, 40.0, 0, P_BESIDE},
    {2, IN_NESTED, 3000, 40.0, 0, P_WALK},    /* grids nested in crowded cells */
    {3, IN_NESTED, 3000, 40.0, 0, P_WALK},
    {2, IN_LATTICE, 2500, 2.0, 0, P_RUN},     /* every distance tied */
    {3, IN_LATTICE, 2744, 2.0, 0, P_RUN},
    {2, IN_LATTICE, 2500, 80.0, 0, P_ROWS},
    {3, IN_LATTICE, 2744, 80.0, 0, P_ROWS},
    {3, IN_LATTICE, 2744, 80.0, 32, P_SUB},
    {2, IN_DUPLICATES, 3000, 4.0, 0, P_RUN},  /* 3 copies of each point */
    {3, IN_DUPLICATES, 3000, 40.0, 0, P_ROWS},
};
#define CASES ((int)(sizeof cases / sizeof cases[0]))
#define SEEDS 2

static double gaussian(uint64_t *seed)
{
    double u = rng_unit(seed), v = rng_unit(seed);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* The case's points, n * dim coordinates in caller order. */
static double *make_points(const knn_case *kc, uint64_t seed)
{
    static const double blob_sigma[3] = {0.03, 0.01, 0.003}, nested_sigma[3] = {0.03, 3e-5, 3e-8};
    const int dim = kc->dim, side = (int)lround(pow(kc->n, 1.0 / dim));
    double *c = xcalloc((size_t)kc->n * dim, sizeof *c), centre[3][3];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < dim; d++)
            centre[k][d] = 1.0 + 8.0 * rng_unit(&seed);
    REQUIRE(kc->kind != IN_LATTICE || lround(pow(side, dim)) == kc->n, "no lattice of %u points", kc->n);
    uint32_t *order = xcalloc(kc->n, sizeof *order); /* lattice ids shuffled, so that ties are not in row order */
    for (uint32_t i = 0; i < kc->n; i++)
        order[i] = i;
    for (uint32_t i = kc->n; i > 1; i--) {
        const uint32_t j = (uint32_t)rng_below(&seed, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < kc->n; i++) {
        double *p = &c[(size_t)i * dim];
        for (int d = 0, rest = (int)order[i]; d < dim; d++, rest /= side) {
            if (kc->kind == IN_LATTICE)
                p[d] = 0.25 * (double)(rest % side);
            else if (kc->kind == IN_BLOBS && i % 5 != 0)
                p[d] = centre[i % 3][d] + blob_sigma[i % 3] * gaussian(&seed);
            else if (kc->kind == IN_NESTED && i % 5 != 0)
                p[d] = centre[0][d] + nested_sigma[i % 3] * gaussian(&seed);
            else if (kc->kind == IN_DUPLICATES && i % 3 != 0)
                p[d] = c[(size_t)(i - i % 3) * dim + d]; /* a copy of the last point whose id is a multiple of 3 */
            else
                p[d] = 10.0 * rng_unit(&seed);
        }
    }
    free(order);
    return c;
}

/* The grid of the case's points by the CPU build. */
static void build(const knn_case *kc, const double *coords, gemst_cpu_grid *cg)
{
    gemst_problem pb;
    gridemst_error err = {0};
    gridemst_stats st;
    memset(&pb, 0, sizeof pb);
    memset(&st, 0, sizeof st);
    pb.coords = coords;
    pb.dtype = GRIDEMST_FLOAT64;
    pb.n = kc->n;
    pb.dim = kc->dim;
    gridemst_options_init(&pb.opt);
    pb.opt.backend = GRIDEMST_BACKEND_CPU;
    pb.opt.nns = GRIDEMST_NNS_GRID;
    pb.opt.precision = GEMST_REAL_IS_DOUBLE ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
    pb.opt.tuning.cell_occupancy = kc->occupancy;
    pb.opt.tuning.crowded_cell = kc->crowded;
    REQUIRE(GEMST_FN(gemst_cpu_grid_build)(&pb, 1, cg, &st, &err) == GRIDEMST_OK, "grid build: %s", err.message);
    REQUIRE(kc->kind != IN_DUPLICATES || cg->n_dup > 0, "no duplicates removed");
}

/* The path query qq's search took, given what cell_knn reported. */
static int path_of(const cell_block *cb, int blocked, int in_block)
{
    if (!blocked)
        return P_WALK;
    if (!cb->sub && cb->crowds > 0)
        return P_BESIDE;
    if (!in_block)
        return cb->sub ? P_SUB_BEYOND : P_BEYOND;
    return cb->sub ? P_SUB : cb->m ? P_RUN : P_ROWS;
}

/* Every point's list, by the backend's loop over cells and groups, against
 * the brute force. */
START_TEST(test_static_knn)
{
    const knn_case *kc = &cases[_i / SEEDS];
    double *coords = make_points(kc, 300u + (uint64_t)_i);
    gemst_cpu_grid cg;
    build(kc, coords, &cg);
    const gemst_grid *g = &cg.g;
    uint32_t paths[PATHS] = {0}, searched = 0;
    for (uint32_t cell = 0; cell < gemst_grid_cells(g->nc); cell++) {
        knn_groups it;
        cell_block cb;
        uint32_t first, last;
        int blocked;
        GEMST_FN(knn_groups_begin)(g, cell, &it);
        while (GEMST_FN(knn_groups_next)(g, &it, &cb, &first, &last, &blocked)) {
            for (uint32_t q = first; q < last; q++, searched++) {
                gemst_query qq;
                gemst_real kd2[GEMST_KNN];
                uint32_t kid[GEMST_KNN];
                neighbour nb[GEMST_KNN];
                int in_block;
                GEMST_FN(gemst_query_make)(g, q, &qq);
                REQUIRE(memcmp(qq.c, it.cc, sizeof qq.c) == 0, "point %u outside its cell", q);
                const int count = GEMST_FN(cell_knn)(g, &qq, blocked ? &cb : NULL, kd2, kid, &in_block);
                paths[path_of(&cb, blocked, in_block)]++;
                const int expected = brute_knn(g, q, nb);
                REQUIRE_CMP(count, ==, expected);
                for (int k = 0; k < count; k++)
                    REQUIRE(kid[k] == nb[k].p && kd2[k] == nb[k].d2,
                            "point %u: neighbour %d is %u (%a), expected %u (%a)", q, k, kid[k], (double)kd2[k],
                            nb[k].p, (double)nb[k].d2);
            }
        }
    }
    REQUIRE_CMP(searched, ==, g->n);
    REQUIRE(paths[kc->must] > 0,
            "case %d: path %d never taken (run %u, rows %u, sub %u, walk %u, beyond %u, beside %u, sub beyond %u)",
            _i / SEEDS, kc->must, paths[P_RUN], paths[P_ROWS], paths[P_SUB], paths[P_WALK], paths[P_BEYOND],
            paths[P_BESIDE], paths[P_SUB_BEYOND]);
    GEMST_FN(gemst_cpu_grid_free)(&cg);
    free(coords);
}
END_TEST

int main(void)
{
    Suite *s = suite_create(GEMST_REAL_IS_DOUBLE ? "static_knn_f64" : "static_knn_f32");
    TCase *tc = tcase_create("lists");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_static_knn, 0, CASES * SEEDS);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
