/*
 * Crowded cells and the far searches, double instance: the crowded cells'
 * own grids, and the grids nested in their crowded sub-cells, built by the
 * CPU backend (src/grid/subgrid.h,
 * src/cpu/cpu_grid.h), the searches that descend into them and skip their
 * own component's ranges (src/nns/walk.h, search.h), the row shells of
 * src/nns/ring.h, the fallback by chunks of a cell (src/nns/cell_fallback.h)
 * and the block labels that spare it searches (src/nns/block_labels.h).
 *
 * Grids come from the real CPU build, with a cell occupancy that crowds
 * over GEMST_CROWDED points (or a lower threshold) into some cells
 * (Gaussian blobs over uniform noise, a thin strip, a lattice full of equal
 * distances).  Every result is
 * compared with a brute force over all point pairs, with distances from
 * gemst_dist2 (the one formula the solver compares) and each point's main
 * cell read off the cell table, which test_crowded_build checks against
 * the coordinates.
 */
#define GEMST_REAL_IS_DOUBLE 1

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "grid/subgrid.h"
#include "nns/cell_fallback.h"
#include "nns/block_labels.h"
#include "nns/block.h"
#include "cpu/cpu_grid.h"
#include "brute_knn.h"

#define INF ((double)INFINITY)
#define SEEDS 3

/* ----------------------------------------------------------------- inputs and grids */

enum { IN_UNIFORM, IN_BLOBS, IN_STRIP, IN_LATTICE, IN_NESTED };

typedef struct {
    int dim;
    int kind;
    uint32_t n;         /* for IN_LATTICE: side^dim */
    double occupancy;   /* the main grid's target points per cell; 0: default */
    int64_t crowded;    /* cells of more points are crowded; 0: default (GEMST_CROWDED) */
    int depth;          /* grids inside one another the case must reach (test_crowded_build); 0: any */
} crowd_case;

/* Each case crowds some cells (test_crowded_build requires it). */
static const crowd_case crowd_cases[] = {
    {2, IN_BLOBS, 3000, 2000.0, 0, 0},
    {3, IN_BLOBS, 3000, 1500.0, 0, 0},
    {2, IN_BLOBS, 3000, 60.0, 0, 0},   /* many main cells around crowded ones */
    {3, IN_BLOBS, 2400, 40.0, 0, 0},
    {2, IN_STRIP, 2000, 1500.0, 0, 0},
    {3, IN_STRIP, 2000, 1500.0, 0, 0},
    {2, IN_LATTICE, 1600, 1500.0, 0, 0},
    {3, IN_LATTICE, 1728, 1500.0, 0, 0},
    {2, IN_BLOBS, 3000, 24.0, 32, 0},  /* a low threshold (what the GPU picks for sparse sets) */
    {3, IN_BLOBS, 2400, 24.0, 32, 0},
    {3, IN_UNIFORM, 2000, 48.0, 32, 0},
    {2, IN_NESTED, 3000, 40.0, 0, 3}, /* blobs inside blobs: grids nested in grids */
    {3, IN_NESTED, 3000, 40.0, 0, 3},
};
#define CROWD_CASES ((int)(sizeof crowd_cases / sizeof crowd_cases[0]))

/* Default occupancy: grids of many cells for the row shells. */
static const crowd_case shell_cases[] = {
    {2, IN_UNIFORM, 600, 0.0, 0, 0},
    {3, IN_UNIFORM, 700, 0.0, 0, 0},
    {2, IN_BLOBS, 500, 0.0, 0, 0},
    {3, IN_STRIP, 400, 0.0, 0, 0},
    {2, IN_LATTICE, 400, 0.0, 0, 0},
    {3, IN_LATTICE, 512, 0.0, 0, 0},
};
#define SHELL_CASES ((int)(sizeof shell_cases / sizeof shell_cases[0]))

#define BLOBS 3
#define SPAN 10.0
static const double blob_sigma[BLOBS] = {0.03, 0.01, 0.003};
/* IN_NESTED: blobs of these widths around one centre, each far narrower
 * than the cells of the grid around it. */
static const double nested_sigma[BLOBS] = {0.03, 3e-5, 3e-8};

typedef struct {
    gemst_cpu_grid cg;
    const gemst_grid *g;  /* &cg.g */
    uint32_t n;
    gemst_cells top;
    int32_t (*cell)[3];   /* each grid point's main cell, from the cell table */
    uint32_t *region;     /* each grid point's region of the generator (blob, slab) */
    uint32_t regions;
    double *input;        /* caller coordinates, n * dim */
} crowd_grid;

