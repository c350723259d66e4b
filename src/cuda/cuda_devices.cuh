/*
 * The devices of a partitioned solve (parts/devices.h) as the CUDA files
 * that drive them see them: the communicators, each device's context and
 * buffers, and the steps of an exchange between them
 * (cuda_devices.cu), which the partition on the devices
 * (cuda_parts_split.cu) shares.
 */
#ifndef GEMST_CUDA_DEVICES_CUH
#define GEMST_CUDA_DEVICES_CUH

#include <nccl.h>

#include "context.h"
#include "host_tree.h"
#include "parts/devices.h"
#include "parts/parts.h"
#include "cuda/cuda_common.cuh"

/* What the partition on the devices keeps on part p's device. */
struct gemst_device_part {
    gemst_dmem mem;          /* its own buffers, from the context's pool */
    gemst_dmem peer_mem;     /* those NCCL moves (cudaMalloc: a peer device that NCCL lets read
                                and write them directly can, unlike the pool's) */
    gridemst_dtype dtype;    /* the caller's coordinates: dim values of dtype a point */
    int dim;
    int64_t first, m;        /* the slice of the input it read: ids first .. first + m - 1 */
    void *slice;             /* the slice's coordinates */
    uint64_t *key;           /* their keys, in id order */
    uint32_t *send_id;       /* the slice's points' places in it and their coordinates by part, each part's
                                in id order */
    void *send_xyz;
    int64_t n;               /* the part's points ... */
    uint32_t *id;            /* ... their places in their slices (ascending ids: parts/gid.h) ... */
    gemst_id_runs runs;      /* ... which these runs make ids */
    void *xyz;               /* ... and coordinates */
    gemst_parts_edge *tree;  /* its local tree, from its solve (cuda_parts_assemble.cu) ... */
    int64_t n_tree;
    uint8_t *mark;           /* ... and the contraction's marks of its edges */
};

struct gemst_devices {
    int count;
    int *ordinal;
    gridemst_context **ctx;
    ncclComm_t *comm;        /* NULL until ncclCommInitAll made them all, or where a device holds
                                several parts */
    int by_copies;           /* a device holds several parts, which NCCL (one rank a device) does not
                                take: the exchanges go by CUDA copies between the parts' buffers */
    int broken;              /* an NCCL call failed: the communicators are aborted, not destroyed */
    void **buf;              /* each device's exchange buffer ... */
    size_t *cap;             /* ... of this many bytes */
    struct gemst_device_part *part;
    gemst_host_tree room;    /* the whole set's tree's host array (cuda_parts_assemble.cu) */
};

static inline cudaStream_t gemst_devices_stream(const gemst_devices *d, int p)
{
    return (cudaStream_t)d->ctx[p]->stream;
}

/* An NCCL call that failed: GRIDEMST_ERR_CUDA naming it, and d broken. */
int gemst_nccl_fail(gemst_devices *d, gridemst_error *err, ncclResult_t r, const char *call);

/* Returns from the enclosing function (with d and err) when an NCCL call
 * fails. */
#define GEMST_NCCL(call)                                                                                          \
    do {                                                                                                          \
        ncclResult_t gemst_r_ = (call);                                                                           \
        if (gemst_r_ != ncclSuccess)                                                                              \
            return gemst_nccl_fail(d, err, gemst_r_, #call);                                                     \
    } while (0)

/* Counts first: row p (`width` counts, part p's) of `all` to every device
 * by an in-place ncclAllGather; each device's copy of all P rows must be
 * the host's. */
int gemst_devices_send_counts(gemst_devices *d, const int64_t *all, int width, gridemst_error *err);

/* Records of one kind in device memory: `size` bytes each, device s's for
 * part p at send[s] after those for the parts before p (or, gathering, at
 * send[s] for every part), landing at recv[p] after those from the parts
 * before s. */
typedef struct gemst_device_records {
    size_t size;
    char *send[GEMST_MAX_DEVICES];
    char *recv[GEMST_MAX_DEVICES];
} gemst_device_records;

/* Moves count[s * P + p] records of each of the n_kinds kinds from device
 * s to device p, in one group of ncclSend/ncclRecv pairs (a part's records
 * for itself copied on its device), and waits for them. */
int gemst_devices_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                           int n_kinds, gridemst_error *err);

#endif
