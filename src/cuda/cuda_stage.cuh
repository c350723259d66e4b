/*
 * Two pinned host chunks, the staging of copies between pageable host
 * memory and a device: the device fills or reads one while the host's
 * threads copy the other (cuda_download.cuh, cuda_upload.h).
 */
#ifndef GEMST_CUDA_STAGE_CUH
#define GEMST_CUDA_STAGE_CUH

#include "cuda/cuda_common.cuh"

/* Each pinned chunk: large enough that a chunk's copy on 16 threads
 * outlasts the launch of the next one's transfer, small enough to pin in a
 * few milliseconds. */
#define GEMST_STAGE_CHUNK ((size_t)16 << 20)

typedef struct gemst_stage {
    char *chunk;           /* 2 chunks of GEMST_STAGE_CHUNK bytes, pinned */
    cudaEvent_t moved[2];  /* each chunk's last transfer done */
} gemst_stage;

/* Chunk b of st. */
static inline char *gemst_stage_chunk(const gemst_stage *st, size_t b)
{
    return st->chunk + (b % 2) * GEMST_STAGE_CHUNK;
}

/* The bytes of the chunk of a copy of `bytes` that starts at `at`. */
static inline size_t gemst_stage_bytes(size_t bytes, size_t at)
{
    return bytes - at < GEMST_STAGE_CHUNK ? bytes - at : GEMST_STAGE_CHUNK;
}

/* Pins the chunks and makes their events on the current device; false,
 * with nothing held, where they cannot be had (out of pinned memory). */
bool gemst_stage_open(gemst_stage *st);

/* Waits for stream s (no transfer may still use the chunks) and releases
 * what gemst_stage_open took (a zeroed or closed st: nothing). */
void gemst_stage_close(gemst_stage *st, cudaStream_t s);

#endif
