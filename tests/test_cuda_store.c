/*
 * A part's boundary store filled from its device (parts/device_store.h)
 * against the host's fill of the same part (parts/store.c), array by
 * array: after each of a run of fills (a first limit below every gap but
 * the least, limits at growing shares of the points, one repeated, one
 * below the last, INFINITY), and along the extensions gemst_store_reach
 * makes (the default growth and GRIDEMST_PARTS_STORE=exact), the points
 * held, their numbers, ids, components, cells, gaps, working coordinates,
 * halo bits, the index by cell, the cells' "all sent" bits, the limit and
 * the count of extensions; and the uncertain edges with their ends'
 * components, copied in when the store is made.
 *
 * The parts come from the CPU's partition and local trees.  Each part is
 * contracted on the host (Kruskal's rule), and again on device 0 from its
 * coordinates copied there (the rounds, the points kept on the device),
 * every part on that one device; then the safe edges and the arrays the
 * host still reads in full (the uncertain edges, the components' gaps,
 * the cells' keys and boxes) must be the host's, and the points' arrays
 * must have stayed on the device.  Last, the boundary Boruvka over the
 * parts on the device gives the host's edges byte for byte and the same
 * counters, and frees what the device kept: with the safe edges, the tree
 * of the partitioned solve, which tests/test_parts compares with the
 * single solve's.
 *
 * One GPU is enough; skipped (exit 77) without one.  A solve over several
 * devices names each device once (gemst_check_devices), so test_multigpu,
 * with 2 GPUs, runs the same path through gridemst_solve.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testutil.h"
#include "parts_sets.h"
#include "parts/parts.h"
#include "parts/store.h"

static gridemst_context *ctx;

/* ds split `parts` ways in precision prec, each part's local tree solved
 * on the CPU. */
static void split_and_solve(const dataset *ds, int parts, gridemst_precision prec, gemst_problem *pb,
                            gemst_parts_ctx *c, gemst_part *part, const char *what)
{
    memset(pb, 0, sizeof *pb);
    pb->coords = ds->coords;
    pb->dtype = ds->dtype;
    pb->n = ds->n;
    pb->dim = ds->dim;
    gridemst_options_init(&pb->opt);
    pb->opt.partitions = parts;
    pb->opt.precision = prec;
    /* one thread: the boundary's threads lower bounds that the others read as they go, so that its counts of
     * searches and kept answers move with their timing (check_boundary compares them) */
    pb->opt.threads = 1;
    gemst_parts_ctx_init(c, pb);
    gridemst_partition_stats ps;
    gridemst_stats st;
    memset(&ps, 0, sizeof ps);
    memset(&st, 0, sizeof st);
    gridemst_error err;
    REQUIRE(gemst_parts_frame(c, &err) == GRIDEMST_OK, "%s: frame: %s", what, err.message);
    REQUIRE(gemst_parts_split(c, part, &ps, &err) == GRIDEMST_OK, "%s: split: %s", what, err.message);
    REQUIRE(gemst_parts_local_trees(c, part, &st, &err) == GRIDEMST_OK, "%s: local trees: %s", what, err.message);
}

/* Every part contracted, on the host or on the device, and the safe
 * components numbered across the parts. */
