/*
 * The safe edges of a part's tree (src/parts/safe_edges.h), marked in
 * parallel batches, against the plain serial Kruskal that the proof in
 * docs/partitioned.md states: one edge after another, a union-find over
 * all the points, each component's smallest low carried at its root.
 *
 * The trees are random (every point hooked to an earlier one, the labels
 * shuffled), paths and stars (one root shared by a whole batch), and
 * forests; lengths and lows continuous or drawn from a few values, so
 * that equal lengths, equal lows and lengths equal to lows all occur.
 * The largest trees span several batches (the smaller ones, and one
 * thread, take Kruskal on the points themselves).  The marking must be
 * Kruskal's exactly (the partitioned solve's counters depend on it), and
 * in particular never mark an edge that Kruskal leaves uncertain.  The components of the safe
 * edges must be those of a serial union-find, numbered by their smallest
 * points.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "parts/safe_edges.h"

typedef enum { SHAPE_RANDOM, SHAPE_PATH, SHAPE_STAR, SHAPE_FOREST, SHAPE_COUNT } shape;

static const char *const shape_name[] = {"random tree", "path", "star", "forest"};

static int cmp_edge(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    return gemst_parts_edge_less(x, y) ? -1 : gemst_parts_edge_less(y, x);
}

/* A value from a few levels (ties) or continuous. */
static double draw(uint64_t *rng, int levels)
{
    return levels > 0 ? (double)rng_below(rng, (uint64_t)levels) : rng_unit(rng);
}

/* A forest of the shape over n points, in the edge order; *m edges. */
static gemst_parts_edge *make_tree(shape sh, int64_t n, int levels, uint64_t *rng, int64_t *m)
{
    uint32_t *label = xcalloc((size_t)n, sizeof *label);
    for (int64_t i = 0; i < n; i++)
        label[i] = (uint32_t)i;
    for (int64_t i = n - 1; i > 0; i--) { /* shuffled, so that the ends' numbers are far apart */
        const int64_t j = (int64_t)rng_below(rng, (uint64_t)i + 1);
        const uint32_t t = label[i];
        label[i] = label[j];
        label[j] = t;
    }
    gemst_parts_edge *e = xcalloc((size_t)(n > 1 ? n - 1 : 1), sizeof *e);
    int64_t k = 0;
    for (int64_t i = 1; i < n; i++) {
        const int64_t to = sh == SHAPE_PATH ? i - 1 : sh == SHAPE_STAR ? 0 : (int64_t)rng_below(rng, (uint64_t)i);
        if (sh == SHAPE_FOREST && rng_below(rng, 8) == 0)
            continue;
        const uint32_t a = label[i], b = label[to];
        e[k++] = (gemst_parts_edge){draw(rng, levels), a < b ? a : b, a < b ? b : a};
    }
    qsort(e, (size_t)k, sizeof *e, cmp_edge);
    free(label);
    *m = k;
    return e;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* The serial Kruskal's marking. */
static void reference_safe(const gemst_parts_edge *e, int64_t m, const double *low_in, int64_t n, uint8_t *safe)
{
    uint32_t *parent = xcalloc((size_t)n, sizeof *parent);
    double *low = xcalloc((size_t)n, sizeof *low);
    for (int64_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        low[i] = low_in[i];
    }
    for (int64_t k = 0; k < m; k++) {
        const uint32_t a = find(parent, e[k].lo), b = find(parent, e[k].hi);
        safe[k] = e[k].d2 < low[a] || e[k].d2 < low[b];
        parent[a] = b;
        low[b] = low[a] < low[b] ? low[a] : low[b];
    }
    free(parent);
    free(low);
}

/* The components of the safe edges, numbered in the order of their first
 * points. */
static uint32_t reference_components(const gemst_parts_edge *e, int64_t m, const uint8_t *safe, int64_t n,
                                     uint32_t *comp)
{
    uint32_t *parent = xcalloc((size_t)n, sizeof *parent), *number = xcalloc((size_t)n, sizeof *number);
    for (int64_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        number[i] = UINT32_MAX;
    }
    for (int64_t k = 0; k < m; k++)
        if (safe[k])
            parent[find(parent, e[k].lo)] = find(parent, e[k].hi);
    uint32_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint32_t r = find(parent, (uint32_t)i);
        if (number[r] == UINT32_MAX)
            number[r] = count++;
        comp[i] = number[r];
    }
    free(parent);
    free(number);
    return count;
}

