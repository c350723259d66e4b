/*
 * The ordered lists of positions that a part's contraction builds on all
 * its threads (src/parts/positions.h), against a plain loop: conditions
 * that hold nowhere, everywhere, at random, in runs, and at the first or
 * last position only, over lengths below, at and above the threads' count,
 * on 1 to 5 threads.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "parts/positions.h"

static int marked(const void *arg, int64_t k)
{
    return ((const uint8_t *)arg)[k];
}

/* Loop index: the pattern of the marks. */
START_TEST(test_against_a_loop)
{
    static const int64_t lengths[] = {0, 1, 2, 3, 5, 64, 1000, 100003};
    uint64_t rng = 4242 + (uint64_t)_i;
    for (size_t s = 0; s < sizeof lengths / sizeof lengths[0]; s++) {
        const int64_t n = lengths[s];
        uint8_t *mark = xcalloc((size_t)(n > 0 ? n : 1), 1);
        for (int64_t k = 0; k < n; k++)
            mark[k] = _i == 0   ? 0
                      : _i == 1 ? 1
                      : _i == 2 ? rng_below(&rng, 2) == 0
                      : _i == 3 ? (k / 37) % 3 == 0
                                : k == (rng_below(&rng, 2) ? 0 : n - 1);
        uint32_t *want = xcalloc((size_t)(n > 0 ? n : 1), sizeof *want);
        uint32_t *got = xcalloc((size_t)(n > 0 ? n : 1), sizeof *got);
        int64_t count = 0;
        for (int64_t k = 0; k < n; k++)
            if (mark[k])
                want[count++] = (uint32_t)k;
        for (int threads = 1; threads <= 5; threads++) {
            int64_t listed = -1;
            gridemst_error err;
            REQUIRE(gemst_parts_positions(n, marked, mark, threads, got, &listed, &err) == GRIDEMST_OK, "%s",
                    err.message);
            REQUIRE(listed == count, "pattern %d, %lld positions, %d threads: %lld listed, %lld marked", _i,
                    (long long)n, threads, (long long)listed, (long long)count);
            for (int64_t k = 0; k < count; k++)
                REQUIRE(got[k] == want[k], "pattern %d, %lld positions, %d threads: entry %lld is %u, not %u", _i,
                        (long long)n, threads, (long long)k, got[k], want[k]);
        }
        free(mark);
        free(want);
        free(got);
    }
}
END_TEST

static Suite *positions_suite(void)
{
    Suite *s = suite_create("positions");
    TCase *tc = tcase_create("against_a_loop");
    tcase_add_loop_test(tc, test_against_a_loop, 0, 5);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(positions_suite());
}
