/*
 * The whole solver through the public API (CPU backend).
 *
 * References are independent of the solver:
 *   - gemst_prim_reference (src/tools/prim.h): Prim in double on the
 *     caller's coordinates (scaled by a power of two, which is exact here),
 *     ties broken by the edge order;
 *   - work_prim below: Prim on the working coordinates the documented frame
 *     gives (gemst_prim_working: x 2^-k in double, (x - min) 2^-k rounded to
 *     float) with the solver's distance formula, i.e. the exact minimum
 *     spanning tree of the squared distances the solver is documented to
 *     compare.  Under the edge order that tree is unique, so the solver must
 *     return exactly its edges in both precisions, whatever the ties.
 *
 * Inputs that once crashed the solver run in a child process, so that a
 * crash fails one test instead of the whole program.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "gridemst.h"
#include "tools/generate.h"
#include "tools/prim.h"


#define PI 3.14159265358979323846
#define FLOAT GRIDEMST_PRECISION_FLOAT
#define DOUBLE GRIDEMST_PRECISION_DOUBLE

/* ----------------------------------------------------------------- helpers */

static const char *prec_name(int prec)
{
    return prec == DOUBLE ? "double" : "float";
}

/* Options for the CPU backend. */
static gridemst_options cpu_options(int prec, gridemst_prune prune, gridemst_findmin2 fm2, int threads)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = prec;
    o.tuning.prune = prune;
    o.tuning.findmin2 = fm2;
    o.threads = threads;
    return o;
}

/* Relative closeness, with exact equality for zeros. */
static int close_rel(double a, double b, double tol)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * m;
}

/* ----------------------------------------------------------------- point sets */

typedef struct {
    char name[64];
    int dim;
    int64_t n;
    gridemst_dtype dtype;
    void *coords;
    int exact_float;  /* squared distances exact in float: Prim's edges in both precisions */
    int exact_double; /* no near-ties in double: Prim's edges in double precision */
} dataset;

static double coord_of(const dataset *ds, int64_t i, int d)
{
    if (ds->dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)ds->coords)[i * ds->dim + d];
    return ((const double *)ds->coords)[i * ds->dim + d];
}

typedef enum {
    SET_UNIFORM,     /* the generators' sets (float32 input, coordinates exact in double) */
    SET_NORMAL,
    SET_CLUSTERED,
    SET_LATTICE,
    SET_DUPLICATES,  /* 40 integer points, 50 copies each, ids shuffled */
    SET_LINE_EVEN,   /* integer points evenly spaced on a line, ids shuffled */
    SET_PLANE,       /* random doubles on the plane z = 0.25 (3D) */
    SET_LINE_RANDOM, /* random doubles on a line: (t, t/2) and the diagonal (t, t, t) */
    SET_CIRCLE_INT,  /* every integer point on a circle / sphere, and the centre */
    SET_CIRCLE,      /* evenly spaced on a circle / a Fibonacci sphere (near-equal distances) */
    SET_INTEGERS,    /* random integers, |x| < 1000 */
    SET_RANDOM       /* random doubles */
} set_kind;

typedef struct {
    set_kind kind;
    int dim;
    int64_t n;
} set_spec;

static const set_spec set_specs[] = {
    {SET_UNIFORM, 2, 2000},     {SET_UNIFORM, 3, 2000},    {SET_NORMAL, 2, 2000},     {SET_NORMAL, 3, 2000},
    {SET_CLUSTERED, 2, 2000},   {SET_CLUSTERED, 3, 2000},  {SET_LATTICE, 2, 1000},    {SET_LATTICE, 3, 1000},
    {SET_DUPLICATES, 2, 2000},  {SET_DUPLICATES, 3, 2000}, {SET_LINE_EVEN, 2, 500},   {SET_LINE_EVEN, 3, 300},
    {SET_LINE_RANDOM, 2, 1000}, {SET_LINE_RANDOM, 3, 1000}, {SET_CIRCLE_INT, 2, 0},   {SET_CIRCLE_INT, 3, 0},
    {SET_CIRCLE, 2, 720},       {SET_CIRCLE, 3, 1000},     {SET_INTEGERS, 2, 2000},   {SET_INTEGERS, 3, 2000},
    {SET_RANDOM, 2, 2},         {SET_RANDOM, 3, 3},        {SET_RANDOM, 2, 5},        {SET_RANDOM, 3, 17},
    {SET_PLANE, 3, 1500},
};
#define SET_COUNT ((int)(sizeof set_specs / sizeof set_specs[0]))

static void shuffle_points(double *c, int64_t n, int dim, uint64_t *seed)
{
    for (int64_t i = n; i > 1; i--) {
        int64_t j = rng_below(seed, i);
        for (int d = 0; d < dim; d++) {
            double t = c[(i - 1) * dim + d];
            c[(i - 1) * dim + d] = c[j * dim + d];
            c[j * dim + d] = t;
        }
    }
}

/* Integer points at squared radius r2 around the origin, and the origin. */
static double *sphere_lattice(int dim, int r2, int64_t *n)
{
    int r = (int)sqrt((double)r2), zr = dim == 3 ? r : 0;
    double *c = xcalloc((size_t)(2 * r + 1) * (2 * r + 1) * (2 * zr + 1) + 1, 3 * sizeof *c);
    int64_t m = 1; /* the origin first */
    for (int x = -r; x <= r; x++)
        for (int y = -r; y <= r; y++)
            for (int z = -zr; z <= zr; z++)
                if (x * x + y * y + z * z == r2) {
                    double p[3] = {x, y, z};
                    memcpy(&c[m * dim], p, sizeof *c * dim);
                    m++;
                }
    *n = m;
    return c;
}

/* The coordinates of a generated kind (float32), or NULL for other kinds. */
static void gen_set(const set_spec *sp, dataset *ds)
{
    static const gemst_gen_kind kinds[] = {GEMST_GEN_UNIFORM, GEMST_GEN_NORMAL, GEMST_GEN_CLUSTERED, GEMST_GEN_LATTICE};
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_generate(kinds[sp->kind], sp->n, sp->dim, 777u + (uint64_t)sp->kind, &ps, &err);
    REQUIRE(rc == GRIDEMST_OK, "generate: %s", err.message);
    ds->dtype = GRIDEMST_FLOAT32;
    ds->coords = ps.coords;
    ds->exact_double = 1; /* multiples of 2^-24 in a small range: exact in double */
    ds->exact_float = sp->kind == SET_LATTICE;
}

