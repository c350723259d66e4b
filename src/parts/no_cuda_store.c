/* A part's boundary store filled from its device (parts/device_store.h),
 * in a build without CUDA: no device holds a part's points. */
#include "parts/device_store.h"

static int unsupported(gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no store on a device");
}

int gemst_device_store_end(gemst_device_gaps *g, int64_t from, double limit, int64_t *end, gridemst_error *err)
{
    (void)g, (void)limit;
    *end = from;
    return unsupported(err);
}

int gemst_device_store_rows(gemst_device_gaps *g, int64_t from, int64_t end, uint32_t comp_base,
                            const gemst_store_rows *to, gridemst_error *err)
{
    (void)g, (void)from, (void)end, (void)comp_base, (void)to;
    return unsupported(err);
}

int gemst_device_store_comps(gemst_device_gaps *g, const uint32_t *point, int64_t count, uint32_t comp_base,
                             uint32_t *comp, gemst_gid *id, gridemst_error *err)
{
    (void)g, (void)point, (void)count, (void)comp_base, (void)comp, (void)id;
    return unsupported(err);
}

void gemst_device_store_use_ids(gemst_device_gaps *g, const uint32_t *place, const gemst_id_runs *runs)
{
    (void)g, (void)place, (void)runs;
}

int gemst_device_store_has_ids(const gemst_device_gaps *g)
{
    (void)g;
    return 0;
}
