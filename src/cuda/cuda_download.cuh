/*
 * Copies of device arrays into pageable host memory: the arrays that the
 * steps on the host's CPU read after a device computed them (a part's
 * points, its tree, its gaps).  A copy into pageable memory goes through
 * the driver's own pinned buffers, copied out by the one waiting thread,
 * and into a fresh array it also takes every page fault on that thread.
 * Three ways, of which GRIDEMST_HOST_COPY=touched|staged|plain in the
 * environment picks one, so that they can be compared (default: touched,
 * the fastest on two H200s at 10^8 points: docs/partitioned.md):
 *
 *   staged   through two pinned chunks of GEMST_STAGE_CHUNK bytes, held
 *            from gemst_download_open to gemst_download_close: the device
 *            fills one while the caller's threads copy the other out
 *            (gemst_host_copy), so that the bus runs at pinned memory's
 *            speed and the destination's first writes are spread over the
 *            threads;
 *   touched  the destination's pages first written on the threads
 *            (gemst_host_touch), then one copy from the device, the
 *            driver's way;
 *   plain    one copy from the device, the driver's way.
 *
 * Staged chunks that cannot be pinned (out of pinned memory) leave the
 * download the touched way.  Every way gives the same bytes.
 *
 * Each call runs on the current device, which is the stream's; the copies
 * follow the work queued on the stream before them, and gemst_download_copy
 * returns once the bytes are in host memory.  Failures: GRIDEMST_ERR_CUDA
 * with the call's message, GRIDEMST_ERR_INVALID_ARGUMENT for an unknown
 * GRIDEMST_HOST_COPY.
 */
#ifndef GEMST_CUDA_DOWNLOAD_CUH
#define GEMST_CUDA_DOWNLOAD_CUH

#include "cuda/cuda_stage.cuh"

typedef enum { GEMST_COPY_STAGED, GEMST_COPY_TOUCHED, GEMST_COPY_PLAIN } gemst_copy_way;

typedef struct gemst_download {
    cudaStream_t s;
    int threads;              /* the host's threads that copy out or touch (1 or more) */
    gemst_copy_way way;
    gemst_stage stage;        /* staged: the pinned chunks */
} gemst_download;

/* Readies downloads on stream s with `threads` host threads. */
int gemst_download_open(gemst_download *d, cudaStream_t s, int threads, gridemst_error *err);

/* bytes from device memory at `from` into host memory at `to`. */
int gemst_download_copy(gemst_download *d, void *to, const void *from, size_t bytes, gridemst_error *err);

/* Waits for d's stream and releases what gemst_download_open took (a
 * zeroed or closed d: nothing). */
void gemst_download_close(gemst_download *d);

#endif