/* The coordinates of one point of the other kinds. */
static void make_point(const set_spec *sp, int64_t i, uint64_t *seed, double *p)
{
    const int dim = sp->dim;
    switch (sp->kind) {
    case SET_DUPLICATES: {
        uint64_t s = 4242u + (uint64_t)(i % 40); /* point i is a copy of base point i % 40 */
        for (int d = 0; d < dim; d++)
            p[d] = (double)rng_below(&s, 1999) - 999.0;
        break;
    }
    case SET_LINE_EVEN: /* 2D: parallel to the x axis; 3D: along (1, 2, 3) */
        for (int d = 0; d < dim; d++)
            p[d] = dim == 2 ? (d == 0 ? 3.0 * (double)i - 400.0 : 7.0) : (double)((d + 1) * i) - 400.0;
        break;
    case SET_PLANE: /* a plane of constant z */
        for (int d = 0; d < dim; d++)
            p[d] = d == 2 ? 0.25 : rng_unit(seed) * 2.0 - 1.0;
        break;
    case SET_LINE_RANDOM: {
        double t = rng_unit(seed) * 100.0 - 30.0;
        for (int d = 0; d < dim; d++)
            p[d] = dim == 2 && d == 1 ? t / 2 : t;
        break;
    }
    case SET_CIRCLE:
        if (dim == 2) {
            p[0] = 100.0 * cos(2 * PI * (double)i / (double)sp->n);
            p[1] = 100.0 * sin(2 * PI * (double)i / (double)sp->n);
        } else { /* Fibonacci sphere */
            double z = 1.0 - (2.0 * (double)i + 1.0) / (double)sp->n, r = sqrt(1.0 - z * z);
            double phi = PI * (3.0 - sqrt(5.0)) * (double)i;
            p[0] = r * cos(phi);
            p[1] = r * sin(phi);
            p[2] = z;
        }
        break;
    case SET_INTEGERS:
        for (int d = 0; d < dim; d++)
            p[d] = (double)rng_below(seed, 1999) - 999.0;
        break;
    default:
        for (int d = 0; d < dim; d++)
            p[d] = rng_unit(seed) * 2.0 - 1.0;
        break;
    }
}

static dataset make_set(int index)
{
    const set_spec *sp = &set_specs[index];
    static const char *names[] = {"uniform",     "normal",     "clustered", "lattice", "duplicates", "line-even",
                                  "plane",       "line-random", "circle-int", "circle", "integers",   "random"};
    dataset ds = {.dim = sp->dim, .n = sp->n, .dtype = GRIDEMST_FLOAT64};
    uint64_t seed = 9000u + (uint64_t)index;
    snprintf(ds.name, sizeof ds.name, "%s %dD n=%lld", names[sp->kind], sp->dim, (long long)sp->n);
    if (sp->kind <= SET_LATTICE) {
        gen_set(sp, &ds);
        return ds;
    }
    if (sp->kind == SET_CIRCLE_INT) {
        ds.coords = sphere_lattice(sp->dim, sp->dim == 2 ? 65 * 65 : 15 * 15, &ds.n);
        snprintf(ds.name, sizeof ds.name, "circle-int %dD n=%lld", sp->dim, (long long)ds.n);
    } else {
        double *c = xcalloc((size_t)sp->n * sp->dim, sizeof *c);
        for (int64_t i = 0; i < sp->n; i++)
            make_point(sp, i, &seed, &c[i * sp->dim]);
        if (sp->kind == SET_DUPLICATES || sp->kind == SET_LINE_EVEN)
            shuffle_points(c, sp->n, sp->dim, &seed);
        ds.coords = c;
    }
    ds.exact_float = sp->kind == SET_DUPLICATES || sp->kind == SET_LINE_EVEN || sp->kind == SET_CIRCLE_INT ||
                     sp->kind == SET_INTEGERS;
    ds.exact_double = sp->kind != SET_CIRCLE;
    return ds;
}

/* ----------------------------------------------------------------- references */

typedef struct {
    int64_t u, v;
} pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* The tree of the working points the documented frame gives, rounded to
 * the working precision, under the solver's distance formula
 * (gemst_prim_working): its edges, sorted by (u, v). */
static pair *work_prim(const dataset *ds, int prec)
{
    const int64_t m = ds->n > 1 ? ds->n - 1 : 0;
    gridemst_edge *e = xcalloc((size_t)m + 1, sizeof *e);
    pair *tree = xcalloc((size_t)m + 1, sizeof *tree);
    REQUIRE(gemst_prim_working(ds->coords, ds->dtype, ds->n, ds->dim, prec, e, NULL) >= 0, "Prim failed");
    for (int64_t k = 0; k < m; k++) {
        tree[k].u = e[k].u;
        tree[k].v = e[k].v;
    }
    qsort(tree, (size_t)m, sizeof *tree, cmp_pair);
    free(e);
    return tree;
}

/* The result's edges as (u, v) pairs sorted by (u, v). */
static pair *result_pairs(const gridemst_result *r)
{
    pair *p = xcalloc((size_t)r->n_edges + 1, sizeof *p);
    for (int64_t k = 0; k < r->n_edges; k++) {
        p[k].u = r->edges[k].u;
        p[k].v = r->edges[k].v;
    }
    qsort(p, (size_t)r->n_edges, sizeof *p, cmp_pair);
    return p;
}

/* First position where two sorted pair lists differ, or -1. */
static int64_t first_difference(const pair *a, const pair *b, int64_t m)
{
    for (int64_t k = 0; k < m; k++)
        if (a[k].u != b[k].u || a[k].v != b[k].v)
            return k;
    return -1;
}

/* ----------------------------------------------------------------- result checks */

