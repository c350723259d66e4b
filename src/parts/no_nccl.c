/* What the NCCL exchanges provide, in a build without NCCL: no solve over
 * several devices (gemst_resolve_devices refuses it first). */
#include "parts/devices.h"

int gemst_devices_open(const int *ordinal, int count, gemst_devices **out, gridemst_error *err)
{
    (void)ordinal;
    *out = NULL;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "no NCCL in this build to join %d devices", count);
}

void gemst_devices_close(gemst_devices *d)
{
    (void)d;
}

gridemst_context *gemst_devices_context(const gemst_devices *d, int p)
{
    (void)d;
    (void)p;
    return NULL;
}

void gemst_devices_name(const gemst_devices *d, char *name, size_t size)
{
    (void)d;
    if (size > 0)
        name[0] = '\0';
}

int gemst_devices_allgather(gemst_devices *d, const void *const *send, const int64_t *count, size_t size, void *out,
                            gridemst_error *err)
{
    (void)d, (void)send, (void)count, (void)size, (void)out;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to exchange between in a build without NCCL");
}

int gemst_devices_alltoall(gemst_devices *d, const void *const *send, const int64_t *count, size_t size,
                           void *const *recv, gridemst_error *err)
{
    (void)d, (void)send, (void)count, (void)size, (void)recv;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to exchange between in a build without NCCL");
}
