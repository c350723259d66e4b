/*
 * The grid (src/grid/), the ring searches (src/nns/ring.h, search.h), the CPU
 * grid build (src/cpu/cpu_grid.h) and the union-find (src/graph/boruvka.h),
 * double instance.
 *
 * Small grids are built by hand here (points sorted by row-major cell index,
 * cell_start as prefix sums) and every search result is compared with a brute
 * force over all points, using gemst_dist2_q for distances (the one formula
 * the solver compares).  Minimum spanning trees come from the independent
 * Prim reference (src/tools/prim.h).
 */
#define GEMST_REAL_IS_DOUBLE 1

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "testutil.h"
#include "grid/grid_plan.h"
#include "nns/search.h"
#include "graph/boruvka.h"
#include "cpu/cpu_grid.h"
/* the static search's source: these tests call its candidate selection, not
   the iterator over cells that the solver drives (unused here) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "cpu/cpu_knn.inc"
#pragma GCC diagnostic pop
#include "tools/prim.h"

#define INF ((double)INFINITY)

/* ----------------------------------------------------------------- helpers */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ----------------------------------------------------------------- frame and plan */

typedef struct {
    int dim;
    double lo[3], hi[3];
} box_case;

static const box_case boxes[] = {
    {2, {0, 0, 0}, {1, 1, 0}},
    {3, {-3, 2, 5}, {7, 2.5, 5}},                        /* zero extent on z */
    {3, {4, 4, 4}, {4, 4, 4}},                           /* all points equal */
    {2, {-1e30, 3e29, 0}, {2e30, 3e29, 0}},              /* huge, flat in y */
    {3, {1e-30, -2e-30, 0}, {3e-30, 1e-30, 1e-31}},      /* tiny */
    {2, {1e6, -1e6, 0}, {1e6 + 0x1p-20, -1e6 + 0x1p-30, 0}}, /* tiny spread far out */
    {3, {0, 0, 0}, {1e9, 1, 1}},                         /* strip */
    {2, {-5, -5, 0}, {-5, 3, 0}},
};

/* The exponent of a power of two p, or -9999 when p is none. */
static int power_exponent(double p)
{
    int k;
    return p > 0 && frexp(p, &k) == 0.5 ? k - 1 : -9999;
}

/* The documented frames (grid_plan.h): float translates to the box's minimum
 * and puts its widest side in [0.5, 1); double only scales, putting the
 * largest |coordinate| in [0.5, 1). */
START_TEST(test_frame)
{
    for (int exact_double = 0; exact_double <= 1; exact_double++)
        for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
            const box_case *b = &boxes[i];
            gemst_frame f;
            REQUIRE_TRUE(gemst_frame_make(b->dim, b->lo, b->hi, exact_double, &f, NULL) == GRIDEMST_OK);
            REQUIRE_CMP(f.dim, ==, b->dim);
            REQUIRE(power_exponent(f.scale) != -9999, "box %zu: scale %a is no power of two", i, f.scale);
            REQUIRE(power_exponent(f.unit) != -9999, "box %zu: unit %a is no power of two", i, f.unit);
            double widest = 0.0, largest = 0.0;
            for (int d = 0; d < 3; d++) {
                if (d >= b->dim) {
                    REQUIRE_TRUE(f.origin[d] == 0.0 && f.extent[d] == 0.0 && f.lo[d] == 0.0 && f.hi[d] == 0.0);
                    continue;
                }
                REQUIRE_TRUE(f.origin[d] == (exact_double ? 0.0 : b->lo[d]));
                /* The working coordinates of the box's corners. */
                REQUIRE_TRUE(f.lo[d] == (b->lo[d] - f.origin[d]) * f.scale);
                REQUIRE_TRUE(f.hi[d] == (b->hi[d] - f.origin[d]) * f.scale);
                REQUIRE_TRUE(f.extent[d] == f.hi[d] - f.lo[d] && f.extent[d] >= 0.0);
                REQUIRE(f.extent[d] * f.unit <= 1.0, "box %zu axis %d: extent %g, unit %g", i, d, f.extent[d], f.unit);
                widest = fmax(widest, b->hi[d] - b->lo[d]);
                largest = fmax(largest, fmax(fabs(b->lo[d]), fabs(b->hi[d])));
            }
            /* The largest power of two that keeps the widest side (float) or
             * the largest |coordinate| (double) below 1. */
            const double scaled = (exact_double ? largest : widest) * f.scale;
            if (scaled > 0.0)
                REQUIRE(scaled >= 0.5 && scaled < 1.0, "box %zu (%s): %g scaled to %g", i,
                        exact_double ? "double" : "float", exact_double ? largest : widest, scaled);
            REQUIRE_TRUE(exact_double ? f.min_side == 0x1p-50 * scaled : f.min_side == 0.0);
        }
    /* Hand-derived: the unit square has widest side 1 = 0.5 * 2^1, scale 1/2. */
    gemst_frame f;
    REQUIRE_TRUE(gemst_frame_make(2, boxes[0].lo, boxes[0].hi, 0, &f, NULL) == GRIDEMST_OK);
    REQUIRE_TRUE(f.scale == 0.5 && f.extent[0] == 0.5 && f.extent[1] == 0.5);
    {
        /* A box wider than the largest double along an axis has no float
         * frame; double does not translate, so it has one. */
        const double lo[3] = {-9e307, 0, 0}, hi[3] = {9e307, 1, 0};
        gridemst_error err = {0};
        REQUIRE_CMP(gemst_frame_make(2, lo, hi, 0, &f, &err), ==, GRIDEMST_ERR_INPUT);
        REQUIRE(strstr(err.message, "largest double") != NULL, "message: %s", err.message);
        REQUIRE_CMP(gemst_frame_make(2, lo, hi, 1, &f, &err), ==, GRIDEMST_OK);
        REQUIRE_TRUE(f.scale == 0x1p-1024 && f.lo[0] == -9e307 * 0x1p-1024); /* 9e307 = 0.501 2^1024 */
    }
    {
        /* Subnormal boxes: 2^-k would be 2^1029; the scale stops at 2^1023. */
        const double lo[3] = {0, 0, 0}, hi[3] = {1e-310, 0, 0};
        for (int exact_double = 0; exact_double <= 1; exact_double++) {
            REQUIRE_CMP(gemst_frame_make(2, lo, hi, exact_double, &f, NULL), ==, GRIDEMST_OK);
            REQUIRE(f.scale == 0x1p1023 && f.hi[0] == 1e-310 * 0x1p1023, "scale %a, hi %a", f.scale, f.hi[0]);
        }
    }
}
END_TEST

/* A float frame of the box [0, e] (already in working units). */
static gemst_frame frame_of(int dim, double e0, double e1, double e2)
{
    gemst_frame f = {.dim = dim, .scale = 1.0, .hi = {e0, e1, dim == 3 ? e2 : 0.0}, .unit = 1.0};
    for (int d = 0; d < 3; d++)
        f.extent[d] = f.hi[d];
    return f;
}

/* The invariants every plan keeps; returns the cell count. */
static double check_plan(const gemst_grid_plan *p, int dim, int64_t n)
{
    double cells = 1.0, cap = (double)n * 4 + 1024;
    if (cap > (double)UINT32_MAX - 2)
        cap = (double)UINT32_MAX - 2;
    REQUIRE_CMP(p->dim, ==, dim);
    REQUIRE_TRUE(p->L > 0 && isfinite(p->L));
    for (int d = 0; d < 3; d++) {
        REQUIRE_CMP(p->nc[d], >=, 1);
        if (d >= dim)
            REQUIRE_CMP(p->nc[d], ==, 1);
        cells *= (double)p->nc[d];
    }
    REQUIRE((double)p->cells == cells, "plan.cells %llu but %d x %d x %d = %.17g cells",
            (unsigned long long)p->cells, p->nc[0], p->nc[1], p->nc[2], cells);
    REQUIRE(cells <= cap, "%.17g cells for n = %lld exceed the cap %.17g", cells, (long long)n, cap);
    return cells;
}

/* Uniform extents: the cell count is close to n / occupancy. */
START_TEST(test_plan_uniform)
{
    static const double extents[][3] = {{1, 1, 1}, {0.5, 1, 0.75}, {0.26, 0.9, 0.6}};
    static const int64_t ns[] = {1, 10, 1000, 100000, 1000000};
    static const double occs[] = {0.0, 1.0, 2.0, 8.0};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++)
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
                for (size_t o = 0; o < sizeof occs / sizeof occs[0]; o++) {
                    gemst_frame f = frame_of(dim, extents[e][0], extents[e][1], extents[e][2]);
                    gemst_grid_plan p;
                    gemst_grid_plan_make(&f, ns[i], occs[o], &p);
                    double cells = check_plan(&p, dim, ns[i]);
                    double occ = occs[o] > 0 ? occs[o] : gemst_default_occupancy(dim);
                    double target = (double)ns[i] / occ < 1 ? 1 : (double)ns[i] / occ;
                    /* Each axis gets at most one cell more than extent / L. */
                    REQUIRE(cells <= (1 << dim) * target, "%dD n %lld occ %g: %g cells", dim,
                            (long long)ns[i], occ, cells);
                    if (target >= 1000)
                        REQUIRE(cells >= 0.5 * target && cells <= 1.5 * target, "%dD n %lld occ %g: %g cells",
                                dim, (long long)ns[i], occ, cells);
                }
}
END_TEST

