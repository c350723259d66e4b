#include "host_array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* From this size up, arrays take huge pages. */
#define GEMST_HUGE_ARRAY ((size_t)16 << 20)

/* The base page, which a first write faults in. */
#define GEMST_PAGE ((size_t)4096)

void *gemst_host_huge(size_t bytes, size_t *capacity)
{
    const size_t rounded = (bytes + GEMST_HUGE_PAGE - 1) / GEMST_HUGE_PAGE * GEMST_HUGE_PAGE;
    void *p = NULL;
    *capacity = 0;
    if (rounded < bytes || posix_memalign(&p, GEMST_HUGE_PAGE, rounded ? rounded : GEMST_HUGE_PAGE) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without it, 4 KB pages */
#endif
    *capacity = rounded;
    return p;
}

void *gemst_host_array(size_t bytes)
{
    size_t capacity;
    return bytes >= GEMST_HUGE_ARRAY ? gemst_host_huge(bytes, &capacity) : malloc(bytes);
}

void gemst_host_touch(void *p, size_t bytes, int threads)
{
    char *c = p;
    const int64_t pages = (int64_t)((bytes + GEMST_PAGE - 1) / GEMST_PAGE);
    (void)threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < pages; k++)
        c[(size_t)k * GEMST_PAGE] = 0;
}

int gemst_host_threads(int threads)
{
#ifdef _OPENMP
    return threads >= 1 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

void gemst_host_copy(void *to, const void *from, size_t bytes, int threads)
{
    /* shares of whole pages from the start: in a page-aligned array no two threads fault in one page */
    const int64_t pages = (int64_t)((bytes + GEMST_PAGE - 1) / GEMST_PAGE);
    if (threads > pages)
        threads = pages > 0 ? (int)pages : 1;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++) {
        const size_t b = (size_t)(pages * t / threads) * GEMST_PAGE;
        const size_t e = (size_t)(pages * (t + 1) / threads) * GEMST_PAGE;
        if (b < bytes)
            memcpy((char *)to + b, (const char *)from + b, (e < bytes ? e : bytes) - b);
    }
}
