/*
 * The devices of a partitioned solve (parts/devices.h) as the CUDA files
 * that drive them see them: each device's context and buffers, and the
 * steps of an exchange between them (cuda_devices.cu), which the partition
 * on the devices (cuda_parts_split.cu) shares.  An exchange goes over NCCL
 * (cuda_nccl.cu) where the build has it and every part a device of its
 * own, else by CUDA copies.
 */
#ifndef GEMST_CUDA_DEVICES_CUH
#define GEMST_CUDA_DEVICES_CUH

#include <thread>

#include "config.h"
#include "context.h"
#include "host_tree.h"
#include "parts/devices.h"
#include "parts/parts.h"
#include "cuda/cuda_common.cuh"

/* What the partition on the devices keeps on part p's device. */
struct gemst_device_part {
    gemst_dmem mem;          /* its own buffers, from the context's pool */
    gemst_dmem peer_mem;     /* those an exchange moves (cudaMalloc: a peer device that NCCL lets
                                read and write them directly can, unlike the pool's) */
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
    struct gemst_nccl *nccl; /* the communicators (cuda_nccl.cu); NULL where the exchanges go by copies */
    int by_copies;           /* the exchanges go by CUDA copies between the parts' buffers: the build
                                has no NCCL, or a device holds several parts, which NCCL (one rank a
                                device) does not take */
    unsigned char peer_on[GEMST_MAX_DEVICES][GEMST_MAX_DEVICES]; /* [p][q]: the open turned on p's device's
                                                                     access to q's (the close turns it off) */
    void **buf;              /* each device's exchange buffer ... */
    size_t *cap;             /* ... of this many bytes */
    struct gemst_device_part *part;
    gemst_host_tree room;    /* the whole set's tree's host array (cuda_parts_assemble.cu) */
};

static inline cudaStream_t gemst_devices_stream(const gemst_devices *d, int p)
{
    return (cudaStream_t)d->ctx[p]->stream;
}

/* fn(p) for every device p at once, each on a host thread of its own
 * (device 0 on the caller's): making a device's context and releasing its
 * memory wait on the driver, device by device, and the devices do not need
 * to wait for each other; nor do the parts' own steps of a round of the
 * border step.  A thread that cannot be started leaves its
 * device to the caller's thread. */
template <typename F> static inline void gemst_each_device_at_once(int count, F fn)
{
    std::thread other[GEMST_MAX_DEVICES];
    bool started[GEMST_MAX_DEVICES] = {false};
    for (int p = 1; p < count; p++) {
        try {
            other[p] = std::thread(fn, p);
            started[p] = true;
        } catch (...) {
        }
    }
    for (int p = 0; p < count; p++)
        if (!started[p])
            fn(p);
    for (int p = 1; p < count; p++)
        if (started[p])
            other[p].join();
}

/* Counts first: row p (`width` counts, part p's) of `all` to every device
 * (an all-gather); each device's copy of all P rows must be the host's. */
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

/* Where part s's records for part p start in its send buffer: after those
 * for the parts before p, or (an all-gather) at 0, the same records going
 * to every part. */
static inline size_t gemst_send_offset(const int64_t *count, int P, size_t size, int gather, int s, int p)
{
    size_t at = 0;
    for (int q = 0; !gather && q < p; q++)
        at += size * (size_t)count[(size_t)s * P + q];
    return at;
}

/* Where part s's records land in part p's receive buffer: after those from
 * the parts before s. */
static inline size_t gemst_recv_offset(const int64_t *count, int P, size_t size, int s, int p)
{
    size_t at = 0;
    for (int q = 0; q < s; q++)
        at += size * (size_t)count[(size_t)q * P + p];
    return at;
}

/* Moves count[s * P + p] records of each of the n_kinds kinds from device
 * s to device p (a part's records for itself copied on its device), and
 * waits for them. */
int gemst_devices_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                           int n_kinds, gridemst_error *err);

/* The exchanges over NCCL (cuda_nccl.cu): a communicator a device, made
 * for all of them at once (d->nccl).  Each call queues its transfers on the
 * parts' streams; the caller waits.  Without NCCL in the build,
 * gemst_nccl_open fails and a solve exchanges by copies. */
int gemst_nccl_in_build(void);
int gemst_nccl_open(gemst_devices *d, gridemst_error *err);
void gemst_nccl_close(gemst_devices *d);
/* NCCL's own error on device p's communicator so far: a failed transfer
 * ends a wait instead of leaving it hanging. */
int gemst_nccl_error(gemst_devices *d, int p, gridemst_error *err);
/* Row p (`row` bytes at at[p] + row p) to the same place of every other
 * part's buffer: an in-place all-gather. */
int gemst_nccl_gather_rows(gemst_devices *d, char *const *at, size_t row, gridemst_error *err);
/* gemst_devices_transfer's records between different parts: one group of
 * send and receive pairs. */
int gemst_nccl_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                        int n_kinds, gridemst_error *err);

#endif