static int64_t uf_find(int64_t *parent, int64_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* The result is a spanning tree, sorted by (w, u, v), with consistent
 * totals and statistics. */
static void check_tree_shape(const gridemst_result *r, int64_t n, int dim, const gridemst_options *o, const char *what)
{
    int64_t *parent = xcalloc((size_t)n + 1, sizeof *parent);
    double total = 0.0;
    REQUIRE(r->n == n && r->dim == dim, "%s: n %lld dim %d", what, (long long)r->n, r->dim);
    REQUIRE(r->n_edges == (n > 1 ? n - 1 : 0), "%s: %lld edges for %lld points", what, (long long)r->n_edges,
            (long long)n);
    for (int64_t i = 0; i < n; i++)
        parent[i] = i;
    for (int64_t k = 0; k < r->n_edges; k++) {
        const gridemst_edge *e = &r->edges[k];
        REQUIRE(0 <= e->u && e->u < e->v && e->v < n, "%s: edge %lld is (%lld, %lld)", what, (long long)k,
                (long long)e->u, (long long)e->v);
        REQUIRE(e->w >= 0 && isfinite(e->w), "%s: edge %lld has length %g", what, (long long)k, e->w);
        if (k > 0) {
            const gridemst_edge *f = &r->edges[k - 1];
            int ordered = f->w < e->w || (f->w == e->w && (f->u < e->u || (f->u == e->u && f->v < e->v)));
            REQUIRE(ordered, "%s: edges %lld and %lld out of (w, u, v) order", what, (long long)k - 1, (long long)k);
        }
        int64_t a = uf_find(parent, e->u), b = uf_find(parent, e->v);
        REQUIRE(a != b, "%s: edge (%lld, %lld) closes a cycle", what, (long long)e->u, (long long)e->v);
        parent[a] = b;
        total += e->w;
    }
    REQUIRE(close_rel(total, r->total_weight, 1e-12), "%s: total %.17g, edges sum to %.17g", what, r->total_weight,
            total);
    const gridemst_stats *st = &r->stats;
    REQUIRE(st->backend == GRIDEMST_BACKEND_CPU, "%s: backend %d", what, (int)st->backend);
    /* nns auto reports the index it chose; the BVH ignores the grid's
     * pruning: none ran. */
    REQUIRE(o->nns == GRIDEMST_NNS_AUTO ? st->nns != GRIDEMST_NNS_AUTO : st->nns == o->nns,
            "%s: stats report index %d for option %d", what, (int)st->nns, (int)o->nns);
    gridemst_prune prune = st->nns == GRIDEMST_NNS_BVH ? GRIDEMST_PRUNE_NONE : o->tuning.prune;
    REQUIRE(st->precision == o->precision && st->prune == prune && st->findmin2 == o->tuning.findmin2,
            "%s: stats do not echo the options", what);
    REQUIRE(st->nns == GRIDEMST_NNS_GRID || st->cells == 0, "%s: the BVH reports %lld cells", what,
            (long long)st->cells);
    REQUIRE(st->n_unique + st->n_duplicates == n, "%s: %lld unique + %lld duplicates != %lld", what,
            (long long)st->n_unique, (long long)st->n_duplicates, (long long)n);
    REQUIRE(st->n_unique >= (n > 0) && st->n_unique <= n, "%s: %lld unique points", what, (long long)st->n_unique);
    REQUIRE(st->n_unique < 2 || st->iterations >= 1, "%s: %d iterations", what, st->iterations);
    check_iteration_stats(st, what);
    /* Per iteration: the fallback searches add up, and the longest edge of
     * the longest iteration is the tree's. */
    int64_t searches = 0;
    double longest = 0.0;
    for (int k = 0; k < st->iterations; k++) {
        searches += st->iteration_ms[k].fallback_searches;
        longest = fmax(longest, st->iteration_ms[k].longest_edge);
    }
    REQUIRE(searches == st->fallback_searches, "%s: %lld fallback searches by iteration, %lld in all", what,
            (long long)searches, (long long)st->fallback_searches);
    const double tree_longest = r->n_edges > 0 ? r->edges[r->n_edges - 1].w : 0.0;
    REQUIRE(close_rel(longest, tree_longest, 1e-12), "%s: longest edge %.17g by iteration, %.17g in the tree", what,
            longest, tree_longest);
    free(parent);
}

/* The result against Prim's tree in double: total and sorted lengths within
 * rel (relative) + abs (absolute: the rounding of the working coordinates,
 * a fixed fraction of the bounding box), and, when exact, the same edges.
 * (The k-th shortest tree edge moves by at most the largest change of any
 * edge length, so per-edge bounds hold for the sorted lists.) */
static void check_against_prim(const gridemst_result *r, const gridemst_edge *prim, double prim_total, int exact,
                               double rel, double abs, const char *what)
{
    double slack = rel * prim_total + abs * (double)r->n_edges;
    REQUIRE(fabs(r->total_weight - prim_total) <= slack, "%s: total %.17g, Prim %.17g", what, r->total_weight,
            prim_total);
    for (int64_t k = 0; k < r->n_edges; k++)
        REQUIRE(fabs(r->edges[k].w - prim[k].w) <= rel * prim[k].w + abs, "%s: %lld-th shortest edge %.17g, Prim %.17g",
                what, (long long)k, r->edges[k].w, prim[k].w);
    if (!exact)
        return;
    for (int64_t k = 0; k < r->n_edges; k++)
        REQUIRE(r->edges[k].u == prim[k].u && r->edges[k].v == prim[k].v,
                "%s: %lld-th edge (%lld, %lld), Prim (%lld, %lld)", what, (long long)k, (long long)r->edges[k].u,
                (long long)r->edges[k].v, (long long)prim[k].u, (long long)prim[k].v);
}

/* Absolute length tolerance: a few units of the working precision's last
 * place at the scale of the bounding box (2^k >= its widest side). */
static double length_slack(const dataset *ds, int prec)
{
    double widest = 0.0;
    for (int d = 0; d < ds->dim; d++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < ds->n; i++) {
            lo = fmin(lo, coord_of(ds, i, d));
            hi = fmax(hi, coord_of(ds, i, d));
        }
        widest = fmax(widest, hi - lo);
    }
    return ldexp(widest, prec == DOUBLE ? -49 : -20);
}

static void check_against_work_prim(const gridemst_result *r, const pair *ref, const char *what)
{
    pair *got = result_pairs(r);
    int64_t k = first_difference(got, ref, r->n_edges);
    REQUIRE(k < 0, "%s: edge (%lld, %lld) where the working-precision tree has (%lld, %lld)", what,
            (long long)got[k].u, (long long)got[k].v, (long long)ref[k].u, (long long)ref[k].v);
    free(got);
}