static void contract(gemst_parts_ctx *c, gemst_part *part, const dataset *ds, int on_device, const char *what)
{
    gridemst_error err;
    for (int p = 0; p < c->parts; p++) {
        void *coords = NULL;
        if (on_device && part[p].n > 0) {
            const size_t bytes =
                (size_t)part[p].n * ds->dim * (ds->dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
            CUDA_OK(cudaMalloc(&coords, bytes));
            CUDA_OK(cudaMemcpy(coords, part[p].coords, bytes, cudaMemcpyHostToDevice));
        }
        const int rc = gemst_part_contract_on(c, p, &part[p], coords ? ctx : NULL, coords, &err);
        REQUIRE(rc == GRIDEMST_OK, "%s, part %d: the contraction on the %s: %s", what, p,
                on_device ? "device" : "host", err.message);
        if (coords)
            CUDA_OK(cudaFree(coords));
        if (on_device && part[p].n > 0)
            REQUIRE(part[p].on_device && !part[p].w && !part[p].gap && !part[p].by_gap && !part[p].cell_of &&
                        !part[p].comp && !part[p].by_key && !part[p].cell_start,
                    "%s, part %d: the points' arrays did not stay on the device (kept: %s; in host memory: w %s, "
                    "gap %s, by_gap %s, cell_of %s, comp %s, by_key %s, cell_start %s)",
                    what, p, part[p].on_device ? "yes" : "no", part[p].w ? "yes" : "no",
                    part[p].gap ? "yes" : "no", part[p].by_gap ? "yes" : "no", part[p].cell_of ? "yes" : "no",
                    part[p].comp ? "yes" : "no", part[p].by_key ? "yes" : "no",
                    part[p].cell_start ? "yes" : "no");
    }
    int64_t components = 0;
    REQUIRE(gemst_parts_number_components(c, part, &components, &err) == GRIDEMST_OK, "%s: numbering: %s", what,
            err.message);
}

/* The first of `count` records of `size` bytes where a and b differ, or -1. */
static int64_t first_difference(const void *a, const void *b, size_t size, int64_t count)
{
    for (int64_t k = 0; k < count; k++)
        if (memcmp((const char *)a + size * (size_t)k, (const char *)b + size * (size_t)k, size) != 0)
            return k;
    return -1;
}

/* Array field of host and dev, count records, the same byte for byte. */
#define SAME(host, dev, field, count, ...)                                                                        \
    do {                                                                                                          \
        char where_[256];                                                                                         \
        snprintf(where_, sizeof where_, __VA_ARGS__);                                                             \
        const int64_t at_ = first_difference((host)->field, (dev)->field, sizeof *(host)->field, (count));        \
        REQUIRE(at_ < 0, "%s: %s differs from the host's at %lld of %lld", where_, #field, (long long)at_,       \
                (long long)(count));                                                                              \
    } while (0)

/* What the contraction left in host memory, the host's and the device's. */
static void check_contraction(const gemst_part *host, const gemst_part *dev, int p, const char *what)
{
    REQUIRE(dev->n_comp == host->n_comp && dev->comp_base == host->comp_base &&
                dev->n_uncertain == host->n_uncertain && dev->n_cells == host->n_cells,
            "%s, part %d: %u components from %u, %lld uncertain edges, %lld cells on the device; %u from %u, "
            "%lld, %lld on the host",
            what, p, dev->n_comp, dev->comp_base, (long long)dev->n_uncertain, (long long)dev->n_cells,
            host->n_comp, host->comp_base, (long long)host->n_uncertain, (long long)host->n_cells);
    SAME(host, dev, safe, host->n_tree, "%s, part %d", what, p);
    SAME(host, dev, uncertain, host->n_uncertain, "%s, part %d", what, p);
    SAME(host, dev, comp_gap, host->n_comp, "%s, part %d", what, p);
    SAME(host, dev, cell_key, host->n_cells, "%s, part %d", what, p);
    SAME(host, dev, cell_box, host->n_cells, "%s, part %d", what, p);
}

/* The two parts' stores and cells' "all sent" bits, after `step`. */
static void check_stores(const gemst_part *host, const gemst_part *dev, int p, const char *step, const char *what)
{
    const gemst_part_store *h = host->store, *d = dev->store;
    REQUIRE(d->n == h->n && memcmp(&d->limit, &h->limit, sizeof h->limit) == 0 && d->extensions == h->extensions,
            "%s, part %d, %s: the device's store holds %lld points to the limit %.17g after %lld extensions, the "
            "host's %lld to %.17g after %lld",
            what, p, step, (long long)d->n, d->limit, (long long)d->extensions, (long long)h->n, h->limit,
            (long long)h->extensions);
    SAME(h, d, at, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, id, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, comp, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, cell, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, gap, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, w, 3 * h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, sent, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, by_cell, h->n, "%s, part %d, %s", what, p, step);
    SAME(h, d, cell_start, h->n_cells + 1, "%s, part %d, %s", what, p, step);
    SAME(host, dev, cell_sent, host->n_cells, "%s, part %d, %s", what, p, step);
}

/* Both parts' stores made anew, their uncertain edges compared. */
static void create_stores(gemst_part *host, gemst_part *dev, int exact, int p, const char *what)
{
    gemst_part *both[2] = {host, dev};
    gridemst_error err;
    for (int k = 0; k < 2; k++) {
        gemst_store_free(both[k]->store);
        both[k]->store = NULL;
        REQUIRE(gemst_store_create(both[k], &err) == GRIDEMST_OK, "%s, part %d: the %s's store: %s", what, p,
                k ? "device" : "host", err.message);
        both[k]->store->exact = exact;
    }
    const gemst_part_store *h = host->store, *d = dev->store;
    REQUIRE(d->n_edges == h->n_edges && d->n_cells == h->n_cells &&
                memcmp(&d->typical_d2, &h->typical_d2, sizeof h->typical_d2) == 0,
            "%s, part %d: the device's store has %lld edges and %lld cells, the host's %lld and %lld", what, p,
            (long long)d->n_edges, (long long)d->n_cells, (long long)h->n_edges, (long long)h->n_cells);
    SAME(h, d, edge, h->n_edges, "%s, part %d, the uncertain edges", what, p);
}

/* Each cell "all sent" to every part, in both parts, before a fill. */
static void all_sent(gemst_part *host, gemst_part *dev)
{
    for (int64_t k = 0; k < host->n_cells; k++)
        host->cell_sent[k] = dev->cell_sent[k] = ~(uint64_t)0;
}

/* The gap at share f of the host part's points in gap order. */
static double gap_at(const gemst_part *host, double f)
{
    int64_t k = (int64_t)(f * (double)host->n);
    k = k < host->n ? k : host->n - 1;
    return host->gap[host->by_gap[k]];
}

/* Fills to given limits, then extensions by gemst_store_reach, each way
 * of growing. */
static void check_fills(gemst_part *host, gemst_part *dev, int p, const char *what)
{
    gridemst_error err;
    const double least = host->gap[host->by_gap[0]];
    const double limits[] = {least > 0.0 ? least / 2 : -1.0, /* nothing (or the zero gaps only) */
                             least,
                             gap_at(host, 0.001),
                             gap_at(host, 0.01),
                             gap_at(host, 0.01), /* again: nothing new */
                             gap_at(host, 0.005), /* below the last: nothing new */
                             gap_at(host, 0.05),
                             gap_at(host, 0.2),
                             nextafter(gap_at(host, 0.5), 0.0),
                             INFINITY};
    create_stores(host, dev, 0, p, what);
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        char step[96];
        snprintf(step, sizeof step, "fill %zu, to %.17g", k + 1, limits[k]);
        all_sent(host, dev);
        REQUIRE(gemst_store_fill(host, limits[k], 1, &err) == GRIDEMST_OK, "%s, part %d, %s on the host: %s", what,
                p, step, err.message);
        REQUIRE(gemst_store_fill(dev, limits[k], 3, &err) == GRIDEMST_OK, "%s, part %d, %s from the device: %s",
                what, p, step, err.message);
        check_stores(host, dev, p, step, what);
    }
    REQUIRE_CMP(host->store->n, ==, host->n);
    for (int exact = 0; exact < 2; exact++) {
        create_stores(host, dev, exact, p, what);
        double need = least > 0.0 ? least / 4 : 1e-9;
        for (int k = 0; k <= 40 && host->store->n < host->n; k++, need = k < 40 ? need * 1.7 : INFINITY) {
            char step[96];
            snprintf(step, sizeof step, "%s reach %d, to %.17g", exact ? "an exact" : "a growing", k + 1, need);
            all_sent(host, dev);
            REQUIRE(gemst_store_reach(host, need, 1, &err) == GRIDEMST_OK, "%s, part %d, %s on the host: %s", what,
                    p, step, err.message);
            REQUIRE(gemst_store_reach(dev, need, 3, &err) == GRIDEMST_OK, "%s, part %d, %s from the device: %s", what,
                    p, step, err.message);
            check_stores(host, dev, p, step, what);
        }
        REQUIRE(dev->store->n == host->n, "%s, part %d: %s store holds %lld of %lld points after its last reach",
                what, p, exact ? "an exact" : "a growing", (long long)dev->store->n, (long long)host->n);
    }
    for (int k = 0; k < 2; k++) { /* as the boundary finds them */
        gemst_part *part = k ? dev : host;
        gemst_store_free(part->store);
        part->store = NULL;
        memset(part->cell_sent, 0, sizeof *part->cell_sent * (size_t)part->n_cells);
    }
}

