/*
 * The open-addressing table of src/hash_slots.h, against a sorted list of
 * the keys: every key inserted once is taken once and found at its slot,
 * and keys never inserted are not found, in tables of as few slots as
 * gemst_hash_bits allows.  Then the border step's lookups
 * (parts/inner.h): a point is alone where its 3^dim cells hold its own
 * component only, against a test over the cells' list.
 */
#include <stdlib.h>

#include "testutil.h"
#include "hash_slots.h"
#include "parts/inner.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Keys of n draws: repeats of small keys, keys that differ in their
 * lowest bits only, and any others (never the free value). */
static void draw_keys(uint64_t *key, int n, uint64_t *seed)
{
    for (int k = 0; k < n; k++) {
        const uint64_t r = rng_below(seed, 4);
        key[k] = r == 0 ? rng_below(seed, (uint64_t)n / 2 + 1)           /* repeats */
                 : r == 1 ? (uint64_t)1 << 40 | rng_below(seed, 8)        /* near-equal keys */
                          : (uint64_t)rng_below(seed, UINT64_MAX - 1); /* anything but the free value */
    }
}

START_TEST(test_insert_and_find)
{
    enum { N = 20000 };
    static uint64_t key[N], sorted[N];
    uint64_t seed = 77 + (uint64_t)_i;
    draw_keys(key, N, &seed);
    memcpy(sorted, key, sizeof key);
    qsort(sorted, N, sizeof *sorted, cmp_u64);
    int distinct = 0;
    for (int k = 0; k < N; k++)
        distinct += k == 0 || sorted[k] != sorted[k - 1];
    const int bits = gemst_hash_bits((uint64_t)distinct);
    ck_assert((1u << bits) >= 2u * (unsigned)distinct);
    const size_t slots = (size_t)1 << bits;
    uint64_t *table = malloc(sizeof *table * slots);
    int32_t *slot_of = malloc(sizeof *slot_of * N);
    ck_assert_ptr_nonnull(table);
    ck_assert_ptr_nonnull(slot_of);
    for (size_t s = 0; s < slots; s++)
        table[s] = GEMST_HASH_FREE;
    int taken_count = 0;
    for (int k = 0; k < N; k++) {
        int taken;
        slot_of[k] = (int32_t)gemst_hash_slot(table, bits, key[k], &taken);
        taken_count += taken;
        ck_assert_uint_eq(table[slot_of[k]], key[k]);
    }
    ck_assert_int_eq(taken_count, distinct);
    for (int k = 0; k < N; k++)
        ck_assert_int_eq(gemst_hash_find(table, bits, key[k]), slot_of[k]);
    for (int k = 0; k < 2000; k++) { /* keys not drawn */
        const uint64_t other = rng_below(&seed, UINT64_MAX - 1);
        if (bsearch(&other, sorted, N, sizeof *sorted, cmp_u64))
            continue;
        ck_assert_int_eq(gemst_hash_find(table, bits, other), -1);
    }
    free(table);
    free(slot_of);
}
END_TEST

/* The inner test over a table of cells against the same test over the
 * list of cells: random cells of random components around the origin,
 * every point of a grid of positions tested in 2D and 3D. */
START_TEST(test_alone_as_the_list_says)
{
    enum { CELLS = 150 };
    for (int dim = 2; dim <= 3; dim++) {
        uint64_t seed = 5 + (uint64_t)dim, key[CELLS];
        int64_t at[CELLS][3];
        uint32_t lo[CELLS], hi[CELLS];
        int n = 0;
        while (n < CELLS) { /* distinct cells within [-10, 10)^dim: 400 of them in 2D */
            int64_t q[3] = {0, 0, 0};
            for (int d = 0; d < dim; d++)
                q[d] = (int64_t)rng_below(&seed, 20) - 10;
            const uint64_t k = gemst_inner_key(q);
            int seen = 0;
            for (int j = 0; j < n; j++)
                seen |= key[j] == k;
            if (seen)
                continue;
            key[n] = k;
            memcpy(at[n], q, sizeof q);
            lo[n] = (uint32_t)rng_below(&seed, 3);
            hi[n] = lo[n] + (uint32_t)(rng_below(&seed, 4) == 0);
            n++;
        }
        const int bits = gemst_hash_bits(CELLS);
        const size_t slots = (size_t)1 << bits;
        uint64_t *t_key = malloc(sizeof *t_key * slots);
        uint32_t *t_lo = malloc(sizeof *t_lo * slots), *t_hi = malloc(sizeof *t_hi * slots);
        ck_assert(t_key && t_lo && t_hi);
        for (size_t s = 0; s < slots; s++)
            t_key[s] = GEMST_HASH_FREE;
        for (int c = 0; c < CELLS; c++) {
            int taken;
            const uint32_t s = gemst_hash_slot(t_key, bits, key[c], &taken);
            t_lo[s] = lo[c];
            t_hi[s] = hi[c];
        }
        const gemst_inner_table table = {t_key, t_lo, t_hi, bits};
        int alone_seen = 0, crowded_seen = 0;
        for (int64_t x = -11; x <= 10; x++)
            for (int64_t y = -11; y <= 10; y++)
                for (int64_t z = dim == 3 ? -11 : 0; z <= (dim == 3 ? 10 : 0); z++)
                    for (uint32_t comp = 0; comp < 3; comp++) {
                        const int64_t q[3] = {x, y, z};
                        int want = 1; /* every cell within one step on each axis: its own component only */
                        for (int c = 0; c < CELLS; c++) {
                            int near = 1;
                            for (int d = 0; d < dim; d++)
                                near &= llabs(at[c][d] - q[d]) <= 1;
                            if (near && (lo[c] != comp || hi[c] != comp))
                                want = 0;
                        }
                        const int got = gemst_inner_alone(&table, q, dim, comp);
                        ck_assert_msg(got == want, "%dD cell (%lld, %lld, %lld), component %u: %d, not %d", dim,
                                      (long long)x, (long long)y, (long long)z, comp, got, want);
                        alone_seen += want;
                        crowded_seen += !want;
                    }
        ck_assert(alone_seen > 0 && crowded_seen > 0);
        free(t_key);
        free(t_lo);
        free(t_hi);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hash_slots");
    TCase *tc = tcase_create("hash_slots");
    tcase_add_loop_test(tc, test_insert_and_find, 0, 3);
    tcase_add_test(tc, test_alone_as_the_list_says);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
