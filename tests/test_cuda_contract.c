/*
 * A part's contraction on a device (parts/device_contract.h) against the
 * host: the safe flags byte for byte those of the rounds rule's serial
 * reference (gemst_safe_edges_rounds) and those of Kruskal's test, which
 * marks the same edges (gemst_safe_edges in batches, and the plain serial
 * Kruskal of tests/safe_trees.h), the components those of
 * gemst_safe_components and of a serial union-find, each component's
 * smallest gap the least of its points' gaps taken here, and the uncertain
 * edges the unmarked positions in order, with the edges themselves.  The
 * same again with the tree read from device memory and the marks left
 * there, as a part of a solve over several GPUs has them, and with the
 * points numbered in a shuffled order (the rounds work on places, and no
 * result may depend on their order).
 *
 * The trees are random trees, paths, stars and forests (tests/safe_trees.h)
 * with continuous or tied lengths; the gaps continuous, tied with lows
 * equal to lengths (each length the bound gemst_parts_lower gives a gap
 * level), all zero (nothing safe), or huge and infinite (everything safe).
 * Then the real parts of a few sets split 3 ways: their trees, and their
 * gaps as the device computed and kept them (gemst_part_gaps, the points'
 * arrays kept on the device), against the host's gaps, and with the points
 * in the order by key the gaps kept, as a solve numbers them.
 *
 * One GPU is enough; skipped (exit 77) without one.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testutil.h"
#include "parts_sets.h"
#include "safe_trees.h"
#include "parts/device_contract.h"
#include "parts/device_gaps.h"
#include "parts/safe_edges.h"

static gridemst_context *ctx;

typedef enum { GAPS_SPREAD, GAPS_AT_LENGTHS, GAPS_ZERO, GAPS_HUGE, GAPS_COUNT } gap_kind;

static const char *const gap_name[] = {"spread gaps", "gaps at the lengths", "zero gaps", "huge gaps"};

/* The levels of tied gaps; the tied lengths become their bounds. */
static const double gap_level[] = {0.25, 1.0, 2.0, 3.0, 5.0};
#define GAP_LEVELS (int)(sizeof gap_level / sizeof gap_level[0])

/* The gaps of n points, and for GAPS_AT_LENGTHS the tree's tied lengths
 * (0 .. 3) made the bounds of gap levels (in order, so that the tree stays
 * in the edge order). */
static double *make_gaps(gap_kind kind, gemst_parts_edge *e, int64_t m, int64_t n, int tied, uint64_t *rng)
{
    double *gap = xcalloc((size_t)n, sizeof *gap);
    for (int64_t i = 0; i < n; i++) {
        if (kind == GAPS_SPREAD)
            gap[i] = draw(rng, tied ? 5 : 0) * (tied ? 1.0 : 1.5) + (rng_below(rng, 4) == 0 ? 1e9 : 0.0);
        else if (kind == GAPS_AT_LENGTHS)
            gap[i] = gap_level[rng_below(rng, GAP_LEVELS)];
        else if (kind == GAPS_HUGE)
            gap[i] = rng_below(rng, 3) == 0 ? INFINITY : 1e300;
    }
    if (kind == GAPS_AT_LENGTHS && tied)
        for (int64_t k = 0; k < m; k++)
            e[k].d2 = gemst_parts_lower(gap_level[(int)e[k].d2]);
    return gap;
}

/* The device's contraction of tree e (m edges over n points) with the
 * gaps at gap_on_device; out's arrays allocated here.  on_device: the tree
 * read from device memory and the marks left there (as a part of a solve
 * over several GPUs has them), then copied into out->safe here. */
