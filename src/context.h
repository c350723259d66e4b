/*
 * The solve context (gridemst_context in the API) and what a result holds
 * of it.  The context is the CUDA backend's: its fields are opaque handles
 * here so that C sources can pass it along; src/cuda/cuda_context.cu makes
 * and frees it.
 *
 * Lifetime: the caller's handle holds one reference, every solve in flight
 * and every device result made on the context one more.  gridemst_context_free
 * closes the context (no new solve may start on it) and drops the caller's
 * reference; the last reference frees it.
 */
#ifndef GEMST_CONTEXT_H
#define GEMST_CONTEXT_H

#include <pthread.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counters a solve reads from the device: room in the context's pinned
 * staging buffer (checked against each precision's counters at compile
 * time). */
#define GEMST_STAGING_BYTES 256

/* Events a solve records to time its phases. */
#define GEMST_CONTEXT_EVENTS 6

/* Registered host arrays of freed host results that a context keeps for
 * the next solves' trees (host_tree.h): two, so that a caller who holds one
 * result while solving the next still finds one free. */
#define GEMST_CONTEXT_SPARES 2

struct gridemst_context {
    uint32_t magic;          /* GEMST_CONTEXT_OPEN while the caller holds it */
    int refs;                /* atomic: see the header comment */
    int device;              /* CUDA device ordinal */
    void *stream;            /* cudaStream_t */
    int own_stream;          /* made by the context (else the caller's) */
    void *pool;              /* cudaMemPool_t: keeps freed buffers for later solves */
    void *events[GEMST_CONTEXT_EVENTS]; /* cudaEvent_t */
    void *staging;           /* pinned host memory, GEMST_STAGING_BYTES */
    char device_name[256];
    pthread_mutex_t spares_lock; /* results are freed from any thread */
    void *spare[GEMST_CONTEXT_SPARES];
    size_t spare_bytes[GEMST_CONTEXT_SPARES];
    int spares;
};

#define GEMST_CONTEXT_OPEN 0x63746578u /* "ctex" */

/* One device's share of a tree left on several devices: the sorted
 * tree's edges first .. first + n_edges - 1, in the pool of ctx, whose
 * reference the share holds. */
typedef struct gemst_device_share {
    gridemst_context *ctx;
    gridemst_device_edges edges;
    int64_t first, n_edges;
} gemst_device_share;

/* What gridemst_result_free releases besides host edges from malloc: the
 * device edges (freed into their context's pool, whose reference the
 * result holds) or the shares of a tree over several devices, or host
 * edges registered with CUDA (host_tree.h), which go back to the caller's
 * context as a spare, or are unregistered and freed. */
struct gemst_result_owner {
    gridemst_context *ctx;   /* the context holding device_edges, or taking the host edges back; or NULL */
    int host_registered;     /* result.edges is registered with CUDA ... */
    size_t host_capacity;    /* ... over this many bytes */
    gemst_device_share *share; /* malloc'd, n_shares of them, or NULL */
    int n_shares;
};

/* The context a solve with options opt runs on: opt->context, checked to be
 * open and to agree with opt->device and opt->cuda_stream, or a new one for
 * this solve alone.  Either way the solve holds a reference, dropped with
 * gemst_context_release. */
int gemst_context_for_solve(const gridemst_options *opt, gridemst_context **ctx, gridemst_error *err);

/* A spare registered array of at least `bytes` (the smallest there is):
 * 1 with *p and its *capacity, or 0 when none fits. */
int gemst_context_take_spare(gridemst_context *ctx, size_t bytes, void **p, size_t *capacity);

/* Keeps a registered array as a spare: 1, or 0 when the context is closed
 * or has spares enough (the caller then frees it). */
int gemst_context_keep_spare(gridemst_context *ctx, void *p, size_t capacity);

void gemst_context_retain(gridemst_context *ctx);
void gemst_context_release(gridemst_context *ctx);

/* Frees what owner holds of result (the device edges or shares, or
 * unregisters the host edges before the caller frees them) and owner
 * itself. */
void gemst_result_owner_free(struct gemst_result_owner *owner, gridemst_result *result);

/* Frees n_shares shares' edges, drops their contexts' references, and
 * frees the array (NULL: nothing). */
void gemst_free_device_shares(gemst_device_share *share, int n_shares);

#ifdef __cplusplus
}
#endif

#endif
