/*
 * A round of the border step (border.h) over parts on devices: the points
 * of B gathered from the arrays each part kept on its device (device_gaps.h),
 * onto the first part's device, and solved there
 * (cuda/cuda_parts_border.cu):
 *
 *   gemst_device_border_ready  whether a part's device kept what a round
 *                              reads: the points by gap, their working
 *                              coordinates, components and ids
 *   gemst_devices_border_round the first held[p] points by gap of each part
 *                              p (its id, its component plus comp_base[p]
 *                              and its working coordinates), copied to the
 *                              first part's device, less the inner points
 *                              there (inner.h), sorted there by id and
 *                              solved by the CUDA solver (`solve`: the
 *                              problem to solve them as, whose points,
 *                              count and form the call sets); the tree's
 *                              edges between different safe components, in
 *                              the edge order, into *between (malloc'd,
 *                              *n_between), and B's size into *n_points
 *
 * The edges are those the host's round finds from the same points, bit for
 * bit (the same working coordinates, solved by the same solver in the same
 * order of ids).  A CUDA failure is GRIDEMST_ERR_CUDA, running out of
 * device memory GRIDEMST_ERR_DEVICE_MEMORY (the device's buffers then
 * freed).  In a build without CUDA the round fails with
 * GRIDEMST_ERR_UNSUPPORTED and no part is ready.
 */
#ifndef GEMST_PARTS_DEVICE_BORDER_H
#define GEMST_PARTS_DEVICE_BORDER_H

#include "backend.h"
#include "parts/device_gaps.h"
#include "parts/devices.h"
#include "parts/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the round's test of inner points (inner.h) reads: each safe
 * component's component as Kruskal left them, and the cells' side; and
 * the most points the round solves (with more left after the test, it
 * solves nothing and says how many: *n_points above `most`). */
typedef struct gemst_border_inner {
    const uint32_t *root;
    uint32_t n_comp;
    double side;
    int64_t most;
} gemst_border_inner;

int gemst_device_border_ready(const gemst_device_gaps *g);
int gemst_devices_border_round(gemst_devices *d, gemst_device_gaps *const *gaps, const int64_t *held,
                               const uint32_t *comp_base, const gemst_border_inner *inner,
                               const gemst_problem *solve, int threads, gemst_store_edge **between,
                               int64_t *n_between, int64_t *n_points, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