/* Axes much thinner than a cell get one cell; the others share the count. */
START_TEST(test_plan_thin_axes)
{
    static const struct {
        int dim;
        double e[3];
        int thin[3];
    } cases[] = {
        {2, {1, 1e-9, 0}, {0, 1, 0}},
        {3, {1, 1e-12, 1}, {0, 1, 0}},
        {3, {1e-10, 1e-9, 0.8}, {1, 1, 0}},
        {3, {0.6, 0, 0}, {0, 1, 1}},
    };
    const int64_t n = 10000;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gemst_frame f = frame_of(cases[c].dim, cases[c].e[0], cases[c].e[1], cases[c].e[2]);
        gemst_grid_plan p;
        gemst_grid_plan_make(&f, n, 0.0, &p);
        double cells = check_plan(&p, cases[c].dim, n);
        double target = (double)n / gemst_default_occupancy(cases[c].dim);
        for (int d = 0; d < cases[c].dim; d++)
            if (cases[c].thin[d])
                REQUIRE(p.nc[d] == 1, "case %zu axis %d: %d cells", c, d, p.nc[d]);
        REQUIRE(cells >= 0.5 * target && cells <= 2 * target, "case %zu: %g cells", c, cells);
    }
}
END_TEST

/* A 1e9 x 1 strip of 1e6 points: about n / occupancy cells along x. */
START_TEST(test_plan_strip)
{
    const double lo[3] = {0, 0, 0}, hi[3] = {1e9, 1, 0};
    const int64_t n = 1000000;
    gemst_frame f;
    gemst_grid_plan p;
    REQUIRE_TRUE(gemst_frame_make(2, lo, hi, 0, &f, NULL) == GRIDEMST_OK);
    gemst_grid_plan_make(&f, n, 0.0, &p);
    check_plan(&p, 2, n);
    double target = (double)n / gemst_default_occupancy(2);
    REQUIRE_CMP(p.nc[1], ==, 1);
    REQUIRE(p.nc[0] >= 0.5 * target && p.nc[0] <= 2 * target, "%d cells along x", p.nc[0]);
}
END_TEST

/* Tiny occupancies ask for absurd cell counts: the cap holds. */
START_TEST(test_plan_caps)
{
    static const int64_t ns[] = {0, 1, 2, 1000, 1000000, 4000000000ll};
    static const double occs[] = {1e-3, 1e-9, 1e-30};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t o = 0; o < sizeof occs / sizeof occs[0]; o++) {
                gemst_frame f = frame_of(dim, 1, 0.7, 0.9);
                gemst_grid_plan p;
                gemst_grid_plan_make(&f, ns[i], occs[o], &p);
                check_plan(&p, dim, ns[i]);
            }
}
END_TEST

/* Refinement for skewed inputs: kept when the points' mean cell count is
 * near the target, finer (within GEMST_SKEW_CELLS_PER_POINT cells per
 * point) when it is far above. */
START_TEST(test_plan_refine)
{
    static const int64_t ns[] = {100, 10000, 1000000};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            gemst_frame f = frame_of(dim, 1, 0.6, 0.8);
            gemst_grid_plan p, q;
            double occ = gemst_default_occupancy(dim);
            gemst_grid_plan_make(&f, ns[i], 0.0, &p);
            q = p;
            REQUIRE(gemst_grid_plan_refine(&f, ns[i], 0.0, occ, &q) == 0 && memcmp(&p, &q, sizeof p) == 0,
                    "%dD n %lld: refined an even plan", dim, (long long)ns[i]);
            REQUIRE(gemst_grid_plan_refine(&f, ns[i], 0.0, 1000.0 * occ, &q) == 1, "%dD n %lld: kept a skewed plan",
                    dim, (long long)ns[i]);
            double cells = check_plan(&q, dim, ns[i]);
            REQUIRE(q.L < p.L && q.cells > p.cells, "%dD n %lld: not finer", dim, (long long)ns[i]);
            REQUIRE(cells <= (double)ns[i] * GEMST_SKEW_CELLS_PER_POINT + 1024, "%dD n %lld: %g cells", dim,
                    (long long)ns[i], cells);
        }
}
END_TEST

/*
 * Regression: 8 points with extents 0.5 and an occupancy chosen so that
 * L = 0.5 / (2^22 - 0.5), i.e. 2^22 cells per axis: 2^66 cells, which a
 * uint64 product in plan_for_side wrapped to 0 <= cap, so the plan was kept.
 * Through gridemst_solve (cell_occupancy = 8 / (2^22 - 0.5)^3, a valid
 * option value) the CPU grid build then allocated a 1-entry cell table and
 * wrote far past it (segfault).  See test_emst's test_tiny_occupancy.
 */
START_TEST(test_plan_cell_count_overflow)
{
    const double m = 4194304.0 - 0.5;
    gemst_frame f = frame_of(3, 0.5, 0.5, 0.5);
    gemst_grid_plan p;
    gemst_grid_plan_make(&f, 8, 8.0 / (m * m * m), &p);
    check_plan(&p, 3, 8);
}
END_TEST

/* ----------------------------------------------------------------- cell_of and grid_fit */

/* v lies in cell c along axis d: lo(c) <= v < lo(c + 1). */
static void check_cell(const gemst_cells *cg, int d, double v)
{
    int32_t c = gemst_cell_of_f64(cg, d, v);
    REQUIRE(c >= 0 && c < cg->nc[d], "v %a: cell %d of %d", v, c, cg->nc[d]);
    REQUIRE(gemst_cell_lo_f64(cg, d, c) <= v && v < gemst_cell_lo_f64(cg, d, c + 1), "v %a in cell %d [%a, %a)", v,
            c, gemst_cell_lo_f64(cg, d, c), gemst_cell_lo_f64(cg, d, c + 1));
}

START_TEST(test_cell_of_and_fit)
{
    /* Cell sides that are not powers of two, with plans whose counts are
     * one short (grid_fit must add the missing cell). */
    static const double sides[] = {0.1, 1.0 / 3.0, 0.7, 0.0123456789, 0.25, 1e-7, 0.3};
    static const double extents[][3] = {{1, 0.3, 0.77}, {0.6, 0.6, 0.6}, {0.999999999, 0.5, 1e-9}};
    uint64_t seed = 5;
    for (size_t s = 0; s < sizeof sides / sizeof sides[0]; s++)
        for (size_t e = 0; e < sizeof extents / sizeof extents[0]; e++)
            for (int shortfall = 0; shortfall <= 1; shortfall++) {
                gemst_grid_plan plan = {3, {1, 1, 1}, sides[s], 1};
                gemst_grid g;
                memset(&g, 0, sizeof g);
                for (int d = 0; d < 3; d++) {
                    int32_t c = (int32_t)floor(extents[e][d] / sides[s]) + 1 - shortfall;
                    plan.nc[d] = c < 1 ? 1 : c;
                }
                const gemst_frame f = frame_of(3, extents[e][0], extents[e][1], extents[e][2]);
                gemst_grid_fit_f64(&g, &f, &plan, f.lo, f.hi);
                REQUIRE_TRUE(g.L == sides[s] && g.inv_L == 1.0 / sides[s]);
                gemst_cells cg;
                gemst_top_cells_f64(&g, &cg);
                for (int d = 0; d < 3; d++) {
                    const double top = extents[e][d];
                    REQUIRE(top < gemst_cell_lo_f64(&cg, d, g.nc[d]), "L %g axis %d: %a beyond %d cells", sides[s],
                            d, top, g.nc[d]);
                    check_cell(&cg, d, 0.0);
                    check_cell(&cg, d, top);
                    for (int i = 0; i < 2000; i++)
                        check_cell(&cg, d, rng_unit(&seed) * top);
                    /* Cell faces and the values just below them. */
                    int32_t step = g.nc[d] > 1000 ? g.nc[d] / 1000 : 1;
                    for (int32_t c = 1; c < g.nc[d]; c += step) {
                        double face = gemst_cell_lo_f64(&cg, d, c);
                        if (face <= top) {
                            check_cell(&cg, d, face);
                            check_cell(&cg, d, nextafter(face, 0.0));
                        }
                    }
                }
            }
}
END_TEST

/* ----------------------------------------------------------------- hand-made grids */

enum { STYLE_RANDOM, STYLE_LATTICE, STYLE_CLUSTER };

typedef struct {
    int dim;
    int32_t nc[3];
    double L;
    uint32_t n;
    int style;
} grid_case;

/* Working coordinates lie in [0, 1] (the frame of grid_plan.h), so that
 * nc * L <= 1 here too. */
