/*
 * A tree's total weight in the library's order (common.h,
 * GEMST_TOTAL_GROUP): groups of 1024 lengths, each added in order, then
 * the groups' sums the same way until one is left.  The total of the
 * result's edges (gemst_edges_total) and the total from the first level's
 * group sums (gemst_group_sums_total, which a solve over several GPUs
 * uses: each device sums the groups within its share of the tree) against
 * a serial reference of that order, bit for bit, on 1 to 4 threads.  The
 * lengths span twelve orders of magnitude, so that another order of the
 * additions would round otherwise.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "common.h"
#include "result_edges.h"

/* The sums of the groups of count values, into out; their number. */
static int64_t level(const double *in, int64_t count, double *out)
{
    int64_t groups = 0;
    for (int64_t first = 0; first < count; first += GEMST_TOTAL_GROUP) {
        double s = 0.0;
        for (int64_t k = first; k < count && k < first + GEMST_TOTAL_GROUP; k++)
            s += in[k];
        out[groups++] = s;
    }
    return groups;
}

/* Loop index: the size's place in the list. */
START_TEST(test_against_the_order)
{
    static const int64_t sizes[] = {0, 1, 2, 1023, 1024, 1025, 2055, 1048575, 1048576 + 3};
    const int64_t m = sizes[_i];
    uint64_t rng = 77 + (uint64_t)_i;
    gridemst_edge *edges = xcalloc((size_t)(m > 0 ? m : 1), sizeof *edges);
    double *w = xcalloc((size_t)(m > 0 ? m : 1), sizeof *w), *sums = xcalloc((size_t)(m > 0 ? m : 1), sizeof *sums);
    for (int64_t k = 0; k < m; k++) {
        w[k] = rng_unit(&rng) * pow(10.0, (double)rng_below(&rng, 12) - 6.0);
        edges[k] = (gridemst_edge){k, k + 1, w[k]};
    }
    /* the reference: level by level, in place */
    double want = 0.0;
    int64_t count = m;
    double *in = w;
    while (count > 1) {
        count = level(in, count, sums);
        in = sums;
    }
    if (count == 1)
        want = in[0];
    if (m > GEMST_TOTAL_GROUP * 64) { /* the lengths tell the orders apart: one serial sum rounds otherwise */
        double serial = 0.0;
        for (int64_t k = 0; k < m; k++)
            serial += w[k];
        REQUIRE(serial != want, "%lld lengths: the serial sum and the library's order agree", (long long)m);
    }
    int64_t groups = level(w, m, sums); /* the first level, as the devices give it */
    for (int threads = 1; threads <= 4; threads++) {
        double from_edges = -1.0, from_sums = -1.0;
        REQUIRE(gemst_edges_total(edges, m, threads, &from_edges) == 0, "out of memory");
        REQUIRE(gemst_group_sums_total(sums, groups, threads, &from_sums) == 0, "out of memory");
        REQUIRE(from_edges == want && from_sums == want,
                "%lld lengths, %d threads: %.17g from the edges, %.17g from the groups' sums, %.17g in order",
                (long long)m, threads, from_edges, from_sums, want);
    }
    free(edges);
    free(w);
    free(sums);
}
END_TEST

static Suite *total_suite(void)
{
    Suite *s = suite_create("total");
    TCase *tc = tcase_create("order");
    tcase_add_loop_test(tc, test_against_the_order, 0, 9);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(total_suite());
}
