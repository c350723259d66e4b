/*
 * Copies of host arrays to a device (cuda/cuda_upload.h): every way
 * (GRIDEMST_UPLOAD=staged|plain), from pageable and from page-locked
 * memory, from aligned and unaligned sources, for sizes below the staged
 * copies' threshold and across several pinned chunks with a short last
 * one, on one host thread and on OpenMP's default; each copy read back
 * with the CUDA runtime and compared byte for byte, and the device bytes
 * past its end left as they were.  An unknown way is refused with a
 * message naming it.
 *
 * One GPU is enough; skipped (exit 77) without one.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testutil.h"
#include "cuda/cuda_upload.h"

static const char *ways[] = {"staged", "plain"};

/* Below the threshold, at it less one byte, and across several chunks
 * (twice the threshold is a whole number of them; 12,345 bytes more make a
 * short last one). */
static const size_t sizes[] = {1, 4097, GEMST_UPLOAD_STAGED_BYTES - 1, 2 * GEMST_UPLOAD_STAGED_BYTES + 12345};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* Device bytes after a copy's end, which it must leave alone. */
#define GUARD 64
#define UNTOUCHED 0xAB

/* A pattern that differs in every 8-byte word (a chunk copied to the wrong
 * place, or twice, changes the bytes). */
static void fill(unsigned char *p, size_t bytes, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t k = 0; k < bytes; k++) {
        if (k % 8 == 0) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        p[k] = (unsigned char)(x >> (8 * (k % 8)));
    }
}

/* Uploads `bytes` from `from` on `threads` host threads and checks
 * what the device holds. */
static void check_upload(const unsigned char *from, size_t bytes, int threads, const char *what)
{
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    unsigned char *dev;
    CUDA_OK(cudaMalloc((void **)&dev, bytes + GUARD));
    CUDA_OK(cudaMemset(dev, UNTOUCHED, bytes + GUARD));
    gridemst_error err;
    const int rc = gemst_upload(dev, from, bytes, s, threads, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: status %d: %s", what, rc, rc == GRIDEMST_OK ? "" : err.message);
    unsigned char *back = xcalloc(bytes + GUARD, 1);
    CUDA_OK(cudaMemcpy(back, dev, bytes + GUARD, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(back, from, bytes) == 0, "%s: the device's bytes differ from the source's", what);
    for (size_t k = bytes; k < bytes + GUARD; k++)
        REQUIRE(back[k] == UNTOUCHED, "%s: byte %zu past the end was written", what, k - bytes);
    free(back);
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaStreamDestroy(s));
}

/* Every size, from pageable memory at an aligned and an unaligned start,
 * and from page-locked memory, in way _i. */
START_TEST(test_ways)
{
    ck_assert_int_eq(setenv("GRIDEMST_UPLOAD", ways[_i], 1), 0);
    for (size_t k = 0; k < N_SIZES; k++) {
        const size_t bytes = sizes[k];
        char what[160];
        unsigned char *pageable = xcalloc(bytes + 3, 1);
        fill(pageable, bytes + 3, k + 1);
        snprintf(what, sizeof what, "%s, %zu bytes from pageable memory", ways[_i], bytes);
        check_upload(pageable, bytes, 0, what);
        snprintf(what, sizeof what, "%s, %zu bytes from pageable memory 3 bytes in, one thread", ways[_i], bytes);
        check_upload(pageable + 3, bytes, 1, what);
        free(pageable);
        unsigned char *locked;
        CUDA_OK(cudaMallocHost((void **)&locked, bytes));
        fill(locked, bytes, k + 100);
        snprintf(what, sizeof what, "%s, %zu bytes from page-locked memory", ways[_i], bytes);
        check_upload(locked, bytes, 0, what);
        CUDA_OK(cudaFreeHost(locked));
    }
    unsetenv("GRIDEMST_UPLOAD"); /* the tests share this process where a GPU is present */
}
END_TEST

/* An unknown way: refused, naming the variable and its value. */
START_TEST(test_unknown_way)
{
    ck_assert_int_eq(setenv("GRIDEMST_UPLOAD", "pinned", 1), 0);
    unsigned char host[16] = {0};
    void *dev;
    CUDA_OK(cudaMalloc(&dev, sizeof host));
    gridemst_error err;
    const int rc = gemst_upload(dev, host, sizeof host, 0, 1, &err);
    REQUIRE(rc == GRIDEMST_ERR_INVALID_ARGUMENT && strstr(err.message, "GRIDEMST_UPLOAD") &&
                strstr(err.message, "pinned"),
            "an unknown way gave status %d: %s", rc, rc == GRIDEMST_OK ? "" : err.message);
    CUDA_OK(cudaFree(dev));
    unsetenv("GRIDEMST_UPLOAD");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_upload");
    TCase *tc = tcase_create("upload");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_ways, 0, (int)(sizeof ways / sizeof ways[0]));
    tcase_add_test(tc, test_unknown_way);
    suite_add_tcase(s, tc);
    return run_gpu_suite(s);
}