static const grid_case grid_cases[] = {
    {2, {5, 4, 1}, 0.2, 40, STYLE_RANDOM},
    {2, {7, 1, 1}, 1.0 / 7.0, 12, STYLE_LATTICE},
    {2, {6, 6, 1}, 0.15, 50, STYLE_LATTICE},
    {3, {7, 1, 3}, 0.125, 40, STYLE_RANDOM},
    {3, {4, 4, 4}, 0.225, 60, STYLE_LATTICE},
    {3, {3, 5, 2}, 0.2, 25, STYLE_RANDOM},
    {2, {1, 1, 1}, 0.9, 6, STYLE_RANDOM},
    {3, {9, 9, 9}, 1.0 / 9.0, 36, STYLE_CLUSTER},
    {2, {12, 10, 1}, 1.0 / 12.0, 60, STYLE_CLUSTER},
    {2, {10, 10, 1}, 0.1, 150, STYLE_RANDOM},
    {2, {3, 3, 1}, 0.3, 1, STYLE_RANDOM},
    {3, {2, 2, 2}, 0.5, 2, STYLE_LATTICE},
    {2, {4, 4, 1}, 0.25, 300, STYLE_RANDOM}, /* rows of more than GEMST_CLIP_POINTS points */
    {3, {3, 3, 3}, 0.3, 400, STYLE_RANDOM},
};
#define GRID_CASES ((int)(sizeof grid_cases / sizeof grid_cases[0]))

typedef struct {
    gemst_grid g;
    double *xyz[3];       /* coordinates by axis (z zero-filled in 2D) */
    uint32_t *oid, *cell_start;
    int32_t (*cell)[3];   /* each point's cell, computed here */
    uint32_t cells;
} hand_grid;

/* The cell of v by the definition: lo(c) = c * L rounded, lo(c) <= v < lo(c + 1). */
static int32_t ref_cell(double v, double L, int32_t nc)
{
    int32_t c = (int32_t)(v / L);
    c = c < 0 ? 0 : c >= nc ? nc - 1 : c;
    while (c > 0 && (double)c * L > v)
        c--;
    while (c < nc - 1 && (double)(c + 1) * L <= v)
        c++;
    return c;
}

/* A coordinate of point i along axis d for the case's style. */
static double gen_coord(const grid_case *gc, int d, uint64_t *seed, const double *center)
{
    const double span = gc->nc[d] * gc->L;
    if (gc->style == STYLE_LATTICE) {
        /* Faces and centres of cells: multiples of L / 2. */
        int32_t k = (int32_t)rng_below(seed, (uint32_t)(2 * gc->nc[d]));
        return k % 2 == 0 ? (double)(k / 2) * gc->L : ((double)(k / 2) + 0.5) * gc->L;
    }
    if (gc->style == STYLE_CLUSTER) {
        double v = center[d] + (rng_unit(seed) - 0.5) * gc->L;
        return v < 0 ? 0 : v >= span ? nextafter(span, 0) * 0.999 : v;
    }
    return rng_unit(seed) * span * 0.999999;
}

static int same_coords(const double *a, const double *b, int dim)
{
    return a[0] == b[0] && a[1] == b[1] && (dim == 2 || a[2] == b[2]);
}

static void hand_grid_free(hand_grid *h)
{
    for (int d = 0; d < 3; d++)
        free(h->xyz[d]);
    free(h->oid);
    free(h->cell_start);
    free(h->cell);
}

/* Unique points of the case, sorted by row-major cell index, with random
 * caller ids (a permutation), and the cell table. */
static void hand_grid_make(const grid_case *gc, uint64_t seed, hand_grid *h)
{
    const uint32_t n = gc->n;
    const int dim = gc->dim;
    double (*raw)[3] = xcalloc(n, sizeof *raw);
    double centers[3][3];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            centers[k][d] = (0.5 + rng_below(&seed, (uint32_t)gc->nc[d])) * gc->L;
    for (uint32_t i = 0; i < n; i++) {
        int fresh;
        do {
            for (int d = 0; d < dim; d++)
                raw[i][d] = gen_coord(gc, d, &seed, centers[i % 3]);
            fresh = 1;
            for (uint32_t j = 0; j < i && fresh; j++)
                fresh = !same_coords(raw[i], raw[j], dim);
        } while (!fresh);
    }
    memset(h, 0, sizeof *h);
    h->cells = (uint32_t)(gc->nc[0] * gc->nc[1] * gc->nc[2]);
    for (int d = 0; d < 3; d++)
        h->xyz[d] = xcalloc(n, sizeof(double));
    h->oid = xcalloc(n, sizeof *h->oid);
    h->cell = xcalloc(n, sizeof *h->cell);
    h->cell_start = xcalloc(h->cells + 1, sizeof *h->cell_start);
    /* Counting sort by cell index (stable). */
    uint32_t *key = xcalloc(n, sizeof *key), *perm = xcalloc(n, sizeof *perm);
    for (uint32_t i = 0; i < n; i++) {
        int32_t c[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++)
            c[d] = ref_cell(raw[i][d], gc->L, gc->nc[d]);
        key[i] = gemst_cell_index(gc->nc, c[0], c[1], c[2]);
        h->cell_start[key[i] + 1]++;
    }
    for (uint32_t k = 0; k < h->cells; k++)
        h->cell_start[k + 1] += h->cell_start[k];
    uint32_t *fill = xcalloc(h->cells, sizeof *fill);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = h->cell_start[key[i]] + fill[key[i]]++;
        for (int d = 0; d < 3; d++)
            h->xyz[d][at] = raw[i][d];
        for (int d = 0; d < 3; d++)
            h->cell[at][d] = d < dim ? ref_cell(raw[i][d], gc->L, gc->nc[d]) : 0;
    }
    /* Caller ids: a random permutation, so grid order and id order differ. */
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rng_below(&seed, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    memcpy(h->oid, perm, sizeof *perm * n);
    gemst_grid *g = &h->g;
    g->dim = dim;
    memcpy(g->nc, gc->nc, sizeof g->nc);
    g->L = gc->L;
    g->inv_L = 1.0 / gc->L;
    g->n = n;
    g->cell_start = h->cell_start;
    g->x = h->xyz[0];
    g->y = h->xyz[1];
    g->z = dim == 3 ? h->xyz[2] : NULL;
    g->oid = h->oid;
    free(raw);
    free(key);
    free(perm);
    free(fill);
}

/* Chebyshev distance between the cells of two points. */
static int cheb(const hand_grid *h, uint32_t a, uint32_t b)
{
    int m = 0;
    for (int d = 0; d < 3; d++) {
        int t = abs(h->cell[a][d] - h->cell[b][d]);
        m = t > m ? t : m;
    }
    return m;
}

static int max_nc(const gemst_grid *g)
{
    int m = g->nc[0] > g->nc[1] ? g->nc[0] : g->nc[1];
    return g->nc[2] > m ? g->nc[2] : m;
}

/* The query of point i, checked against the hand-computed cell. */
static gemst_query query_of(const hand_grid *h, uint32_t i)
{
    gemst_query qq;
    gemst_query_make_f64(&h->g, i, &qq);
    REQUIRE_CMP(qq.idx, ==, i);
    REQUIRE_CMP(qq.oid, ==, h->oid[i]);
    for (int d = 0; d < 3; d++)
        REQUIRE_CMP(qq.c[d], ==, h->cell[i][d]);
    return qq;
}

/* Squared distance from the query to the box of point p's cell. */
static double cell_box_d2(const hand_grid *h, const gemst_query *qq, uint32_t p)
{
    double s = 0.0;
    for (int d = 0; d < h->g.dim; d++) {
        double lo = h->cell[p][d] * h->g.L, hi = (h->cell[p][d] + 1) * h->g.L, q = qq->q[d];
        double gap = q < lo ? lo - q : q > hi ? q - hi : 0.0;
        s += gap * gap;
    }
    return s;
}

/* Enumerates ring r with a bound (fixed, or shrinking to the nearest point
 * seen when shrink is set): counts each point's visits in seen[], checks
 * every range lies in the ring, and with a fixed bound that a range of more
 * than GEMST_CLIP_POINTS points holds none from a cell wholly beyond it
 * (such rows are clipped to the bound cell by cell); returns the final
 * bound. */
static double enumerate_ring(const hand_grid *h, const gemst_query *qq, int r, double bound2, int shrink,
                             uint32_t *seen)
{
    gemst_ring it;
    gemst_cells top;
    uint32_t b, e;
    memset(seen, 0, sizeof *seen * h->g.n);
    gemst_top_cells_f64(&h->g, &top);
    gemst_ring_begin_f64(&top, qq->c, r, &it);
    while (gemst_ring_next_f64(&top, qq->q, qq->q, &it, bound2, &b, &e)) {
        REQUIRE_CMP(b, <, e);
        REQUIRE_CMP(e, <=, h->g.n);
        for (uint32_t p = b; p < e; p++) {
            REQUIRE(cheb(h, qq->idx, p) == r, "ring %d returned point %u at ring %d", r, p,
                    cheb(h, qq->idx, p));
            seen[p]++;
            if (!shrink && bound2 < INF && e - b > GEMST_CLIP_POINTS)
                REQUIRE(cell_box_d2(h, qq, p) * (1.0 - 0x1p-19) <= bound2,
                        "ring %d bound %a: point %u from a cell at squared distance %a", r, bound2, p,
                        cell_box_d2(h, qq, p));
            double d2 = gemst_dist2_q_f64(&h->g, qq, p);
            if (shrink && d2 < bound2)
                bound2 = d2;
        }
    }
    for (uint32_t p = 0; p < h->g.n; p++)
        REQUIRE_CMP(seen[p], <=, 1);
    return bound2;
}

