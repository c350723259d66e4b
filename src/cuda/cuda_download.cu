/* Copies of device arrays into pageable host memory (cuda_download.cuh). */
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_download.cuh"
#include "host_array.h"

static int way_of(gemst_copy_way *way, gridemst_error *err)
{
    const char *v = getenv("GRIDEMST_HOST_COPY");
    if (!v || !*v || strcmp(v, "touched") == 0)
        *way = GEMST_COPY_TOUCHED;
    else if (strcmp(v, "staged") == 0)
        *way = GEMST_COPY_STAGED;
    else if (strcmp(v, "plain") == 0)
        *way = GEMST_COPY_PLAIN;
    else
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "GRIDEMST_HOST_COPY is \"%.64s\": touched, staged or plain", v);
    return GRIDEMST_OK;
}

int gemst_download_open(gemst_download *d, cudaStream_t s, int threads, gridemst_error *err)
{
    memset(d, 0, sizeof *d);
    d->s = s;
    d->threads = threads > 0 ? threads : 1;
    GEMST_TRY(way_of(&d->way, err));
    if (d->way == GEMST_COPY_STAGED && !gemst_stage_open(&d->stage))
        d->way = GEMST_COPY_TOUCHED; /* out of pinned memory */
    return GRIDEMST_OK;
}

void gemst_download_close(gemst_download *d)
{
    gemst_stage_close(&d->stage, d->s);
}

/* Chunk k lands in pinned chunk k % 2 while the host copies chunk k - 1
 * out of the other; chunk k + 1 goes into chunk k - 1's once the host is
 * done with it (the copy out returns before the next transfer is queued). */
static int staged(gemst_download *d, char *to, const char *from, size_t bytes, gridemst_error *err)
{
    const size_t chunks = (bytes + GEMST_STAGE_CHUNK - 1) / GEMST_STAGE_CHUNK;
    for (size_t k = 0; k <= chunks; k++) {
        if (k < chunks) {
            const size_t at = k * GEMST_STAGE_CHUNK;
            GEMST_CU(cudaMemcpyAsync(gemst_stage_chunk(&d->stage, k), from + at, gemst_stage_bytes(bytes, at),
                                     cudaMemcpyDeviceToHost, d->s));
            GEMST_CU(cudaEventRecord(d->stage.moved[k % 2], d->s));
        }
        if (k > 0) {
            const size_t at = (k - 1) * GEMST_STAGE_CHUNK;
            GEMST_CU(cudaEventSynchronize(d->stage.moved[(k - 1) % 2]));
            gemst_host_copy(to + at, gemst_stage_chunk(&d->stage, k - 1), gemst_stage_bytes(bytes, at), d->threads);
        }
    }
    return GRIDEMST_OK;
}

int gemst_download_copy(gemst_download *d, void *to, const void *from, size_t bytes, gridemst_error *err)
{
    if (bytes == 0)
        return GRIDEMST_OK;
    if (d->way == GEMST_COPY_STAGED)
        return staged(d, (char *)to, (const char *)from, bytes, err);
    if (d->way == GEMST_COPY_TOUCHED)
        gemst_host_touch(to, bytes, d->threads);
    GEMST_CU(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, d->s));
    GEMST_CU(cudaStreamSynchronize(d->s));
    return GRIDEMST_OK;
}