static void solve_ok(const dataset *ds, const gridemst_options *o, gridemst_result *r, const char *what)
{
    gridemst_error err = {0};
    int rc = gridemst_solve(ds->coords, ds->dtype, ds->n, ds->dim, o, r, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: status %d: %s", what, rc, err.message);
}

/* ----------------------------------------------------------------- against Prim, all strategies */

static const gridemst_prune prunes[] = {GRIDEMST_PRUNE_NONE, GRIDEMST_PRUNE_DYNAMIC, GRIDEMST_PRUNE_STATIC};
static const gridemst_findmin2 findmin2s[] = {GRIDEMST_FINDMIN2_LIST, GRIDEMST_FINDMIN2_ATOMIC};

/* The FindMin1 searches: the grid with each pruning strategy (0, 1, 2), the
 * BVH (3), given the default prune, which it ignores, and static pruning
 * with the late BVH from iteration 3 on (4); each named, not left to nns
 * auto's choice (which the default solve makes). */
#define SEARCHES 5
#define SEARCH_BVH 3
#define SEARCH_LATE_BVH 4

static gridemst_options search_options(int prec, int search, gridemst_findmin2 fm2, int threads)
{
    gridemst_options o = cpu_options(prec, search >= SEARCH_BVH ? GRIDEMST_PRUNE_STATIC : prunes[search], fm2, threads);
    o.nns = search == SEARCH_BVH ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    if (search == SEARCH_LATE_BVH)
        o.tuning.late_bvh = 3;
    return o;
}

static const char *search_name(const gridemst_options *o)
{
    return o->nns == GRIDEMST_NNS_BVH  ? "bvh"
           : o->tuning.late_bvh > 0    ? "static, then the late BVH"
                                       : gridemst_prune_name(o->tuning.prune);
}

#define COMBOS (4 * SEARCHES) /* search x findmin2 x threads (1, 2) */
/* The CPU backend runs one thread per 20000 points, so on the small sets
 * below two threads would repeat the one-thread run: they get search x
 * findmin2 only, and the threads are tested on large sets. */
#define SMALL_COMBOS (2 * SEARCHES)

static gridemst_options combo_options(int prec, int c)
{
    return search_options(prec, c % SEARCHES, findmin2s[c / SEARCHES % 2], 1 + c / SMALL_COMBOS);
}

/*
 * One point set, both precisions: the default solve is a spanning tree,
 * exactly the working-precision tree, close to Prim's (identical where the
 * data have no near-ties), and every strategy (search x findmin2: the grid
 * with each pruning, and the BVH) and a repeated run give byte-identical
 * edges.
 */
START_TEST(test_against_prim)
{
    dataset ds = make_set(_i);
    const int64_t m = ds.n > 1 ? ds.n - 1 : 0;
    gridemst_edge *prim = xcalloc((size_t)m + 1, sizeof *prim);
    double prim_total = gemst_prim_reference(ds.coords, ds.dtype, ds.n, ds.dim, prim);
    REQUIRE(prim_total >= 0, "Prim ran out of memory");
    for (int prec = FLOAT; prec <= DOUBLE; prec++) {
        char what[160];
        pair *ref = work_prim(&ds, prec);
        gridemst_result first = GRIDEMST_RESULT_INIT;
        gridemst_options o = cpu_options(prec, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
        snprintf(what, sizeof what, "%s, %s", ds.name, prec_name(prec));
        solve_ok(&ds, &o, &first, what);
        check_tree_shape(&first, ds.n, ds.dim, &o, what);
        check_against_work_prim(&first, ref, what);
        int exact = prec == DOUBLE ? ds.exact_double || ds.exact_float : ds.exact_float;
        check_against_prim(&first, prim, prim_total, exact, prec == DOUBLE ? 1e-9 : 1e-6, length_slack(&ds, prec),
                           what);
        for (int c = 0; c <= SMALL_COMBOS; c++) {
            gridemst_result r = GRIDEMST_RESULT_INIT;
            o = c < SMALL_COMBOS ? combo_options(prec, c)
                                 : cpu_options(prec, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
            snprintf(what, sizeof what, "%s, %s, search %s, findmin2 %s, %d threads%s", ds.name, prec_name(prec),
                     search_name(&o), gridemst_findmin2_name(o.tuning.findmin2), o.threads,
                     c < SMALL_COMBOS ? "" : " (repeated)");
            solve_ok(&ds, &o, &r, what);
            check_tree_shape(&r, ds.n, ds.dim, &o, what);
            REQUIRE(same_edges(&r, &first), "%s: edges differ from the default strategy's", what);
            if (o.tuning.late_bvh > 0) /* it took over where there was an iteration 3 and more than two leaves */
                REQUIRE(r.stats.late_bvh_iteration == (r.stats.iterations > 3 && r.stats.n_unique > 8 ? 3 : -1),
                        "%s: the late BVH took over at iteration %d of %d", what, r.stats.late_bvh_iteration,
                        r.stats.iterations);
            gridemst_result_free(&r);
        }
        gridemst_result_free(&first);
        free(ref);
    }
    free(prim);
    free(ds.coords);
}
END_TEST

/* A set large enough that two threads really run (the CPU backend uses one
 * thread per 20000 points): every strategy, both precisions, identical.
 * (Uniform, not clustered: on clustered sets of this size prune=none takes
 * seconds per solve.) */
START_TEST(test_strategies_threads)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    const int64_t n = 50000;
    REQUIRE(gemst_generate(GEMST_GEN_UNIFORM, n, 2, 31, &ps, &err) == GRIDEMST_OK, "%s", err.message);
    dataset ds = {.name = "uniform 2D n=50000", .dim = 2, .n = n, .dtype = GRIDEMST_FLOAT32, .coords = ps.coords};
    for (int prec = FLOAT; prec <= DOUBLE; prec++) {
        gridemst_result first = GRIDEMST_RESULT_INIT, r = GRIDEMST_RESULT_INIT;
        for (int c = 0; c < COMBOS; c++) {
            char what[160];
            gridemst_options o = combo_options(prec, c);
            snprintf(what, sizeof what, "%s, %s, search %s, findmin2 %s, %d threads", ds.name, prec_name(prec),
                     search_name(&o), gridemst_findmin2_name(o.tuning.findmin2), o.threads);
            solve_ok(&ds, &o, c == 0 ? &first : &r, what);
            if (c == 0) {
                check_tree_shape(&first, n, 2, &o, what);
                continue;
            }
            REQUIRE(r.stats.threads == o.threads, "%s: ran %d threads", what, r.stats.threads);
            REQUIRE(same_edges(&r, &first), "%s: edges differ from the first strategy's", what);
            gridemst_result_free(&r);
        }
        gridemst_result_free(&first);
    }
    gemst_pointset_free(&ps);
}
END_TEST

/* Sums the weights in long double, one after the other. */
static long double plain_total(const gridemst_result *r)
{
    long double total = 0.0L;
    for (int64_t e = 0; e < r->n_edges; e++)
        total += r->edges[e].w;
    return total;
}

/* 300000 uniform 3D points: three runs of each strategy, on 1, 2 and 3
 * threads, give identical edges (a race in the flatten step once broke
 * this) and the bit-identical total weight, within 1e-12 of a plain sum. */
START_TEST(test_determinism_large)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    const int64_t n = 300000;
    REQUIRE(gemst_generate(GEMST_GEN_UNIFORM, n, 3, 5, &ps, &err) == GRIDEMST_OK, "%s", err.message);
    dataset ds = {.name = "uniform 3D n=300000", .dim = 3, .n = n, .dtype = GRIDEMST_FLOAT32, .coords = ps.coords};
    gridemst_result first = GRIDEMST_RESULT_INIT;
    for (int p = 0; p < SEARCHES; p++)
        for (int run = 0; run < 3; run++) {
            char what[160];
            gridemst_result r = GRIDEMST_RESULT_INIT;
            gridemst_options o = search_options(FLOAT, p, GRIDEMST_FINDMIN2_ATOMIC, run + 1);
            snprintf(what, sizeof what, "%s, search %s, %d threads", ds.name, search_name(&o), run + 1);
            solve_ok(&ds, &o, p + run == 0 ? &first : &r, what);
            if (p + run == 0) {
                check_tree_shape(&first, n, 3, &o, what);
                long double plain = plain_total(&first);
                REQUIRE(fabsl(first.total_weight - plain) <= 1e-12L * plain, "%s: total %.17g, plain sum %.17Lg",
                        what, first.total_weight, plain);
                continue;
            }
            REQUIRE(same_edges(&r, &first), "%s: edges differ from the first run's", what);
            REQUIRE(r.total_weight == first.total_weight, "%s: total %.17g, first run's %.17g", what, r.total_weight,
                    first.total_weight);
            gridemst_result_free(&r);
        }
    gridemst_result_free(&first);
    gemst_pointset_free(&ps);
}
END_TEST

/* ----------------------------------------------------------------- edge cases */

static int solve_status(const void *coords, gridemst_dtype dtype, int64_t n, int dim, const gridemst_options *o,
                        gridemst_error *err)
{
    gridemst_result r = GRIDEMST_RESULT_INIT;
    memset(&r, 0x5a, sizeof r);
    r.struct_size = sizeof r;
    int rc = gridemst_solve(coords, dtype, n, dim, o, &r, err);
    if (rc != GRIDEMST_OK) {
        REQUIRE(r.edges == NULL && r.n_edges == 0, "a failed solve left a result behind");
        REQUIRE(err == NULL || (int)err->code == rc, "error code %d, status %d", err ? (int)err->code : 0, rc);
    }
    gridemst_result_free(&r);
    return rc;
}

START_TEST(test_tiny_inputs)
{
    const double two[4] = {1.0, 2.0, 4.0, 6.0}; /* (1,2)-(4,6): a 3-4-5 triangle */
    gridemst_options o = cpu_options(DOUBLE, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    for (int64_t n = 0; n <= 1; n++) {
        REQUIRE(gridemst_solve(n ? two : NULL, GRIDEMST_FLOAT64, n, 2, &o, &r, &err) == GRIDEMST_OK, "n = %lld: %s",
                (long long)n, err.message);
        REQUIRE(r.n_edges == 0 && r.edges == NULL && r.total_weight == 0 && r.n == n, "n = %lld", (long long)n);
        REQUIRE(r.stats.n_unique + r.stats.n_duplicates == n, "n = %lld: stats", (long long)n);
        gridemst_result_free(&r);
    }
    for (int prec = FLOAT; prec <= DOUBLE; prec++) {
        o.precision = prec;
        REQUIRE(gridemst_solve(two, GRIDEMST_FLOAT64, 2, 2, &o, &r, &err) == GRIDEMST_OK, "n = 2: %s", err.message);
        REQUIRE(r.n_edges == 1 && r.edges[0].u == 0 && r.edges[0].v == 1 && r.edges[0].w == 5.0 &&
                    r.total_weight == 5.0,
                "n = 2: edge (%lld, %lld, %g)", (long long)r.edges[0].u, (long long)r.edges[0].v, r.edges[0].w);
        REQUIRE(r.stats.iterations >= 1, "n = 2: %d iterations", r.stats.iterations);
        gridemst_result_free(&r);
    }
    /* The defaults (opt = NULL) also solve, on the CPU where no GPU is. */
    REQUIRE(gridemst_solve(two, GRIDEMST_FLOAT64, 2, 2, NULL, &r, &err) == GRIDEMST_OK, "defaults: %s", err.message);
    REQUIRE(r.n_edges == 1, "defaults: %lld edges", (long long)r.n_edges);
    gridemst_result_free(&r);
}
END_TEST

/* All points equal: n - 1 zero-length edges forming a star at id 0. */
START_TEST(test_all_identical)
{
    enum { N = 100 };
    double c[N * 3];
    for (int i = 0; i < N; i++) {
        c[3 * i] = 1.5;
        c[3 * i + 1] = -2.0;
        c[3 * i + 2] = 7.0;
    }
    for (int prec = FLOAT; prec <= DOUBLE; prec++)
        for (int p = 0; p < SEARCHES; p++) {
            gridemst_options o = search_options(prec, p, GRIDEMST_FINDMIN2_ATOMIC, 1);
            gridemst_result r = GRIDEMST_RESULT_INIT;
            gridemst_error err;
            REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, N, 3, &o, &r, &err) == GRIDEMST_OK, "%s", err.message);
            check_tree_shape(&r, N, 3, &o, "identical points");
            for (int k = 0; k < N - 1; k++)
                REQUIRE(r.edges[k].u == 0 && r.edges[k].v == k + 1 && r.edges[k].w == 0.0,
                        "edge %d is (%lld, %lld, %g)", k, (long long)r.edges[k].u, (long long)r.edges[k].v,
                        r.edges[k].w);
            REQUIRE(r.stats.n_unique == 1 && r.stats.n_duplicates == N - 1, "%lld unique",
                    (long long)r.stats.n_unique);
            gridemst_result_free(&r);
        }
}
END_TEST

