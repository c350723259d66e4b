/*
 * Copies of host arrays into device memory: the caller's points.  A copy
 * from pageable memory goes through the driver's own pinned buffers, which
 * the one calling thread fills (about 9 GB/s on an H200's host); a copy
 * from page-locked memory runs at the bus's speed.  So a large copy from
 * pageable memory is staged: through two pinned chunks of
 * GEMST_STAGE_CHUNK bytes, which the caller's threads (at most 8) fill in
 * turn while the device reads the other (gemst_host_copy).
 *
 * One copy, the driver's way, where that is as fast:
 * memory already page-locked (cudaMallocHost, cudaHostRegister), and
 * copies under GEMST_UPLOAD_STAGED_BYTES, for which pinning the chunks
 * costs more than staging saves; also where the chunks cannot be pinned.
 * GRIDEMST_UPLOAD=plain in the environment makes every copy the driver's
 * (GRIDEMST_UPLOAD=staged, the default, as above), so that both ways can
 * be compared on one binary.  Both give the same bytes.
 *
 * gemst_upload runs on the current device, which must be the stream's; it
 * follows the work queued on stream s before it, and returns once the
 * bytes are on the device (the caller may then free or change `from`).
 * Failures: GRIDEMST_ERR_CUDA with the call's message,
 * GRIDEMST_ERR_INVALID_ARGUMENT for another GRIDEMST_UPLOAD.
 */
#ifndef GEMST_CUDA_UPLOAD_H
#define GEMST_CUDA_UPLOAD_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* From this size up, a copy from pageable memory is staged: twice the
 * size at which both ways took as long on an H200's host, where pinning
 * and freeing the chunks cost 13 ms, the driver's copy ran at 8.5 GB/s and
 * the staged one at 40 (both 16 and 17 ms for 128 MB; 32 and 21 ms for
 * 256 MB). */
#define GEMST_UPLOAD_STAGED_BYTES ((size_t)256 << 20)

/* bytes from host memory at `from` to device memory at `to`, on stream s,
 * with `threads` host threads (below 1: OpenMP's default). */
int gemst_upload(void *to, const void *from, size_t bytes, cudaStream_t s, int threads, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
