/*
 * A partitioned solve over the GPUs of this host (options.n_devices): part
 * p on device ordinal[p], with a solve context of its own (context.h), and
 * one NCCL communicator per device.  One process drives every device and
 * makes the communicators for all of them at once (ncclCommInitAll): it
 * already holds every part's data in host memory, and needs no launcher
 * (mpirun) nor a rendezvous between processes.
 *
 * The exchanges between the parts (exchange.h) then run over NCCL: each
 * part's records go to its device, the devices send them to each other in
 * one group of ncclSend/ncclRecv pairs, after the counts (as in a run of one
 * process per device, where a part knows only its own counts; here the
 * host knows them all, and checks what NCCL delivered), and the received
 * records come back to host memory.  Every NCCL and CUDA failure becomes
 * GRIDEMST_ERR_CUDA (GRIDEMST_ERR_DEVICE_MEMORY when memory runs out) with
 * a message; an error NCCL reports while a transfer runs ends the wait for
 * it.
 *
 * In a build without NCCL, gemst_devices_open fails with
 * GRIDEMST_ERR_UNSUPPORTED (no_nccl.c).
 */
#ifndef GEMST_PARTS_DEVICES_H
#define GEMST_PARTS_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "parts/gid.h"
#include "parts/point_key.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemst_devices gemst_devices;

/* The most devices a solve runs on: one part each (GEMST_MAX_PARTS). */
#define GEMST_MAX_DEVICES 64

/* options.devices and options.n_devices in a checked solve's options:
 * GRIDEMST_OK, or GRIDEMST_ERR_INVALID_ARGUMENT naming the first bad one. */
int gemst_check_devices(const gridemst_options *o, gridemst_error *err);

/* The devices of pb's solve, once the options are checked: n_devices
 * resolved to a count (GRIDEMST_ALL_DEVICES: every device present) and the
 * ordinals into ordinal[] (room for 64), which pb->opt.devices then points
 * to.  One device becomes the plain solve on it (options.device, n_devices
 * 0); two or more the partitioned solve on the CUDA backend with a part per
 * device (options.partitions).  Fails naming a device not present, a build
 * without CUDA or NCCL, or an option a solve over several devices does not
 * take. */
int gemst_resolve_devices(gemst_problem *pb, int *ordinal, gridemst_error *err);

/* Contexts and NCCL communicators for `count` devices (count >= 2). */
int gemst_devices_open(const int *ordinal, int count, gemst_devices **out, gridemst_error *err);

/* Frees what gemst_devices_open made (NULL: nothing). */
void gemst_devices_close(gemst_devices *d);

/* Part p's context. */
gridemst_context *gemst_devices_context(const gemst_devices *d, int p);

/* The name of the devices for the statistics: "2 x NAME" when alike. */
void gemst_devices_name(const gemst_devices *d, char *name, size_t size);

/* gemst_xchg_allgather over NCCL: part p's count[p] records of `size`
 * bytes at send[p], all of them into out (room for the sum of the counts),
 * part 0's first. */
int gemst_devices_allgather(gemst_devices *d, const void *const *send, const int64_t *count, size_t size, void *out,
                            gridemst_error *err);

/* gemst_xchg_alltoall over NCCL: part s's records for part p at send[s],
 * count[s * P + p] of them, after those for the parts before p; part p's
 * from part 0, then part 1, ... into recv[p] (room for them all; NULL when
 * none). */
int gemst_devices_alltoall(gemst_devices *d, const void *const *send, const int64_t *count, size_t size,
                           void *const *recv, gridemst_error *err);

/*
 * The frame and the partition (steps 1 and 2) on the devices, called per
 * part p from a host thread of its own, but gemst_devices_send_points,
 * called once for all:
 *
 *   gemst_devices_slice_box    part p's slice of the input, points first ..
 *                              first + n - 1 of the caller's host
 *                              coordinates (dim values of dtype each),
 *                              copied to its device on `threads` host
 *                              threads (cuda/cuda_upload.h); their
 *                              bounding box there into box (lo, hi; none
 *                              for an empty slice), or GRIDEMST_ERR_INPUT
 *                              for a non-finite coordinate
 *   gemst_devices_slice_keys   the slice's keys (point_key.h, in metric m,
 *                              frame f and key space sp), sorted, and
 *                              n_sample regular samples of them (the one of
 *                              rank (2k + 1) n / (2 n_sample) for the k-th)
 *                              into sample
 *   gemst_devices_slice_pack   each point's part by the n_split ascending
 *                              splitters; the slice's ids and coordinates
 *                              ordered by part, each part's in id order,
 *                              and how many go to each part into row[]
 *   gemst_devices_send_points  count[s * P + p] of slice s's points to part
 *                              p, over NCCL (the counts first); part p's
 *                              points then lie on its device in id order
 *                              (the slices hold ascending ids, and their
 *                              records arrive in the order of the slices),
 *                              each with its place in its slice (32 bits:
 *                              gid.h), which the part's runs turn into its
 *                              id
 *   gemst_devices_part_ids     part p's ids into host memory (room for
 *                              its points), taken out on `threads` host
 *                              threads (cuda/cuda_download.cuh), where a
 *                              step on the host reads them
 *
 * The part's coordinates and ids stay on its device, and only there, for
 * its local solve and its gaps (gemst_devices_part_coords), the boundary's
 * store (gemst_devices_part_places, device_store.h) and the tree's assembly
 * (device_assemble.h), until gemst_devices_close.
 */
int gemst_devices_slice_box(gemst_devices *d, int p, gridemst_dtype dtype, int dim, const void *coords, int64_t first,
                            int64_t n, int threads, double box[6], gridemst_error *err);
int gemst_devices_slice_keys(gemst_devices *d, int p, const gemst_parts_metric *m, const gemst_frame *f,
                             const gemst_region_space *sp, int64_t n_sample, uint64_t *sample, gridemst_error *err);
int gemst_devices_slice_pack(gemst_devices *d, int p, const uint64_t *split, int n_split, int64_t *row,
                             gridemst_error *err);
int gemst_devices_send_points(gemst_devices *d, const int64_t *count, gridemst_error *err);
int gemst_devices_part_ids(gemst_devices *d, int p, gemst_gid *id, int threads, gridemst_error *err);

/* Part p's coordinates on its device, in id order; its points' places in
 * their slices there, and its runs (gid.h). */
const void *gemst_devices_part_coords(const gemst_devices *d, int p);
const uint32_t *gemst_devices_part_places(const gemst_devices *d, int p);
const gemst_id_runs *gemst_devices_part_runs(const gemst_devices *d, int p);

#ifdef __cplusplus
}
#endif

#endif
