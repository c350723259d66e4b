/*
 * A part's contraction after its gaps (step 4, contract.c) on the device
 * that holds the part (cuda/cuda_parts_contract.cu): the safe edges by the
 * rounds rule (safe_edges.h: gemst_safe_edges_rounds, the serial reference,
 * marks the same edges), the safe components numbered from 0 in the order
 * of their smallest points (as gemst_safe_components numbers them), each
 * component's smallest gap, and the uncertain edges' positions in
 * ascending order: the arrays contract.c fills on the host, byte for byte.
 *
 * The gaps are read where the device computed them (device_gaps.h); the
 * part's tree is read where its solve left it (device_tree: a part of a
 * solve over several GPUs, device_assemble.h), or goes from host memory
 * to the device (16 bytes an edge).  Back to host memory come only what
 * the later steps read: the safe flags (a byte an edge: the tree's
 * assembly) unless they stay on the device (mark_on_device, 1 for a safe
 * edge, 0 for an uncertain one, where the assembly on the devices reads
 * them), the uncertain edges, their positions and the components'
 * smallest gaps (the boundary's Boruvka), through cuda/cuda_download.cuh
 * on the task's threads; and each point's component (4 bytes a point:
 * the boundary's store) unless it stays on the device (comp_on_device),
 * where the boundary's store reads it (device_store.h).
 *
 * A CUDA failure is GRIDEMST_ERR_CUDA, running out of device memory
 * GRIDEMST_ERR_DEVICE_MEMORY, out of host memory GRIDEMST_ERR_NO_MEMORY.
 * The call leaves the calling thread's current device as it found it.  In
 * a build without CUDA it fails with GRIDEMST_ERR_UNSUPPORTED.
 */
#ifndef GEMST_PARTS_DEVICE_CONTRACT_H
#define GEMST_PARTS_DEVICE_CONTRACT_H

#include "parts/parts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the contraction of a part needs. */
typedef struct gemst_contract_task {
    const gemst_parts_edge *tree; /* host memory: m edges of a forest over points 0 .. n-1, in the edge order */
    int64_t m;
    const double *gap;            /* device memory (ctx's device): the n points' gaps */
    uint32_t *comp_on_device;     /* device memory of n entries where each point's component stays, or NULL */
    int64_t n;                    /* >= 1 */
    int threads;                  /* the host's threads that take the copies to host memory */
    const gemst_parts_edge *device_tree; /* the tree in device memory instead (tree unread), or NULL */
    uint8_t *mark_on_device;      /* device memory of m entries where the safe flags stay, or NULL */
    const uint32_t *by_key;       /* device memory: the n points in an order that keeps neighbours near
                                     (by key: gemst_device_gaps_by_key), or NULL: their own order */
} gemst_contract_task;

/* Where it goes: host memory the caller allocated, but comp_gap. */
typedef struct gemst_contract_out {
    uint8_t *safe;                /* m: 1 for a safe edge, 0 for an uncertain one (unread with mark_on_device) */
    uint32_t *comp;               /* n: each point's safe component (unread with comp_on_device) */
    uint32_t *uncertain;          /* room for m: the uncertain edges' positions, ascending */
    int64_t n_uncertain;
    uint32_t n_comp;
    double *comp_gap;             /* n_comp (at least 1 entry), malloc'd by the call: each component's smallest
                                     gap; the caller frees it (NULL after a failure) */
    gemst_parts_edge *uncertain_edge; /* n_uncertain (at least 1 entry), malloc'd by the call as comp_gap: the
                                     uncertain edges themselves */
    double median_d2;             /* the squared length of tree edge m / 2 (0 without edges) */
} gemst_contract_out;

/* Where the time went, in ms, and how many rounds ran. */
typedef struct gemst_contract_times {
    double safe_ms;               /* the rounds' kernels, waited for */
    double components_ms;         /* the numbering, the uncertain edges' list, the components' gaps */
    double copy_ms;               /* the tree's copy to the device and the results' to host memory */
    int rounds;                   /* rounds run, the last one marking nothing or leaving no live edge */
} gemst_contract_times;

int gemst_device_contract(gridemst_context *ctx, const gemst_contract_task *t, gemst_contract_out *out,
                          gemst_contract_times *times, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
