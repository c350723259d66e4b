/* A round of the border step on devices (parts/device_border.h), in a
 * build without CUDA: no device holds a part's points. */
#include "parts/device_border.h"

int gemst_device_border_ready(const gemst_device_gaps *g)
{
    (void)g;
    return 0;
}

int gemst_devices_border_round(gemst_devices *d, gemst_device_gaps *const *gaps, const int64_t *held,
                               const uint32_t *comp_base, const gemst_border_inner *inner,
                               const gemst_problem *solve, int threads, gemst_border_counts *n,
                               gemst_store_edge **between, int64_t *n_between, gridemst_error *err)
{
    (void)d, (void)gaps, (void)held, (void)comp_base, (void)inner, (void)solve, (void)threads, (void)n;
    *between = NULL;
    *n_between = 0;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no border on a device");
}
