/*
 * A single device's solve's input points on its device: the caller's own
 * where they are there already, else a copy in the solve's memory.
 */
#ifndef GEMST_CUDA_INPUT_CUH
#define GEMST_CUDA_INPUT_CUH

#include "backend.h"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_upload.h"

/* *coords: pb's points on the device; *uploaded: the copy made of them
 * (NULL: none), which the caller frees from mem with gemst_dfree. */
static inline int gemst_input_on_device(gemst_dmem *mem, const gemst_problem *pb, const void **coords,
                                        void **uploaded, gridemst_error *err)
{
    *coords = pb->coords;
    *uploaded = NULL;
    if (pb->on_device)
        return GRIDEMST_OK;
    const size_t bytes = (size_t)pb->n * pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    GEMST_TRY(gemst_dalloc(mem, uploaded, bytes, "the input points", err));
    *coords = *uploaded;
    return gemst_upload(*uploaded, pb->coords, bytes, mem->s, pb->opt.threads, err);
}

#endif