/* The boundary Boruvka over both sets of parts. */
static void check_boundary(gemst_parts_ctx *c, gemst_part *host, gemst_part *dev, const char *what)
{
    int64_t components = 0;
    for (int p = 0; p < c->parts; p++)
        components += host[p].n_comp;
    gemst_gid_edge *edges[2] = {NULL, NULL};
    gridemst_stats st[2];
    gridemst_error err;
    for (int k = 0; k < 2; k++) {
        memset(&st[k], 0, sizeof st[k]);
        const int rc = gemst_parts_boundary(c, k ? dev : host, components, &edges[k], &st[k], &err);
        REQUIRE(rc == GRIDEMST_OK, "%s: the boundary over the parts on the %s: %s", what, k ? "device" : "host",
                err.message);
    }
    const int64_t m = components > 0 ? components - 1 : 0;
    const int64_t at = first_difference(edges[0], edges[1], sizeof *edges[0], m);
    REQUIRE(at < 0, "%s: the boundary's edge %lld of %lld differs with the parts on the device", what,
            (long long)at, (long long)m);
    const gridemst_partition_stats *h = &st[0].partitions, *d = &st[1].partitions;
    REQUIRE(d->iterations == h->iterations && d->halo_rounds == h->halo_rounds && d->halo_points == h->halo_points &&
                d->searches == h->searches && st[1].partition_kept_answers == st[0].partition_kept_answers,
            "%s: with the parts on the device, %d iterations, %d halo rounds, %lld halo points, %lld searches, %lld "
            "kept answers; on the host %d, %d, %lld, %lld, %lld",
            what, d->iterations, d->halo_rounds, (long long)d->halo_points, (long long)d->searches,
            (long long)st[1].partition_kept_answers, h->iterations, h->halo_rounds, (long long)h->halo_points,
            (long long)h->searches, (long long)st[0].partition_kept_answers);
    for (int p = 0; p < c->parts; p++)
        REQUIRE(!dev[p].on_device && !dev[p].store, "%s, part %d: the device's arrays outlived the boundary", what,
                p);
    free(edges[0]);
    free(edges[1]);
}