/* Whether msg names the number k (not as part of a longer number). */
static int names_number(const char *msg, long long k)
{
    char num[32];
    int len = snprintf(num, sizeof num, "%lld", k);
    for (const char *p = strstr(msg, num); p; p = strstr(p + 1, num)) {
        int before = p > msg && p[-1] >= '0' && p[-1] <= '9';
        int after = p[len] >= '0' && p[len] <= '9';
        if (!before && !after)
            return 1;
    }
    return 0;
}

START_TEST(test_non_finite_input)
{
    static const struct {
        int dim, dtype;
        int64_t n, bad;
        int axis;
        double value;
    } cases[] = {
        {2, GRIDEMST_FLOAT64, 20, 7, 1, NAN},    {3, GRIDEMST_FLOAT64, 20, 0, 0, INFINITY},
        {3, GRIDEMST_FLOAT32, 30, 13, 2, -INFINITY}, {2, GRIDEMST_FLOAT32, 30, 29, 0, NAN},
        {2, GRIDEMST_FLOAT64, 1, 0, 1, NAN},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double d[90] = {0};
        float f[90] = {0};
        for (int k = 0; k < 90; k++)
            d[k] = f[k] = (float)(k % 7);
        d[cases[c].bad * cases[c].dim + cases[c].axis] = cases[c].value;
        f[cases[c].bad * cases[c].dim + cases[c].axis] = (float)cases[c].value;
        gridemst_error err = {0};
        gridemst_options o = cpu_options(DOUBLE, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
        const void *coords = cases[c].dtype == GRIDEMST_FLOAT64 ? (const void *)d : (const void *)f;
        int rc = solve_status(coords, cases[c].dtype, cases[c].n, cases[c].dim, &o, &err);
        REQUIRE(rc == GRIDEMST_ERR_INPUT, "case %zu: status %d", c, rc);
        REQUIRE(names_number(err.message, cases[c].bad), "case %zu: message \"%s\" does not name point %lld", c,
                err.message, (long long)cases[c].bad);
    }
}
END_TEST

/* Bad arguments and option values. */
START_TEST(test_bad_arguments)
{
    const double c[6] = {0, 0, 1, 1, 2, 0};
    gridemst_options o = cpu_options(DOUBLE, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
    gridemst_error err;
    static const int bad_dims[] = {1, 4, 0, -1};
    for (size_t k = 0; k < sizeof bad_dims / sizeof bad_dims[0]; k++)
        REQUIRE(solve_status(c, GRIDEMST_FLOAT64, 3, bad_dims[k], &o, &err) == GRIDEMST_ERR_INPUT, "dim %d",
                bad_dims[k]);
    REQUIRE(solve_status(NULL, GRIDEMST_FLOAT64, 3, 2, &o, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "NULL coords");
    REQUIRE(solve_status(c, GRIDEMST_FLOAT64, -1, 2, &o, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "n < 0");
    REQUIRE(solve_status(c, (gridemst_dtype)5, 3, 2, &o, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "dtype 5");
    REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, 3, 2, &o, NULL, &err) == GRIDEMST_ERR_INVALID_ARGUMENT,
            "NULL result");
    /* Each field of the options set to a bad value in turn. */
    for (int k = 0; k < 12; k++) {
        gridemst_options b = o;
        switch (k) {
        case 0: b.backend = (gridemst_backend)3; break;
        case 1: b.nns = (gridemst_nns)3; break;
        case 2: b.tuning.prune = (gridemst_prune)3; break;
        case 3: b.tuning.findmin2 = (gridemst_findmin2)2; break;
        case 4: b.precision = (gridemst_precision)2; break;
        case 5: b.threads = -1; break;
        case 6: b.device = -1; break;
        case 7: b.tuning.cell_occupancy = -1.0; break;
        case 8: b.tuning.cell_occupancy = NAN; break;
        case 9: b.tuning.crowded_cell = -1; break;
        case 10: b.tuning.late_bvh = -2; break;
        default: b.tuning.cell_occupancy = INFINITY; break;
        }
        REQUIRE(solve_status(c, GRIDEMST_FLOAT64, 3, 2, &b, &err) == GRIDEMST_ERR_INVALID_ARGUMENT, "option %d", k);
        REQUIRE(solve_status(c, GRIDEMST_FLOAT64, 3, 2, &b, NULL) == GRIDEMST_ERR_INVALID_ARGUMENT,
                "option %d, no error record", k);
    }
    /* The BVH runs on either backend: AUTO picks one as for the grid. */
    {
        gridemst_options b = o;
        gridemst_result r = GRIDEMST_RESULT_INIT;
        b.nns = GRIDEMST_NNS_BVH;
        b.backend = GRIDEMST_BACKEND_AUTO;
        const gridemst_backend expect = gridemst_cuda_device_count() > 0 ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
        REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, 3, 2, &b, &r, &err) == GRIDEMST_OK, "bvh, auto: %s", err.message);
        REQUIRE(r.stats.backend == expect && r.stats.nns == GRIDEMST_NNS_BVH && r.n_edges == 2,
                "bvh, auto: backend %d, %lld edges", (int)r.stats.backend, (long long)r.n_edges);
        gridemst_result_free(&r);
    }
    /* The CUDA backend where no device is: a clear refusal. */
    if (gridemst_cuda_device_count() == 0) {
        gridemst_options b = o;
        b.backend = GRIDEMST_BACKEND_CUDA;
        int rc = solve_status(c, GRIDEMST_FLOAT64, 3, 2, &b, &err);
        REQUIRE(rc == GRIDEMST_ERR_UNSUPPORTED || rc == GRIDEMST_ERR_NO_DEVICE, "cuda without a device: %d", rc);
        gridemst_result r = GRIDEMST_RESULT_INIT;
        rc = gridemst_solve_device(c, GRIDEMST_FLOAT64, 3, 2, NULL, &r, &err);
        REQUIRE(rc == GRIDEMST_ERR_UNSUPPORTED || rc == GRIDEMST_ERR_NO_DEVICE, "device input without a device: %d",
                rc);
        REQUIRE(r.n_edges == 0 && r.edges == NULL, "device input without a device: a result");
    }
}
END_TEST

/* Point sets of extreme scale or shape, in double precision against Prim. */
typedef enum { SCALE_HUGE, SCALE_TINY, SCALE_FAR_LATTICE, SCALE_STRIP, SCALE_FLOAT_INPUT } scale_kind;

static dataset make_scaled(scale_kind kind, uint64_t seed)
{
    dataset ds = {.dim = kind == SCALE_HUGE ? 3 : 2, .n = kind == SCALE_STRIP ? 3000 : 1000,
                  .dtype = GRIDEMST_FLOAT64, .exact_double = 1};
    static const char *names[] = {"1e30 scale", "1e-30 scale", "ulps of 1e6", "1e4 x 1 strip", "float32 input"};
    snprintf(ds.name, sizeof ds.name, "%s", names[kind]);
    double *c = xcalloc((size_t)ds.n * ds.dim, sizeof *c);
    for (int64_t i = 0; i < ds.n * ds.dim; i++) {
        double u = rng_unit(&seed);
        int axis = (int)(i % ds.dim);
        switch (kind) {
        case SCALE_HUGE: c[i] = u * 1e30 - 5e29; break;
        case SCALE_TINY: c[i] = u * 1e-30; break;
        case SCALE_FAR_LATTICE: c[i] = 1e6 + (double)rng_below(&seed, 4000) * 0x1p-33; break; /* ulp(1e6) = 2^-33 */
        case SCALE_STRIP: c[i] = axis == 0 ? u * 1e4 : u; break;
        default: c[i] = (double)(float)(u * 3.0 - 1.0); break;
        }
    }
    if (kind == SCALE_FLOAT_INPUT) {
        float *f = xcalloc((size_t)ds.n * ds.dim, sizeof *f);
        for (int64_t i = 0; i < ds.n * ds.dim; i++)
            f[i] = (float)c[i];
        free(c);
        ds.dtype = GRIDEMST_FLOAT32;
        ds.coords = f;
    } else {
        ds.coords = c;
    }
    return ds;
}

START_TEST(test_extreme_scales)
{
    dataset ds = make_scaled((scale_kind)_i, 321u + (uint64_t)_i);
    gridemst_edge *prim = xcalloc((size_t)ds.n, sizeof *prim);
    double prim_total = gemst_prim_reference(ds.coords, ds.dtype, ds.n, ds.dim, prim);
    pair *ref = work_prim(&ds, DOUBLE);
    for (int p = 0; p < SEARCHES; p++) {
        char what[160];
        gridemst_result r = GRIDEMST_RESULT_INIT;
        gridemst_options o = search_options(DOUBLE, p, GRIDEMST_FINDMIN2_ATOMIC, 1);
        snprintf(what, sizeof what, "%s, search %s", ds.name, search_name(&o));
        solve_ok(&ds, &o, &r, what);
        check_tree_shape(&r, ds.n, ds.dim, &o, what);
        check_against_work_prim(&r, ref, what);
        check_against_prim(&r, prim, prim_total, ds.exact_double, 1e-9, length_slack(&ds, DOUBLE), what);
        REQUIRE(p == SEARCH_BVH || (r.stats.cells >= 1 && r.stats.cells <= 4 * ds.n + 1024), "%s: %lld cells", what,
                (long long)r.stats.cells);
        gridemst_result_free(&r);
    }
    free(ref);
    free(prim);
    free(ds.coords);
}
END_TEST

/* ----------------------------------------------------------------- isolated runs (regressions) */

/* Runs fn(arg) in a child process (with a time limit) so that memory
 * corruption or a crash there fails the test instead of ending the program.
 * Returns 0 when the child reports success; otherwise fills msg. */
typedef int (*child_fn)(const void *arg, char *msg, size_t len);

static int run_isolated(child_fn fn, const void *arg, char *msg, size_t len)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char out[512] = "";
        close(fds[0]);
        alarm(60);
        int rc = fn(arg, out, sizeof out);
        ssize_t wrote = write(fds[1], out, strlen(out));
        (void)wrote;
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], msg, len - 1);
    msg[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) {
        snprintf(msg, len, "crashed with signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 1;
    }
    return WEXITSTATUS(status) != 0;
}

