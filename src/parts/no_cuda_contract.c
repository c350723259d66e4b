/* A part's contraction on a device (parts/device_contract.h), in a build
 * without CUDA: no device to run it on (no part lies on one). */
#include "parts/device_contract.h"

int gemst_device_contract(gridemst_context *ctx, const gemst_contract_task *t, gemst_contract_out *out,
                          gemst_contract_times *times, gridemst_error *err)
{
    (void)ctx, (void)t, (void)times;
    out->comp_gap = NULL;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no contraction on a device");
}