/* (a), (b): ring enumeration with an infinite, a fixed and a shrinking bound. */
static void check_rings_of_query(const hand_grid *h, uint32_t i, uint32_t *seen)
{
    const gemst_grid *g = &h->g;
    gemst_query qq = query_of(h, i);
    for (int r = 0; r <= max_nc(g); r++) {
        enumerate_ring(h, &qq, r, INF, 0, seen);
        for (uint32_t p = 0; p < g->n; p++)
            REQUIRE(seen[p] == (uint32_t)(cheb(h, i, p) == r), "query %u ring %d point %u: seen %u", i, r, p,
                    seen[p]);
        /* Finite bounds: every distance to a point, and 0. */
        for (uint32_t k = 0; k <= g->n; k++) {
            double bound2 = k < g->n ? gemst_dist2_q_f64(g, &qq, k) : 0.0;
            enumerate_ring(h, &qq, r, bound2, 0, seen);
            for (uint32_t p = 0; p < g->n; p++)
                if (cheb(h, i, p) == r && gemst_dist2_q_f64(g, &qq, p) <= bound2)
                    REQUIRE(seen[p] == 1, "query %u ring %d bound %a: point %u missed", i, r, bound2, p);
        }
        /* A nearest search within the ring finds the ring's nearest point. */
        double nearest = INF;
        for (uint32_t p = 0; p < g->n; p++)
            if (cheb(h, i, p) == r && gemst_dist2_q_f64(g, &qq, p) < nearest)
                nearest = gemst_dist2_q_f64(g, &qq, p);
        REQUIRE_TRUE(enumerate_ring(h, &qq, r, INF, 1, seen) == nearest);
    }
}

/* (c): the outer lower bound. */
static void check_outer_bound_of_query(const hand_grid *h, uint32_t i)
{
    const gemst_grid *g = &h->g;
    gemst_query qq = query_of(h, i);
    gemst_cells top;
    gemst_top_cells_f64(g, &top);
    for (int r = 0; r <= max_nc(g); r++) {
        double lb2 = gemst_ring_outer_lb2_f64(&top, qq.q, qq.q, qq.c, r);
        int covers = 1;
        for (int d = 0; d < g->dim; d++)
            covers &= qq.c[d] - r <= 0 && qq.c[d] + r >= g->nc[d] - 1;
        REQUIRE((lb2 == INF) == covers, "query %u ring %d: lb2 %g, covers %d", i, r, lb2, covers);
        REQUIRE_TRUE(lb2 >= 0);
        for (uint32_t p = 0; p < g->n; p++)
            if (cheb(h, i, p) > r)
                REQUIRE(lb2 <= gemst_dist2_q_f64(g, &qq, p), "query %u ring %d: lb2 %a > d2 %a of point %u", i,
                        r, lb2, gemst_dist2_q_f64(g, &qq, p), p);
    }
}

START_TEST(test_ring_search)
{
    const grid_case *gc = &grid_cases[_i];
    hand_grid h;
    hand_grid_make(gc, 1000u + (uint64_t)_i, &h);
    uint32_t *seen = xcalloc(gc->n, sizeof *seen);
    for (uint32_t i = 0; i < gc->n; i++) {
        check_rings_of_query(&h, i, seen);
        check_outer_bound_of_query(&h, i);
    }
    free(seen);
    hand_grid_free(&h);
}
END_TEST

/* The other points of the grid in (dist2, oid) order from point i. */
typedef struct {
    double d2;
    uint32_t oid, p;
} neighbour;

static int cmp_neighbour(const void *pa, const void *pb)
{
    const neighbour *a = pa, *b = pb;
    if (a->d2 != b->d2)
        return a->d2 < b->d2 ? -1 : 1;
    return (a->oid > b->oid) - (a->oid < b->oid);
}

static uint32_t sorted_neighbours(const hand_grid *h, const gemst_query *qq, neighbour *out)
{
    uint32_t m = 0;
    for (uint32_t p = 0; p < h->g.n; p++)
        if (p != qq->idx) {
            out[m].d2 = gemst_dist2_q_f64(&h->g, qq, p);
            out[m].oid = h->oid[p];
            out[m++].p = p;
        }
    qsort(out, m, sizeof *out, cmp_neighbour);
    return m;
}

START_TEST(test_knn)
{
    const grid_case *gc = &grid_cases[_i];
    hand_grid h;
    hand_grid_make(gc, 2000u + (uint64_t)_i, &h);
    neighbour *nb = xcalloc(gc->n, sizeof *nb);
    uint32_t block_settled = 0;
    for (uint32_t i = 0; i < gc->n; i++) {
        gemst_query qq = query_of(&h, i);
        double kd2[GEMST_KNN];
        uint32_t kid[GEMST_KNN];
        const int K = gemst_knn_k(h.g.dim);
        int count = gemst_knn_f64(&h.g, &qq, gemst_knn_k(h.g.dim), kd2, kid);
        uint32_t m = sorted_neighbours(&h, &qq, nb);
        REQUIRE_CMP(count, ==, m < (uint32_t)K ? (int)m : K);
        for (int k = 0; k < count; k++) {
            REQUIRE(kid[k] == nb[k].p && kd2[k] == nb[k].d2, "query %u: neighbour %d is %u (%a), expected %u (%a)",
                    i, k, kid[k], kd2[k], nb[k].p, nb[k].d2);
        }
        /* The CPU's search by cell (cpu_knn.inc), and the GPU's block pass
           where it settles the query (nns/block.h). */
        gemst_cells top;
        cell_block_f64 cb;
        int in_block;
        gemst_top_cells_f64(&h.g, &top);
        REQUIRE_TRUE(cell_block_make_f64(&h.g, &top, qq.c, 0, UINT32_MAX, &cb));
        /* Every block of a grid this sparse is expected to hold fewer than K + 1 points in the ball of radius 3/2
           cells around its cell's centre (of the 3^dim cells), so the CPU widens it, its points being few
           enough to copy. */
        const double pi = acos(-1.0), ball = h.g.dim == 3 ? 4.0 / 3.0 * pi * 1.5 * 1.5 * 1.5 / 27.0 : pi * 1.5 * 1.5 / 9.0;
        if (gc->n <= 128 && (double)gc->n * ball < (double)(K + 1))
            REQUIRE(cb.reach > 1, "query %u: a block of one ring on a sparse grid", i);
        for (int pass = 0; pass < 2; pass++) {
            count = pass == 0 ? cell_knn_f64(&h.g, &qq, &cb, kd2, kid, &in_block)
                              : gemst_block_search_f64(&h.g, &qq, K, UINT32_MAX - 1, kd2, kid);
            if (pass == 1 && count < 0) {
                /* the GPU's block is one ring: it settles where the CPU's does, unless the CPU's is wider */
                REQUIRE(!in_block || cb.reach > 1, "query %u: the block settled the CPU's search, not the GPU's", i);
                continue;
            }
            block_settled += pass == 1;
            REQUIRE_CMP(count, ==, m < (uint32_t)K ? (int)m : K);
            for (int k = 0; k < count; k++) {
                REQUIRE(kid[k] == nb[k].p && kd2[k] == nb[k].d2,
                        "query %u by cell (pass %d): neighbour %d is %u (%a), expected %u (%a)", i, pass, k, kid[k],
                        kd2[k], nb[k].p, nb[k].d2);
            }
        }
    }
    if (gc->n >= 36) /* enough points for some blocks to hold a query's K nearest */
        REQUIRE(block_settled > 0, "the block settled no query");
    free(nb);
    hand_grid_free(&h);
}
END_TEST

/* The tree of the hand grid's points by Prim, as an adjacency test on
 * caller ids. */
typedef struct {
    uint32_t n;
    uint8_t *adj; /* n * n */
} tree_adj;

static tree_adj grid_mst(const hand_grid *h)
{
    const uint32_t n = h->g.n;
    const int dim = h->g.dim;
    tree_adj t = {n, xcalloc((size_t)n * n, 1)};
    double *coords = xcalloc((size_t)n * dim, sizeof *coords);
    for (uint32_t p = 0; p < n; p++)
        for (int d = 0; d < dim; d++)
            coords[(size_t)h->oid[p] * dim + d] = h->xyz[d][p];
    if (n >= 2) {
        gridemst_edge *e = xcalloc(n - 1, sizeof *e);
        REQUIRE_TRUE(gemst_prim_reference(coords, GRIDEMST_FLOAT64, n, dim, e) >= 0);
        for (uint32_t k = 0; k + 1 < n; k++) {
            t.adj[(size_t)e[k].u * n + (size_t)e[k].v] = 1;
            t.adj[(size_t)e[k].v * n + (size_t)e[k].u] = 1;
        }
        free(e);
    }
    free(coords);
    return t;
}

