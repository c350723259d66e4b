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
 *
 * The rounds rule (safe_rounds.c) on the same trees and lows must mark
 * exactly the edges that Kruskal marks, and stop at its fixed point: no
 * component of its edges has a least incident unmarked edge shorter than
 * its lows.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "safe_trees.h"
#include "parts/safe_edges.h"

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

/* The rounds rule (gemst_safe_edges_rounds) on the same trees: it marks
 * exactly the edges Kruskal's test marks (docs/partitioned.md proves it),
 * and its marking is the rule's fixed point. */
static void check_rounds(shape sh, int64_t n, int len_levels, int low_levels, uint64_t seed)
{
    uint64_t rng = seed;
    int64_t m;
    gemst_parts_edge *e = make_tree(sh, n, len_levels, &rng, &m);
    double *low = xcalloc((size_t)n, sizeof *low);
    for (int64_t i = 0; i < n; i++)
        low[i] = draw(&rng, low_levels) * (len_levels > 0 ? 1.0 : 1.5) + (rng_below(&rng, 4) == 0 ? 1e9 : 0.0);
    uint8_t *kruskal = xcalloc((size_t)m + 1, 1), *got = xcalloc((size_t)m + 1, 1);
    reference_safe(e, m, low, n, kruskal);
    gridemst_error err;
    REQUIRE(gemst_safe_edges_rounds(e, m, low, n, got, &err) == GRIDEMST_OK, "%s", err.message);
    for (int64_t k = 0; k < m; k++)
        REQUIRE(got[k] == kruskal[k], "%s of %lld points: edge %lld is %u by the rounds, %u by Kruskal",
                shape_name[sh], (long long)n, (long long)k, got[k], kruskal[k]);
    const int64_t bad = rounds_unfinished(e, m, low, n, got);
    REQUIRE(bad < 0, "%s of %lld points: edge %lld is a component's least and shorter than its lows, unmarked",
            shape_name[sh], (long long)n, (long long)bad);
    free(e);
    free(low);
    free(kruskal);
    free(got);
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

START_TEST(test_rounds)
{
    const shape sh = (shape)(_i % SHAPE_COUNT);
    const int tied = _i / SHAPE_COUNT;
    static const int64_t sizes[] = {1, 2, 3, 17, 1000, 200000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            check_rounds(sh, sizes[s], tied ? 4 : 0, tied ? 5 : 0, seed * 7919 + (uint64_t)_i);
}
END_TEST

static Suite *safe_edges_suite(void)
{
    Suite *s = suite_create("safe_edges");
    TCase *tc = tcase_create("against_kruskal");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_marking, 0, 2 * SHAPE_COUNT);
    tcase_add_loop_test(tc, test_rounds, 0, 2 * SHAPE_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(safe_edges_suite());
}
