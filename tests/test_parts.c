/*
 * The partitioned solve (options.partitions) on the CPU's virtual parts.
 *
 * Its reference is the single CPU solve of the same points, an independent
 * computation of the same tree: the tree is unique under the edge order,
 * so the partitioned solve must return its edge array byte for byte, and
 * the same total.  The sets aim at the parts' boundaries: duplicates and
 * points on the planes the Morton splits cut along, lattices (every
 * nearest distance tied), clusters with long edges between them, thin
 * shells, and sets smaller than the number of parts.
 *
 * Each part's safe edges are marked by either rule, Kruskal's and the
 * rounds (GRIDEMST_SAFE_EDGES): the tree is the same.
 *
 * The regions' distances (src/parts/region.h), which decide which edges
 * are safe and which points a part must see, are checked against a brute
 * force over the cells of a coarse level, the halo's searches
 * (src/parts/halo.h) against a scan of all its points, and what a point
 * keeps of its last search (src/parts/kept_answer.h) against a scan of all
 * the other parts' points.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "gridemst.h"
#include "parts_sets.h"
#include "parts/halo.h"
#include "parts/kdtree.h"
#include "parts/kept_answer.h"
#include "parts/region_dist.h"
#include "parts/requests.h"
#include "parts/store.h"

static const int part_counts[] = {2, 3, 4, 7};
#define N_PART_COUNTS ((int)(sizeof part_counts / sizeof part_counts[0]))

/* ----------------------------------------------------------------- solves */

static gridemst_options cpu_options(int partitions, gridemst_precision prec)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = prec;
    o.partitions = partitions;
    return o;
}

