/*
 * The merge of sorted edge lists that ends a partitioned solve
 * (src/parts/merge_edges.h), against a sort of the kept edges of all the
 * lists together: 1 to 65 lists, empty lists, lists of one edge, lengths
 * drawn from a few values (many ties, broken by the endpoints), lists of
 * very different sizes, edges left out, and ends renumbered first
 * (gemst_parts_edges_in_ids), on 1 to 5 threads.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "parts/merge_edges.h"

/* The edge order written out on its own: length, then lo, then hi. */
static int by_length_then_ends(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    if (x->d2 != y->d2)
        return x->d2 < y->d2 ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Loop index: the shape of the lists (how many, how long, how tied).
 * List j but the last numbers its points i as i * 65 + j in the whole set
 * (ascending, and no two lists share a point), keeps about nine edges in
 * ten, and the last list holds ids of the whole set and keeps all. */
START_TEST(test_against_a_sort)
{
    static const int lists[] = {1, 2, 3, 5, 65};
    uint64_t rng = 777 + (uint64_t)_i;
    for (size_t s = 0; s < sizeof lists / sizeof lists[0]; s++) {
        const int k = lists[s];
        int64_t total = 0;
        gemst_edge_list list[65];
        gemst_gid *ids[65];
        for (int j = 0; j < k; j++) {
            const int64_t count = _i == 0   ? (int64_t)rng_below(&rng, 3) /* empty and tiny lists */
                                  : _i == 1 ? (int64_t)rng_below(&rng, 5000)
                                  : _i == 2 ? (j == 0 ? 40000 : (int64_t)rng_below(&rng, 20)) /* one holds most */
                                            : 3000;
            const int whole = j == k - 1 && k > 1, points = 1000;
            gemst_parts_edge *edge = xcalloc((size_t)(count > 0 ? count : 1), sizeof *edge);
            uint8_t *keep = whole ? NULL : xcalloc((size_t)(count > 0 ? count : 1), 1);
            gemst_gid *id = whole ? NULL : xcalloc(points, sizeof *id);
            const uint64_t lengths = _i == 3 ? 2 : 50;
            for (int64_t e = 0; e < count; e++) {
                const uint32_t a = (uint32_t)rng_below(&rng, points), b = (uint32_t)rng_below(&rng, points);
                edge[e] = (gemst_parts_edge){(double)rng_below(&rng, lengths), a < b ? a : b, a < b ? b : a};
                if (whole) { /* ids beyond every other list's */
                    edge[e].lo += 65 * points;
                    edge[e].hi += 65 * points;
                } else {
                    keep[e] = rng_below(&rng, 10) != 0;
                }
            }
            for (int i = 0; !whole && i < points; i++)
                id[i] = (gemst_gid)(i * 65 + j);
            qsort(edge, (size_t)count, sizeof *edge, by_length_then_ends);
            list[j] = (gemst_edge_list){edge, count, keep};
            ids[j] = id;
            total += count;
        }
        gemst_parts_edge *want = xcalloc((size_t)(total > 0 ? total : 1), sizeof *want);
        int64_t n_want = 0;
        for (int j = 0; j < k; j++)
            for (int64_t e = 0; e < list[j].count; e++)
                if (!list[j].keep || list[j].keep[e]) {
                    gemst_parts_edge x = list[j].edge[e];
                    if (ids[j]) {
                        x.lo = (uint32_t)ids[j][x.lo];
                        x.hi = (uint32_t)ids[j][x.hi];
                    }
                    want[n_want++] = x;
                }
        qsort(want, (size_t)n_want, sizeof *want, by_length_then_ends);
        for (int j = 0; j < k; j++) /* the merge takes the lists in ids of the whole set */
            if (ids[j])
                gemst_parts_edges_in_ids((gemst_parts_edge *)list[j].edge, list[j].count, ids[j], 1 + j % 3);
        uint32_t *lo = xcalloc((size_t)(total > 0 ? total : 1), sizeof *lo);
        uint32_t *hi = xcalloc((size_t)(total > 0 ? total : 1), sizeof *hi);
        double *d2 = xcalloc((size_t)(total > 0 ? total : 1), sizeof *d2);
        for (int threads = 1; threads <= 5; threads++) {
            for (int64_t e = 0; e < total; e++) {
                lo[e] = hi[e] = UINT32_MAX;
                d2[e] = -1;
            }
            int64_t merged = -1;
            REQUIRE(gemst_parts_merge_edges(list, k, threads, lo, hi, d2, &merged) == 0, "out of memory");
            REQUIRE(merged == n_want, "shape %d, %d lists, %d threads: %lld edges merged, %lld kept", _i, k, threads,
                    (long long)merged, (long long)n_want);
            for (int64_t e = 0; e < n_want; e++)
                REQUIRE(d2[e] == want[e].d2 && lo[e] == want[e].lo && hi[e] == want[e].hi,
                        "shape %d, %d lists, %lld edges, %d threads: edge %lld is (%g, %u, %u), not (%g, %u, %u)",
                        _i, k, (long long)n_want, threads, (long long)e, d2[e], lo[e], hi[e], want[e].d2,
                        want[e].lo, want[e].hi);
        }
        /* the boundary's sort: the wanted edges shuffled, then sorted again */
        for (int64_t e = n_want - 1; e > 0; e--) {
            const int64_t o = (int64_t)rng_below(&rng, (uint64_t)e + 1);
            const gemst_parts_edge t = want[e];
            want[e] = want[o];
            want[o] = t;
        }
        gemst_parts_sort_edges(want, n_want);
        for (int64_t e = 1; e < n_want; e++)
            REQUIRE(by_length_then_ends(&want[e - 1], &want[e]) <= 0, "shape %d, %d lists: sorted edge %lld out of order",
                    _i, k, (long long)e);
        for (int j = 0; j < k; j++) {
            free((void *)list[j].edge);
            free((void *)list[j].keep);
            free(ids[j]);
        }
        free(want);
        free(lo);
        free(hi);
        free(d2);
    }
}
END_TEST

static Suite *merge_edges_suite(void)
{
    Suite *s = suite_create("merge_edges");
    TCase *tc = tcase_create("against_a_sort");
    tcase_add_loop_test(tc, test_against_a_sort, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(merge_edges_suite());
}