static double gaussian(uint64_t *seed)
{
    double u = rng_unit(seed), v = rng_unit(seed);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static int lattice_side(const crowd_case *cc)
{
    return (int)lround(pow((double)cc->n, 1.0 / cc->dim));
}

/* The case's input in caller order (n * dim) and each point's region:
 * blobs: the nearest blob centre (noise included), so that regions are
 * Voronoi cells; strip, uniform and lattice: slabs along x. */
static double *make_input(const crowd_case *cc, uint64_t *seed, uint32_t *region, uint32_t *regions)
{
    const int dim = cc->dim;
    double *c = xcalloc((size_t)cc->n * dim, sizeof *c);
    double centre[BLOBS][3];
    for (int k = 0; k < BLOBS; k++)
        for (int d = 0; d < dim; d++)
            centre[k][d] = 1.0 + rng_unit(seed) * (SPAN - 2.0);
    const int side = lattice_side(cc);
    REQUIRE(cc->kind != IN_LATTICE || lround(pow(side, dim)) == cc->n, "no lattice of %u points", cc->n);
    uint32_t *order = xcalloc(cc->n, sizeof *order); /* lattice: shuffled, so that ids do not follow rows */
    for (uint32_t i = 0; i < cc->n; i++)
        order[i] = i;
    for (uint32_t i = cc->n; i > 1; i--) {
        uint32_t j = (uint32_t)rng_below(seed, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    *regions = cc->kind == IN_BLOBS || cc->kind == IN_NESTED ? BLOBS : cc->kind == IN_STRIP ? 4 : 3;
    for (uint32_t i = 0; i < cc->n; i++) {
        double *p = &c[(size_t)i * dim];
        for (int d = 0, rest = (int)order[i]; d < dim; d++, rest /= side) {
            if (cc->kind == IN_LATTICE)
                p[d] = 0.5 * (double)(rest % side);
            else if (cc->kind == IN_STRIP)
                p[d] = d == 0 ? rng_unit(seed) * 100.0 : rng_unit(seed) * 0.01;
            else if (cc->kind == IN_BLOBS && i % 5 != 0) /* 80% in the blobs */
                p[d] = centre[i % BLOBS][d] + blob_sigma[i % BLOBS] * gaussian(seed);
            else if (cc->kind == IN_NESTED && i % 5 != 0)
                p[d] = centre[0][d] + nested_sigma[i % BLOBS] * gaussian(seed);
            else
                p[d] = rng_unit(seed) * SPAN;
        }
        if (cc->kind == IN_NESTED) {
            region[i] = i % 5 != 0 ? i % BLOBS : 0;
        } else if (cc->kind == IN_BLOBS) {
            double best = INF;
            for (uint32_t k = 0; k < BLOBS; k++) {
                double s = 0.0;
                for (int d = 0; d < dim; d++)
                    s += (p[d] - centre[k][d]) * (p[d] - centre[k][d]);
                if (s < best) {
                    best = s;
                    region[i] = k;
                }
            }
        } else {
            double top = cc->kind == IN_STRIP ? 100.0 : cc->kind == IN_LATTICE ? 0.5 * side : SPAN;
            uint32_t r = (uint32_t)(p[0] / top * *regions);
            region[i] = r < *regions ? r : *regions - 1;
        }
    }
    free(order);
    return c;
}

static void cell_coords_of(const int32_t nc[3], uint64_t k, int32_t c[3])
{
    c[0] = (int32_t)(k % (uint64_t)nc[0]);
    c[1] = (int32_t)(k / (uint64_t)nc[0] % (uint64_t)nc[1]);
    c[2] = (int32_t)(k / ((uint64_t)nc[0] * (uint64_t)nc[1]));
}

/* The case's grid by the CPU build (one thread; test_grid compares thread
 * counts). */
static void crowd_grid_make(const crowd_case *cc, uint64_t seed, crowd_grid *h)
{
    gemst_problem pb;
    memset(&pb, 0, sizeof pb); /* what is not set below is empty: no frame given, no context */
    gridemst_error err = {0};
    gridemst_stats st;
    uint32_t *region = xcalloc(cc->n, sizeof *region);
    memset(h, 0, sizeof *h);
    h->input = make_input(cc, &seed, region, &h->regions);
    pb.coords = h->input;
    pb.dtype = GRIDEMST_FLOAT64;
    pb.n = cc->n;
    pb.dim = cc->dim;
    gridemst_options_init(&pb.opt);
    pb.opt.backend = GRIDEMST_BACKEND_CPU;
    pb.opt.nns = GRIDEMST_NNS_GRID;
    pb.opt.precision = GRIDEMST_PRECISION_DOUBLE;
    pb.opt.tuning.cell_occupancy = cc->occupancy;
    pb.opt.tuning.crowded_cell = cc->crowded;
    memset(&st, 0, sizeof st);
    REQUIRE(gemst_cpu_grid_build_f64(&pb, 1, &h->cg, &st, &err) == GRIDEMST_OK, "grid build: %s", err.message);
    h->g = &h->cg.g;
    h->n = h->g->n;
    REQUIRE(h->n == cc->n && h->cg.n_dup == 0, "%u unique points of %u", h->n, cc->n);
    REQUIRE_CMP(st.crowded_cells, ==, h->g->n_top);
    REQUIRE_CMP(st.nested_cells, ==, h->g->n_sub - h->g->n_top);
    gemst_top_cells_f64(h->g, &h->top);
    h->cell = xcalloc(h->n, sizeof *h->cell);
    h->region = xcalloc(h->n, sizeof *h->region);
    /* Bounded here against a broken build: test_crowded_build checks it. */
    const uint64_t cells = gemst_grid_cells(h->g->nc);
    for (uint64_t k = 0; k < cells; k++)
        for (uint32_t p = h->g->cell_start[k]; p < h->g->cell_start[k + 1] && p < h->n; p++)
            cell_coords_of(h->g->nc, k, h->cell[p]);
    for (uint32_t p = 0; p < h->n; p++)
        h->region[p] = region[h->g->oid[p] < cc->n ? h->g->oid[p] : 0];
    free(region);
}

static void crowd_grid_free(crowd_grid *h)
{
    gemst_cpu_grid_free_f64(&h->cg);
    free(h->cell);
    free(h->region);
    free(h->input);
}

static int iabs(int32_t v)
{
    return v < 0 ? -v : v;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* Chebyshev distance between main cells a and c over the y/z axes only
 * (rows), and over all axes (rings). */
static int cheb_yz(const int32_t a[3], const int32_t c[3])
{
    return imax(iabs(a[1] - c[1]), iabs(a[2] - c[2]));
}

static int cheb(const int32_t a[3], const int32_t c[3])
{
    return imax(iabs(a[0] - c[0]), cheb_yz(a, c));
}

static gemst_edge_key pair_edge(const crowd_grid *h, uint32_t a, uint32_t b)
{
    return gemst_edge_make(gemst_dist2_f64(h->g, a, b), h->g->oid[a], h->g->oid[b]);
}

static int edge_same(gemst_edge_key a, gemst_edge_key b)
{
    return a.d2 == b.d2 && a.lo == b.lo && a.hi == b.hi;
}

/* breaks[i]: the component changes between consecutive points up to i
 * (nns/walk.h), counted here by their definition. */
static void count_breaks(const uint32_t *comp, uint32_t n, uint32_t *breaks)
{
    for (uint32_t i = 0; i < n; i++)
        breaks[i] = (i > 0 ? breaks[i - 1] : 0) + (i > 0 && comp[i] != comp[i - 1]);
}

/* Component labels by grid point, values below the returned count: drawn
 * at random, slabs along x, or the generator's regions (the last two leave
 * whole cells and rows in one component). */
enum { LABEL_RANDOM, LABEL_SLABS, LABEL_REGIONS, LABELINGS };

static uint32_t make_labels(const crowd_grid *h, int how, uint64_t *seed, uint32_t *comp)
{
    const double xmax = h->cg.frame.extent[0];
    for (uint32_t p = 0; p < h->n; p++) {
        if (how == LABEL_RANDOM) {
            comp[p] = (uint32_t)rng_below(seed, 3);
        } else if (how == LABEL_SLABS) {
            uint32_t s = (uint32_t)((h->g->x[p] - h->cg.frame.lo[0]) / xmax * 3.0);
            comp[p] = s < 3 ? s : 2;
        } else {
            comp[p] = h->region[p];
        }
    }
    return how == LABEL_REGIONS ? h->regions : 3;
}

/* ----------------------------------------------------------------- 1. the build */

/* The main cell table: points in their cells' bounds, with their input
 * coordinates in the working frame and caller ids forming a permutation
 * (a crowded cell's sort must move coordinates and ids together). */
static void check_main_cells(const crowd_grid *h, const crowd_case *cc)
{
    const gemst_grid *g = h->g;
    const uint64_t cells = gemst_grid_cells(g->nc);
    uint8_t *seen = xcalloc(h->n, 1);
    REQUIRE_CMP(g->cell_start[0], ==, 0);
    REQUIRE_CMP(g->cell_start[cells], ==, h->n);
    for (uint64_t k = 0; k < cells; k++)
        REQUIRE_CMP(g->cell_start[k], <=, g->cell_start[k + 1]);
    for (uint32_t p = 0; p < h->n; p++) {
        const uint32_t id = g->oid[p];
        REQUIRE(id < h->n && !seen[id]++, "caller id %u repeated or out of range", id);
        const double v[3] = {g->x[p], g->y[p], cc->dim == 3 ? g->z[p] : 0.0};
        for (int d = 0; d < cc->dim; d++) {
            const double w = (h->input[(size_t)id * cc->dim + d] - h->cg.frame.origin[d]) * h->cg.frame.scale;
            const int32_t c = h->cell[p][d];
            REQUIRE(v[d] == w, "point %u (id %u) axis %d: %a, its input gives %a", p, id, d, v[d], w);
            REQUIRE(gemst_cell_lo_f64(&h->top, d, c) <= v[d] && v[d] < gemst_cell_lo_f64(&h->top, d, c + 1),
                    "point %u axis %d: %a outside its cell %d", p, d, v[d], c);
        }
    }
    free(seen);
}

/* The crowded cells: exactly those over the threshold, listed in
 * ascending order, in the bitmap, and indexed by gemst_crowded_index; their
 * tables follow one another. */
static void check_crowded_list(const crowd_grid *h)
{
    const gemst_grid *g = h->g;
    const uint64_t cells = gemst_grid_cells(g->nc);
    uint32_t crowded = 0;
    for (uint64_t k = 0; k < cells; k++)
        crowded += g->cell_start[k + 1] - g->cell_start[k] > g->crowded;
    REQUIRE_CMP(g->n_top, ==, crowded);
    REQUIRE(crowded > 0, "no cell over %u points: the case exercises nothing", g->crowded);
    for (uint64_t k = 0; k < gemst_crowd_words(cells) * 64; k++) {
        const int want = k < cells && g->cell_start[k + 1] - g->cell_start[k] > g->crowded;
        REQUIRE((int)((g->crowd[k / 64].bits >> (k % 64)) & 1) == want, "bitmap bit %llu: want %d",
                (unsigned long long)k, want);
    }
    uint32_t table = 0;
    for (uint32_t k = 0; k < g->n_top; k++) {
        const uint32_t cell = g->sub_cell[k];
        REQUIRE(k == 0 || g->sub_cell[k - 1] < cell, "crowded cells %u and %u out of order", k - 1, k);
        REQUIRE_CMP(cell, <, cells);
        REQUIRE_CMP(g->cell_start[cell + 1] - g->cell_start[cell], >, g->crowded);
        REQUIRE_CMP(gemst_crowded_index(g->crowd, cell), ==, k);
        REQUIRE_CMP(g->sub[k].table, ==, table);
        table += gemst_subgrid_table_size_f64(&g->sub[k]);
    }
}

/* The grid whose table holds position t of sub_start. */
static uint32_t grid_of_position(const gemst_grid *g, uint32_t t)
{
    uint32_t k = 0;
    while (k + 1 < g->n_sub && g->sub[k + 1].table <= t)
        k++;
    return k;
}

/* The nested grids: every sub-cell over GEMST_NEST_CROWDED points whose
 * own plan divides it has one, and no other (the bitmap and
 * gemst_nested_index say which), listed level by level in sub_start order
 * after the main cells', at most GEMST_NEST_DEPTH grids deep; their tables
 * follow one another.  Returns the deepest level (1: no nesting). */
static int check_nested_list(const crowd_grid *h)
{
    const gemst_grid *g = h->g;
    uint32_t next = g->n_top, table = 0;
    int deepest = 1;
    int *level = xcalloc(g->n_sub, sizeof *level);
    for (uint32_t k = 0; k < g->n_sub; k++)
        if (k < g->n_top)
            level[k] = 1;
    for (uint32_t k = 0; k < g->n_sub; k++) {
        REQUIRE_CMP(g->sub[k].table, ==, table);
        const uint32_t size = gemst_subgrid_table_size_f64(&g->sub[k]);
        if (k >= g->n_top) {
            const uint32_t t = g->sub_cell[k];
            REQUIRE(k == g->n_top || g->sub_cell[k - 1] < t, "nested grids %u and %u out of order", k - 1, k);
            level[k] = level[grid_of_position(g, t)] + 1;
            deepest = imax(deepest, level[k]);
            REQUIRE(level[k] <= GEMST_NEST_DEPTH, "grid %u is %d deep", k, level[k]);
        }
        for (uint32_t t = table; t + 1 < table + size; t++) {
            const uint32_t count = g->sub_start[t + 1] - g->sub_start[t];
            int want = 0;
            if (count > GEMST_NEST_CROWDED && level[k] < GEMST_NEST_DEPTH) {
                gemst_subgrid sg;
                double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
                for (int d = 0; d < g->dim; d++) {
                    const double *axis = d == 0 ? g->x : d == 1 ? g->y : g->z;
                    lo[d] = INF;
                    hi[d] = -INF;
                    for (uint32_t p = g->sub_start[t]; p < g->sub_start[t + 1]; p++) {
                        lo[d] = fmin(lo[d], axis[p]);
                        hi[d] = fmax(hi[d], axis[p]);
                    }
                }
                gemst_subgrid_plan_f64(g->dim, lo, hi, count, &sg);
                want = gemst_subgrid_divides_f64(&sg);
            }
            const int32_t nested = gemst_nested_index_f64(g, t);
            REQUIRE((nested >= 0) == want, "sub-cell at %u (%u points): nested %d, want %d", t, count, nested, want);
            if (want) {
                REQUIRE_CMP(nested, ==, (int32_t)next);
                REQUIRE_CMP(g->sub_cell[next], ==, t);
                next++;
            }
        }
        table += size;
    }
    REQUIRE_CMP(next, ==, g->n_sub);
    free(level);
    return deepest;
}

/* Grid k (a crowded cell's or a nested sub-cell's): its table spans the
 * cell's points in order, and each point lies in the faces of its
 * sub-cell. */
static void check_subgrid(const crowd_grid *h, uint32_t k)
{
    const gemst_grid *g = h->g;
    uint32_t b, e;
    gemst_sub_range_f64(g, k, &b, &e);
    const uint32_t size = gemst_subgrid_table_size_f64(&g->sub[k]);
    gemst_cells sc;
    gemst_sub_cells_f64(g, k, &sc);
    for (int d = 0; d < 3; d++)
        REQUIRE(sc.nc[d] >= 1 && (d < g->dim || sc.nc[d] == 1), "crowded cell %u axis %d: %d cells", k, d, sc.nc[d]);
    REQUIRE_CMP(size, ==, (uint32_t)sc.nc[0] * sc.nc[1] * sc.nc[2] + 1);
    REQUIRE(sc.start[0] == b && sc.start[size - 1] == e, "crowded cell %u: table [%u, %u], points [%u, %u)", k,
            sc.start[0], sc.start[size - 1], b, e);
    for (uint32_t j = 0; j + 1 < size; j++) {
        int32_t jc[3];
        REQUIRE_CMP(sc.start[j], <=, sc.start[j + 1]);
        cell_coords_of(sc.nc, j, jc);
        for (uint32_t p = sc.start[j]; p < sc.start[j + 1]; p++) {
            const double v[3] = {g->x[p], g->y[p], g->dim == 3 ? g->z[p] : 0.0};
            for (int d = 0; d < g->dim; d++)
                REQUIRE(gemst_cell_lo_f64(&sc, d, jc[d]) <= v[d] && v[d] < gemst_cell_lo_f64(&sc, d, jc[d] + 1),
                        "crowded cell %u: point %u axis %d at %a outside sub-cell %d [%a, %a)", k, p, d, v[d],
                        jc[d], gemst_cell_lo_f64(&sc, d, jc[d]), gemst_cell_lo_f64(&sc, d, jc[d] + 1));
        }
    }
}

START_TEST(test_crowded_build)
{
    const crowd_case *cc = &crowd_cases[_i / SEEDS];
    crowd_grid h;
    crowd_grid_make(cc, 100u + (uint64_t)_i, &h);
    check_main_cells(&h, cc);
    check_crowded_list(&h);
    const int depth = check_nested_list(&h);
    REQUIRE(depth >= cc->depth, "grids %d deep, the case wants %d", depth, cc->depth);
    for (uint32_t k = 0; k < h.g->n_sub; k++)
        check_subgrid(&h, k);
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- 2. K nearest */

/* Whether grid point q lies in a crowded main cell. */
static int crowded_cell_of(const crowd_grid *h, uint32_t q)
{
    const uint32_t cell = gemst_cell_index(h->g->nc, h->cell[q][0], h->cell[q][1], h->cell[q][2]);
    return h->g->cell_start[cell + 1] - h->g->cell_start[cell] > h->g->crowded;
}

/* Every point's K nearest through crowded cells: exactly the brute force's,
 * in order, from the walk (gemst_knn), and from the GPU's block pass
 * (nns/block.h) where it settles the query.  With cells crowded from 32
 * points (as --crowded 32 sets them) it must settle some queries in
 * crowded cells, from their cell's own grid. */
START_TEST(test_crowded_knn)
{
    const crowd_case *cc = &crowd_cases[_i / SEEDS];
    crowd_grid h;
    crowd_grid_make(cc, 200u + (uint64_t)_i, &h);
    uint32_t settled = 0; /* queries in crowded cells the block pass settled */
    for (uint32_t q = 0; q < h.n; q++) {
        gemst_query qq;
        double kd2[GEMST_KNN];
        uint32_t kid[GEMST_KNN];
        neighbour nb[GEMST_KNN];
        gemst_query_make_f64(h.g, q, &qq);
        const int expected = brute_knn(h.g, q, nb);
        for (int pass = 0; pass < 2; pass++) {
            const int count = pass == 0 ? gemst_knn_f64(h.g, &qq, gemst_knn_k(h.g->dim), kd2, kid)
                                        : gemst_block_search_f64(h.g, &qq, gemst_knn_k(h.g->dim), UINT32_MAX - 1,
                                                                 kd2, kid);
            if (count < 0) /* the block pass left the query to the walk */
                continue;
            settled += pass == 1 && crowded_cell_of(&h, q);
            REQUIRE_CMP(count, ==, expected);
            for (int k = 0; k < count; k++)
                REQUIRE(kid[k] == nb[k].p && kd2[k] == nb[k].d2,
                        "query %u (pass %d): neighbour %d is %u (%a), expected %u (%a)", q, pass, k, kid[k], kd2[k],
                        nb[k].p, nb[k].d2);
        }
    }
    if (cc->crowded > 0)
        REQUIRE(settled > 0, "the block pass settled no query in a crowded cell");
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- 3. nearest foreign point */

static const int caps[] = {0, 1, 2, INT32_MAX};
#define CAPS ((int)(sizeof caps / sizeof caps[0]))

/* For one query and labelling: its nearest point of another component (edge
 * order) within rings 0..caps[c] of its cell and within squared distance
 * `prune`; GEMST_NONE where there is none. */
typedef struct {
    gemst_edge_key best[CAPS];
    uint32_t to[CAPS];
} foreign_truth;

static foreign_truth brute_foreign(const crowd_grid *h, uint32_t q, const double *d2, const int *ring,
                                   const uint32_t *comp, double prune)
{
    foreign_truth t;
    for (int c = 0; c < CAPS; c++) {
        t.best[c] = gemst_edge_none();
        t.to[c] = GEMST_NONE;
    }
    for (uint32_t p = 0; p < h->n; p++) {
        if (comp[p] == comp[q] || d2[p] > prune)
            continue;
        gemst_edge_key e = gemst_edge_make(d2[p], h->g->oid[q], h->g->oid[p]);
        for (int c = 0; c < CAPS; c++)
            if (ring[p] <= caps[c] && gemst_edge_less(e, t.best[c])) {
                t.best[c] = e;
                t.to[c] = p;
            }
    }
    return t;
}

/* One search against the brute force: with an infinite bound the nearest
 * foreign point within the shared bound (if any) that beats the start edge;
 * with a finite one (only under a ring cap) the same within the capped
 * rings, and no point outside them nearer than the bound.  The shared word
 * ends lowered to the result when the search improved on the start. */
static void check_foreign_call(const crowd_grid *h, const gemst_query *qq, const uint32_t *comp,
                               const uint32_t *breaks, int c, gemst_edge_key start, double shared_d2,
                               const foreign_truth *truth, const double outside[CAPS])
{
    gemst_word1 word = gemst_edge_word1(shared_d2);
    gemst_edge_key best = start;
    uint32_t to = GEMST_NONE;
    double rb2 = gemst_nearest_foreign_f64(h->g, qq, comp, breaks, comp[qq->idx], gemst_slab_full_mask(h->g->dim),
                                           caps[c], shared_d2 < INF ? &word : NULL, &best, &to);
    const int k = rb2 == INF ? CAPS - 1 : c; /* exact, or within the capped rings */
    if (rb2 != INF) {
        REQUIRE(caps[c] != INT32_MAX, "query %u: search without cap returned bound %a", qq->idx, rb2);
        REQUIRE(rb2 <= outside[c], "query %u cap %d: bound %a above a point outside at %a", qq->idx, caps[c], rb2,
                outside[c]);
    }
    const int beats = gemst_edge_less(truth->best[k], start);
    const gemst_edge_key want = beats ? truth->best[k] : start;
    const uint32_t want_to = beats ? truth->to[k] : GEMST_NONE;
    REQUIRE(edge_same(best, want) && to == want_to,
            "query %u cap %d breaks %d shared %a start %a: got (%a, %u, %u) to %u, expected (%a, %u, %u) to %u",
            qq->idx, caps[c], breaks != NULL, shared_d2, start.d2, best.d2, best.lo, best.hi, to, want.d2, want.lo,
            want.hi, want_to);
    if (shared_d2 < INF) {
        const double lowered = to != GEMST_NONE && best.d2 < shared_d2 ? best.d2 : shared_d2;
        REQUIRE(gemst_edge_word1_value(word) == lowered, "query %u: shared bound %a, expected %a", qq->idx,
                gemst_edge_word1_value(word), lowered);
    }
}

/*
 * gemst_nearest_foreign through crowded cells, under every labelling, with
 * and without breaks (skipping own ranges must lose nothing), each ring
 * cap, no start edge or a random incumbent, and no shared bound or one at,
 * above or below the true nearest foreign distance (pruning by it must keep
 * everything within it).
 */
START_TEST(test_crowded_nearest_foreign)
{
    const crowd_case *cc = &crowd_cases[_i / SEEDS];
    uint64_t seed = 300u + (uint64_t)_i;
    crowd_grid h;
    crowd_grid_make(cc, seed, &h);
    const uint32_t n = h.n, step = n / 700 + 1;
    uint32_t *comp[LABELINGS], *breaks[LABELINGS];
    double *d2 = xcalloc(n, sizeof *d2);
    int *ring = xcalloc(n, sizeof *ring);
    for (int l = 0; l < LABELINGS; l++) {
        comp[l] = xcalloc(n, sizeof *comp[l]);
        breaks[l] = xcalloc(n, sizeof *breaks[l]);
        make_labels(&h, l, &seed, comp[l]);
        count_breaks(comp[l], n, breaks[l]);
    }
    for (uint32_t q = (uint32_t)rng_below(&seed, step); q < n; q += step) {
        gemst_query qq;
        double outside[CAPS] = {INF, INF, INF, INF};
        gemst_query_make_f64(h.g, q, &qq);
        REQUIRE(cheb(qq.c, h.cell[q]) == 0 && qq.idx == q && qq.oid == h.g->oid[q], "query %u: wrong cell or ids", q);
        for (uint32_t p = 0; p < n; p++) {
            d2[p] = gemst_dist2_f64(h.g, q, p);
            ring[p] = cheb(h.cell[p], h.cell[q]);
            for (int c = 0; c < CAPS; c++)
                if (ring[p] > caps[c] && d2[p] < outside[c])
                    outside[c] = d2[p];
        }
        const gemst_edge_key starts[2] = {gemst_edge_none(), pair_edge(&h, q, (uint32_t)rng_below(&seed, n))};
        for (int l = 0; l < LABELINGS; l++) {
            const foreign_truth open = brute_foreign(&h, q, d2, ring, comp[l], INF);
            const double factor[3] = {0.5, 1.0, 1.5};
            const double shared = open.best[CAPS - 1].d2 * factor[rng_below(&seed, 3)];
            const foreign_truth pruned = brute_foreign(&h, q, d2, ring, comp[l], shared);
            for (int b = 0; b < 2; b++)
                for (int c = 0; c < CAPS; c++)
                    for (int s = 0; s < 2; s++) {
                        check_foreign_call(&h, &qq, comp[l], b ? breaks[l] : NULL, c, starts[s], INF, &open, outside);
                        check_foreign_call(&h, &qq, comp[l], b ? breaks[l] : NULL, c, starts[s], shared, &pruned,
                                           outside);
                    }
        }
    }
    for (int l = 0; l < LABELINGS; l++) {
        free(comp[l]);
        free(breaks[l]);
    }
    free(d2);
    free(ring);
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- 4. row shells */

/* A query box (a point when lo == hi, else a cell's faces) and its cell. */
typedef struct {
    double lo[3], hi[3];
    int32_t c[3];
} box_query;

/* The cell of v along axis d by the definition: the last whose low face is
 * at most v. */
static int32_t ref_cell(const gemst_cells *cg, int d, double v)
{
    int32_t c = 0;
    while (c + 1 < cg->nc[d] && gemst_cell_lo_f64(cg, d, c + 1) <= v)
        c++;
    return c;
}

/* A random point of the grid's box or a copy of a grid point (which may
 * lie on cell faces), or a random cell as a box. */
static box_query random_query(const crowd_grid *h, int as_cell, uint64_t *seed)
{
    box_query bq;
    memset(&bq, 0, sizeof bq);
    const uint32_t p = (uint32_t)rng_below(seed, h->n);
    const int copy = rng_below(seed, 2);
    for (int d = 0; d < h->g->dim; d++) {
        if (as_cell) {
            bq.c[d] = (int32_t)rng_below(seed, (uint64_t)h->g->nc[d]);
            bq.lo[d] = gemst_cell_lo_f64(&h->top, d, bq.c[d]);
            bq.hi[d] = gemst_cell_lo_f64(&h->top, d, bq.c[d] + 1);
        } else {
            const double v = d == 0 ? h->g->x[p] : d == 1 ? h->g->y[p] : h->g->z[p];
            bq.lo[d] = bq.hi[d] = copy ? v : rng_unit(seed) * gemst_cell_lo_f64(&h->top, d, h->g->nc[d]);
            bq.c[d] = ref_cell(&h->top, d, bq.lo[d]);
        }
    }
    return bq;
}

/* Squared distance from the box to grid point p. */
static double box_d2(const crowd_grid *h, const box_query *bq, uint32_t p)
{
    const double v[3] = {h->g->x[p], h->g->y[p], h->g->dim == 3 ? h->g->z[p] : 0.0};
    double s = 0.0;
    for (int d = 0; d < h->g->dim; d++) {
        double gap = v[d] < bq->lo[d] ? bq->lo[d] - v[d] : v[d] > bq->hi[d] ? v[d] - bq->hi[d] : 0.0;
        s += gap * gap;
    }
    return s;
}

/* Counts in seen[] the points of one range, lowering *bound2 to their
 * distances when shrink is set. */
static void visit_range(const crowd_grid *h, const box_query *bq, uint32_t b, uint32_t e, double *bound2, int shrink,
                        uint32_t *seen)
{
    REQUIRE(b < e && e <= h->n, "range [%u, %u) of %u points", b, e, h->n);
    for (uint32_t p = b; p < e; p++) {
        seen[p]++;
        if (shrink && box_d2(h, bq, p) < *bound2)
            *bound2 = box_d2(h, bq, p);
    }
}

/* Ring r's ranges: every point at ring r. */
static void visit_ring(const crowd_grid *h, const box_query *bq, int r, double *bound2, int shrink, uint32_t *seen)
{
    gemst_ring it;
    uint32_t b, e;
    gemst_ring_begin_f64(&h->top, bq->c, r, &it);
    while (gemst_ring_next_f64(&h->top, bq->lo, bq->hi, &it, *bound2, &b, &e)) {
        for (uint32_t p = b; p < e; p++)
            REQUIRE(cheb(h->cell[p], bq->c) == r, "ring %d returned point %u at ring %d", r, p,
                    cheb(h->cell[p], bq->c));
        visit_range(h, bq, b, e, bound2, shrink, seen);
    }
}

/* Whether rings 0..r0 and shells 0..s cover grid point p. */
static int covered(const crowd_grid *h, const box_query *bq, uint32_t p, int r0, int s)
{
    return cheb(h->cell[p], bq->c) <= r0 || cheb_yz(h->cell[p], bq->c) <= s;
}

/* Shell s's ranges after rings 0..r0: every point in a row of shell s and
 * outside those rings. */
static void visit_shell(const crowd_grid *h, const box_query *bq, int s, int r0, double *bound2, int shrink,
                        uint32_t *seen)
{
    gemst_shell it;
    uint32_t b, e;
    gemst_shell_begin_f64(&h->top, bq->c, s, r0, &it);
    while (gemst_shell_next_f64(&h->top, bq->lo, bq->hi, &it, *bound2, &b, &e)) {
        for (uint32_t p = b; p < e; p++)
            REQUIRE(cheb_yz(h->cell[p], bq->c) == s && !covered(h, bq, p, r0, s - 1),
                    "shell %d (rings 0..%d) returned point %u of cell (%d, %d, %d), query cell (%d, %d, %d)", s, r0, p,
                    h->cell[p][0], h->cell[p][1], h->cell[p][2], bq->c[0], bq->c[1], bq->c[2]);
        visit_range(h, bq, b, e, bound2, shrink, seen);
    }
}

/* The last shell with rows in the grid. */
static int last_shell(const crowd_grid *h, const box_query *bq)
{
    int m = 0;
    for (int d = 1; d < h->g->dim; d++)
        m = imax(m, imax(bq->c[d], h->g->nc[d] - 1 - bq->c[d]));
    return m;
}

/* Infinite bound: after rings 0..r0 and each shell s, every covered point
 * seen exactly once and no other; the outer bounds below every point
 * beyond, and infinite exactly when nothing lies beyond. */
static void check_shells_unbounded(const crowd_grid *h, const box_query *bq, int r0, uint32_t *seen)
{
    double bound2 = INF;
    memset(seen, 0, sizeof *seen * h->n);
    for (int r = 0; r <= r0; r++)
        visit_ring(h, bq, r, &bound2, 0, seen);
    const double ring_lb2 = gemst_ring_outer_lb2_f64(&h->top, bq->lo, bq->hi, bq->c, r0);
    for (uint32_t p = 0; p < h->n; p++)
        if (cheb(h->cell[p], bq->c) > r0)
            REQUIRE(ring_lb2 <= box_d2(h, bq, p), "rings 0..%d: bound %a above point %u at %a", r0, ring_lb2, p,
                    box_d2(h, bq, p));
    for (int s = 0; s <= last_shell(h, bq); s++) {
        visit_shell(h, bq, s, r0, &bound2, 0, seen);
        const double lb2 = gemst_shell_outer_lb2_f64(&h->top, bq->lo, bq->hi, bq->c, s);
        int rows_beyond = 0;
        for (int d = 1; d < h->g->dim; d++)
            rows_beyond |= bq->c[d] - s > 0 || bq->c[d] + s < h->g->nc[d] - 1;
        REQUIRE((lb2 < INF) == rows_beyond, "shell %d: bound %a with rows beyond: %d", s, lb2, rows_beyond);
        for (uint32_t p = 0; p < h->n; p++) {
            REQUIRE(seen[p] == (uint32_t)covered(h, bq, p, r0, s), "rings 0..%d shells 0..%d: point %u seen %u times",
                    r0, s, p, seen[p]);
            if (cheb_yz(h->cell[p], bq->c) > s)
                REQUIRE(lb2 <= box_d2(h, bq, p), "shell %d: bound %a above point %u at %a", s, lb2, p,
                        box_d2(h, bq, p));
        }
    }
}

/* A finite bound (fixed, or shrinking to the nearest point seen): every
 * point within it seen once, no point twice; shrinking ends at the
 * nearest point. */
static void check_shells_bounded(const crowd_grid *h, const box_query *bq, int r0, double bound2, int shrink,
                                 uint32_t *seen)
{
    const double start = bound2;
    double nearest = INF;
    memset(seen, 0, sizeof *seen * h->n);
    for (int r = 0; r <= r0; r++)
        visit_ring(h, bq, r, &bound2, shrink, seen);
    for (int s = 0; s <= last_shell(h, bq); s++)
        visit_shell(h, bq, s, r0, &bound2, shrink, seen);
    for (uint32_t p = 0; p < h->n; p++) {
        const double d2 = box_d2(h, bq, p);
        REQUIRE(seen[p] <= 1 && (d2 > start || shrink || seen[p] == 1), "rings 0..%d, bound %a: point %u at %a seen "
                "%u times", r0, start, p, d2, seen[p]);
        nearest = d2 < nearest ? d2 : nearest;
    }
    if (shrink)
        REQUIRE(bound2 == (nearest < start ? nearest : start), "rings 0..%d: shrinking ended at %a, nearest %a", r0,
                bound2, nearest);
}

START_TEST(test_row_shells)
{
    const crowd_case *cc = &shell_cases[_i / SEEDS];
    uint64_t seed = 400u + (uint64_t)_i;
    crowd_grid h;
    crowd_grid_make(cc, seed, &h);
    uint32_t *seen = xcalloc(h.n, sizeof *seen);
    for (int k = 0; k < 60; k++) {
        const box_query bq = random_query(&h, k % 2, &seed);
        for (int r0 = 0; r0 <= 2; r0++) {
            check_shells_unbounded(&h, &bq, r0, seen);
            check_shells_bounded(&h, &bq, r0, 0.0, 0, seen);
            check_shells_bounded(&h, &bq, r0, INF, 1, seen);
            for (int j = 0; j < 4; j++) {
                const double bound2 = box_d2(&h, &bq, (uint32_t)rng_below(&seed, h.n));
                check_shells_bounded(&h, &bq, r0, bound2, 0, seen);
                check_shells_bounded(&h, &bq, r0, bound2, 1, seen);
            }
        }
    }
    free(seen);
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- 5. whole-cell fallback */

/* Each point's nearest point of another component (edge order), over all
 * pairs. */
static void brute_point_foreign(const crowd_grid *h, const uint32_t *comp, gemst_edge_key *best, uint32_t *to)
{
    for (uint32_t p = 0; p < h->n; p++) {
        best[p] = gemst_edge_none();
        to[p] = GEMST_NONE;
    }
    for (uint32_t a = 0; a < h->n; a++)
        for (uint32_t b = a + 1; b < h->n; b++) {
            if (comp[a] == comp[b])
                continue;
            const gemst_edge_key e = pair_edge(h, a, b);
            if (gemst_edge_less(e, best[a])) {
                best[a] = e;
                to[a] = b;
            }
            if (gemst_edge_less(e, best[b])) {
                best[b] = e;
                to[b] = a;
            }
        }
}

/* A component's first-pass edge for the fallback (win_in/win_out) and the
 * shared bound its searches start from (w1). */
typedef struct {
    uint32_t in, out;
    double shared;
} first_pass;

enum { FIRST_NONE, FIRST_SHORTEST, FIRST_WORSE, FIRST_WORSE_SHARED_SHORTEST, FIRSTS };

/* none; the component's shortest edge (nothing beats it); the edge of a
 * random point of it to its nearest foreign point (usually longer); that
 * edge with the bound already lowered to the shortest by another search. */
static first_pass make_first(const crowd_grid *h, const uint32_t *comp, uint32_t k, const gemst_edge_key *pbest,
                             const uint32_t *pto, int how, uint64_t *seed)
{
    first_pass f = {GEMST_NONE, GEMST_NONE, INF};
    uint32_t shortest = GEMST_NONE, any;
    for (uint32_t p = 0; p < h->n; p++)
        if (comp[p] == k && (shortest == GEMST_NONE || gemst_edge_less(pbest[p], pbest[shortest])))
            shortest = p;
    if (how == FIRST_NONE || shortest == GEMST_NONE || pto[shortest] == GEMST_NONE)
        return f;
    do
        any = (uint32_t)rng_below(seed, h->n);
    while (comp[any] != k);
    const uint32_t in = how == FIRST_SHORTEST ? shortest : any;
    f.in = in;
    f.out = pto[in];
    f.shared = how == FIRST_WORSE_SHARED_SHORTEST ? pbest[shortest].d2 : pbest[in].d2;
    return f;
}

/*
 * One chunk fallback from the chunk [b, e) of a pure cell of component k
 * against the brute force: it returns the chunk's point with the shortest
 * edge to another component when that edge is within the shared bound and
 * beats the first-pass edge (and writes that point's best_d2/best_to), else
 * GEMST_NONE; it raises every chunk point's rb2 to at least the final bound
 * and never above the point's nearest foreign distance, and writes nothing
 * else; the shared word ends at the final bound.
 */
static void check_chunk_fallback(const crowd_grid *h, gemst_findmin1_state *st, uint32_t b, uint32_t e, uint32_t k,
                                const first_pass *f, const gemst_edge_key *pbest, const uint32_t *pto,
                                gemst_word1 *w1, uint32_t *win_in, uint32_t *win_out)
{
    const gemst_edge_key first = f->in == GEMST_NONE ? gemst_edge_none() : pair_edge(h, f->in, f->out);
    uint32_t want = GEMST_NONE;
    for (uint32_t p = b; p < e; p++)
        if (pbest[p].d2 <= f->shared && gemst_edge_less(pbest[p], first) &&
            (want == GEMST_NONE || gemst_edge_less(pbest[p], pbest[want])))
            want = p;
    win_in[k] = f->in;
    win_out[k] = f->out;
    w1[k] = gemst_edge_word1(f->shared);
    const uint32_t q = b + (uint32_t)((e - b) / 2);
    const uint32_t got = gemst_chunk_fallback_f64(h->g, st, w1, win_in, win_out, q);
    REQUIRE(got == want, "chunk [%u, %u) breaks %d, first %a, shared %a: found point %u, expected %u", b, e,
            st->breaks != NULL, first.d2, f->shared, got, want);
    const double final = want != GEMST_NONE ? pbest[want].d2 : first.d2 < f->shared ? first.d2 : f->shared;
    for (uint32_t p = 0; p < h->n; p++) {
        if (p < b || p >= e) {
            REQUIRE(st->rb2[p] == 0.0, "chunk [%u, %u): rb2 of point %u written", b, e, p);
        } else {
            REQUIRE(st->rb2[p] >= final && st->rb2[p] <= pbest[p].d2, "chunk [%u, %u): point %u's bound %a, final bound "
                    "%a, its nearest foreign point at %a", b, e, p, st->rb2[p], final, pbest[p].d2);
            st->rb2[p] = 0.0;
        }
        if (p == want)
            REQUIRE(st->best_d2[p] == pbest[p].d2 && st->best_to[p] == pto[p], "chunk [%u, %u): point %u's edge "
                    "(%a, to %u), expected (%a, to %u)", b, e, p, st->best_d2[p], st->best_to[p], pbest[p].d2, pto[p]);
        else
            REQUIRE(st->best_to[p] == GEMST_NONE, "chunk [%u, %u): edge of point %u written", b, e, p);
        st->best_to[p] = GEMST_NONE;
    }
    REQUIRE(gemst_edge_word1_value(w1[k]) == (want != GEMST_NONE ? final : f->shared),
            "chunk [%u, %u): shared bound %a", b, e, gemst_edge_word1_value(w1[k]));
}

/* Every chunk (GEMST_CHUNK consecutive points) of every cell of two or more
 * points all in one component, under the slab and region labellings, with
 * and without breaks, and each kind of first-pass edge. */
START_TEST(test_chunk_fallback)
{
    const crowd_case *cc = &crowd_cases[_i / SEEDS];
    uint64_t seed = 500u + (uint64_t)_i;
    crowd_grid h;
    crowd_grid_make(cc, seed, &h);
    const uint32_t n = h.n;
    const uint64_t cells = gemst_grid_cells(h.g->nc);
    uint32_t *comp = xcalloc(n, sizeof *comp), *breaks = xcalloc(n, sizeof *breaks), *pto = xcalloc(n, sizeof *pto);
    gemst_edge_key *pbest = xcalloc(n, sizeof *pbest);
    gemst_findmin1_state st;
    memset(&st, 0, sizeof st);
    st.prune = GRIDEMST_PRUNE_STATIC;
    st.comp = comp;
    st.rb2 = xcalloc(n, sizeof *st.rb2);
    st.best_d2 = xcalloc(n, sizeof *st.best_d2);
    st.best_to = xcalloc(n, sizeof *st.best_to);
    for (uint32_t p = 0; p < n; p++)
        st.best_to[p] = GEMST_NONE;
    uint32_t pure = 0;
    for (int l = LABEL_SLABS; l <= LABEL_REGIONS; l++) {
        const uint32_t labels = make_labels(&h, l, &seed, comp);
        gemst_word1 *w1 = xcalloc(labels, sizeof *w1);
        uint32_t *win_in = xcalloc(labels, sizeof *win_in), *win_out = xcalloc(labels, sizeof *win_out);
        count_breaks(comp, n, breaks);
        brute_point_foreign(&h, comp, pbest, pto);
        for (uint64_t cell = 0; cell < cells; cell++) {
            const uint32_t b = h.g->cell_start[cell], e = h.g->cell_start[cell + 1];
            if (e - b < 2 || breaks[b] != breaks[e - 1])
                continue;
            pure++;
            for (uint32_t cb = b; cb < e; cb += GEMST_CHUNK) {
                const uint32_t ce = e - cb > GEMST_CHUNK ? cb + GEMST_CHUNK : e;
                for (int how = 0; how < FIRSTS; how++) {
                    const first_pass f = make_first(&h, comp, comp[b], pbest, pto, how, &seed);
                    for (int with_breaks = 0; with_breaks < 2; with_breaks++) {
                        st.breaks = with_breaks ? breaks : NULL;
                        check_chunk_fallback(&h, &st, cb, ce, comp[b], &f, pbest, pto, w1, win_in, win_out);
                    }
                }
            }
        }
        free(w1);
        free(win_in);
        free(win_out);
    }
    REQUIRE(pure > 0, "no pure cell to search from");
    free(comp);
    free(breaks);
    free(pto);
    free(pbest);
    free(st.rb2);
    free(st.best_d2);
    free(st.best_to);
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- 6. own-component runs */

/* Breaks arrays of runs of random lengths (single points, short runs, runs
 * of hundreds): gemst_own_run_end(p, e) is the first point after p, up to
 * e, whose breaks count differs from p's, for every p < e; NULL breaks
 * step by one. */
START_TEST(test_own_run_end)
{
    static const uint32_t lengths[] = {1, 1, 2, 3, 7, 64, 65, 300, 1000};
    uint64_t seed = 600u + (uint64_t)_i;
    const uint32_t n = 1500;
    uint32_t *breaks = xcalloc(n, sizeof *breaks), *next = xcalloc(n, sizeof *next);
    uint32_t k = (uint32_t)rng_below(&seed, 5);
    for (uint32_t i = 0; i < n;) {
        uint32_t len = lengths[rng_below(&seed, sizeof lengths / sizeof lengths[0])];
        for (; len > 0 && i < n; len--)
            breaks[i++] = k;
        k += 1 + (uint32_t)rng_below(&seed, 2);
    }
    for (uint32_t p = 0; p < n; p++) {
        next[p] = p + 1;
        while (next[p] < n && breaks[next[p]] == breaks[p])
            next[p]++;
    }
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t e = p + 1; e <= n; e++) {
            const uint32_t got = gemst_own_run_end(breaks, p, e), want = next[p] < e ? next[p] : e;
            REQUIRE(got == want, "run end from %u up to %u: %u, expected %u", p, e, got, want);
            REQUIRE_CMP(gemst_own_run_end(NULL, p, e), ==, p + 1);
        }
    free(breaks);
    free(next);
}
END_TEST

/* ----------------------------------------------------------------- 7. block labels */

/* Each block's label (nns/block_labels.h) against its points, read off the
 * cell table: empty, the one component of all of them, or mixed. */
static void check_block_labels(const crowd_grid *h, const gemst_block_labels *bl, const uint32_t *comp)
{
    const uint64_t blocks = (uint64_t)bl->nb[0] * (uint64_t)bl->nb[1] * (uint64_t)bl->nb[2];
    uint32_t *want = xcalloc(blocks, sizeof *want);
    for (uint64_t k = 0; k < blocks; k++)
        want[k] = GEMST_BLOCK_EMPTY;
    for (uint32_t p = 0; p < h->n; p++) {
        const int32_t *c = h->cell[p];
        const uint64_t bx = (uint64_t)(c[0] / bl->side), by = (uint64_t)(c[1] / bl->side),
                       bz = (uint64_t)(c[2] / bl->side);
        const uint64_t k = bx + (uint64_t)bl->nb[0] * (by + (uint64_t)bl->nb[1] * bz);
        want[k] = want[k] == GEMST_BLOCK_EMPTY || want[k] == comp[p] ? comp[p] : GEMST_BLOCK_MIXED;
    }
    for (uint64_t k = 0; k < blocks; k++)
        REQUIRE(bl->label[k] == want[k], "side %d, block %llu: label %x, expected %x", bl->side,
                (unsigned long long)k, bl->label[k], want[k]);
    free(want);
}

/* The proof for the box [lo, hi] holding the points [b, e) of one
 * component: where it holds, no point of another component lies within
 * cut of any of them (gemst_dist2, the solver's formula).  Returns it. */
static int check_block_proof(const crowd_grid *h, const gemst_block_labels *bl, const uint32_t *comp,
                             const double lo[3], const double hi[3], uint32_t b, uint32_t e, double cut)
{
    const int proved = gemst_block_proof_f64(h->g, bl, comp[b], lo, hi, cut);
    for (uint32_t q = b; proved && q < e; q++)
        for (uint32_t p = 0; p < h->n; p++)
            REQUIRE(comp[p] == comp[q] || gemst_dist2_f64(h->g, q, p) > cut,
                    "side %d: proved nothing of another component within %a of point %u, yet point %u lies at %a",
                    bl->side, cut, q, p, gemst_dist2_f64(h->g, q, p));
    return proved;
}

/* Block labels of sides 1 to 3 under every labelling, with breaks; the
 * proof from points and from whole cells of one component, at bounds around
 * their nearest point of another component (brute force): at it and beyond
 * it never holds, below it must hold somewhere under the labellings that
 * keep whole regions in one component, on grids of few points a cell. */
START_TEST(test_block_labels)
{
    const crowd_case *cc = _i < CROWD_CASES * SEEDS ? &crowd_cases[_i / SEEDS]
                                                      : &shell_cases[(_i - CROWD_CASES * SEEDS) / SEEDS];
    uint64_t seed = 700u + (uint64_t)_i;
    crowd_grid h;
    crowd_grid_make(cc, seed, &h);
    const uint32_t n = h.n;
    uint32_t *comp = xcalloc(n, sizeof *comp), *breaks = xcalloc(n, sizeof *breaks), *pto = xcalloc(n, sizeof *pto);
    gemst_edge_key *pbest = xcalloc(n, sizeof *pbest);
    static const double scales[] = {0.25, 0.999, 1.0, 4.0};
    int proved_below = 0;
    for (int l = 0; l < LABELINGS; l++) {
        make_labels(&h, l, &seed, comp);
        count_breaks(comp, n, breaks);
        brute_point_foreign(&h, comp, pbest, pto);
        for (int32_t side = 1; side <= 3; side++) {
            gemst_block_labels bl;
            bl.side = side;
            gemst_block_counts(h.g->nc, h.g->dim, side, bl.nb);
            const uint64_t blocks = (uint64_t)bl.nb[0] * (uint64_t)bl.nb[1] * (uint64_t)bl.nb[2];
            uint32_t *label = xcalloc(blocks, sizeof *label);
            for (uint64_t k = 0; k < blocks; k++)
                label[k] = gemst_block_label_f64(h.g, breaks, comp, side, (int32_t)(k % (uint64_t)bl.nb[0]),
                                                 (int32_t)(k / (uint64_t)bl.nb[0] % (uint64_t)bl.nb[1]),
                                                 (int32_t)(k / ((uint64_t)bl.nb[0] * (uint64_t)bl.nb[1])));
            bl.label = label;
            bl.comp = comp;
            bl.breaks = breaks;
            check_block_labels(&h, &bl, comp);
            for (int t = 0; t < 40; t++) {
                const uint32_t q = (uint32_t)rng_below(&seed, n);
                double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
                uint32_t b = q, e = q + 1;
                if (t % 2) { /* q's cell, when all its points lie in q's component */
                    const int32_t *c = h.cell[q];
                    const uint32_t cell = gemst_cell_index(h.g->nc, c[0], c[1], c[2]);
                    b = h.g->cell_start[cell];
                    e = h.g->cell_start[cell + 1];
                    if (breaks[b] != breaks[e - 1])
                        continue;
                    for (int d = 0; d < h.g->dim; d++) {
                        lo[d] = gemst_cell_lo_f64(&h.top, d, c[d]);
                        hi[d] = gemst_cell_lo_f64(&h.top, d, c[d] + 1);
                    }
                } else {
                    gemst_point_at_f64(h.g, q, lo);
                    gemst_point_at_f64(h.g, q, hi);
                }
                double nearest = INF;
                for (uint32_t p = b; p < e; p++)
                    nearest = pbest[p].d2 < nearest ? pbest[p].d2 : nearest;
                for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                    const int proved = check_block_proof(&h, &bl, comp, lo, hi, b, e, nearest * scales[k]);
                    proved_below += proved && l != LABEL_RANDOM && scales[k] < 1.0;
                }
                REQUIRE_TRUE(!gemst_block_proof_f64(h.g, &bl, comp[q], lo, hi, INF));
            }
            free(label);
        }
    }
    /* grids of few points a cell have blocks wholly inside one region */
    if (cc->occupancy < 100.0)
        REQUIRE(proved_below > 0, "no proof held below the nearest foreign point");
    free(comp);
    free(breaks);
    free(pto);
    free(pbest);
    crowd_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- suite */

static Suite *crowded_suite(void)
{
    Suite *s = suite_create("crowded");
    TCase *tb = tcase_create("build");
    tcase_set_timeout(tb, 60);
    tcase_add_loop_test(tb, test_crowded_build, 0, CROWD_CASES * SEEDS);
    suite_add_tcase(s, tb);
    TCase *ts = tcase_create("search");
    tcase_set_timeout(ts, 120);
    tcase_add_loop_test(ts, test_crowded_knn, 0, CROWD_CASES * SEEDS);
    tcase_add_loop_test(ts, test_crowded_nearest_foreign, 0, CROWD_CASES * SEEDS);
    tcase_add_loop_test(ts, test_row_shells, 0, SHELL_CASES * SEEDS);
    tcase_add_loop_test(ts, test_chunk_fallback, 0, CROWD_CASES * SEEDS);
    tcase_add_loop_test(ts, test_own_run_end, 0, SEEDS);
    tcase_add_loop_test(ts, test_block_labels, 0, (CROWD_CASES + SHELL_CASES) * SEEDS);
    suite_add_tcase(s, ts);
    return s;
}

int main(void)
{
    return run_suite(crowded_suite());
}
