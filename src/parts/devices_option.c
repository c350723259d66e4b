/* options.devices and options.n_devices: checked, and resolved to the
 * ordinals a solve runs on (devices.h). */
#include "config.h"
#include "parts/devices.h"
#include "parts/parts.h"

int gemst_check_devices(const gridemst_options *o, gridemst_error *err)
{
    if (o->n_devices < GRIDEMST_ALL_DEVICES || o->n_devices > GEMST_MAX_PARTS)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "n_devices must be from 1 to %d, 0 (one device: options.device) or "
                          "GRIDEMST_ALL_DEVICES, got %d",
                          GEMST_MAX_PARTS, o->n_devices);
    if (o->n_devices == 0)
        return GRIDEMST_OK;
    if (o->backend == GRIDEMST_BACKEND_CPU)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "devices are for the cuda backend");
    for (int k = 0; o->devices && k < o->n_devices; k++)
        if (o->devices[k] < 0)
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "devices[%d] is %d; CUDA device ordinals are >= 0",
                              k, o->devices[k]);
    return GRIDEMST_OK;
}

#ifdef GRIDEMST_HAVE_CUDA
/* What a solve over several devices does not take. */
static int check_several(const gemst_problem *pb, int count, gridemst_error *err)
{
    const gridemst_options *o = &pb->opt;
    if (o->partitions > 1 && o->partitions != count)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "%d partitions on %d devices: a solve over several devices has one part per device named",
                          o->partitions, count);
    if (o->device != 0 || o->context || o->cuda_stream)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "a solve over several devices makes its own contexts and streams: leave device, context "
                          "and cuda_stream at their defaults");
    if (pb->on_device)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "a solve over several devices takes points in host memory");
    return GRIDEMST_OK;
}
#endif

/* partitions P with the cuda backend and one device at most named: its P
 * parts on that device, as if it were named P times. */
static int parts_on_one_device(const gridemst_options *o)
{
    return o->backend == GRIDEMST_BACKEND_CUDA && o->partitions > 1 && (o->n_devices == 0 || o->n_devices == 1);
}

int gemst_resolve_devices(gemst_problem *pb, int *ordinal, gridemst_error *err)
{
    gridemst_options *o = &pb->opt;
    if (o->n_devices == 0 && !parts_on_one_device(o))
        return GRIDEMST_OK;
#ifndef GRIDEMST_HAVE_CUDA
    (void)ordinal;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no devices to solve on");
#else
    const int present = gridemst_cuda_device_count();
    if (present == 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "no usable CUDA device found");
    int count = o->n_devices == GRIDEMST_ALL_DEVICES ? present : o->n_devices;
    if (count > GEMST_MAX_PARTS)
        count = GEMST_MAX_PARTS; /* every device present, as many as a solve may have parts */
    for (int k = 0; k < count; k++) {
        ordinal[k] = o->n_devices != GRIDEMST_ALL_DEVICES && o->devices ? o->devices[k] : k;
        if (ordinal[k] >= present)
            return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "CUDA device %d requested, but only %d present",
                              ordinal[k], present);
    }
    if (parts_on_one_device(o)) {
        const int device = o->n_devices == 1 ? ordinal[0] : o->device;
        if (device >= present)
            return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "CUDA device %d requested, but only %d present", device,
                              present);
        if (o->n_devices == 1 && o->device != 0 && o->device != device)
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "the options name CUDA device %d and devices device %d", o->device, device);
        count = o->partitions;
        for (int k = 0; k < count; k++)
            ordinal[k] = device;
        o->device = 0; /* named in the list now */
    }
    if (count == 1) {
        if (o->device != 0 && o->device != ordinal[0])
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "the options name CUDA device %d and devices device %d", o->device, ordinal[0]);
        o->device = ordinal[0];
        o->n_devices = 0;
        o->devices = NULL;
        return GRIDEMST_OK;
    }
    int rc = check_several(pb, count, err);
    if (rc != GRIDEMST_OK)
        return rc;
    o->n_devices = count;
    o->devices = ordinal;
    o->partitions = count;
    o->backend = GRIDEMST_BACKEND_CUDA;
    return GRIDEMST_OK;
#endif
}