/* A solve to run isolated: the set, the options, and the expected edges. */
typedef struct {
    const dataset *ds;
    gridemst_options opt;
    const pair *ref;
} isolated_solve;

/* Solves and compares with the working-precision tree; 0 when they agree. */
static int solve_matches(const isolated_solve *is, char *msg, size_t len)
{
    const dataset *ds = is->ds;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err = {0};
    int rc = gridemst_solve(ds->coords, ds->dtype, ds->n, ds->dim, &is->opt, &r, &err);
    if (rc != GRIDEMST_OK) {
        snprintf(msg, len, "status %d: %s", rc, err.message);
        return 1;
    }
    if (r.n_edges != ds->n - 1) {
        snprintf(msg, len, "%lld edges for %lld points", (long long)r.n_edges, (long long)ds->n);
        gridemst_result_free(&r);
        return 1;
    }
    pair *got = result_pairs(&r);
    int64_t k = first_difference(got, is->ref, r.n_edges);
    if (k >= 0)
        snprintf(msg, len, "edge (%lld, %lld) where the tree has (%lld, %lld)", (long long)got[k].u,
                 (long long)got[k].v, (long long)is->ref[k].u, (long long)is->ref[k].v);
    free(got);
    gridemst_result_free(&r);
    return k >= 0;
}

