/* Copies of host arrays into device memory (cuda_upload.h). */
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_stage.cuh"
#include "cuda/cuda_upload.h"
#include "host_array.h"

/* The most threads that fill the chunks: on an H200's host 8 fill them as
 * fast as 16; more would only take cores from the other devices' copies
 * and from the host's other work of the time. */
#define GEMST_UPLOAD_THREADS 8

/* Whether GRIDEMST_UPLOAD asks for staged copies (its default). */
static int staged_wanted(bool *staged, gridemst_error *err)
{
    const char *v = getenv("GRIDEMST_UPLOAD");
    *staged = !v || !*v || strcmp(v, "staged") == 0;
    if (!*staged && strcmp(v, "plain") != 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "GRIDEMST_UPLOAD is \"%.64s\": staged or plain", v);
    return GRIDEMST_OK;
}

/* Whether `from` is pageable host memory (not page-locked, not a device's). */
static int pageable(const void *from, bool *yes, gridemst_error *err)
{
    cudaPointerAttributes a;
    GEMST_CU(cudaPointerGetAttributes(&a, from));
    *yes = a.type == cudaMemoryTypeUnregistered;
    return GRIDEMST_OK;
}

/* The host fills chunk k % 2 once the device has read chunk k - 2 out of
 * it (an event never recorded counts as done), then queues its transfer. */
static int staged(gemst_stage *st, char *to, const char *from, size_t bytes, cudaStream_t s, int threads,
                  gridemst_error *err)
{
    for (size_t at = 0, k = 0; at < bytes; at += GEMST_STAGE_CHUNK, k++) {
        char *chunk = gemst_stage_chunk(st, k);
        GEMST_CU(cudaEventSynchronize(st->moved[k % 2]));
        gemst_host_copy(chunk, from + at, gemst_stage_bytes(bytes, at), threads);
        GEMST_CU(cudaMemcpyAsync(to + at, chunk, gemst_stage_bytes(bytes, at), cudaMemcpyHostToDevice, s));
        GEMST_CU(cudaEventRecord(st->moved[k % 2], s));
    }
    GEMST_CU(cudaStreamSynchronize(s));
    return GRIDEMST_OK;
}

extern "C" int gemst_upload(void *to, const void *from, size_t bytes, cudaStream_t s, int threads,
                            gridemst_error *err)
{
    if (bytes == 0)
        return GRIDEMST_OK;
    bool want_staged, from_pageable = false;
    GEMST_TRY(staged_wanted(&want_staged, err));
    if (want_staged && bytes >= GEMST_UPLOAD_STAGED_BYTES) /* only then does the source's kind matter */
        GEMST_TRY(pageable(from, &from_pageable, err));
    gemst_stage st;
    if (from_pageable && gemst_stage_open(&st)) {
        threads = gemst_host_threads(threads);
        threads = threads < GEMST_UPLOAD_THREADS ? threads : GEMST_UPLOAD_THREADS;
        const int rc = staged(&st, (char *)to, (const char *)from, bytes, s, threads, err);
        gemst_stage_close(&st, s);
        return rc;
    }
    GEMST_CU(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, s));
    GEMST_CU(cudaStreamSynchronize(s));
    return GRIDEMST_OK;
}