/* ds split `parts` ways in precision prec: every part's store both ways,
 * then the boundary. */
static void check_set(const dataset *ds, int parts, gridemst_precision prec)
{
    char what[160];
    snprintf(what, sizeof what, "%s %dD, %lld points, %d parts, %s", ds->name, ds->dim, (long long)ds->n, parts,
             prec == GRIDEMST_PRECISION_DOUBLE ? "double" : "float");
    gemst_problem pb[2];
    gemst_parts_ctx c[2];
    gemst_part *part[2];
    for (int k = 0; k < 2; k++) {
        part[k] = xcalloc((size_t)parts, sizeof *part[k]);
        split_and_solve(ds, parts, prec, &pb[k], &c[k], part[k], what);
        contract(&c[k], part[k], ds, k, what);
    }
    for (int p = 0; p < parts; p++) {
        if (part[0][p].n == 0)
            continue;
        check_contraction(&part[0][p], &part[1][p], p, what);
        check_fills(&part[0][p], &part[1][p], p, what);
    }
    check_boundary(&c[0], part[0], part[1], what);
    for (int k = 0; k < 2; k++) {
        for (int p = 0; p < parts; p++)
            gemst_part_free(&part[k][p]);
        free(part[k]);
    }
}

/* Every set kind in 2D and 3D, over 2 and 7 parts, in either precision. */
START_TEST(test_sets)
{
    const set_kind kind = (set_kind)(_i / 2);
    const int dim = 2 + _i % 2;
    dataset ds = make_set(kind, dim, 0);
    check_set(&ds, 2, GRIDEMST_PRECISION_FLOAT);
    check_set(&ds, 7, GRIDEMST_PRECISION_DOUBLE);
    free(ds.coords);
}
END_TEST

/* Parts of many scans for a fill's end and of many blocks of each gather. */
START_TEST(test_large)
{
    dataset ds = make_set(_i ? SET_BLOBS : SET_UNIFORM, 3, 600000);
    check_set(&ds, 3, GRIDEMST_PRECISION_FLOAT);
    free(ds.coords);
}
END_TEST

/* Fewer points than parts, or a few more: empty parts, parts of one point,
 * ties and duplicates. */
START_TEST(test_tiny)
{
    uint64_t seed = 7 + (uint64_t)_i;
    const int dim = 2 + _i % 2;
    for (int64_t n = 2; n <= 12; n++) {
        dataset ds = tiny_set(n, dim, &seed);
        check_set(&ds, 3, GRIDEMST_PRECISION_DOUBLE);
        free(ds.coords);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_sets, 0, 2 * SET_COUNT);
    tcase_add_loop_test(tc, test_large, 0, 2);
    tcase_add_loop_test(tc, test_tiny, 0, 2);
    suite_add_tcase(s, tc);
    return run_suite_with_context(s, &ctx);
}
