/* Whether this machine and build can solve over several devices: the
 * tests of such solves exit 77 (skipped) where they cannot. */
#ifndef GEMST_SEVERAL_DEVICES_H
#define GEMST_SEVERAL_DEVICES_H

#include <stdio.h>

#include "gridemst.h"

/* The number of GPUs where solves over several parts on devices can run,
 * if at least min_gpus: on one GPU, over device 0 named twice (its parts
 * exchange by copies); 0, saying why, where there are fewer or the library
 * was built without NCCL.  Any other failure of the trial solve is left to
 * the tests, which then fail too. */
static inline int several_devices(int min_gpus)
{
    const int gpus = gridemst_cuda_device_count();
    if (gpus < min_gpus || gpus == 0) {
        printf("%d CUDA device%s: these tests need %d or more: skipped\n", gpus, gpus == 1 ? "" : "s",
               min_gpus > 1 ? min_gpus : 1);
        return 0;
    }
    double xyz[6] = {0, 0, 1, 1, 2, 0};
    const int twice[2] = {0, 0};
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o;
    gridemst_options_init(&o);
    o.n_devices = 2;
    o.devices = twice;
    const int rc = gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err);
    gridemst_result_free(&r);
    if (rc == GRIDEMST_ERR_UNSUPPORTED) {
        printf("%s: skipped\n", err.message);
        return 0;
    }
    return gpus;
}

#endif
