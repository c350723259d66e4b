/* Two pinned chunks for staged copies (cuda_stage.cuh). */
#include "cuda/cuda_stage.cuh"

bool gemst_stage_open(gemst_stage *st)
{
    memset(st, 0, sizeof *st);
    void *p = NULL;
    for (int b = 0; b < 2; b++)
        if (cudaEventCreateWithFlags(&st->moved[b], cudaEventDisableTiming) != cudaSuccess) {
            gemst_stage_close(st, 0); /* no chunk yet: nothing to wait for */
            return false;
        }
    if (cudaMallocHost(&p, 2 * GEMST_STAGE_CHUNK) != cudaSuccess) {
        gemst_stage_close(st, 0);
        return false;
    }
    st->chunk = (char *)p;
    return true;
}

void gemst_stage_close(gemst_stage *st, cudaStream_t s)
{
    if (st->chunk) {
        (void)cudaStreamSynchronize(s);
        (void)cudaFreeHost(st->chunk);
    }
    for (int b = 0; b < 2; b++)
        if (st->moved[b])
            (void)cudaEventDestroy(st->moved[b]);
    (void)cudaGetLastError(); /* releasing: nothing to report to */
    memset(st, 0, sizeof *st);
}