static void device_contract(const gemst_parts_edge *e, int64_t m, const double *gap_on_device,
                            const uint32_t *order, int64_t n, int on_device, gemst_contract_out *out,
                            const char *what)
{
    out->safe = xcalloc((size_t)m + 1, 1);
    out->comp = xcalloc((size_t)n + 1, sizeof *out->comp);
    out->uncertain = xcalloc((size_t)m + 1, sizeof *out->uncertain);
    gemst_parts_edge *tree = NULL;
    uint8_t *mark = NULL;
    if (on_device) {
        CUDA_OK(cudaMalloc((void **)&tree, sizeof *tree * (size_t)(m + 1)));
        CUDA_OK(cudaMalloc((void **)&mark, (size_t)m + 1));
        CUDA_OK(cudaMemcpy(tree, e, sizeof *tree * (size_t)m, cudaMemcpyHostToDevice));
    }
    const gemst_contract_task t = {on_device ? NULL : e, m, gap_on_device, NULL, n, 2, tree, mark, order};
    gemst_contract_times times;
    memset(&times, 0, sizeof times);
    gridemst_error err;
    const int rc = gemst_device_contract(ctx, &t, out, &times, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: %s", what, err.message);
    REQUIRE(m == 0 || times.rounds >= 1, "%s: %d rounds", what, times.rounds);
    if (on_device) {
        CUDA_OK(cudaMemcpy(out->safe, mark, (size_t)m, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaFree(tree));
        CUDA_OK(cudaFree(mark));
    }
    for (int64_t k = 0; k < out->n_uncertain; k++)
        REQUIRE(memcmp(&out->uncertain_edge[k], &e[out->uncertain[k]], sizeof *e) == 0,
                "%s: uncertain edge %lld is not tree edge %u", what, (long long)k, out->uncertain[k]);
    REQUIRE(out->median_d2 == (m > 0 ? e[m / 2].d2 : 0.0), "%s: the middle edge's length %g", what, out->median_d2);
}

static void free_out(gemst_contract_out *out)
{
    free(out->safe);
    free(out->comp);
    free(out->uncertain);
    free(out->comp_gap);
    free(out->uncertain_edge);
}

/* The same contraction another way (how: the tree and the marks on the
 * device, the points in another order) as `want`. */
static void check_same(const gemst_parts_edge *e, int64_t m, const double *gap_on_device, const uint32_t *order,
                       int64_t n, int on_device, const gemst_contract_out *want, const char *how, const char *what)
{
    gemst_contract_out got;
    device_contract(e, m, gap_on_device, order, n, on_device, &got, what);
    REQUIRE(got.n_uncertain == want->n_uncertain && got.n_comp == want->n_comp,
            "%s: %lld uncertain edges and %u components %s, %lld and %u", what, (long long)got.n_uncertain,
            got.n_comp, how, (long long)want->n_uncertain, want->n_comp);
    REQUIRE(memcmp(got.safe, want->safe, (size_t)m) == 0 &&
                memcmp(got.comp, want->comp, sizeof *got.comp * (size_t)n) == 0 &&
                memcmp(got.uncertain, want->uncertain, sizeof *got.uncertain * (size_t)got.n_uncertain) == 0 &&
                memcmp(got.comp_gap, want->comp_gap, sizeof *got.comp_gap * got.n_comp) == 0,
            "%s: the marks, components or gaps differ %s", what, how);
    free_out(&got);
}

/* A random order of n points, in device memory. */
static uint32_t *shuffled_order(int64_t n, uint64_t seed)
{
    uint32_t *order = xcalloc((size_t)n + 1, sizeof *order), *on_device = NULL;
    for (int64_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    uint64_t rng = seed;
    for (int64_t i = n - 1; i > 0; i--) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const int64_t j = (int64_t)((rng >> 33) % (uint64_t)(i + 1));
        const uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    CUDA_OK(cudaMalloc((void **)&on_device, sizeof *order * (size_t)(n + 1)));
    CUDA_OK(cudaMemcpy(on_device, order, sizeof *order * (size_t)n, cudaMemcpyHostToDevice));
    free(order);
    return on_device;
}

/* The device's contraction against the host's, for one tree and its
 * gaps: in host memory, and on the device (kept: the same values there;
 * NULL: copied there here), with the points in their own order, in
 * `order` (device memory, or NULL), and shuffled: the same results. */
static void check_contraction(const gemst_parts_edge *e, int64_t m, const double *gap, const double *kept,
                              const uint32_t *order, int64_t n, const char *what)
{
    double *gap_on_device = NULL;
    if (!kept) {
        CUDA_OK(cudaMalloc((void **)&gap_on_device, sizeof *gap * (size_t)n));
        CUDA_OK(cudaMemcpy(gap_on_device, gap, sizeof *gap * (size_t)n, cudaMemcpyHostToDevice));
    }
    const double *gaps = kept ? kept : gap_on_device;
    gemst_contract_out got;
    device_contract(e, m, gaps, NULL, n, 0, &got, what);
    check_same(e, m, gaps, NULL, n, 1, &got, "with the tree on the device", what);
    if (order)
        check_same(e, m, gaps, order, n, 1, &got, "with the points in the order by key", what);
    uint32_t *shuffled = shuffled_order(n, (uint64_t)n * 7919 + (uint64_t)m);
    check_same(e, m, gaps, shuffled, n, 0, &got, "with the points shuffled", what);
    CUDA_OK(cudaFree(shuffled));
    if (gap_on_device)
        CUDA_OK(cudaFree(gap_on_device));

    double *low = xcalloc((size_t)n, sizeof *low);
    for (int64_t i = 0; i < n; i++)
        low[i] = gemst_parts_lower(gap[i]);
    uint8_t *want = xcalloc((size_t)m + 1, 1), *kruskal = xcalloc((size_t)m + 1, 1), *oracle = xcalloc((size_t)m + 1, 1);
    gridemst_error err;
    REQUIRE(gemst_safe_edges_rounds(e, m, low, n, want, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(gemst_safe_edges(e, m, low, n, 2, kruskal, &err) == GRIDEMST_OK, "%s", err.message);
    reference_safe(e, m, low, n, oracle);
    int64_t n_uncertain = 0;
    for (int64_t k = 0; k < m; k++) {
        REQUIRE(got.safe[k] == want[k], "%s: edge %lld of %lld is %u on the device, %u on the host", what,
                (long long)k, (long long)m, got.safe[k], want[k]);
        REQUIRE(got.safe[k] == kruskal[k] && kruskal[k] == oracle[k],
                "%s: edge %lld is %u on the device, %u by Kruskal's test in batches, %u serially", what, (long long)k,
                got.safe[k], kruskal[k], oracle[k]);
        if (!want[k]) {
            REQUIRE(n_uncertain < got.n_uncertain && got.uncertain[n_uncertain] == (uint32_t)k,
                    "%s: uncertain edge %lld missing from the device's list", what, (long long)k);
            n_uncertain++;
        }
    }
    REQUIRE_CMP(got.n_uncertain, ==, n_uncertain);
    REQUIRE(rounds_unfinished(e, m, low, n, got.safe) < 0, "%s: the device's rounds stopped early", what);

    uint32_t *comp = xcalloc((size_t)n, sizeof *comp), *serial = xcalloc((size_t)n, sizeof *serial), n_comp = 0;
    REQUIRE(gemst_safe_components(e, m, want, n, 2, comp, &n_comp, &err) == GRIDEMST_OK, "%s", err.message);
    const uint32_t n_serial = reference_components(e, m, want, n, serial);
    REQUIRE(got.n_comp == n_comp && n_comp == n_serial, "%s: %u components on the device, %u and %u on the host",
            what, got.n_comp, n_comp, n_serial);
    double *least = xcalloc((size_t)n_comp + 1, sizeof *least);
    for (uint32_t c = 0; c < n_comp; c++)
        least[c] = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        REQUIRE(got.comp[i] == comp[i] && comp[i] == serial[i], "%s: point %lld in component %u on the device, %u",
                what, (long long)i, got.comp[i], comp[i]);
        least[comp[i]] = gap[i] < least[comp[i]] ? gap[i] : least[comp[i]];
    }
    REQUIRE(n_comp == 0 || memcmp(got.comp_gap, least, sizeof *least * n_comp) == 0,
            "%s: the components' smallest gaps differ", what);
    free_out(&got);
    free(low);
    free(want);
    free(kruskal);
    free(oracle);
    free(comp);
    free(serial);
    free(least);
}

/* Loop index: shape, then gap kind, then continuous or tied lengths. */
START_TEST(test_trees)
{
    const shape sh = (shape)(_i % SHAPE_COUNT);
    const gap_kind kind = (gap_kind)(_i / SHAPE_COUNT % GAPS_COUNT);
    const int tied = _i / (SHAPE_COUNT * GAPS_COUNT);
    static const int64_t sizes[] = {1, 2, 3, 17, 1000, 60000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            uint64_t rng = seed * 104729 + (uint64_t)_i;
            int64_t m;
            gemst_parts_edge *e = make_tree(sh, sizes[s], tied ? 4 : 0, &rng, &m);
            double *gap = make_gaps(kind, e, m, sizes[s], tied, &rng);
            char what[128];
            snprintf(what, sizeof what, "%s of %lld points, %s lengths, %s, seed %llu", shape_name[sh],
                     (long long)sizes[s], tied ? "tied" : "continuous", gap_name[kind], (unsigned long long)seed);
            check_contraction(e, m, gap, NULL, NULL, sizes[s], what);
            free(e);
            free(gap);
        }
}
END_TEST

/* Trees of many blocks and many rounds. */
START_TEST(test_large)
{
    uint64_t rng = 31 + (uint64_t)_i;
    const int64_t n = 1000000;
    int64_t m;
    gemst_parts_edge *e = make_tree(_i ? SHAPE_PATH : SHAPE_RANDOM, n, 0, &rng, &m);
    double *gap = make_gaps(GAPS_SPREAD, e, m, n, 0, &rng);
    check_contraction(e, m, gap, NULL, NULL, n, _i ? "a path of 10^6 points" : "a random tree of 10^6 points");
    free(e);
    free(gap);
}
END_TEST

/* The parts of real sets: their trees (the CPU's solves), their gaps as
 * the device computed and kept them. */
START_TEST(test_parts)
{
    static const set_kind kinds[] = {SET_UNIFORM, SET_LATTICE, SET_DUPLICATES, SET_PLANES};
    dataset ds = make_set(kinds[_i / 2], 2 + _i % 2, 0);
    gemst_problem pb;
    memset(&pb, 0, sizeof pb);
    pb.coords = ds.coords;
    pb.dtype = ds.dtype;
    pb.n = ds.n;
    pb.dim = ds.dim;
    gridemst_options_init(&pb.opt);
    pb.opt.partitions = 3;
    gemst_parts_ctx c;
    gemst_parts_ctx_init(&c, &pb);
    gemst_part part[3];
    memset(part, 0, sizeof part);
    gridemst_partition_stats ps;
    gridemst_stats st;
    memset(&ps, 0, sizeof ps);
    memset(&st, 0, sizeof st);
    gridemst_error err;
    REQUIRE(gemst_parts_frame(&c, &err) == GRIDEMST_OK, "%s: frame: %s", ds.name, err.message);
    REQUIRE(gemst_parts_split(&c, part, &ps, &err) == GRIDEMST_OK, "%s: split: %s", ds.name, err.message);
    REQUIRE(gemst_parts_local_trees(&c, part, &st, &err) == GRIDEMST_OK, "%s: trees: %s", ds.name, err.message);
    for (int p = 0; p < 3; p++) {
        if (part[p].n == 0)
            continue;
        const size_t bytes =
            (size_t)part[p].n * ds.dim * (ds.dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
        void *coords = NULL;
        CUDA_OK(cudaMalloc(&coords, bytes));
        CUDA_OK(cudaMemcpy(coords, part[p].coords, bytes, cudaMemcpyHostToDevice));
        char what[128];
        snprintf(what, sizeof what, "%s %dD, part %d of 3 (%lld points)", ds.name, ds.dim, p, (long long)part[p].n);
        /* the host's gaps (the device's, bit for bit: test_cuda_parts_gaps), for the reference */
        gemst_part host;
        memset(&host, 0, sizeof host);
        host.n = part[p].n;
        host.coords = part[p].coords;
        uint64_t *key = xcalloc(2 * (size_t)host.n, sizeof *key);
        uint32_t *tmp = xcalloc((size_t)host.n, sizeof *tmp);
        REQUIRE(gemst_part_gaps(&c, p, &host, NULL, NULL, key, tmp, NULL, &err) == GRIDEMST_OK,
                "%s: the host's gaps: %s", what, err.message);
        free(key);
        free(tmp);
        gemst_device_gaps *g = NULL;
        const int rc = gemst_part_gaps(&c, p, &part[p], ctx, coords, NULL, NULL, &g, &err);
        REQUIRE(rc == GRIDEMST_OK && g, "%s: gaps: %s", what, rc == GRIDEMST_OK ? "none kept" : err.message);
        REQUIRE(!part[p].w && !part[p].gap && !part[p].by_gap && !part[p].cell_of,
                "%s: the points' arrays came to host memory, kept on the device", what);
        REQUIRE(gemst_device_gaps_by_key(g), "%s: the order by key was not kept for the contraction", what);
        check_contraction(part[p].tree, part[p].n_tree, host.gap, gemst_device_gaps_gap(g), gemst_device_gaps_by_key(g),
                          part[p].n, what);
        gemst_device_gaps_free(g);
        CUDA_OK(cudaFree(coords));
        host.coords = NULL; /* part[p]'s */
        gemst_part_free(&host);
    }
    for (int p = 0; p < 3; p++)
        gemst_part_free(&part[p]);
    free(ds.coords);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_contract");
    TCase *tc = tcase_create("contract");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_trees, 0, 2 * SHAPE_COUNT * GAPS_COUNT);
    tcase_add_loop_test(tc, test_large, 0, 2);
    tcase_add_loop_test(tc, test_parts, 0, 8);
    suite_add_tcase(s, tc);
    return run_suite_with_context(s, &ctx);
}
