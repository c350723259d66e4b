/* A part's gaps on a device (parts/device_gaps.h), in a build without
 * CUDA: no device to compute them on (no part lies on one). */
#include "parts/device_gaps.h"

int gemst_device_gaps_run(gridemst_context *ctx, const gemst_gaps_task *t, const gemst_gaps_points *points,
                          gemst_device_gaps **out, int64_t *n_cells, gemst_gaps_times *times, gridemst_error *err)
{
    (void)ctx, (void)t, (void)points, (void)times;
    *out = NULL;
    *n_cells = 0;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no gaps on a device");
}

int gemst_device_gaps_cells(gemst_device_gaps *g, const gemst_gaps_cells *cells, gemst_gaps_times *times,
                            gridemst_error *err)
{
    (void)g, (void)cells, (void)times;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no gaps on a device");
}

const double *gemst_device_gaps_gap(const gemst_device_gaps *g)
{
    (void)g;
    return NULL;
}

uint32_t *gemst_device_gaps_comp(gemst_device_gaps *g)
{
    (void)g;
    return NULL;
}

const uint32_t *gemst_device_gaps_by_key(const gemst_device_gaps *g)
{
    (void)g;
    return NULL;
}

void gemst_device_gaps_drop_by_key(gemst_device_gaps *g)
{
    (void)g;
}

void gemst_device_gaps_free(gemst_device_gaps *g)
{
    (void)g;
}