static int in_list(const uint32_t *list, int count, uint32_t p)
{
    for (int k = 0; k < count; k++)
        if (list[k] == p)
            return 1;
    return 0;
}

/* Brute force: the nearest point p (edge order) with comp[p] != comp[q],
 * its slab open, and, when max_ring >= 0, within max_ring rings. */
static gemst_edge_key brute_foreign(const hand_grid *h, const gemst_query *qq, const uint32_t *comp, uint64_t open,
                                    int max_ring, gemst_edge_key best, uint32_t *best_to)
{
    for (uint32_t p = 0; p < h->g.n; p++) {
        if (comp[p] == comp[qq->idx] || !((open >> gemst_slab_of_f64(&h->g, qq, p)) & 1))
            continue;
        if (max_ring >= 0 && cheb(h, qq->idx, p) > max_ring)
            continue;
        gemst_edge_key e = gemst_edge_make(gemst_dist2_q_f64(&h->g, qq, p), qq->oid, h->oid[p]);
        if (gemst_edge_less(e, best)) {
            best = e;
            *best_to = p;
        }
    }
    return best;
}

static int edge_same(gemst_edge_key a, gemst_edge_key b)
{
    return a.d2 == b.d2 && a.lo == b.lo && a.hi == b.hi;
}

/* Every point outside rings 0..r is at least lb2 away. */
static void check_unexamined(const hand_grid *h, const gemst_query *qq, int r, double lb2)
{
    for (uint32_t p = 0; p < h->g.n; p++)
        if (cheb(h, qq->idx, p) > r)
            REQUIRE(lb2 <= gemst_dist2_q_f64(&h->g, qq, p), "bound %a above point %u at %a", lb2, p,
                    gemst_dist2_q_f64(&h->g, qq, p));
}

static gemst_edge_key edge_to(const hand_grid *h, const gemst_query *qq, uint32_t p)
{
    return gemst_edge_make(gemst_dist2_q_f64(&h->g, qq, p), qq->oid, h->oid[p]);
}

static int foreign_open(const hand_grid *h, const gemst_query *qq, const uint32_t *comp, uint64_t open, uint32_t p)
{
    return comp[p] != comp[qq->idx] && ((open >> gemst_slab_of_f64(&h->g, qq, p)) & 1);
}

/* What every search result must be: the start edge, or a real edge to a
 * point of another component in an open slab, never better than the true
 * nearest one; and with a finite bound rb2, no such point nearer than rb2
 * beats it (everything nearer was examined). */
static void check_search_result(const hand_grid *h, const gemst_query *qq, const uint32_t *comp, uint64_t open,
                                gemst_edge_key start, gemst_edge_key best, uint32_t to, double rb2)
{
    uint32_t true_to = GEMST_NONE;
    gemst_edge_key truth = brute_foreign(h, qq, comp, open, -1, start, &true_to);
    if (to == GEMST_NONE) {
        REQUIRE(edge_same(best, start), "query %u: no point found but the edge changed", qq->idx);
    } else {
        REQUIRE(to < h->g.n && foreign_open(h, qq, comp, open, to), "query %u: found point %u of its own component "
                "or a closed slab", qq->idx, to);
        REQUIRE(edge_same(best, edge_to(h, qq, to)) && gemst_edge_less(best, start), "query %u: edge to %u wrong",
                qq->idx, to);
    }
    REQUIRE(!gemst_edge_less(best, truth), "query %u: edge better than the nearest foreign point", qq->idx);
    for (uint32_t p = 0; p < h->g.n && rb2 != INF; p++)
        if (foreign_open(h, qq, comp, open, p) && gemst_dist2_q_f64(&h->g, qq, p) < rb2)
            REQUIRE(!gemst_edge_less(edge_to(h, qq, p), best), "query %u: point %u at %a below the bound %a beats the "
                    "result", qq->idx, p, gemst_dist2_q_f64(&h->g, qq, p), rb2);
}

/* One nearest_foreign call against the brute force: exact (infinite bound)
 * or the nearest point of the rings it examined. */
static void check_foreign_call(const hand_grid *h, const gemst_query *qq, const uint32_t *comp,
                               const uint32_t *breaks, uint64_t open, int max_ring, gemst_edge_key start)
{
    gemst_edge_key best = start, want;
    uint32_t to = GEMST_NONE, want_to = GEMST_NONE;
    double rb2 = gemst_nearest_foreign_f64(&h->g, qq, comp, breaks, comp[qq->idx], open, max_ring, NULL, &best, &to);
    check_search_result(h, qq, comp, open, start, best, to, rb2);
    if (rb2 == INF) {
        want = brute_foreign(h, qq, comp, open, -1, start, &want_to);
    } else {
        REQUIRE_TRUE(max_ring < max_nc(&h->g));
        check_unexamined(h, qq, max_ring, rb2);
        want = brute_foreign(h, qq, comp, open, max_ring, start, &want_to);
    }
    REQUIRE(edge_same(best, want) && to == want_to,
            "query %u open %llx ring cap %d: got (%a, %u, %u) to %u, expected (%a, %u, %u) to %u", qq->idx,
            (unsigned long long)open, max_ring, best.d2, best.lo, best.hi, to, want.d2, want.lo, want.hi, want_to);
}

/* breaks[i]: the component changes between consecutive points up to i
 * (nns/walk.h), counted here by their definition. */
static void count_breaks(const uint32_t *comp, uint32_t n, uint32_t *breaks)
{
    for (uint32_t i = 0; i < n; i++)
        breaks[i] = (i > 0 ? breaks[i - 1] : 0) + (i > 0 && comp[i] != comp[i - 1]);
}

/* With components drawn at random, and as slabs of the x axis (so that
 * whole rows and cells lie in one component and the search skips them);
 * each without and with the breaks. */
START_TEST(test_nearest_foreign)
{
    static const int caps[] = {0, 1, 2, INT32_MAX};
    const grid_case *gc = &grid_cases[_i];
    uint64_t seed = 3000u + (uint64_t)_i;
    hand_grid h;
    hand_grid_make(gc, seed, &h);
    uint32_t *comp = xcalloc(gc->n, sizeof *comp), *breaks = xcalloc(gc->n, sizeof *breaks);
    const uint64_t full = gemst_slab_full_mask(gc->dim);
    for (int layout = 0; layout < 2; layout++) {
        for (uint32_t i = 0; i < gc->n; i++)
            comp[i] = layout == 0 ? rng_below(&seed, 3) : (uint32_t)(h.cell[i][0] * 3 / gc->nc[0]);
        count_breaks(comp, gc->n, breaks);
        for (uint32_t i = 0; i < gc->n; i++) {
            gemst_query qq = query_of(&h, i);
            uint64_t opens[3] = {full, rng_next(&seed) & full, rng_next(&seed) & rng_next(&seed) & full};
            /* Cutoffs: none, and the edge to a random point (an incumbent). */
            gemst_edge_key starts[2] = {gemst_edge_none(), edge_to(&h, &qq, rng_below(&seed, gc->n))};
            for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
                for (int o = 0; o < 3; o++)
                    for (int s = 0; s < 2; s++) {
                        check_foreign_call(&h, &qq, comp, NULL, opens[o], caps[c], starts[s]);
                        check_foreign_call(&h, &qq, comp, breaks, opens[o], caps[c], starts[s]);
                    }
        }
    }
    free(comp);
    free(breaks);
    hand_grid_free(&h);
}
END_TEST

/* The nearest point (edge order) of slab s seen from the query, any
 * component; GEMST_NONE when the slab is empty. */
static uint32_t slab_nearest(const hand_grid *h, const gemst_query *qq, int s)
{
    gemst_edge_key best = gemst_edge_none();
    uint32_t at = GEMST_NONE;
    for (uint32_t p = 0; p < h->g.n; p++) {
        if (p == qq->idx || gemst_slab_of_f64(&h->g, qq, p) != s)
            continue;
        if (gemst_edge_less(edge_to(h, qq, p), best)) {
            best = edge_to(h, qq, p);
            at = p;
        }
    }
    return at;
}

/*
 * Dynamic pruning: a valid search result (check_search_result); with an
 * infinite bound no tree edge to another component's point in an open slab
 * beats it (slabs whose nearest point is certain need not be searched
 * further); and a slab is closed only when its nearest point is in the
 * query's component.
 */
