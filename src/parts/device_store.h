/*
 * A part's boundary store (store.h) filled from the part's device, where
 * its gaps (device_gaps.h, the points kept) and its contraction
 * (device_contract.h, comp_on_device) left the arrays the store reads:
 * each point's working coordinates, gap, cell and safe component, and the
 * points by gap (cuda/cuda_parts_store.cu).  A fill gathers its points
 * there, in gap order, and copies only them to host memory, through
 * cuda/cuda_download.cuh on the threads the gaps were given:
 *
 *   gemst_device_store_end    the end of the next points in gap order
 *                             whose gap is up to limit: the first position
 *                             from `from` on whose point's gap is not
 *                             (n when none), as the host's fill scans
 *   gemst_device_store_rows   positions from .. end - 1: each point's
 *                             number in the part, component plus
 *                             comp_base (the part's first component across
 *                             parts), cell, gap and working coordinates,
 *                             into `to` (host memory of end - from entries
 *                             each, w 3 (end - from))
 *   gemst_device_store_comps  the components plus comp_base of `count`
 *                             points of the part (point numbers in host
 *                             memory), into comp (host memory), and with
 *                             the ids on the device their ids into id
 *   gemst_device_store_use_ids  the part's ids in device memory (n, in the
 *                             order of its points, as places in their
 *                             slices with the part's runs: gid.h; a part
 *                             of a solve over several GPUs keeps them
 *                             there, devices.h): the fills and
 *                             gemst_device_store_comps then gather the
 *                             ids too, and host memory need not hold them
 *                             (gemst_device_store_has_ids)
 *
 * The values are the device's arrays', which are the host's bit for bit
 * (device_gaps.h, device_contract.h).  A CUDA failure is
 * GRIDEMST_ERR_CUDA, running out of device memory
 * GRIDEMST_ERR_DEVICE_MEMORY.  The calls leave the calling thread's
 * current device as they found it.  In a build without CUDA they fail
 * with GRIDEMST_ERR_UNSUPPORTED.
 */
#ifndef GEMST_PARTS_DEVICE_STORE_H
#define GEMST_PARTS_DEVICE_STORE_H

#include "parts/device_gaps.h"
#include "parts/gid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A fill's points in host memory, as the store names them. */
typedef struct gemst_store_rows {
    uint32_t *at, *comp, *cell;
    double *gap, *w;
    gemst_gid *id;  /* written with the ids on the device */
} gemst_store_rows;

int gemst_device_store_end(gemst_device_gaps *g, int64_t from, double limit, int64_t *end, gridemst_error *err);
int gemst_device_store_rows(gemst_device_gaps *g, int64_t from, int64_t end, uint32_t comp_base,
                            const gemst_store_rows *to, gridemst_error *err);
int gemst_device_store_comps(gemst_device_gaps *g, const uint32_t *point, int64_t count, uint32_t comp_base,
                             uint32_t *comp, gemst_gid *id, gridemst_error *err);
void gemst_device_store_use_ids(gemst_device_gaps *g, const uint32_t *place, const gemst_id_runs *runs);
int gemst_device_store_has_ids(const gemst_device_gaps *g);

#ifdef __cplusplus
}
#endif

#endif
