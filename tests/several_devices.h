/* Whether this machine and build can solve over several devices: the
 * tests of such solves exit 77 (skipped) where they cannot. */
#ifndef GEMST_SEVERAL_DEVICES_H
#define GEMST_SEVERAL_DEVICES_H

#include <stdio.h>

#include "gridemst.h"

/* The number of GPUs here if at least min_gpus (solves over several
 * parts run on one GPU, over its device named twice), else 0, saying
 * why. */
static inline int several_devices(int min_gpus)
{
    const int gpus = gridemst_cuda_device_count();
    if (gpus < min_gpus || gpus == 0) {
        printf("%d CUDA device%s: these tests need %d or more: skipped\n", gpus, gpus == 1 ? "" : "s",
               min_gpus > 1 ? min_gpus : 1);
        return 0;
    }
    return gpus;
}

#endif