START_TEST(test_dynamic_search)
{
    static const int caps[] = {0, 1, INT32_MAX};
    const grid_case *gc = &grid_cases[_i];
    uint64_t seed = 4000u + (uint64_t)_i;
    hand_grid h;
    hand_grid_make(gc, seed, &h);
    tree_adj t = grid_mst(&h);
    uint32_t *comp = xcalloc(gc->n, sizeof *comp);
    for (uint32_t i = 0; i < gc->n; i++)
        comp[i] = rng_below(&seed, 2);
    const uint64_t full = gemst_slab_full_mask(gc->dim);
    for (uint32_t i = 0; i < gc->n; i++) {
        gemst_query qq = query_of(&h, i);
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            uint64_t open = (rng_next(&seed) | rng_next(&seed)) & full, before = open;
            gemst_edge_key best = gemst_edge_none();
            uint32_t to = GEMST_NONE;
            double rb2 = gemst_dynamic_search_f64(&h.g, &qq, comp, comp[i], &open, caps[c], &best, &to);
            REQUIRE_CMP(open & ~before, ==, 0);
            check_search_result(&h, &qq, comp, before, gemst_edge_none(), best, to, rb2);
            for (uint32_t p = 0; p < gc->n && rb2 == INF; p++)
                if (foreign_open(&h, &qq, comp, before, p) && t.adj[(size_t)qq.oid * t.n + h.oid[p]])
                    REQUIRE(!gemst_edge_less(edge_to(&h, &qq, p), best), "query %u cap %d: exact, but tree edge to %u "
                            "beats the result", i, caps[c], p);
            for (int s = 0; s < gemst_slab_count(gc->dim); s++)
                if (((before & ~open) >> s) & 1) {
                    uint32_t p = slab_nearest(&h, &qq, s);
                    REQUIRE(p != GEMST_NONE && comp[p] == comp[i], "query %u closed slab %d (nearest %u)", i, s, p);
                }
        }
    }
    free(t.adj);
    free(comp);
    hand_grid_free(&h);
}
END_TEST

/*
 * Static pruning: at most GEMST_CAND_SLOTS candidates, all among the K
 * nearest, holding every tree edge of the query shorter than the reported
 * bound rb2 (all of them when rb2 is infinite); a finite rb2 is the squared
 * distance of one of the neighbours.
 */
START_TEST(test_static_candidates)
{
    const grid_case *gc = &grid_cases[_i];
    hand_grid h;
    hand_grid_make(gc, 5000u + (uint64_t)_i, &h);
    tree_adj t = grid_mst(&h);
    int complete = 0, kept_tree_edges = 0;
    for (uint32_t i = 0; i < gc->n; i++) {
        gemst_query qq = query_of(&h, i);
        double kd2[GEMST_KNN], rb2;
        uint32_t kid[GEMST_KNN], cand[GEMST_KNN];
        int count = gemst_knn_f64(&h.g, &qq, gemst_knn_k(h.g.dim), kd2, kid);
        int kept = gemst_static_candidates_f64(&h.g, &qq, gemst_knn_k(h.g.dim), kd2, kid, count, cand, &rb2);
        REQUIRE_CMP(kept, >=, 0);
        REQUIRE_CMP(kept, <=, count < GEMST_CAND_SLOTS ? count : GEMST_CAND_SLOTS);
        for (int k = 0; k < kept; k++)
            REQUIRE(in_list(kid, count, cand[k]), "query %u: candidate %u is no neighbour", i, cand[k]);
        if (rb2 != INF) {
            REQUIRE_CMP(count, ==, gemst_knn_k(h.g.dim));
            int found = 0;
            for (int k = 0; k < count; k++)
                found |= rb2 == kd2[k];
            REQUIRE(found, "query %u: bound %a is no neighbour's distance", i, rb2);
        }
        complete += rb2 == INF && count == gemst_knn_k(h.g.dim);
        for (uint32_t p = 0; p < gc->n; p++) {
            if (!t.adj[(size_t)qq.oid * t.n + h.oid[p]])
                continue;
            double d2 = gemst_dist2_q_f64(&h.g, &qq, p);
            if (d2 < rb2)
                REQUIRE(in_list(cand, kept, p), "query %u: tree edge to %u (d2 %a < bound %a) dropped", i, p,
                        d2, rb2);
            kept_tree_edges += in_list(cand, kept, p);
        }
    }
    /* The sets are large enough to exercise both outcomes. */
    if (gc->n > 2 * GEMST_KNN && gc->dim == 2)
        REQUIRE(complete > 0, "case %d: no query reported a complete candidate set", _i);
    if (gc->n > 1)
        REQUIRE_CMP(kept_tree_edges, >, 0);
    free(t.adj);
    hand_grid_free(&h);
}
END_TEST

/* ----------------------------------------------------------------- CPU grid build */

typedef struct {
    int dim;
    gridemst_dtype dtype;
    uint32_t n;
    int kind; /* 0 random with copies, 1 integers in [0, span), 2 copies of 3 points */
    int span;
} build_case;

static const build_case build_cases[] = {
    {3, GRIDEMST_FLOAT64, 20000, 0, 0},
    {2, GRIDEMST_FLOAT64, 20000, 0, 0},
    {2, GRIDEMST_FLOAT64, 10000, 1, 50},
    {2, GRIDEMST_FLOAT64, 10000, 1, 10},  /* ~100 copies per point: large cells */
    {3, GRIDEMST_FLOAT32, 15000, 1, 12},
    {3, GRIDEMST_FLOAT32, 15000, 0, 0},
    {3, GRIDEMST_FLOAT64, 300000, 2, 0}, /* 1e5 copies of 3 points */
};

/* Input coordinates as doubles, n * dim. */
static double *build_input(const build_case *bc, uint64_t seed)
{
    double *c = xcalloc((size_t)bc->n * bc->dim, sizeof *c);
    static const double three[3][3] = {{0.25, -1.5, 3.0}, {7.0, 2.0, -0.125}, {0.25, -1.5, 3.5}};
    for (uint32_t i = 0; i < bc->n; i++)
        for (int d = 0; d < bc->dim; d++) {
            double *v = &c[(size_t)i * bc->dim + d];
            if (bc->kind == 2)
                *v = three[(i * 7u + i / 5u) % 3][d];
            else if (bc->kind == 1)
                *v = (double)rng_below(&seed, (uint32_t)bc->span) - 3.0;
            else
                *v = rng_unit(&seed) * 10.0 - 4.0;
        }
    if (bc->kind == 0) /* 20% copies of earlier points */
        for (uint32_t i = 1; i < bc->n; i++)
            if (rng_below(&seed, 5) == 0)
                memcpy(&c[(size_t)i * bc->dim], &c[(size_t)rng_below(&seed, i) * bc->dim], sizeof *c * bc->dim);
    if (bc->dtype == GRIDEMST_FLOAT32) /* values exact in float */
        for (size_t k = 0; k < (size_t)bc->n * bc->dim; k++)
            c[k] = (double)(float)c[k];
    return c;
}

/* The caller's coordinate array in the case's type. */
static void *as_dtype(const build_case *bc, const double *c)
{
    size_t m = (size_t)bc->n * bc->dim;
    if (bc->dtype == GRIDEMST_FLOAT64) {
        double *out = xcalloc(m, sizeof *out);
        memcpy(out, c, sizeof *out * m);
        return out;
    }
    float *out = xcalloc(m, sizeof *out);
    for (size_t k = 0; k < m; k++)
        out[k] = (float)c[k];
    return out;
}

/* Smallest id with the same coordinates as each point, by sorting. */
static const double *sort_coords;
static int sort_dim;
static int cmp_by_coords(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    for (int d = 0; d < sort_dim; d++) {
        double x = sort_coords[(size_t)a * sort_dim + d], y = sort_coords[(size_t)b * sort_dim + d];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return (a > b) - (a < b);
}

static uint32_t *group_min_ids(const double *c, uint32_t n, int dim, uint32_t *groups)
{
    uint32_t *order = xcalloc(n, sizeof *order), *gmin = xcalloc(n, sizeof *gmin);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    sort_coords = c;
    sort_dim = dim;
    qsort(order, n, sizeof *order, cmp_by_coords);
    *groups = 0;
    uint32_t first = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (k == 0 || memcmp(&c[(size_t)order[k] * dim], &c[(size_t)order[k - 1] * dim], sizeof *c * dim) != 0) {
            first = order[k];
            ++*groups;
        }
        gmin[order[k]] = first;
    }
    free(order);
    return gmin;
}

static void build(const build_case *bc, const void *coords, int threads, gemst_cpu_grid *cg, gridemst_stats *st)
{
    gemst_problem pb;
    memset(&pb, 0, sizeof pb); /* what is not set below is empty: no frame given, no context */
    gridemst_error err = {0};
    pb.coords = coords;
    pb.dtype = bc->dtype;
    pb.n = bc->n;
    pb.dim = bc->dim;
    gridemst_options_init(&pb.opt);
    pb.opt.backend = GRIDEMST_BACKEND_CPU;
    pb.opt.nns = GRIDEMST_NNS_GRID;
    pb.opt.precision = GRIDEMST_PRECISION_DOUBLE;
    memset(st, 0, sizeof *st);
    int rc = gemst_cpu_grid_build_f64(&pb, threads, cg, st, &err);
    REQUIRE(rc == GRIDEMST_OK, "grid build: %s", err.message);
}

/* Each unique point lies in its cell's bounds and carries its input
 * coordinates in the working frame. */