static int child_solve(const void *arg, char *msg, size_t len)
{
    return solve_matches(arg, msg, len);
}

/* Random small sets of clusters whose points are a few units in the last
 * place apart (the sets that found the cases below). */
#define STRESS_TRIALS 4000

static void near_dup_set(int trial, int prec, dataset *ds)
{
    uint64_t seed = 0x5eedu + 7919u * (uint64_t)trial;
    int clusters = 1 + (int)rng_below(&seed, 4);
    double centers[4][3], tiny = ldexp(1.0, (prec == DOUBLE ? -55 : -26) - (int)rng_below(&seed, 10));
    ds->dim = 2 + trial % 2;
    ds->n = 4 + rng_below(&seed, 37);
    ds->dtype = GRIDEMST_FLOAT64;
    for (int k = 0; k < clusters; k++)
        for (int d = 0; d < 3; d++)
            centers[k][d] = rng_unit(&seed);
    double *c = xcalloc((size_t)ds->n * ds->dim, sizeof *c);
    for (int64_t i = 0; i < ds->n; i++) {
        int k = (int)rng_below(&seed, clusters);
        for (int d = 0; d < ds->dim; d++)
            c[i * ds->dim + d] = centers[k][d] + (rng_below(&seed, 3) ? tiny * (double)(rng_below(&seed, 7) - 3) : 0);
    }
    ds->coords = c;
    snprintf(ds->name, sizeof ds->name, "trial %d (%dD, n=%lld)", trial, ds->dim, (long long)ds->n);
}

/* In the child: every random set with one strategy, up to the first failure. */
static int child_stress(const void *arg, char *msg, size_t len)
{
    const isolated_solve *job = arg;
    for (int trial = 0; trial < STRESS_TRIALS; trial++) {
        dataset ds;
        near_dup_set(trial, job->opt.precision, &ds);
        pair *ref = work_prim(&ds, job->opt.precision);
        isolated_solve is = {&ds, job->opt, ref};
        char why[400];
        int bad = solve_matches(&is, why, sizeof why);
        if (bad)
            snprintf(msg, len, "%s: %s", ds.name, why);
        free(ref);
        free(ds.coords);
        if (bad)
            return 1;
    }
    return 0;
}

/* fn under each strategy (single thread) in a child; reports every failing
 * strategy at once.  ds and ref are handed to fn (NULL for the stress). */
static void check_strategies_isolated(child_fn fn, const dataset *ds, const pair *ref, int prec, const char *what)
{
    char report[2048] = "";
    size_t used = 0;
    int failures = 0;
    for (int c = 0; c < SMALL_COMBOS; c++) {
        isolated_solve job = {ds, combo_options(prec, c), ref};
        char msg[512];
        if (run_isolated(fn, &job, msg, sizeof msg) == 0)
            continue;
        failures++;
        used += (size_t)snprintf(report + used, sizeof report - used, "\n  search %s, findmin2 %s: %s",
                                 search_name(&job.opt), gridemst_findmin2_name(job.opt.tuning.findmin2), msg);
        if (used >= sizeof report)
            used = sizeof report - 1;
    }
    REQUIRE(failures == 0, "%s, %s precision: %d of %d strategies fail:%s", what, prec_name(prec), failures,
            SMALL_COMBOS, report);
}

/*
 * Near-duplicate points (one unit in the last place apart) next to far
 * ones.  The slab pruning relies on the uniqueness property |pw| < |qw|,
 * which holds in exact arithmetic, but when p is within a few ulps of q the
 * two computed squared distances round to the same value and the edge order
 * then prefers (q, w): the pruned edge is the tree's.  Before slab
 * reasoning was limited to points GEMST_SLAB_MIN_D2 away, Boruvka
 * components picked different edges to each other, the loop emitted n or
 * more edges into an array of n - 1 (heap overflow), or the tree differed
 * (noted per set).  Minimised from random sets; the expected tree is
 * work_prim's.
 */
static const double near_dup_5[] = { /* static + list: a cycle (5 edges for 5 points) */
    0x1.389716a802bdp-2, 0x1.e8e4a5d471ab4p-3, 0x1.dd6b9c8309261p-1, 0x1.8aab0934e43c8p-3,
    0x1.880b782d644fcp-1, 0x1.66bb9b6eeaa53p-1, 0x1.389716a802bdp-2, 0x1.e8e4a5d471ab5p-3,
    0x1.041527e5f31edp-1, 0x1.a83748183901fp-1};
static const double near_dup_6[] = { /* dynamic: a cycle */
    0x1.6b76a2738384ap-2, 0x1.cc7c99e3580dap-5, 0x1.6b76a2738384ap-2, 0x1.cc7c99e3580ep-5,
    0x1.b960176f1757p-2, 0x1.a8658e51eb9aap-1, 0x1.b960176f1756fp-2, 0x1.a8658e51eb9aap-1,
    0x1.b960176f1756fp-2, 0x1.a8658e51eb9aap-1, 0x1.b960176f17571p-2, 0x1.a8658e51eb9aap-1};
static const double near_dup_6_3d[] = { /* static: a different tree */
    0x1.8168f7f6bcb48p-3, 0x1.c6afd03110e76p-2, 0x1.66e8185f39effp-1, 0x1.9bb8e2ca417f1p-1, 0x1.dd2257c8f08cp-2,
    0x1.6f3b2657b6d51p-1, 0x1.48f3943bb7cd6p-1, 0x1.dc452328bf919p-1, 0x1.b07d215962a43p-1, 0x1.48f3943bb7cd6p-1,
    0x1.dc452328bf91ap-1, 0x1.b07d215962a44p-1, 0x1.9bb8e2ca417fp-1,  0x1.dd2257c8f08c2p-2, 0x1.6f3b2657b6d5p-1,
    0x1.8168f7f6bcb4ap-3, 0x1.c6afd03110e77p-2, 0x1.66e8185f39effp-1};
static const double near_dup_7[] = { /* static and dynamic: a different tree */
    0x1.d3674af1f52dp-1, 0x1.5e250f9d05701p-1, 0x1.e93b3c5ff1531p-1, 0x1.4021f99cd1cf4p-5,
    0x1.e93b3c5ff1532p-1, 0x1.4021f99cd1dp-5,  0x1.e93b3c5ff1531p-1, 0x1.4021f99cd1d0cp-5,
    0x1.e93b3c5ff1532p-1, 0x1.4021f99cd1d08p-5, 0x1.e93b3c5ff1531p-1, 0x1.4021f99cd1dp-5,
    0x1.d3674af1f52dp-1, 0x1.5e250f9d057p-1};
