/* Whether this machine and build can solve over several GPUs: the tests
 * of such solves exit 77 (skipped) where they cannot. */
#ifndef GEMST_SEVERAL_DEVICES_H
#define GEMST_SEVERAL_DEVICES_H

#include <stdio.h>

#include "gridemst.h"

/* The number of GPUs where a solve over every device can run; 0, saying
 * why, where there are fewer than 2 or the library was built without NCCL.
 * Any other failure of the trial solve is left to the tests, which then
 * fail too. */
static inline int several_devices(void)
{
    const int gpus = gridemst_cuda_device_count();
    if (gpus < 2) {
        printf("%d CUDA device%s: a solve over several needs 2 or more: skipped\n", gpus, gpus == 1 ? "" : "s");
        return 0;
    }
    double xyz[6] = {0, 0, 1, 1, 2, 0};
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o;
    gridemst_options_init(&o);
    o.n_devices = GRIDEMST_ALL_DEVICES;
    const int rc = gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err);
    gridemst_result_free(&r);
    if (rc == GRIDEMST_ERR_UNSUPPORTED) {
        printf("%s: skipped\n", err.message);
        return 0;
    }
    return gpus;
}

#endif