static void check_case(shape sh, int64_t n, int len_levels, int low_levels, uint64_t seed)
{
    uint64_t rng = seed;
    int64_t m;
    gemst_parts_edge *e = make_tree(sh, n, len_levels, &rng, &m);
    double *low = xcalloc((size_t)n, sizeof *low);
    for (int64_t i = 0; i < n; i++) /* lows around the lengths: some edges safe, some not */
        low[i] = draw(&rng, low_levels) * (len_levels > 0 ? 1.0 : 1.5) + (rng_below(&rng, 4) == 0 ? 1e9 : 0.0);
    uint8_t *want = xcalloc((size_t)m, 1), *got = xcalloc((size_t)m, 1);
    uint32_t *want_comp = xcalloc((size_t)n, sizeof *want_comp), *got_comp = xcalloc((size_t)n, sizeof *got_comp);
    reference_safe(e, m, low, n, want);
    const uint32_t want_n = reference_components(e, m, want, n, want_comp);
    int64_t n_safe = 0;
    for (int64_t k = 0; k < m; k++)
        n_safe += want[k];
    /* the sets must hold both kinds of edges, or the comparison says little */
    REQUIRE(m < 20 || (n_safe > 0 && n_safe < m), "%s of %lld points: %lld of %lld edges safe", shape_name[sh],
            (long long)n, (long long)n_safe, (long long)m);
    for (int threads = 1; threads <= 3; threads++) {
        gridemst_error err;
        REQUIRE(gemst_safe_edges(e, m, low, n, threads, got, &err) == GRIDEMST_OK, "%s", err.message);
        for (int64_t k = 0; k < m; k++) {
            REQUIRE(!got[k] || want[k], "%s of %lld points, %d threads: edge %lld marked safe, uncertain by Kruskal",
                    shape_name[sh], (long long)n, threads, (long long)k);
            REQUIRE(got[k] == want[k], "%s of %lld points, %d threads: edge %lld left uncertain, safe by Kruskal",
                    shape_name[sh], (long long)n, threads, (long long)k);
        }
        uint32_t got_n = 0;
        REQUIRE(gemst_safe_components(e, m, got, n, threads, got_comp, &got_n, &err) == GRIDEMST_OK, "%s",
                err.message);
        REQUIRE_CMP(got_n, ==, want_n);
        for (int64_t i = 0; i < n; i++)
            REQUIRE(got_comp[i] == want_comp[i], "%s of %lld points, %d threads: point %lld in component %u, not %u",
                    shape_name[sh], (long long)n, threads, (long long)i, got_comp[i], want_comp[i]);
    }
    free(e);
    free(low);
    free(want);
    free(got);
    free(want_comp);
    free(got_comp);
}

/* Loop index: shape, then continuous or tied values. */
START_TEST(test_marking)
{
    const shape sh = (shape)(_i % SHAPE_COUNT);
    const int tied = _i / SHAPE_COUNT;
    static const int64_t sizes[] = {1, 2, 3, 17, 1000, 200000}; /* the last over several batches */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            check_case(sh, sizes[s], tied ? 4 : 0, tied ? 5 : 0, seed * 7919 + (uint64_t)_i);
}
END_TEST

static Suite *safe_edges_suite(void)
{
    Suite *s = suite_create("safe_edges");
    TCase *tc = tcase_create("against_kruskal");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_marking, 0, 2 * SHAPE_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(safe_edges_suite());
}