static void solve_ok(const dataset *ds, const gridemst_options *o, gridemst_result *r, const char *what)
{
    gridemst_error err;
    int rc = gridemst_solve(ds->coords, ds->dtype, ds->n, ds->dim, o, r, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: %s", what, err.message);
}

/* The partitioned tree is the single solve's, byte for byte; its
 * statistics add up. */
static void check_same(const gridemst_result *ref, const gridemst_result *got, int64_t n, int parts, const char *what)
{
    REQUIRE_CMP(got->n_edges, ==, ref->n_edges);
    for (int64_t k = 0; k < ref->n_edges; k++) {
        const gridemst_edge *a = &ref->edges[k], *b = &got->edges[k];
        REQUIRE(a->u == b->u && a->v == b->v && a->w == b->w,
                "%s: edge %lld is (%lld, %lld, %.17g), the single solve's (%lld, %lld, %.17g)", what, (long long)k,
                (long long)b->u, (long long)b->v, b->w, (long long)a->u, (long long)a->v, a->w);
    }
    REQUIRE(ref->n_edges == 0 || memcmp(ref->edges, got->edges, sizeof *ref->edges * (size_t)ref->n_edges) == 0,
            "%s: the edge arrays differ", what);
    REQUIRE(got->total_weight == ref->total_weight, "%s: total %.17g, the single solve's %.17g", what,
            got->total_weight, ref->total_weight);
    const gridemst_partition_stats *ps = &got->stats.partitions;
    if (n < 2)
        return;
    REQUIRE_CMP(ps->parts, ==, parts);
    REQUIRE(ps->largest_part >= ps->smallest_part && ps->largest_part <= n && ps->smallest_part >= 0, "%s: parts of %lld to %lld points", what,
            (long long)ps->smallest_part, (long long)ps->largest_part);
    /* the safe edges and the boundary Boruvka's make the tree */
    REQUIRE(ps->safe_edges + ps->components - 1 == n - 1, "%s: %lld safe edges and %lld components for %lld points",
            what, (long long)ps->safe_edges, (long long)ps->components, (long long)n);
    /* a point goes to each other part at most once */
    REQUIRE(ps->halo_points >= 0 && ps->halo_points <= (int64_t)(parts - 1) * n, "%s: halos of %lld points", what,
            (long long)ps->halo_points);
    /* the border step's edges, and the boundary Boruvka for the rest */
    const int64_t border = got->stats.partition_border_edges;
    REQUIRE(border >= 0 && border <= ps->components - (ps->components > 0), "%s: %lld border edges for %lld components",
            what, (long long)border, (long long)ps->components);
    REQUIRE(ps->iterations >= (ps->components - 1 > border), "%s: %d iterations for %lld components, %lld border edges",
            what, ps->iterations, (long long)ps->components, (long long)border);
    REQUIRE(got->stats.partition_border_points <= n && (border == 0 || got->stats.partition_border_rounds > 0),
            "%s: %lld border points, %lld border edges in %d rounds", what,
            (long long)got->stats.partition_border_points, (long long)border, got->stats.partition_border_rounds);
    REQUIRE_CMP(got->stats.n_unique, ==, ref->stats.n_unique);
    REQUIRE_CMP(got->stats.n_duplicates, ==, ref->stats.n_duplicates);
    REQUIRE(ps->exchanged_bytes > 0, "%s: nothing exchanged", what);
}

/* The border step's mode (GRIDEMST_PARTS_BORDER): NULL its default. */
static void set_border(const char *mode)
{
    if (mode)
        ck_assert_int_eq(setenv("GRIDEMST_PARTS_BORDER", mode, 1), 0);
    else
        unsetenv("GRIDEMST_PARTS_BORDER");
}

/* With each rule of the safe edges (GRIDEMST_SAFE_EDGES): the same tree,
 * and the same safe edges (the rules mark the same ones); with the border
 * step skipped (the CPU's default: the boundary Boruvka finds every edge),
 * run once (GRIDEMST_PARTS_BORDER=once: where it leaves components, the
 * boundary Boruvka starts afresh with its tree's edges as candidates) and
 * run until it joins everything (=all): the same tree. */
START_TEST(test_same_tree)
{
    static const struct {
        const char *rule, *border;
    } variants[] = {{"kruskal", NULL}, {"rounds", NULL}, {"kruskal", "once"}, {"kruskal", "all"}};
    const set_kind kind = (set_kind)(_i / 2);
    const int dim = 2 + _i % 2;
    dataset ds = make_set(kind, dim, 0);
    for (int prec = GRIDEMST_PRECISION_FLOAT; prec <= GRIDEMST_PRECISION_DOUBLE; prec++) {
        gridemst_result ref = GRIDEMST_RESULT_INIT;
        gridemst_options o = cpu_options(0, (gridemst_precision)prec);
        solve_ok(&ds, &o, &ref, ds.name);
        for (int k = 0; k < N_PART_COUNTS; k++) {
            int64_t safe[2] = {0, 0}, components[2] = {0, 0};
            for (int v = 0; v < (int)(sizeof variants / sizeof variants[0]); v++) {
                char what[160];
                snprintf(what, sizeof what, "%s, %s, %d parts, %s, border %s", ds.name, gridemst_precision_name(prec),
                         part_counts[k], variants[v].rule, variants[v].border ? variants[v].border : "on");
                ck_assert_int_eq(setenv("GRIDEMST_SAFE_EDGES", variants[v].rule, 1), 0);
                set_border(variants[v].border);
                gridemst_result got = GRIDEMST_RESULT_INIT;
                o = cpu_options(part_counts[k], (gridemst_precision)prec);
                solve_ok(&ds, &o, &got, what);
                set_border(NULL);
                check_same(&ref, &got, ds.n, part_counts[k], what);
                /* nns auto chooses once for the whole set, as the single solve does */
                REQUIRE(got.stats.nns == ref.stats.nns && got.stats.density_contrast == ref.stats.density_contrast,
                        "%s: index %s at density contrast %.17g, the single solve's %s at %.17g", what,
                        gridemst_nns_name(got.stats.nns), got.stats.density_contrast,
                        gridemst_nns_name(ref.stats.nns), ref.stats.density_contrast);
                if (!variants[v].border) /* the CPU's default: the boundary Boruvka alone */
                    REQUIRE(got.stats.partition_border_rounds == 0 && got.stats.partition_border_edges == 0,
                            "%s: %d border rounds", what, got.stats.partition_border_rounds);
                const int64_t comps = got.stats.partitions.components;
                if (variants[v].border && strcmp(variants[v].border, "once") == 0)
                    REQUIRE(got.stats.partition_border_rounds == (comps > 1), "%s: %d border rounds", what,
                            got.stats.partition_border_rounds);
                /* with no budget, the border step alone joins every component */
                if (variants[v].border && strcmp(variants[v].border, "all") == 0)
                    REQUIRE(comps <= 1 || (got.stats.partition_border_rounds > 0 &&
                                           got.stats.partition_border_edges == comps - 1 &&
                                           got.stats.partitions.iterations == 0),
                            "%s: %lld border edges in %d rounds and %d iterations for %lld components", what,
                            (long long)got.stats.partition_border_edges, got.stats.partition_border_rounds,
                            got.stats.partitions.iterations, (long long)comps);
                if (v < 2) {
                    safe[v] = got.stats.partitions.safe_edges;
                    components[v] = got.stats.partitions.components;
                }
                gridemst_result_free(&got);
            }
            REQUIRE(safe[1] == safe[0] && components[1] == components[0],
                    "%s, %d parts: %lld safe edges and %lld components by the rounds, %lld and %lld by Kruskal",
                    ds.name, part_counts[k], (long long)safe[1], (long long)components[1], (long long)safe[0],
                    (long long)components[0]);
        }
        gridemst_result_free(&ref);
    }
    unsetenv("GRIDEMST_SAFE_EDGES");
    free(ds.coords);
}
END_TEST

/* The local solves' options (the BVH, other grid searches, one thread)
 * give the same tree. */
START_TEST(test_local_options)
{
    dataset ds = make_set(SET_BLOBS, 3, 0);
    gridemst_result ref = GRIDEMST_RESULT_INIT;
    gridemst_options o = cpu_options(0, GRIDEMST_PRECISION_FLOAT);
    solve_ok(&ds, &o, &ref, ds.name);
    for (int v = 0; v < 4; v++) {
        o = cpu_options(5, GRIDEMST_PRECISION_FLOAT);
        o.nns = v == 0 ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
        o.tuning.prune = v == 1 ? GRIDEMST_PRUNE_NONE : v == 2 ? GRIDEMST_PRUNE_DYNAMIC : GRIDEMST_PRUNE_STATIC;
        o.tuning.findmin2 = v == 2 ? GRIDEMST_FINDMIN2_LIST : GRIDEMST_FINDMIN2_ATOMIC;
        o.threads = v == 3 ? 1 : 0;
        char what[64];
        snprintf(what, sizeof what, "blobs 3D, 5 parts, variant %d", v);
        gridemst_result got = GRIDEMST_RESULT_INIT;
        solve_ok(&ds, &o, &got, what);
        check_same(&ref, &got, ds.n, 5, what);
        const gridemst_prune prune = o.nns == GRIDEMST_NNS_BVH ? GRIDEMST_PRUNE_NONE : o.tuning.prune;
        ck_assert_msg(got.stats.nns == o.nns && got.stats.prune == prune,
                      "%s: the stats report index %d and pruning %d", what, (int)got.stats.nns,
                      (int)got.stats.prune);
        gridemst_result_free(&got);
    }
    gridemst_result_free(&ref);
    free(ds.coords);
}
END_TEST

/* Sets large enough that the joining steps' loops run on several threads
 * (they keep loops of a few thousand points on one), the parts' steps at
 * once with the threads shared among them, and the safe edges' marking
 * over several batches. */
START_TEST(test_many_threads)
{
    dataset ds = make_set(_i == 0 ? SET_UNIFORM : SET_BLOBS, 3, 300000);
    gridemst_result ref = GRIDEMST_RESULT_INIT;
    gridemst_options o = cpu_options(0, GRIDEMST_PRECISION_FLOAT);
    solve_ok(&ds, &o, &ref, ds.name);
    for (int parts = 2; parts <= 3; parts++)
        for (int threads = 3; threads <= 4; threads++) {
            /* the border step, and the boundary Boruvka's searches on their own (they share bounds) */
            const char *border = threads == 4 ? "on" : NULL;
            char what[96];
            snprintf(what, sizeof what, "%s, %d parts, %d threads, border %s", ds.name, parts, threads,
                     border ? border : "on");
            gridemst_result got = GRIDEMST_RESULT_INIT;
            o = cpu_options(parts, GRIDEMST_PRECISION_FLOAT);
            o.threads = threads;
            set_border(border);
            solve_ok(&ds, &o, &got, what);
            set_border(NULL);
            check_same(&ref, &got, ds.n, parts, what);
            gridemst_result_free(&got);
        }
    gridemst_result_free(&ref);
    free(ds.coords);
}
END_TEST

/* The boundary store started empty and extended only as far as each step
 * asks (GRIDEMST_PARTS_STORE=exact: many more extensions than by default)
 * gives the same tree and the same work: the boundary reads the same
 * points in the same order. */
START_TEST(test_store_exact)
{
    const set_kind kind = (set_kind)(_i / 2);
    const int dim = 2 + _i % 2;
    dataset ds = make_set(kind, dim, 0);
    gridemst_result ref = GRIDEMST_RESULT_INIT;
    gridemst_options o = cpu_options(0, GRIDEMST_PRECISION_FLOAT);
    solve_ok(&ds, &o, &ref, ds.name);
    for (int k = 0; k < N_PART_COUNTS; k++) {
        gridemst_result got[2] = {GRIDEMST_RESULT_INIT, GRIDEMST_RESULT_INIT};
        for (int exact = 0; exact < 2; exact++) {
            char what[160];
            snprintf(what, sizeof what, "%s, %d parts, %s store", ds.name, part_counts[k],
                     exact ? "exact" : "growing");
            if (exact)
                ck_assert_int_eq(setenv("GRIDEMST_PARTS_STORE", "exact", 1), 0);
            o = cpu_options(part_counts[k], GRIDEMST_PRECISION_FLOAT);
            /* one thread: the boundary's threads lower bounds that the others read as they go, so that its
             * counts of searches and kept answers move with their timing (compared below) */
            o.threads = 1;
            set_border("off"); /* the boundary Boruvka's extensions, one step at a time */
            solve_ok(&ds, &o, &got[exact], what);
            set_border(NULL);
            unsetenv("GRIDEMST_PARTS_STORE");
            check_same(&ref, &got[exact], ds.n, part_counts[k], what);
        }
        const gridemst_partition_stats *a = &got[0].stats.partitions, *b = &got[1].stats.partitions;
        REQUIRE(a->iterations == b->iterations && a->components == b->components &&
                    a->halo_rounds == b->halo_rounds && a->halo_points == b->halo_points && a->searches == b->searches &&
                    a->exchanged_bytes == b->exchanged_bytes &&
                    got[0].stats.partition_kept_answers == got[1].stats.partition_kept_answers,
                "%s, %d parts: the exact store's work differs (%d iterations, %d rounds, %lld halo points, %lld "
                "searches, %lld bytes; growing: %d, %d, %lld, %lld, %lld)",
                ds.name, part_counts[k], b->iterations, b->halo_rounds, (long long)b->halo_points,
                (long long)b->searches, (long long)b->exchanged_bytes, a->iterations, a->halo_rounds,
                (long long)a->halo_points, (long long)a->searches, (long long)a->exchanged_bytes);
        gridemst_result_free(&got[0]);
        gridemst_result_free(&got[1]);
    }
    gridemst_result_free(&ref);
    free(ds.coords);
}
END_TEST

/* Fewer points than parts, as many, a few more; some parts empty. */
START_TEST(test_tiny_sets)
{
    uint64_t seed = 3;
    for (int64_t n = 0; n <= 9; n++)
        for (int dim = 2; dim <= 3; dim++) {
            dataset ds = tiny_set(n, dim, &seed);
            gridemst_result ref = GRIDEMST_RESULT_INIT;
            gridemst_options o = cpu_options(0, GRIDEMST_PRECISION_FLOAT);
            solve_ok(&ds, &o, &ref, ds.name);
            for (int parts = 2; parts <= 10; parts++) {
                char what[96];
                snprintf(what, sizeof what, "%s, %d parts", ds.name, parts);
                gridemst_result got = GRIDEMST_RESULT_INIT;
                o = cpu_options(parts, GRIDEMST_PRECISION_FLOAT);
                solve_ok(&ds, &o, &got, what);
                check_same(&ref, &got, n, parts, what);
                gridemst_result_free(&got);
            }
            gridemst_result_free(&ref);
            free(ds.coords);
        }
}
END_TEST

/* Every point equal: one part holds them all, the others are empty. */
START_TEST(test_all_equal)
{
    dataset ds = doubles(1000, 3);
    for (int64_t i = 0; i < 3000; i++)
        ((double *)ds.coords)[i] = 0.25;
    gridemst_result ref = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
    gridemst_options o = cpu_options(0, GRIDEMST_PRECISION_DOUBLE);
    solve_ok(&ds, &o, &ref, "equal points");
    o.partitions = 4;
    solve_ok(&ds, &o, &got, "equal points, 4 parts");
    check_same(&ref, &got, ds.n, 4, "equal points, 4 parts");
    REQUIRE_CMP(got.stats.partitions.largest_part, ==, 1000);
    REQUIRE_CMP(got.stats.partitions.smallest_part, ==, 0);
    gridemst_result_free(&ref);
    gridemst_result_free(&got);
    free(ds.coords);
}
END_TEST

/* ----------------------------------------------------------------- progress */

typedef struct {
    int partition, local, boundary, edges, order_ok;
    int last_local, last_boundary;
    int64_t last_components;
} progress_log;

static int log_progress(void *ctx, const char *phase, int iteration, int64_t components)
{
    progress_log *l = ctx;
    if (strcmp(phase, "partition") == 0) {
        l->order_ok &= l->partition == 0 && l->local == 0;
        l->partition++;
    } else if (strcmp(phase, "local tree") == 0) {
        l->order_ok &= l->partition == 1 && iteration == l->last_local + 1 && l->boundary == 0;
        l->last_local = iteration;
        l->local++;
    } else if (strcmp(phase, "boundary") == 0) {
        l->order_ok &= iteration == l->last_boundary + 1 && (l->boundary == 0 || components < l->last_components);
        l->last_boundary = iteration;
        l->last_components = components;
        l->boundary++;
    } else if (strcmp(phase, "edges") == 0) {
        l->order_ok &= l->edges == 0 && l->local > 0;
        l->edges++;
    } else {
        l->order_ok = 0; /* the local solves' own phases stay inside */
    }
    return 0;
}

START_TEST(test_progress)
{
    dataset ds = make_set(SET_UNIFORM, 3, 0);
    progress_log l = {0, 0, 0, 0, 1, 0, 0, 0};
    gridemst_options o = cpu_options(4, GRIDEMST_PRECISION_FLOAT);
    o.progress = log_progress;
    o.progress_ctx = &l;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    solve_ok(&ds, &o, &r, "uniform 3D, 4 parts");
    REQUIRE(l.order_ok, "progress reports out of order");
    REQUIRE(l.partition == 1 && l.local == 4 && l.edges == 1, "reports: %d partition, %d local tree, %d edges",
            l.partition, l.local, l.edges);
    REQUIRE(l.boundary == r.stats.partitions.iterations && l.last_components == 1,
            "%d boundary reports for %d iterations, the last with %lld components", l.boundary,
            r.stats.partitions.iterations, (long long)l.last_components);
    gridemst_result_free(&r);
    free(ds.coords);
}
END_TEST

/* ----------------------------------------------------------------- errors */

START_TEST(test_bad_options)
{
    double xyz[6] = {0, 0, 1, 1, 2, 0};
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o = cpu_options(65, GRIDEMST_PRECISION_FLOAT);
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "partitions") != NULL, "message: %s", err.message);
    o.partitions = -1;
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    o = cpu_options(2, GRIDEMST_PRECISION_FLOAT);
    o.backend = GRIDEMST_BACKEND_CUDA; /* both parts on device 0: refused only where there is none */
    int rc = gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err);
    if (gridemst_cuda_device_count() == 0)
        REQUIRE((rc == GRIDEMST_ERR_UNSUPPORTED && strstr(err.message, "without CUDA")) ||
                    (rc == GRIDEMST_ERR_NO_DEVICE && strstr(err.message, "no usable CUDA device")),
                "2 parts on cuda without a GPU: %s", rc == GRIDEMST_OK ? "ok" : err.message);
    else
        REQUIRE(rc == GRIDEMST_OK && r.stats.partitions.parts == 2, "2 parts on cuda: %s",
                rc == GRIDEMST_OK ? "ok" : err.message);
    gridemst_result_free(&r);
    o.backend = GRIDEMST_BACKEND_AUTO; /* means the CPU */
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_OK);
    REQUIRE(r.stats.backend == GRIDEMST_BACKEND_CPU && r.n_edges == 2, "auto: backend %d, %lld edges",
            (int)r.stats.backend, (long long)r.n_edges);
    gridemst_device_edges share;
    REQUIRE_CMP(gridemst_result_device_shares(&r), ==, 0); /* a tree in host memory */
    REQUIRE_CMP(gridemst_result_device_share(&r, 0, &share, NULL, NULL), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_result_free(&r);
    o.result = GRIDEMST_RESULT_DEVICE; /* only over several devices */
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "several devices") != NULL, "message: %s", err.message);
    xyz[3] = NAN; /* point 1, in the second of two slices */
    o = cpu_options(2, GRIDEMST_PRECISION_FLOAT);
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "point 1 ") != NULL, "message: %s", err.message);
    xyz[3] = 1;
    ck_assert_int_eq(setenv("GRIDEMST_SAFE_EDGES", "prim", 1), 0);
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "GRIDEMST_SAFE_EDGES") && strstr(err.message, "prim"), "message: %s", err.message);
    unsetenv("GRIDEMST_SAFE_EDGES");
    set_border("sometimes");
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "GRIDEMST_PARTS_BORDER") && strstr(err.message, "sometimes"), "message: %s",
            err.message);
    set_border(NULL);
}
END_TEST

