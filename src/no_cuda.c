/* What the CUDA backend provides, in a build without it. */
#include <stdlib.h>

#include "backend.h"

int gridemst_cuda_device_count(void)
{
    return 0;
}

gridemst_status gridemst_context_create(int device, void *cuda_stream, gridemst_context **ctx, gridemst_error *err)
{
    (void)device;
    (void)cuda_stream;
    if (ctx)
        *ctx = NULL;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no contexts");
}

void gridemst_context_free(gridemst_context *ctx)
{
    (void)ctx;
}

/* No context exists without CUDA, and no result holds one. */
void gemst_context_retain(gridemst_context *ctx)
{
    (void)ctx;
}

void gemst_context_release(gridemst_context *ctx)
{
    (void)ctx;
}

void gemst_result_owner_free(struct gemst_result_owner *owner, gridemst_result *result)
{
    (void)result;
    free(owner);
}

void gemst_free_device_shares(gemst_device_share *share, int n_shares)
{
    (void)n_shares;
    free(share);
}
