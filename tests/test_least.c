/*
 * The boundary Boruvka's parallel steps against their serial forms: each
 * slot's least candidate (gemst_least_per_slot) against offering the
 * candidates one by one, the marked positions (gemst_flagged) against a
 * loop that appends them, and the doubles' ordered bits against the
 * doubles' own order.  The candidates share a few lengths and ends, so
 * that ties are settled by the lower id, the higher id, and, between equal
 * edges, by which came first (each copy carries its own `to`); ids differ
 * above their low 32 bits too, as over 2^32 points.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "parts/flagged.h"
#include "parts/least.h"

static void offer_one_by_one(gemst_cand *best, const gemst_cand *cand, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (cand[k].slot != GEMST_NONE && gemst_gid_edge_less(&cand[k].e, &best[cand[k].slot].e))
            best[cand[k].slot] = cand[k];
}

/* Loop index: the number of candidates' place in the list. */
START_TEST(test_least_against_in_turn)
{
    static const int64_t sizes[] = {0, 1, 7, 1000, 100000};
    static const uint32_t slots[] = {1, 3, 50, 4000};
    const int64_t n = sizes[_i];
    uint64_t rng = 5 + (uint64_t)_i;
    gemst_cand *cand = xcalloc((size_t)(n > 0 ? n : 1), sizeof *cand);
    for (size_t s = 0; s < sizeof slots / sizeof slots[0]; s++) {
        const uint32_t n_slots = slots[s];
        for (int64_t k = 0; k < n; k++) {
            const gemst_gid lo = rng_below(&rng, 2) + (rng_below(&rng, 3) << 32),
                            hi = lo + 1 + (rng_below(&rng, 3) << 32);
            const double d2 = (double)rng_below(&rng, 3) * 0.25;
            cand[k] = (gemst_cand){{d2, lo, hi}, (uint32_t)rng_below(&rng, n_slots), (uint32_t)k};
            if (rng_below(&rng, 10) == 0)
                cand[k].slot = GEMST_NONE;
        }
        gemst_cand *want = xcalloc(n_slots, sizeof *want), *got = xcalloc(n_slots, sizeof *got);
        for (int threads = 1; threads <= 5; threads += 2) {
            for (uint32_t r = 0; r < n_slots; r++) { /* some slots start with a candidate of their own */
                want[r] = (gemst_cand){{INFINITY, UINT64_MAX, UINT64_MAX}, GEMST_NONE, GEMST_NONE};
                if (r % 3 == 0)
                    want[r] = (gemst_cand){{0.25, 1, 2 + ((gemst_gid)1 << 32)}, r, UINT32_MAX - r};
            }
            memcpy(got, want, sizeof *got * n_slots);
            offer_one_by_one(want, cand, n);
            gemst_least_scratch scratch = {0};
            REQUIRE(gemst_least_per_slot(got, n_slots, cand, n, &scratch, threads) == 0, "out of memory");
            gemst_least_scratch_free(&scratch);
            for (uint32_t r = 0; r < n_slots; r++)
                REQUIRE(memcmp(&got[r], &want[r], sizeof got[r]) == 0,
                        "%lld candidates, %u slots, %d threads: slot %u got (%g, %llu, %llu) to %u, want (%g, %llu, "
                        "%llu) to %u",
                        (long long)n, n_slots, threads, r, got[r].e.d2, (unsigned long long)got[r].e.lo,
                        (unsigned long long)got[r].e.hi, got[r].to, want[r].e.d2, (unsigned long long)want[r].e.lo,
                        (unsigned long long)want[r].e.hi, want[r].to);
        }
        free(want);
        free(got);
    }
    free(cand);
}
END_TEST

START_TEST(test_flagged_against_a_loop)
{
    static const int64_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 100001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int64_t n = sizes[s];
        uint64_t rng = 11 + s;
        uint8_t *flag = xcalloc((size_t)(n > 0 ? n : 1), 1);
        uint32_t *want = xcalloc((size_t)(n > 0 ? n : 1), sizeof *want),
                 *got = xcalloc((size_t)(n > 0 ? n : 1), sizeof *got);
        for (int density = 0; density < 3; density++) { /* none, some, all */
            int64_t m = 0;
            for (int64_t k = 0; k < n; k++) {
                flag[k] = density == 2 || (density == 1 && rng_below(&rng, 3) == 0);
                if (flag[k])
                    want[m++] = (uint32_t)k;
            }
            for (int threads = 1; threads <= 7; threads += 3) {
                memset(got, 0xff, sizeof *got * (size_t)(n > 0 ? n : 1));
                const int64_t count = gemst_flagged(flag, n, got, threads);
                REQUIRE(count == m, "%lld flags, %d threads: %lld set, want %lld", (long long)n, threads,
                        (long long)count, (long long)m);
                REQUIRE(m == 0 || memcmp(got, want, sizeof *got * (size_t)m) == 0,
                        "%lld flags, %d threads: the positions differ", (long long)n, threads);
            }
        }
        free(flag);
        free(want);
        free(got);
    }
}
END_TEST

START_TEST(test_order_bits_keep_the_order)
{
    double v[64] = {-INFINITY, -1e300, -1.5, -0x1p-1074, 0.0, 0x1p-1074, 0x1p-1022, 1.0, 1.5, 1e300, INFINITY};
    int n = 11;
    uint64_t rng = 3;
    while (n < 64)
        v[n++] = (rng_unit(&rng) - 0.5) * pow(10.0, (double)rng_below(&rng, 40) - 20.0);
    for (int a = 0; a < n; a++) {
        REQUIRE(gemst_order_value(gemst_order_bits(v[a])) == v[a], "%g does not come back", v[a]);
        for (int b = 0; b < n; b++)
            REQUIRE((v[a] < v[b]) == (gemst_order_bits(v[a]) < gemst_order_bits(v[b])), "%g against %g", v[a],
                    v[b]);
    }
    REQUIRE(gemst_order_bits(-0.0) < gemst_order_bits(0.0), "-0 sorts after +0");
}
END_TEST

static Suite *least_suite(void)
{
    Suite *s = suite_create("least");
    TCase *tc = tcase_create("parallel");
    tcase_add_loop_test(tc, test_least_against_in_turn, 0, 5);
    tcase_add_test(tc, test_flagged_against_a_loop);
    tcase_add_test(tc, test_order_bits_keep_the_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(least_suite());
}