static void check_cells(const gemst_cpu_grid *cg, const double *c, int dim)
{
    const gemst_grid *g = &cg->g;
    const uint64_t cells = gemst_grid_cells(g->nc);
    gemst_cells top;
    gemst_top_cells_f64(g, &top);
    REQUIRE_CMP(g->cell_start[0], ==, 0);
    REQUIRE_CMP(g->cell_start[cells], ==, cg->nu);
    for (uint64_t k = 0; k < cells; k++) {
        REQUIRE_CMP(g->cell_start[k], <=, g->cell_start[k + 1]);
        int32_t cc[3] = {(int32_t)(k % (uint64_t)g->nc[0]), (int32_t)(k / (uint64_t)g->nc[0] % (uint64_t)g->nc[1]),
                         (int32_t)(k / ((uint64_t)g->nc[0] * (uint64_t)g->nc[1]))};
        for (uint32_t i = g->cell_start[k]; i < g->cell_start[k + 1]; i++) {
            const double v[3] = {g->x[i], g->y[i], dim == 3 ? g->z[i] : 0.0};
            for (int d = 0; d < dim; d++) {
                double w = (c[(size_t)g->oid[i] * dim + d] - cg->frame.origin[d]) * cg->frame.scale;
                REQUIRE(v[d] == w, "point %u axis %d: %a, input gives %a", g->oid[i], d, v[d], w);
                REQUIRE(gemst_cell_lo_f64(&top, d, cc[d]) <= v[d] && v[d] < gemst_cell_lo_f64(&top, d, cc[d] + 1),
                        "point %u axis %d: %a outside cell %d", g->oid[i], d, v[d], cc[d]);
            }
        }
    }
}

/* Ids: unique points and duplicates form a permutation; each duplicate
 * joins equal points and hangs on the smallest id of its group. */
static void check_ids(const gemst_cpu_grid *cg, const double *c, uint32_t n, int dim)
{
    uint32_t groups;
    uint32_t *gmin = group_min_ids(c, n, dim, &groups);
    uint8_t *seen = xcalloc(n, 1), *unique = xcalloc(n, 1);
    REQUIRE_CMP(cg->nu, ==, groups);
    REQUIRE_CMP(cg->nu + cg->n_dup, ==, n);
    for (uint32_t i = 0; i < cg->nu; i++) {
        REQUIRE_CMP(cg->oid[i], <, n);
        seen[cg->oid[i]]++;
        unique[cg->oid[i]] = 1;
        REQUIRE_CMP(gmin[cg->oid[i]], ==, cg->oid[i]);
    }
    for (uint32_t k = 0; k < cg->n_dup; k++) {
        uint32_t lo = cg->dup_lo[k], hi = cg->dup_hi[k];
        REQUIRE_CMP(hi, <, n);
        seen[hi]++;
        REQUIRE(memcmp(&c[(size_t)lo * dim], &c[(size_t)hi * dim], sizeof *c * dim) == 0,
                "duplicate edge %u-%u joins different points", lo, hi);
        REQUIRE(lo == gmin[hi] && unique[lo], "duplicate %u hangs on %u, expected %u", hi, lo, gmin[hi]);
    }
    for (uint32_t i = 0; i < n; i++)
        REQUIRE(seen[i] == 1, "id %u appears %u times", i, seen[i]);
    free(gmin);
    free(seen);
    free(unique);
}

static void check_same_build(const gemst_cpu_grid *a, const gemst_cpu_grid *b, int dim)
{
    const uint64_t cells = gemst_grid_cells(a->g.nc);
    REQUIRE_TRUE(memcmp(a->g.nc, b->g.nc, sizeof a->g.nc) == 0 && a->nu == b->nu && a->n_dup == b->n_dup);
    REQUIRE_TRUE(memcmp(a->x, b->x, sizeof *a->x * a->nu) == 0);
    REQUIRE_TRUE(memcmp(a->y, b->y, sizeof *a->y * a->nu) == 0);
    REQUIRE_TRUE(dim == 2 || memcmp(a->z, b->z, sizeof *a->z * a->nu) == 0);
    REQUIRE_TRUE(memcmp(a->oid, b->oid, sizeof *a->oid * a->nu) == 0);
    REQUIRE_TRUE(memcmp(a->cell_start, b->cell_start, sizeof *a->cell_start * (cells + 1)) == 0);
    REQUIRE_TRUE(memcmp(a->dup_lo, b->dup_lo, sizeof *a->dup_lo * a->n_dup) == 0);
    REQUIRE_TRUE(memcmp(a->dup_hi, b->dup_hi, sizeof *a->dup_hi * a->n_dup) == 0);
}

START_TEST(test_cpu_grid_build)
{
    const build_case *bc = &build_cases[_i];
    double *c = build_input(bc, 6000u + (uint64_t)_i);
    void *coords = as_dtype(bc, c);
    gemst_cpu_grid cg[2];
    gridemst_stats st[2];
    for (int t = 0; t < 2; t++) {
        build(bc, coords, t + 1, &cg[t], &st[t]);
        REQUIRE_CMP(st[t].n_unique, ==, cg[t].nu);
        REQUIRE_CMP(st[t].n_duplicates, ==, cg[t].n_dup);
        REQUIRE_CMP(st[t].cells, ==, (int64_t)gemst_grid_cells(cg[t].g.nc));
        REQUIRE_CMP(cg[t].g.n, ==, cg[t].nu);
        REQUIRE_TRUE(cg[t].g.x == cg[t].x && cg[t].g.oid == cg[t].oid && cg[t].g.cell_start == cg[t].cell_start);
        REQUIRE_TRUE(bc->dim == 3 ? cg[t].g.z != NULL : cg[t].g.z == NULL);
    }
    check_cells(&cg[0], c, bc->dim);
    check_ids(&cg[0], c, bc->n, bc->dim);
    check_same_build(&cg[0], &cg[1], bc->dim);
    if (bc->kind == 2) {
        REQUIRE_CMP(cg[0].nu, ==, 3);
        REQUIRE_CMP(cg[0].n_dup, ==, bc->n - 3);
    }
    for (int t = 0; t < 2; t++)
        gemst_cpu_grid_free_f64(&cg[t]);
    free(coords);
    free(c);
}
END_TEST

/* ----------------------------------------------------------------- union-find */

#define UF_MAX 8
typedef struct {
    const char *name;
    uint32_t n;
    uint32_t comp[UF_MAX];    /* each point's root */
    uint32_t win_in[UF_MAX];  /* per root: its edge's end inside the component */
    uint32_t win_out[UF_MAX]; /* per root: its edge's end outside */
    uint32_t root;            /* the root everything ends on */
    uint32_t n_edges;
    uint32_t edges[UF_MAX][3]; /* emitted edges as point indices, and the root emitting */
} uf_case;

#define NO GEMST_NONE
static const uf_case uf_cases[] = {
    /* 0->1->2->3 and the mutual pair 3<->4: 3 is the smaller root and stays. */
    {"chain", 5, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {1, 2, 3, 4, 3}, 3, 4, {{0, 1, 0}, {1, 2, 1}, {2, 3, 2}, {3, 4, 4}}},
    /* Two 3-point components choosing the same edge 2-4: root 0 stays. */
    {"mutual", 6, {0, 0, 0, 5, 5, 5}, {2, NO, NO, NO, NO, 4}, {4, NO, NO, NO, NO, 2}, 0, 1, {{2, 4, 5}}},
    /* A star around 0; 0 and 1 form the mutual pair. */
    {"star", 5, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {1, 0, 0, 0, 0}, 0, 4, {{0, 1, 1}, {0, 2, 2}, {0, 3, 3}, {0, 4, 4}}},
    /* 2 hooks to 0 (mutual pair 1-3), 4 hooks to 2: flatten carries 4 to 0. */
    {"two-level", 6, {0, 0, 2, 2, 4, 4}, {1, NO, 3, NO, 5, NO}, {3, NO, 1, NO, 2, NO}, 0, 2, {{1, 3, 2}, {5, 2, 4}}},
};