/* options.n_devices and devices: checked before any device is looked
 * for; a build without CUDA, or a machine without GPUs, refuses
 * several devices with a message that says why. */
START_TEST(test_bad_devices)
{
    double xyz[6] = {0, 0, 1, 1, 2, 0};
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o;
    int negative[2] = {0, -2};
    const struct {
        gridemst_backend backend;
        int n_devices;
        const int *devices;
        const char *message;
    } bad[] = {
        {GRIDEMST_BACKEND_AUTO, -2, NULL, "n_devices"},
        {GRIDEMST_BACKEND_AUTO, 65, NULL, "n_devices"},
        {GRIDEMST_BACKEND_CPU, 2, NULL, "cuda backend"},
        {GRIDEMST_BACKEND_CPU, GRIDEMST_ALL_DEVICES, NULL, "cuda backend"},
        {GRIDEMST_BACKEND_CUDA, 2, negative, "devices[1]"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gridemst_options_init(&o);
        o.backend = bad[k].backend;
        o.n_devices = bad[k].n_devices;
        o.devices = bad[k].devices;
        REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
        REQUIRE(strstr(err.message, bad[k].message) != NULL, "case %zu: message: %s", k, err.message);
    }
    /* valid requests (two devices, and one device twice): refused only
     * where this build or machine cannot serve them */
    const int twice[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        gridemst_options_init(&o);
        o.n_devices = 2;
        o.devices = k ? twice : NULL;
        int rc = gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err);
        if (gridemst_cuda_device_count() == 0) {
            REQUIRE(rc == GRIDEMST_ERR_UNSUPPORTED || rc == GRIDEMST_ERR_NO_DEVICE, "2 devices without a GPU: %s",
                    gridemst_status_name(rc));
            REQUIRE(strstr(err.message, rc == GRIDEMST_ERR_UNSUPPORTED ? "without CUDA" : "no usable CUDA device"),
                    "message: %s", err.message);
        }
        gridemst_result_free(&r);
    }
}
END_TEST

