/*
 * Large host arrays (src/host_array.c): huge-page arrays aligned and
 * rounded to whole huge pages, released by free(); the parallel copy
 * against memcpy, byte for byte, for sizes and offsets that cut pages
 * anywhere and more threads than pages; the parallel touch leaves the
 * array writable and every page's first byte zero.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_array.h"
#include "testutil.h"

START_TEST(huge_arrays)
{
    const size_t sizes[] = {1,           4096, GEMST_HUGE_PAGE - 1, GEMST_HUGE_PAGE, GEMST_HUGE_PAGE + 1,
                            3 * GEMST_HUGE_PAGE + 7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t capacity = 0;
        char *p = gemst_host_huge(sizes[k], &capacity);
        ck_assert_ptr_nonnull(p);
        REQUIRE((uintptr_t)p % GEMST_HUGE_PAGE == 0, "%zu bytes: not aligned to a huge page", sizes[k]);
        REQUIRE(capacity >= sizes[k] && capacity % GEMST_HUGE_PAGE == 0 && capacity - sizes[k] < GEMST_HUGE_PAGE,
                "%zu bytes: capacity %zu", sizes[k], capacity);
        memset(p, 0x5a, capacity); /* all of it is the caller's */
        free(p);
    }
    /* gemst_host_array: small ones by malloc, large ones on huge pages; free() takes both */
    const size_t arrays[] = {0, 1, 1000, (size_t)16 << 20, ((size_t)16 << 20) + 3};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        char *p = gemst_host_array(arrays[k] ? arrays[k] : 1);
        ck_assert_ptr_nonnull(p);
        memset(p, 1, arrays[k]);
        if (arrays[k] >= ((size_t)16 << 20))
            REQUIRE((uintptr_t)p % GEMST_HUGE_PAGE == 0, "%zu bytes: not on huge pages", arrays[k]);
        free(p);
    }
}
END_TEST

START_TEST(copy_is_memcpy)
{
    const size_t most = 5 * 4096 + 123;
    unsigned char *from = malloc(most + 64), *to = malloc(most + 64), *want = malloc(most + 64);
    ck_assert_ptr_nonnull(from);
    ck_assert_ptr_nonnull(to);
    ck_assert_ptr_nonnull(want);
    uint64_t x = 12345;
    for (size_t i = 0; i < most + 64; i++)
        from[i] = (unsigned char)(rng_next(&x) >> 56);
    const size_t sizes[] = {0, 1, 4095, 4096, 4097, 2 * 4096, most};
    const size_t offsets[] = {0, 1, 63};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof offsets / sizeof offsets[0]; b++)
            for (int threads = 1; threads <= 9; threads += 2) {
                /* the bytes around the copy stay as they were */
                memset(to, 0xee, most + 64);
                memcpy(want, to, most + 64);
                memcpy(want + offsets[b], from + offsets[b], sizes[a]);
                gemst_host_copy(to + offsets[b], from + offsets[b], sizes[a], threads);
                REQUIRE(memcmp(to, want, most + 64) == 0, "%zu bytes at offset %zu on %d threads", sizes[a],
                        offsets[b], threads);
            }
    free(from);
    free(to);
    free(want);
}
END_TEST

START_TEST(touch_writes_pages)
{
    const size_t bytes = 3 * 4096 + 5;
    unsigned char *p = malloc(bytes);
    ck_assert_ptr_nonnull(p);
    memset(p, 0xab, bytes);
    gemst_host_touch(p, bytes, 4);
    for (size_t at = 0; at < bytes; at++)
        REQUIRE(p[at] == (at % 4096 == 0 ? 0 : 0xab), "byte %zu is %d", at, p[at]);
    free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_array");
    TCase *tc = tcase_create("host_array");
    tcase_add_test(tc, huge_arrays);
    tcase_add_test(tc, copy_is_memcpy);
    tcase_add_test(tc, touch_writes_pages);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