static const double near_dup_28[] = { /* none, dynamic: a cycle (a cell search's shared bound paired a new length
                                          with the old endpoints, and an equal edge of smaller ids was lost) */
    0x1.9681837cacfa8p-1, 0x1.487c60885d71cp+0, 0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2,
    0x1.9681837cacfa8p-1, 0x1.21f1822175c6ep-2, 0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2,
    0x1.9681837cacfa8p-1, 0x1.21f1822175c6ep-2, 0x1.405d812a98c31p+0, 0x1.02117dffb98acp-1,
    0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2, 0x1.9681837cacfa8p-1, 0x1.21f1822175c6ep-2,
    0x1.017604aa630c4p-2, 0x1.02117dffb98acp-1, 0x1.405d812a98c31p+0, 0x1.02117dffb98acp-1,
    0x1.7796346854036p+0, 0x1.5730cb21642f9p+0, 0x1.de58d1a1500d8p-2, 0x1.5730cb21642f9p+0,
    0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2, 0x1.cb40c1be567d4p+0, 0x1.21f1822175c6ep-2,
    0x1.9681837cacfa8p-1, 0x1.487c60885d71cp+0, 0x1.017604aa630c4p-2, 0x1.02117dffb98acp-1,
    0x1.cb40c1be567d4p+0, 0x1.21f1822175c6ep-2, 0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2,
    0x1.7796346854036p+0, 0x1.5730cb21642f9p+0, 0x1.de58d1a1500d8p-2, 0x1.5730cb21642f9p+0,
    0x1.cb40c1be567d4p+0, 0x1.21f1822175c6ep-2, 0x1.9681837cacfa8p-1, 0x1.21f1822175c6ep-2,
    0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2, 0x1.cb40c1be567d4p+0, 0x1.21f1822175c6ep-2,
    0x1.017604aa630c4p-2, 0x1.02117dffb98acp-1, 0x1.017604aa630c4p-2, 0x1.02117dffb98acp-1,
    0x1.de58d1a1500d8p-2, 0x1.5cc32c8590be4p-2, 0x1.017604aa630c4p-2, 0x1.02117dffb98acp-1};
static const double near_dup_4_float[] = { /* float precision, static + list: a cycle */
    0x1.9f723ddbf01dep-1, 0x1.7c2684abedd5p-1, 0x1.9f723d1bf01dep-1, 0x1.7c2683ebedd5p-1,
    0x1.4040b57006c76p-2, 0x1.740d875894ad5p-1, 0x1.4040b67006c76p-2, 0x1.740d87d894ad5p-1};

static const struct {
    const char *name;
    const double *coords;
    int64_t n;
    int dim, prec;
} near_dup_cases[] = {
    {"near duplicates 5", near_dup_5, 5, 2, DOUBLE},        {"near duplicates 6", near_dup_6, 6, 2, DOUBLE},
    {"near duplicates 6 3D", near_dup_6_3d, 6, 3, DOUBLE},  {"near duplicates 7", near_dup_7, 7, 2, DOUBLE},
    {"near duplicates 4", near_dup_4_float, 4, 2, FLOAT},   {"near duplicates 28", near_dup_28, 28, 2, DOUBLE},
};

START_TEST(test_near_duplicates)
{
    dataset ds = {.dim = near_dup_cases[_i].dim, .n = near_dup_cases[_i].n, .dtype = GRIDEMST_FLOAT64,
                  .coords = (void *)near_dup_cases[_i].coords};
    pair *ref = work_prim(&ds, near_dup_cases[_i].prec);
    check_strategies_isolated(child_solve, &ds, ref, near_dup_cases[_i].prec, near_dup_cases[_i].name);
    free(ref);
}
END_TEST

START_TEST(test_near_duplicates_random)
{
    char what[64];
    snprintf(what, sizeof what, "%d random near-duplicate sets", STRESS_TRIALS);
    check_strategies_isolated(child_stress, NULL, NULL, _i, what);
}
END_TEST

/*
 * A valid but tiny cell occupancy asking for 2^22 cells per axis: 2^66
 * cells, which the plan's uint64 product wraps to 0 (see test_grid's
 * test_plan_cell_count_overflow).  The eight corners of the unit cube must
 * give a tree of 7 unit edges, or a clean error (it was a segfault).
 */
static int child_occupancy(const void *arg, char *msg, size_t len)
{
    (void)arg;
    double c[24];
    const double m = 4194304.0 - 0.5;
    for (int i = 0; i < 8; i++)
        for (int d = 0; d < 3; d++)
            c[3 * i + d] = (i >> d) & 1;
    gridemst_options o = cpu_options(DOUBLE, GRIDEMST_PRUNE_STATIC, GRIDEMST_FINDMIN2_ATOMIC, 1);
    o.tuning.cell_occupancy = 8.0 / (m * m * m);
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err = {0};
    int rc = gridemst_solve(c, GRIDEMST_FLOAT64, 8, 3, &o, &r, &err);
    if (rc != GRIDEMST_OK)
        return 0; /* refusing is fine */
    int ok = r.n_edges == 7 && r.total_weight == 7.0;
    snprintf(msg, len, "%lld edges of total length %g", (long long)r.n_edges, r.total_weight);
    gridemst_result_free(&r);
    return !ok;
}

START_TEST(test_tiny_occupancy)
{
    char msg[512];
    REQUIRE(run_isolated(child_occupancy, NULL, msg, sizeof msg) == 0, "cube corners, occupancy 1.08e-19: %s", msg);
}
END_TEST

/* ----------------------------------------------------------------- suite */

static Suite *emst_suite(void)
{
    Suite *s = suite_create("emst");
    /* The isolated runs first, before OpenMP starts its thread pool in this
     * process (a forked child inherits none of its threads). */
    TCase *tb = tcase_create("regressions");
    tcase_set_timeout(tb, 120);
    tcase_add_test(tb, test_tiny_occupancy);
    tcase_add_loop_test(tb, test_near_duplicates, 0, (int)(sizeof near_dup_cases / sizeof near_dup_cases[0]));
    tcase_add_loop_test(tb, test_near_duplicates_random, FLOAT, DOUBLE + 1);
    suite_add_tcase(s, tb);
    TCase *tp = tcase_create("prim");
    tcase_set_timeout(tp, 120);
    tcase_add_loop_test(tp, test_against_prim, 0, SET_COUNT);
    suite_add_tcase(s, tp);
    TCase *te = tcase_create("edge_cases");
    tcase_set_timeout(te, 60);
    tcase_add_test(te, test_tiny_inputs);
    tcase_add_test(te, test_all_identical);
    tcase_add_test(te, test_non_finite_input);
    tcase_add_test(te, test_bad_arguments);
    tcase_add_loop_test(te, test_extreme_scales, SCALE_HUGE, SCALE_FLOAT_INPUT + 1);
    suite_add_tcase(s, te);
    TCase *tl = tcase_create("large");
    tcase_set_timeout(tl, 300);
    tcase_add_test(tl, test_strategies_threads);
    tcase_add_test(tl, test_determinism_large);
    suite_add_tcase(s, tl);
    return s;
}

int main(void)
{
    return run_suite(emst_suite());
}