/* ----------------------------------------------------------------- regions */

/* The key range of `cells` consecutive cells of a level from cell `first`. */
static gemst_key_range cell_range(int dim, int level, uint64_t first, uint64_t cells)
{
    const int free_bits = dim * ((dim == 2 ? 32 : 21) - level);
    gemst_key_range r = {first << free_bits, ((first + cells) << free_bits) - 1};
    return r;
}

static double box_gap2(int dim, const gemst_box *a, const gemst_box *b)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double g = a->hi[d] < b->lo[d] ? b->lo[d] - a->hi[d] : b->hi[d] < a->lo[d] ? a->lo[d] - b->hi[d] : 0.0;
        s += g * g;
    }
    return s;
}

/* Cell k of a level in Morton order: bit j of axis d is bit dim j + d of k. */
static void morton_cell(const gemst_region_space *sp, int level, uint64_t k, gemst_box *b)
{
    const int dim = sp->dim;
    const double side = sp->span / (double)((uint64_t)1 << level);
    for (int d = 0; d < 3; d++) {
        uint64_t c = 0;
        for (int j = 0; d < dim && j < level; j++)
            c |= (k >> (dim * j + d) & 1) << j;
        b->lo[d] = d < dim ? sp->base + (double)c * side : 0.0;
        b->hi[d] = d < dim ? b->lo[d] + side : 0.0;
    }
}

/* Over ranges of whole cells of a coarse level, the distance from a point
 * or box to a range is the least over its cells, and to what lies outside
 * the least over the others; in the key spaces of both precisions. */
START_TEST(test_region_distances)
{
    const int dim = 2 + _i % 2, level = dim == 2 ? 4 : 3;
    const gemst_region_space space = gemst_region_space_of(dim, _i / 2), *sp = &space;
    const uint64_t cells = (uint64_t)1 << (dim * level);
    uint64_t seed = 99 + (uint64_t)_i;
    gemst_box *box = xcalloc(cells, sizeof *box);
    for (uint64_t k = 0; k < cells; k++) {
        morton_cell(sp, level, k, &box[k]);
        gemst_box b;
        gemst_region_cell_box(sp, cell_range(dim, level, k, 1).first, level, &b);
        REQUIRE(memcmp(&b, &box[k], sizeof b) == 0, "%dD: cell %llu's box", dim, (unsigned long long)k);
    }
    for (int trial = 0; trial < 300; trial++) {
        const uint64_t first = rng_below(&seed, cells), count = 1 + rng_below(&seed, cells - first);
        const gemst_key_range r = cell_range(dim, level, first, count);
        gemst_box q;
        for (int d = 0; d < 3; d++) {
            q.lo[d] = d < dim ? sp->base + sp->span * (rng_unit(&seed) * 1.2 - 0.1) : 0.0;
            q.hi[d] = d < dim && trial % 2 ? q.lo[d] + sp->span * 0.2 * rng_unit(&seed) : q.lo[d];
        }
        double in = INFINITY, out = INFINITY;
        for (uint64_t k = 0; k < cells; k++) {
            double g = box_gap2(dim, &q, &box[k]);
            if (k >= first && k < first + count)
                in = g < in ? g : in;
            else
                out = g < out ? g : out;
        }
        double got_in = gemst_region_dist2(sp, &q, r, INFINITY), got_out = gemst_region_outside_dist2(sp, &q, r);
        REQUIRE(fabs(got_in - in) <= 4e-15 && (isinf(out) ? isinf(got_out) : fabs(got_out - out) <= 4e-15),
                "%dD, cells %llu + %llu: distances %.17g and %.17g, brute force %.17g and %.17g", dim,
                (unsigned long long)first, (unsigned long long)count, got_in, got_out, in, out);
        REQUIRE(gemst_region_dist2(sp, &q, r, in / 2) >= in / 2 || in == 0.0, "%dD: the cap was not kept", dim);
    }
    /* keys of points lie in their cells: a point's distance to its key's range is 0, also just
     * below a cell's face, where computing the key in rounded arithmetic would cross it */
    for (int trial = 0; trial < 1000; trial++) {
        double p[3] = {rng_unit(&seed), rng_unit(&seed), dim == 3 ? rng_unit(&seed) : 0.0};
        for (int d = 0; d < dim; d++)
            p[d] = sp->base + sp->span * p[d];
        if (trial % 10 == 0)
            p[trial % dim] = sp->base + sp->span; /* the box's far face */
        if (trial % 10 == 1 && sp->base < 0.0)
            p[trial % dim] = -0x1p-60; /* below the middle face */
        const uint64_t key = gemst_region_key(sp, p);
        const gemst_box at = {{p[0], p[1], p[2]}, {p[0], p[1], p[2]}};
        REQUIRE(gemst_region_dist2(sp, &at, (gemst_key_range){key, key}, INFINITY) == 0.0,
                "%dD: a point off its own key's cell", dim);
    }
    free(box);
}
END_TEST

/* ----------------------------------------------------------------- k-d tree */

/* Node k's subtree, depth first, checked: its points' range split between
 * its children, its box its points' box; the nodes visited into seq. */
static void walk_kdtree(const gemst_kdtree *t, const double *w, uint32_t k, gemst_kd_node *seq, int64_t *at)
{
    const gemst_kd_node *nd = &t->node[k];
    seq[(*at)++] = *nd;
    for (int d = 0; d < 3; d++) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = nd->begin; i < nd->end; i++) {
            lo = fmin(lo, w[3 * (size_t)t->order[i] + d]);
            hi = fmax(hi, w[3 * (size_t)t->order[i] + d]);
        }
        REQUIRE(nd->box.lo[d] == lo && nd->box.hi[d] == hi, "node %u: its box is not its points'", k);
    }
    if (nd->left == UINT32_MAX) /* a leaf */
        return;
    const gemst_kd_node *l = &t->node[nd->left], *r = &t->node[nd->right];
    REQUIRE(nd->left > k && nd->right > k, "node %u before its children %u and %u", k, nd->left, nd->right);
    REQUIRE(l->begin == nd->begin && l->end == r->begin && r->end == nd->end, "node %u: children split it wrongly", k);
    walk_kdtree(t, w, nd->left, seq, at);
    walk_kdtree(t, w, nd->right, seq, at);
}

/* The halo's k-d tree built on several threads: each node before its
 * children (the halo's labels go children first), and the same tree as
 * one thread builds, node for node in depth-first order. */
