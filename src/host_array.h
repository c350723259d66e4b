/*
 * Large host arrays, cheap to fill and to free.  A fresh array of tens of
 * megabytes is mapped page by page on its first writes: with 4 KB pages a
 * fault for every 4 KB, each taken by the one thread that happens to write
 * there, and as many pages to unmap when it is freed.  Where the kernel
 * offers transparent huge pages on request (madvise), an array of 2 MB
 * pages takes 512 times fewer faults and unmaps as fast; its first writes
 * then cost what zeroing the memory costs, which several threads share when
 * they write the array in parallel (gemst_host_touch, gemst_host_copy).
 *
 * Every array these functions return is released by free().
 */
#ifndef GEMST_HOST_ARRAY_H
#define GEMST_HOST_ARRAY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Huge pages' size (x86-64, arm64 with 4 KB base pages). */
#define GEMST_HUGE_PAGE ((size_t)2 << 20)

/* An array of at least `bytes`, aligned to and rounded up to whole huge
 * pages (*capacity: its size), advised to take huge pages; NULL when out of
 * memory.  Without the kernel's consent it has 4 KB pages, as malloc's. */
void *gemst_host_huge(size_t bytes, size_t *capacity);

/* An array of `bytes`: gemst_host_huge's from 16 MB (where rounding up to
 * whole huge pages wastes at most an eighth), malloc's below; NULL when out
 * of memory (malloc's for 0 bytes may be NULL too: ask for 1). */
void *gemst_host_array(size_t bytes);

/* Writes a byte of every 4 KB page of p[0 .. bytes), on `threads` threads
 * (1 or more): the pages' faults, and their zeroing, spread over them. */
void gemst_host_touch(void *p, size_t bytes, int threads);

/* threads, or where below 1 OpenMP's default (1 without OpenMP). */
int gemst_host_threads(int threads);

/* memcpy(to, from, bytes) on `threads` threads (1 or more), each copying a
 * contiguous share. */
void gemst_host_copy(void *to, const void *from, size_t bytes, int threads);

#ifdef __cplusplus
}
#endif

#endif
