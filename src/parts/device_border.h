/*
 * A round of the border step (border.h) over parts on devices
 * (cuda/cuda_parts_border.cu), from the arrays each part kept on its
 * device (device_gaps.h):
 *
 *   gemst_device_border_ready  whether a part's device kept what a round
 *                              reads: the points by gap, their working
 *                              coordinates, components and ids
 *   gemst_devices_border_round the first held[p] points by gap of each part
 *                              p (its id, its component plus comp_base[p]
 *                              and its working coordinates): each part's
 *                              cells (inner.h) made on its device, merged
 *                              on the first part's and sent back, each
 *                              part's inner points left out on its device
 *                              (border_cells.h); where at most inner->most
 *                              points are left, they are copied to the
 *                              first part's device, sorted there by id and
 *                              solved by the CUDA solver (`solve`: the
 *                              problem to solve them as, whose points,
 *                              count and form the call sets); the tree's
 *                              edges between different safe components, in
 *                              the edge order, into *between (malloc'd,
 *                              *n_between), and the counts into *n
 *
 * The cells, the points kept and the edges are those the host's round
 * finds from the same points, bit for bit (the same working coordinates,
 * solved by the same solver in the same order of ids).  The parts' cells
 * and tests run on every device at once, each driven by a host thread of
 * its own.  A CUDA failure is GRIDEMST_ERR_CUDA, running out of device
 * memory GRIDEMST_ERR_DEVICE_MEMORY (the devices' buffers then freed).  In
 * a build without CUDA the round fails with GRIDEMST_ERR_UNSUPPORTED and
 * no part is ready.
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

/* What a round moved: each part's cells, the merged cells, and each
 * part's points kept (not inner; where fewer than two points lie within
 * the limit, all of them, nothing left out); and whether B was solved:
 * it held at most inner->most points (and at most 2^32 - 1), and the
 * merge took the parts' cells (as two rows each, at most 2^32 - 1 rows). */
typedef struct gemst_border_counts {
    int64_t cells[GEMST_MAX_PARTS];
    int64_t merged;
    int64_t kept[GEMST_MAX_PARTS];
    int solved;
} gemst_border_counts;

int gemst_device_border_ready(const gemst_device_gaps *g);
int gemst_devices_border_round(gemst_devices *d, gemst_device_gaps *const *gaps, const int64_t *held,
                               const uint32_t *comp_base, const gemst_border_inner *inner,
                               const gemst_problem *solve, int threads, gemst_border_counts *n,
                               gemst_store_edge **between, int64_t *n_between, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