START_TEST(test_kdtree_threads)
{
    const int64_t n = 200000;
    double *w = random_points(n, 3, 5);
    gemst_kdtree one = {0}, many = {0};
    gridemst_error err;
    REQUIRE(gemst_kdtree_build(&one, w, n, 1, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(gemst_kdtree_build(&many, w, n, 4, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE_CMP(many.n_node, ==, one.n_node);
    gemst_kd_node *a = xcalloc((size_t)one.n_node, sizeof *a), *b = xcalloc((size_t)one.n_node, sizeof *b);
    int64_t na = 0, nb = 0;
    walk_kdtree(&one, w, 0, a, &na);
    walk_kdtree(&many, w, 0, b, &nb);
    REQUIRE(na == one.n_node && nb == one.n_node, "%lld and %lld nodes reached of %lld", (long long)na,
            (long long)nb, (long long)one.n_node);
    for (int64_t k = 0; k < na; k++)
        REQUIRE(a[k].begin == b[k].begin && a[k].end == b[k].end && memcmp(&a[k].box, &b[k].box, sizeof a[k].box) == 0,
                "node %lld in depth-first order differs between 1 and 4 threads", (long long)k);
    for (int64_t i = 0; i < n; i++)
        REQUIRE(one.order[i] == many.order[i], "point %lld of the tree's order differs", (long long)i);
    gemst_kdtree_free(&one);
    gemst_kdtree_free(&many);
    free(a);
    free(b);
    free(w);
}
END_TEST

/* Points added far from a tree's points all go down to one leaf, which
 * then splits into a subtree of its own built on several threads: the
 * tree stays valid, over each point once. */
START_TEST(test_kdtree_add_far)
{
    const int64_t n = 100000, far = 40000;
    double *w = random_points(n + far, 3, 9);
    for (int64_t i = n; i < n + far; i++)
        for (int d = 0; d < 3; d++)
            w[3 * i + d] += 5.0;
    gemst_kdtree t = {0};
    gridemst_error err;
    REQUIRE(gemst_kdtree_build(&t, w, n, 4, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(gemst_kdtree_add(&t, w, n + far, 4, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(t.node[0].begin == 0 && t.node[0].end == n + far, "the root holds %u .. %u", t.node[0].begin,
            t.node[0].end);
    gemst_kd_node *seq = xcalloc((size_t)t.n_node, sizeof *seq);
    int64_t at = 0;
    walk_kdtree(&t, w, 0, seq, &at);
    REQUIRE(at == t.n_node, "%lld of %lld nodes reached", (long long)at, (long long)t.n_node);
    uint8_t *seen = xcalloc((size_t)(n + far), 1);
    for (int64_t i = 0; i < n + far; i++) {
        REQUIRE(t.order[i] < n + far && !seen[t.order[i]], "point %u twice or out of range", t.order[i]);
        seen[t.order[i]] = 1;
    }
    free(seen);
    free(seq);
    gemst_kdtree_free(&t);
    free(w);
}
END_TEST

/* ----------------------------------------------------------------- halo */

/* The halo's tree after additions: a valid k-d tree (walk_kdtree) over
 * each of its points once, no deeper than GEMST_KD_MAX_DEPTH; every node's
 * label the one root of its points or none. */
static void check_halo_tree(const gemst_halo *h, const uint32_t *root)
{
    const gemst_kdtree *t = &h->tree;
    REQUIRE(t->n_node > 0 && t->node[0].begin == 0 && t->node[0].end == h->n, "the tree holds %u of %lld points",
            t->n_node > 0 ? t->node[0].end - t->node[0].begin : 0, (long long)h->n);
    gemst_kd_node *seq = xcalloc((size_t)t->n_node, sizeof *seq);
    int64_t at = 0;
    walk_kdtree(t, h->w, 0, seq, &at);
    REQUIRE(at == t->n_node, "%lld of %lld nodes reached", (long long)at, (long long)t->n_node);
    free(seq);
    uint8_t *seen = xcalloc((size_t)h->n, 1);
    for (int64_t i = 0; i < h->n; i++) {
        REQUIRE(t->order[i] < h->n && !seen[t->order[i]], "point %u twice or out of range", t->order[i]);
        seen[t->order[i]] = 1;
    }
    free(seen);
    int *depth = xcalloc((size_t)t->n_node, sizeof *depth);
    for (int64_t k = 0; k < t->n_node; k++) {
        const gemst_kd_node *nd = &t->node[k];
        REQUIRE(depth[k] <= GEMST_KD_MAX_DEPTH, "node %lld at depth %d", (long long)k, depth[k]);
        if (nd->left != UINT32_MAX)
            depth[nd->left] = depth[nd->right] = depth[k] + 1;
        uint32_t label = root[h->comp[t->order[nd->begin]]];
        for (uint32_t i = nd->begin; i < nd->end; i++)
            if (root[h->comp[t->order[i]]] != label)
                label = UINT32_MAX;
        REQUIRE(h->label[k] == label, "node %lld labelled %u, its points' %u", (long long)k, h->label[k], label);
    }
    free(depth);
}

/* The nodes of the old tree (its first n_old nodes) whose boxes the new one
 * changed. */
static int64_t boxes_changed(const gemst_kdtree *t, const gemst_kd_node *old, int64_t n_old)
{
    int64_t changed = 0;
    for (int64_t k = 0; k < n_old && k < t->n_node; k++)
        changed += memcmp(&t->node[k].box, &old[k].box, sizeof old[k].box) != 0;
    return changed;
}

/* a before b in the edge order, written out here as the test's own. */
static int edge_before(const gemst_gid_edge *a, const gemst_gid_edge *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && (a->lo < b->lo || (a->lo == b->lo && a->hi < b->hi)));
}

/* The least edge in the edge order from query point q to a halo point of
 * another component no longer than d2 bound, by a scan; 0 when none. */
static int scan_nearest(const gemst_halo *h, const gemst_parts_metric *m, const uint32_t *root, const double at[3],
                        gemst_gid qid, uint32_t q_root, double bound, gemst_gid_edge *e, uint32_t *to)
{
    int found = 0;
    for (int64_t j = 0; j < h->n; j++) {
        const double d2 = gemst_parts_d2(m, at, h->w + 3 * (size_t)j);
        if (root[h->comp[j]] == q_root || d2 > bound)
            continue;
        const gemst_gid_edge c = {d2, qid < h->id[j] ? qid : h->id[j], qid < h->id[j] ? h->id[j] : qid};
        if (!found || edge_before(&c, e)) {
            *e = c;
            *to = h->comp[j];
            found = 1;
        }
    }
    return found;
}

/* id[0 .. n) shuffled (Fisher-Yates). */
static void shuffle_ids(gemst_gid *id, int64_t n, uint64_t *seed)
{
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t)(rng_unit(seed) * (double)(i + 1));
        const gemst_gid t = id[i];
        id[i] = id[j];
        id[j] = t;
    }
}

/* A halo grown in rounds of very different sizes (added to its tree, or
 * the tree built anew) while its components merge: after every round, its
 * tree valid, its labels those of a fresh labelling, and its searches'
 * answers (with no bound, the least edge's length as the bound, and a
 * shorter one) the scan's.  Half the points lie on a lattice: tied
 * lengths, decided by the ids, which differ above their low 32 bits (as
 * over 2^32 points), in the order opposite to their low bits'.  A point
 * added alone changes only the boxes on its way down. */
START_TEST(test_halo_growth)
{
    enum { N = 12000, QUERIES = 300, COMPS = 64 };
    static const int64_t rounds[] = {3000, 5, 700, 120, 1, 1000, 40, 5000, 600, 1534};
    const gemst_parts_metric m = {3, 1};
    uint64_t seed = 11;
    /* the halo's points and the queries: ids a shuffle of i 2^32 + (N + QUERIES - i), for i < N + QUERIES */
    double *w = xcalloc(3 * (size_t)(N + QUERIES), sizeof *w);
    gemst_gid *id = xcalloc(N + QUERIES, sizeof *id);
    uint32_t *comp = xcalloc(N + QUERIES, sizeof *comp);
    uint32_t parent[COMPS], root[COMPS];
    for (int64_t i = 0; i < N + QUERIES; i++) {
        for (int d = 0; d < 3; d++)
            w[3 * i + d] = i % 2 ? rng_unit(&seed) : floor(rng_unit(&seed) * 8.0) / 8.0;
        id[i] = ((gemst_gid)i << 32) + (gemst_gid)(N + QUERIES - i);
        comp[i] = (uint32_t)(rng_unit(&seed) * COMPS);
    }
    shuffle_ids(id, N + QUERIES, &seed);
    for (int k = 0; k < COMPS; k++)
        parent[k] = (uint32_t)k;
    gemst_part_store src = {.n = N, .id = id, .w = w, .comp = comp};
    const size_t rb = gemst_halo_record_bytes(&m);
    char *records = xcalloc(N, rb);
    for (uint32_t q = 0; q < N; q++)
        gemst_halo_record(&m, &src, q, records + rb * q);
    gemst_halo h = {0};
    gridemst_error err;
    int64_t added = 0;
    for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
        const int64_t n_old = h.tree.n_node;
        gemst_kd_node *old = xcalloc((size_t)n_old, sizeof *old);
        if (n_old > 0)
            memcpy(old, h.tree.node, sizeof *old * (size_t)n_old);
        REQUIRE(gemst_halo_add(&h, &m, records + rb * (size_t)added, rounds[r], 2, &err) == GRIDEMST_OK, "%s",
                err.message);
        added += rounds[r];
        for (int k = 0; k < 3; k++) { /* a few merges */
            const uint32_t a = gemst_parts_find(parent, (uint32_t)(rng_unit(&seed) * COMPS)),
                           b = gemst_parts_find(parent, (uint32_t)(rng_unit(&seed) * COMPS));
            parent[a > b ? a : b] = a < b ? a : b;
        }
        for (uint32_t k = 0; k < COMPS; k++)
            root[k] = gemst_parts_find(parent, k);
        gemst_halo_label(&h, root, 2);
        check_halo_tree(&h, root);
        if (rounds[r] == 1)
            REQUIRE(boxes_changed(&h.tree, old, n_old) <= GEMST_KD_MAX_DEPTH + 1,
                    "a point added alone changed %lld boxes of %lld", (long long)boxes_changed(&h.tree, old, n_old),
                    (long long)n_old);
        free(old);
        for (int64_t i = N; i < N + QUERIES; i++) {
            const double *at = w + 3 * i;
            const uint32_t q_root = root[comp[i]];
            gemst_gid_edge want = {0, 0, 0}, got = {0, 0, 0};
            uint32_t want_to = 0, got_to = 0;
            const int any = scan_nearest(&h, &m, root, at, id[i], q_root, INFINITY, &want, &want_to);
            const double bounds[3] = {INFINITY, any ? want.d2 : 1.0, any ? nextafter(want.d2, 0.0) : 1.0};
            for (int k = 0; k < 3; k++) {
                uint64_t bound = gemst_halo_bound_bits(bounds[k]);
                const int should = any && want.d2 <= bounds[k]; /* not the third but at length 0 */
                double searched;
                const int found =
                    gemst_halo_nearest(&h, &m, at, id[i], q_root, &bound, &got, &got_to, &searched);
                REQUIRE(found == should, "round %zu query %lld bound %d: found %d, the scan %d", r, (long long)i, k,
                        found, should);
                if (should)
                    REQUIRE(got.d2 == want.d2 && got.lo == want.lo && got.hi == want.hi && got_to == want_to,
                            "round %zu query %lld: edge (%llu, %llu, %g) to %u, the scan's (%llu, %llu, %g) to %u", r,
                            (long long)i, (unsigned long long)got.lo, (unsigned long long)got.hi, got.d2, got_to,
                            (unsigned long long)want.lo, (unsigned long long)want.hi, want.d2, want_to);
            }
        }
    }
    REQUIRE_CMP(added, ==, N);
    gemst_halo_free(&h);
    free(records);
    free(w);
    free(id);
    free(comp);
}
END_TEST

/* The least edge in the edge order from point (at, qid) to one of the n
 * points of w (ids id, components comp) in another component than q_root;
 * 0 when none. */
static int scan_all(const gemst_parts_metric *m, const double *w, const gemst_gid *id, const uint32_t *comp,
                    int64_t n, const uint32_t *root, const double at[3], gemst_gid qid, uint32_t q_root,
                    gemst_gid_edge *e)
{
    int found = 0;
    for (int64_t j = 0; j < n; j++) {
        if (root[comp[j]] == q_root)
            continue;
        const double d2 = gemst_parts_d2(m, at, w + 3 * (size_t)j);
        const gemst_gid_edge c = {d2, qid < id[j] ? qid : id[j], qid < id[j] ? id[j] : qid};
        if (!found || edge_before(&c, e)) {
            *e = c;
            found = 1;
        }
    }
    return found;
}

/*
 * What a point keeps of its searches through a halo that grows in rounds
 * of reach while the components merge: after every search and at every
 * later round, the kept statement holds over all the other parts' points
 * (not only the halo's): no point of another component below `below` has
 * a lesser edge than e, a kept answer that holds is the scan's least edge
 * over all of them, and otherwise no edge is shorter than the kept lower
 * bound.  The searches run with no bound, the halo's least edge as the
 * bound, and a bound lowered below it as another point's find would; half
 * the points lie on a lattice, so that lengths tie and the ids decide.
 */
START_TEST(test_kept_answers)
{
    enum { N = 6000, QUERIES = 200, COMPS = 40 };
    static const double reach[] = {0.0, 1e-4, 4e-4, 1.6e-3, 6.4e-3, 2.6e-2, 0.1, INFINITY};
    const gemst_parts_metric m = {3, 1};
    uint64_t seed = 5;
    /* the other parts' points, then the queries in the middle of the box; ids a shuffle, as above */
    double *w = xcalloc(3 * (size_t)(N + QUERIES), sizeof *w);
    gemst_gid *id = xcalloc(N + QUERIES, sizeof *id);
    uint32_t *comp = xcalloc(N + QUERIES, sizeof *comp);
    uint8_t *sent = xcalloc(N, 1);
    uint32_t parent[COMPS], root[COMPS];
    gemst_box cell = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (int64_t i = 0; i < N + QUERIES; i++) {
        for (int d = 0; d < 3; d++) {
            const double u = i % 2 ? rng_unit(&seed) : floor(rng_unit(&seed) * 16.0) / 16.0;
            w[3 * i + d] = i < N ? u : 0.4 + 0.2 * u;
            if (i >= N) {
                cell.lo[d] = w[3 * i + d] < cell.lo[d] ? w[3 * i + d] : cell.lo[d];
                cell.hi[d] = w[3 * i + d] > cell.hi[d] ? w[3 * i + d] : cell.hi[d];
            }
        }
        id[i] = ((gemst_gid)i << 32) + (gemst_gid)(N + QUERIES - i);
        comp[i] = (uint32_t)(rng_unit(&seed) * COMPS);
    }
    shuffle_ids(id, N + QUERIES, &seed);
    for (int k = 0; k < COMPS; k++)
        parent[k] = (uint32_t)k;
    gemst_part_store src = {.n = N, .id = id, .w = w, .comp = comp};
    const size_t rb = gemst_halo_record_bytes(&m);
    char *records = xcalloc(N, rb);
    gemst_kept_answer *kept = xcalloc(QUERIES, sizeof *kept);
    for (int64_t i = 0; i < QUERIES; i++)
        kept[i] = gemst_kept_none();
    gemst_halo h = {0};
    gridemst_error err;
    int64_t holding = 0, bounded = 0;
    for (size_t r = 0; r < sizeof reach / sizeof reach[0]; r++) {
        /* the halo: every point nearer to the queries' cell than the reach, as requests.c sends them */
        int64_t count = 0;
        for (uint32_t q = 0; q < N; q++) {
            const gemst_box at = gemst_point_box(w + 3 * (size_t)q);
            if (!sent[q] && gemst_box_dist2(&cell, &at) < reach[r] * (1.0 + 0x1p-40)) {
                sent[q] = 1;
                gemst_halo_record(&m, &src, q, records + rb * (size_t)count++);
            }
        }
        REQUIRE(gemst_halo_add(&h, &m, records, count, 2, &err) == GRIDEMST_OK, "%s", err.message);
        for (int k = 0; k < 4; k++) { /* a few merges */
            const uint32_t a = gemst_parts_find(parent, (uint32_t)(rng_unit(&seed) * COMPS)),
                           b = gemst_parts_find(parent, (uint32_t)(rng_unit(&seed) * COMPS));
            parent[a > b ? a : b] = a < b ? a : b;
        }
        for (uint32_t k = 0; k < COMPS; k++)
            root[k] = gemst_parts_find(parent, k);
        gemst_halo_label(&h, root, 3);
        for (int64_t i = 0; i < QUERIES; i++) {
            const int64_t qi = N + i;
            const double *at = w + 3 * qi;
            const uint32_t q_root = root[comp[qi]];
            for (int pass = 0; pass < 2; pass++) { /* the kept statement from earlier rounds, then the new one */
                const gemst_kept_answer *k = &kept[i];
                gemst_gid_edge least = {0, 0, 0};
                const int any = scan_all(&m, w, id, comp, N, root, at, id[qi], q_root, &least);
                for (int64_t j = 0; j < N; j++) {
                    const double d2 = gemst_parts_d2(&m, at, w + 3 * (size_t)j);
                    const gemst_gid_edge c = {d2, id[qi] < id[j] ? id[qi] : id[j], id[qi] < id[j] ? id[j] : id[qi]};
                    if (root[comp[j]] == q_root || !(d2 < k->below))
                        continue;
                    REQUIRE(k->to != GEMST_NONE && !edge_before(&c, &k->e),
                            "round %zu query %lld: edge (%llu, %llu, %g) below %g, the kept (%llu, %llu, %g) to %u", r,
                            (long long)i, (unsigned long long)c.lo, (unsigned long long)c.hi, c.d2, k->below,
                            (unsigned long long)k->e.lo, (unsigned long long)k->e.hi, k->e.d2, k->to);
                }
                if (gemst_kept_holds(k, root, q_root)) {
                    holding += pass == 0;
                    REQUIRE(any && least.d2 == k->e.d2 && least.lo == k->e.lo && least.hi == k->e.hi,
                            "round %zu query %lld: kept (%llu, %llu, %g), the scan's (%llu, %llu, %g)", r,
                            (long long)i, (unsigned long long)k->e.lo, (unsigned long long)k->e.hi, k->e.d2,
                            (unsigned long long)least.lo, (unsigned long long)least.hi, least.d2);
                } else {
                    bounded += pass == 0 && gemst_kept_lower(k) > 0.0;
                    REQUIRE(!any || least.d2 >= gemst_kept_lower(k), "round %zu query %lld: edge of %g under %g", r,
                            (long long)i, least.d2, gemst_kept_lower(k));
                }
                if (pass == 1)
                    break;
                gemst_gid_edge in_halo = {0, 0, 0}, e = {0, 0, 0};
                uint32_t in_halo_to = 0, to = 0;
                const int near = scan_nearest(&h, &m, root, at, id[qi], q_root, INFINITY, &in_halo, &in_halo_to);
                const double bounds[3] = {INFINITY, near ? in_halo.d2 : 1.0, near ? 0.5 * in_halo.d2 : 0.01};
                uint64_t bound = gemst_halo_bound_bits(bounds[i % 3]);
                double searched;
                const int found = gemst_halo_nearest(&h, &m, at, id[qi], q_root, &bound, &e, &to, &searched);
                kept[i] = gemst_kept_from_search(found, &e, to, searched, gemst_reach_covers(reach[r]));
            }
        }
    }
    REQUIRE(holding > QUERIES && bounded > QUERIES, "kept answers that held %lld times, bounds %lld times",
            (long long)holding, (long long)bounded);
    gemst_halo_free(&h);
    free(kept);
    free(records);
    free(sent);
    free(w);
    free(id);
    free(comp);
}
END_TEST

/* ----------------------------------------------------------------- the store */

/* The store's points by cell: each cell's points, ascending, from its
 * start to the next cell's; every point listed once. */
static void check_cell_lists(const gemst_part_store *s, int64_t cells, const char *when)
{
    REQUIRE(s->cell_start[0] == 0 && s->cell_start[cells] == s->n, "%s: the cells list %u to %u of %lld points",
            when, s->cell_start[0], s->cell_start[cells], (long long)s->n);
    for (int64_t k = 0; k < cells; k++)
        for (uint32_t i = s->cell_start[k]; i < s->cell_start[k + 1]; i++) {
            const uint32_t j = s->by_cell[i];
            REQUIRE(j < s->n && s->cell[j] == (uint32_t)k && (i == s->cell_start[k] || j > s->by_cell[i - 1]),
                    "%s: cell %lld lists point %u (of cell %u) at %u", when, (long long)k, j,
                    j < s->n ? s->cell[j] : GEMST_NONE, i);
        }
}

static const double *sort_gaps; /* qsort's comparison reads the gaps here */

static int by_gap_then_number(const void *x, const void *y)
{
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return sort_gaps[a] < sort_gaps[b] ? -1 : sort_gaps[a] > sort_gaps[b] ? 1 : (a > b) - (a < b);
}

/* A part of n points in `cells` cells with the arrays a store reads,
 * zeroed; store_part_order then puts by_gap in gap order (ties by number). */
static gemst_part store_part(int64_t n, int64_t cells)
{
    gemst_part part = {.n = n, .n_cells = cells};
    part.id = xcalloc((size_t)n, sizeof *part.id);
    part.comp = xcalloc((size_t)n, sizeof *part.comp);
    part.cell_of = xcalloc((size_t)n, sizeof *part.cell_of);
    part.gap = xcalloc((size_t)n, sizeof *part.gap);
    part.by_gap = xcalloc((size_t)n, sizeof *part.by_gap);
    part.w = xcalloc(3 * (size_t)n, sizeof *part.w);
    part.cell_sent = xcalloc((size_t)cells, sizeof *part.cell_sent);
    return part;
}

static void store_part_order(gemst_part *part)
{
    for (int64_t i = 0; i < part->n; i++)
        part->by_gap[i] = (uint32_t)i;
    sort_gaps = part->gap;
    qsort(part->by_gap, (size_t)part->n, sizeof *part->by_gap, by_gap_then_number);
}

static void store_part_free(gemst_part *part)
{
    gemst_store_free(part->store);
    void *arrays[] = {part->id, part->comp, part->cell_of, part->gap, part->by_gap, part->w, part->cell_sent};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
}

/* The store holds exactly the points of gap up to its limit, in gap order,
 * copied from the part, listed by cell in store order (on 1 to 3
 * threads); each extension reaches what was
 * asked, by default at least GEMST_STORE_GROWTH times the last limit, and
 * clears "all sent" of the cells that gained points. */
START_TEST(test_store_fill)
{
    enum { N = 4000, CELLS = 300, STEPS = 40 };
    uint64_t seed = 21;
    gemst_part part = store_part(N, CELLS);
    for (uint32_t i = 0; i < N; i++) {
        part.id[i] = 7 * i + 3;
        part.comp[i] = (uint32_t)rng_below(&seed, 50);
        part.cell_of[i] = (uint32_t)rng_below(&seed, CELLS);
        const double u = rng_unit(&seed); /* ties, zeros, a wide range */
        part.gap[i] = i % 5 == 0 ? floor(u * 8.0) / 64.0 : u * u * u;
        for (int d = 0; d < 3; d++)
            part.w[3 * i + d] = rng_unit(&seed);
    }
    store_part_order(&part);
    gridemst_error err;
    int64_t extensions[2] = {0, 0};
    for (int exact = 0; exact < 2; exact++) {
        REQUIRE(gemst_store_create(&part, &err) == GRIDEMST_OK, "%s", err.message);
        gemst_part_store *s = part.store;
        s->exact = exact;
        double last = -INFINITY;
        for (int step = 0; step < STEPS; step++) {
            for (int64_t k = 0; k < CELLS; k++)
                part.cell_sent[k] = ~(uint64_t)0;
            const int64_t before = s->n;
            const double need = step == STEPS - 1 ? INFINITY : 1e-4 * pow(1.3, step) * (step % 7 == 3 ? 0.5 : 1.0);
            REQUIRE(gemst_store_reach(&part, need, 1 + step % 3, &err) == GRIDEMST_OK, "%s", err.message);
            REQUIRE(s->limit >= need && (exact ? s->limit == (need > last ? need : last) : 1),
                    "step %d: limit %g for %g", step, s->limit, need);
            if (s->limit > last && !exact && last > 0.0)
                REQUIRE(s->limit >= GEMST_STORE_GROWTH * last || s->limit == need, "step %d: limit %g after %g",
                        step, s->limit, last);
            last = s->limit;
            int64_t held = 0;
            for (int64_t i = 0; i < N; i++)
                held += part.gap[i] <= s->limit;
            REQUIRE_CMP(s->n, ==, held);
            for (int64_t a = 0; a < s->n; a++) {
                const uint32_t q = part.by_gap[a];
                REQUIRE(s->at[a] == q && s->id[a] == part.id[q] && s->comp[a] == part.comp[q] &&
                            s->cell[a] == part.cell_of[q] && s->gap[a] == part.gap[q] &&
                            memcmp(s->w + 3 * a, part.w + 3 * (size_t)q, 3 * sizeof *s->w) == 0,
                        "step %d: the store's point %lld is not the part's by_gap[%lld]", step, (long long)a,
                        (long long)a);
            }
            char when[32];
            snprintf(when, sizeof when, "step %d", step);
            check_cell_lists(s, CELLS, when);
            for (int64_t a = before; a < s->n; a++)
                REQUIRE(part.cell_sent[s->cell[a]] == 0, "step %d: a cell kept \"all sent\" with a new point",
                        step);
        }
        REQUIRE_CMP(s->n, ==, N);
        extensions[exact] = s->extensions;
        gemst_store_free(s);
        part.store = NULL;
    }
    REQUIRE(extensions[1] >= STEPS - 8 && extensions[0] < extensions[1] / 2,
            "%lld extensions growing, %lld exact", (long long)extensions[0], (long long)extensions[1]);
    store_part_free(&part);
}
END_TEST

/* Extensions large enough that the store is sorted by cell on several
 * threads, between and after a small one: each cell's points stay in
 * store order. */
START_TEST(test_store_cells_sorted)
{
    enum { N = 300000, CELLS = 20000 };
    uint64_t seed = 5;
    gemst_part part = store_part(N, CELLS);
    for (uint32_t i = 0; i < N; i++) {
        part.id[i] = i;
        part.cell_of[i] = (uint32_t)rng_below(&seed, CELLS);
        part.gap[i] = rng_unit(&seed);
    }
    store_part_order(&part);
    gridemst_error err;
    REQUIRE(gemst_store_create(&part, &err) == GRIDEMST_OK, "%s", err.message);
    part.store->exact = 1;
    /* 90,000 new points on 3 threads, 15,000 on 3, the last 195,000 on 2 */
    const struct {
        double limit;
        int threads;
    } fills[] = {{part.gap[part.by_gap[89999]], 3}, {part.gap[part.by_gap[104999]], 3}, {INFINITY, 2}};
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        REQUIRE(gemst_store_fill(&part, fills[f].limit, fills[f].threads, &err) == GRIDEMST_OK, "%s", err.message);
        char when[32];
        snprintf(when, sizeof when, "fill %zu", f);
        check_cell_lists(part.store, CELLS, when);
    }
    REQUIRE_CMP(part.store->n, ==, N);
    store_part_free(&part);
}
END_TEST

/* Every point of another part within a request's reach has a gap within
 * the request's gap limit, also where the asking cell is cut by the
 * parts' ranges (then the reach alone would not bound the gaps). */
START_TEST(test_request_gap_limit)
{
    const int dim = 2 + _i % 2, level = 2, P = 3;
    const gemst_region_space space = gemst_region_space_of(dim, _i / 2), *sp = &space;
    uint64_t seed = 31 + (uint64_t)_i;
    int64_t checked = 0, beyond_reach = 0;
    for (int trial = 0; trial < 400; trial++) {
        /* P ranges split at random keys */
        const uint64_t keys = dim == 2 ? UINT64_MAX : (uint64_t)1 << 63; /* 64-bit keys in 2D, 63 in 3D */
        uint64_t cut[2] = {rng_below(&seed, keys), rng_below(&seed, keys)};
        if (cut[0] > cut[1]) {
            const uint64_t t = cut[0];
            cut[0] = cut[1];
            cut[1] = t;
        }
        const gemst_key_range range[3] = {{0, cut[0]}, {cut[0] + 1, cut[1]}, {cut[1] + 1, UINT64_MAX}};
        const int asking = (int)rng_below(&seed, P);
        /* the asking part's points in one cell of the level: the box of those of its range */
        const uint64_t cells = (uint64_t)1 << (dim * level);
        gemst_box cell, box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        gemst_region_cell_box(sp, cell_range(dim, level, rng_below(&seed, cells), 1).first, level, &cell);
        int in = 0;
        for (int k = 0; k < 40; k++) {
            double p[3] = {0, 0, 0};
            for (int d = 0; d < dim; d++)
                p[d] = cell.lo[d] + (cell.hi[d] - cell.lo[d]) * rng_unit(&seed);
            const uint64_t key = gemst_region_key(sp, p);
            if (key < range[asking].first || key > range[asking].last)
                continue;
            in++;
            for (int d = 0; d < dim; d++) {
                box.lo[d] = p[d] < box.lo[d] ? p[d] : box.lo[d];
                box.hi[d] = p[d] > box.hi[d] ? p[d] : box.hi[d];
            }
        }
        if (in == 0)
            continue;
        for (int d = dim; d < 3; d++)
            box.lo[d] = box.hi[d] = 0.0;
        const double side = cell.hi[0] - cell.lo[0];
        const gemst_request req = {box, side * side * (trial % 3 == 0 ? 0.01 : trial % 3 == 1 ? 0.3 : 2.0)};
        for (int s = 0; s < P; s++) {
            if (s == asking)
                continue;
            const double limit = gemst_request_gap_limit(sp, level, range[asking], &req);
            for (int k = 0; k < 200; k++) {
                double p[3] = {0, 0, 0};
                for (int d = 0; d < dim; d++)
                    p[d] = box.lo[d] - 1.5 * side + (box.hi[d] - box.lo[d] + 3.0 * side) * rng_unit(&seed);
                const uint64_t key = gemst_region_key(sp, p);
                const gemst_box at = gemst_point_box(p);
                if (key < range[s].first || key > range[s].last ||
                    !(gemst_box_dist2(&at, &box) < req.rho * (1.0 + 0x1p-40))) /* not sent (requests.c's margin) */
                    continue;
                const double gap = gemst_region_outside_dist2(sp, &at, range[s]);
                REQUIRE(gap <= limit, "%dD, trial %d: a point of gap %.17g within reach %.17g, limit %.17g", dim,
                        trial, gap, req.rho, limit);
                checked++;
                beyond_reach += gap > gemst_reach_for(req.rho);
            }
        }
    }
    REQUIRE(checked > 1000 && beyond_reach > 0, "%dD: %lld points checked, %lld of gap beyond the reach", dim,
            (long long)checked, (long long)beyond_reach);
}
END_TEST

static Suite *parts_suite(void)
{
    Suite *s = suite_create("parts");
    TCase *tc = tcase_create("same_tree");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_same_tree, 0, 2 * SET_COUNT);
    tcase_add_test(tc, test_local_options);
    tcase_add_loop_test(tc, test_many_threads, 0, 2);
    tcase_add_test(tc, test_tiny_sets);
    tcase_add_test(tc, test_all_equal);
    tcase_add_loop_test(tc, test_store_exact, 0, 2 * SET_COUNT);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("interface");
    tcase_add_test(te, test_progress);
    tcase_add_test(te, test_bad_options);
    tcase_add_test(te, test_bad_devices);
    tcase_add_loop_test(te, test_region_distances, 0, 4);
    tcase_add_test(te, test_kdtree_threads);
    tcase_add_test(te, test_kdtree_add_far);
    tcase_add_test(te, test_halo_growth);
    tcase_add_test(te, test_kept_answers);
    tcase_add_test(te, test_store_fill);
    tcase_add_test(te, test_store_cells_sorted);
    tcase_add_loop_test(te, test_request_gap_limit, 0, 4);
    suite_add_tcase(s, te);
    return s;
}

int main(void)
{
    return run_suite(parts_suite());
}