/* An edge as (lo id, hi id, squared length). */
static int cmp_edge3(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Flattens every root of roots[0..m) over link; checks no cycle was reported. */
static void flatten_all(uint32_t *link, const uint32_t *roots, uint32_t m)
{
    for (uint32_t k = 0; k < m; k++)
        gemst_flatten_root(link, roots[k]);
}

/* Connect as the backends do: a hooking root's edge goes to the next slot,
 * counted always, stored while under cap. */
static void connect_root(uint32_t r, const uint32_t *win_in, const uint32_t *win_out, const gemst_word1 *w1,
                         const uint32_t *comp, const uint32_t *oid, uint32_t *link, uint32_t *count, uint32_t cap,
                         uint32_t *lo, uint32_t *hi, double *d2)
{
    gemst_edge_key e;
    if (!gemst_hook_f64(r, win_in, win_out, w1, comp, oid, link, &e))
        return;
    uint32_t at = (*count)++;
    if (at < cap)
        gemst_store_edge_f64(e, at, lo, hi, d2);
}

START_TEST(test_union_find_cases)
{
    const uf_case *uc = &uf_cases[_i];
    const uint32_t n = uc->n;
    uint32_t link[UF_MAX], oid[UF_MAX], edge_lo[UF_MAX], edge_hi[UF_MAX], roots[UF_MAX], m = 0, count = 0;
    gemst_word1 w1[UF_MAX];
    double edge_d2[UF_MAX], got[UF_MAX][3], want[UF_MAX][3];
    for (uint32_t i = 0; i < n; i++) {
        link[i] = i;
        oid[i] = 100 - i;                  /* reversed ids: lo/hi follow ids, not indices */
        w1[i] = gemst_edge_word1(1.0 + i); /* root i's edge has squared length 1 + i */
        if (uc->comp[i] == i)
            roots[m++] = i;
    }
    for (uint32_t k = 0; k < m; k++)
        connect_root(roots[k], uc->win_in, uc->win_out, w1, uc->comp, oid, link, &count, UF_MAX, edge_lo, edge_hi,
                     edge_d2);
    flatten_all(link, roots, m);
    REQUIRE(count == uc->n_edges, "%s: %u edges, expected %u", uc->name, count, uc->n_edges);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t a = oid[uc->edges[k][0]], b = oid[uc->edges[k][1]];
        want[k][0] = a < b ? a : b;
        want[k][1] = a < b ? b : a;
        want[k][2] = 1.0 + uc->edges[k][2];
        got[k][0] = edge_lo[k];
        got[k][1] = edge_hi[k];
        got[k][2] = edge_d2[k];
    }
    qsort(got, count, sizeof got[0], cmp_edge3);
    qsort(want, count, sizeof want[0], cmp_edge3);
    REQUIRE(memcmp(got, want, sizeof got[0] * count) == 0, "%s: wrong edges", uc->name);
    for (uint32_t i = 0; i < n; i++)
        REQUIRE(link[uc->comp[i]] == uc->root, "%s: point %u ends on %u, expected %u", uc->name, i, link[uc->comp[i]],
                uc->root);
}
END_TEST

/* A root with no edge keeps itself and emits nothing; edges past the cap
 * are counted but not stored. */
START_TEST(test_union_find_no_edge_and_cap)
{
    const uf_case *star = &uf_cases[2];
    uint32_t comp[2] = {0, 0}, win_in[2] = {GEMST_NONE, GEMST_NONE}, win_out[2] = {GEMST_NONE, GEMST_NONE};
    uint32_t oid[UF_MAX], link[UF_MAX] = {0, 1}, lo[UF_MAX], hi[UF_MAX], count = 0, root0 = 0;
    gemst_word1 w1[UF_MAX];
    double ed2[UF_MAX];
    for (uint32_t i = 0; i < UF_MAX; i++) {
        oid[i] = i;
        w1[i] = gemst_edge_word1(i == 0 ? INF : 2.0);
    }
    connect_root(0, win_in, win_out, w1, comp, oid, link, &count, UF_MAX, lo, hi, ed2);
    flatten_all(link, &root0, 1);
    REQUIRE_CMP(count, ==, 0);
    REQUIRE_CMP(link[0], ==, 0);
    /* The star emits 4 edges; with room for 1, one is stored, 4 counted. */
    for (uint32_t i = 0; i < UF_MAX; i++) {
        link[i] = i;
        lo[i] = hi[i] = GEMST_NONE;
    }
    for (uint32_t r = 0; r < star->n; r++)
        connect_root(r, star->win_in, star->win_out, w1, star->comp, oid, link, &count, 1, lo, hi, ed2);
    REQUIRE_CMP(count, ==, 4);
    REQUIRE(lo[0] == 0 && hi[0] >= 1 && hi[0] <= 4 && lo[1] == GEMST_NONE, "stored (%u, %u), then (%u, %u)", lo[0],
            hi[0], lo[1], hi[1]);
}
END_TEST

/* A hook cycle (only inconsistent minima could make one) collapses into a
 * single root under path halving; the merge invariant catches it: 3 edges
 * (hooks 0->1, 1->2, 2->0) took 4 roots to 2, not to 1. */
START_TEST(test_union_find_cycle_reported)
{
    uint32_t link[4] = {1, 2, 0, 3}, roots[4] = {0, 1, 2, 3};
    flatten_all(link, roots, 4);
    uint32_t left = 0;
    for (int k = 0; k < 4; k++)
        left += link[roots[k]] == roots[k];
    REQUIRE_CMP(left, ==, 2);
    REQUIRE(!gemst_merge_consistent(4, left, 3), "a cycle passed the merge check");
    REQUIRE(gemst_merge_consistent(4, 1, 3), "a consistent merge failed the check");
}
END_TEST

/* A chain of 200000 hooks flattened deepest first: path halving keeps it
 * fast (a plain walk would take n^2 / 2 steps). */
START_TEST(test_union_find_long_chain)
{
    const uint32_t n = 200000;
    uint32_t *link = xcalloc(n, sizeof *link), *roots = xcalloc(n, sizeof *roots);
    for (uint32_t i = 0; i < n; i++) {
        link[i] = i + 1 < n ? i + 1 : i;
        roots[i] = i;
    }
    double t0 = now_s();
    flatten_all(link, roots, n);
    double t = now_s() - t0;
    for (uint32_t i = 0; i < n; i++)
        REQUIRE_CMP(link[i], ==, n - 1);
    REQUIRE(t < 1.0, "flattening took %.3f s", t);
    free(link);
    free(roots);
}
END_TEST

/* Random forests of long chains flattened by parallel threads, as the CPU
 * backend does: every old root must end on its final root. */
START_TEST(test_union_find_parallel_flatten)
{
    const uint32_t n = 1u << 16;
    uint32_t *order = xcalloc(n, sizeof *order), *base = xcalloc(n, sizeof *base), *root = xcalloc(n, sizeof *root);
    uint32_t *link = xcalloc(n, sizeof *link), *roots = xcalloc(n, sizeof *roots);
    uint64_t seed = 99;
    int threads = 4;
    for (int rep = 0; rep < 40; rep++) {
        /* A random order; each element hooks to one of the few before it
         * (long chains) or, rarely, stays a root. */
        for (uint32_t i = 0; i < n; i++)
            order[i] = i;
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = rng_below(&seed, i), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (uint32_t k = 0; k < n; k++) {
            uint32_t v = order[k];
            int stays = k == 0 || rng_below(&seed, 5000) == 0;
            base[v] = stays ? v : order[k - 1 - rng_below(&seed, k < 3 ? k : 3)];
            root[v] = stays ? v : root[base[v]];
            roots[k] = order[n - 1 - k]; /* deepest first, roughly */
        }
        memcpy(link, base, sizeof *link * n);
#pragma omp parallel for num_threads(threads) schedule(dynamic, rep % 2 ? 1 : 1024)
        for (uint32_t k = 0; k < n; k++)
            gemst_flatten_root(link, roots[k]);
        for (uint32_t v = 0; v < n; v++)
            REQUIRE(link[v] == root[v], "rep %d: link[%u] = %u, root %u", rep, v, link[v], root[v]);
    }
    free(order);
    free(base);
    free(root);
    free(link);
    free(roots);
}
END_TEST

/* ----------------------------------------------------------------- suite */

static Suite *grid_suite(void)
{
    Suite *s = suite_create("grid");
    TCase *tp = tcase_create("plan");
    tcase_add_test(tp, test_frame);
    tcase_add_test(tp, test_plan_uniform);
    tcase_add_test(tp, test_plan_thin_axes);
    tcase_add_test(tp, test_plan_strip);
    tcase_add_test(tp, test_plan_caps);
    tcase_add_test(tp, test_plan_refine);
    tcase_add_test(tp, test_plan_cell_count_overflow);
    tcase_add_test(tp, test_cell_of_and_fit);
    suite_add_tcase(s, tp);
    TCase *ts = tcase_create("search");
    tcase_set_timeout(ts, 60);
    tcase_add_loop_test(ts, test_ring_search, 0, GRID_CASES);
    tcase_add_loop_test(ts, test_knn, 0, GRID_CASES);
    tcase_add_loop_test(ts, test_nearest_foreign, 0, GRID_CASES);
    tcase_add_loop_test(ts, test_dynamic_search, 0, GRID_CASES);
    tcase_add_loop_test(ts, test_static_candidates, 0, GRID_CASES);
    suite_add_tcase(s, ts);
    TCase *tb = tcase_create("build");
    tcase_set_timeout(tb, 60);
    tcase_add_loop_test(tb, test_cpu_grid_build, 0, (int)(sizeof build_cases / sizeof build_cases[0]));
    suite_add_tcase(s, tb);
    TCase *tu = tcase_create("union_find");
    tcase_set_timeout(tu, 60);
    tcase_add_loop_test(tu, test_union_find_cases, 0, (int)(sizeof uf_cases / sizeof uf_cases[0]));
    tcase_add_test(tu, test_union_find_no_edge_and_cap);
    tcase_add_test(tu, test_union_find_cycle_reported);
    tcase_add_test(tu, test_union_find_long_chain);
    tcase_add_test(tu, test_union_find_parallel_flatten);
    suite_add_tcase(s, tu);
    return s;
}

int main(void)
{
    return run_suite(grid_suite());
}
