/*
 * The host array that receives a CUDA solve's tree.  A fresh array faults
 * page by page on its first writes, and a copy into pageable memory runs at
 * a fraction of the bus's speed, so the array is registered with CUDA
 * (pinned in place) and the device writes the tree straight into it:
 *
 *  - a context keeps the registered arrays of freed results as spares
 *    (context.h), and a solve takes one that is large enough: repeated
 *    solves on a context then copy at the bus's speed with no host work;
 *  - otherwise a thread of its own allocates the array, touches every page
 *    (on several cores) and registers it while the device solves.
 *
 * Arrays are registered in chunks of GEMST_PIN_CHUNK bytes from their start,
 * and each chunk is copied to on its own (a copy reaching across
 * registrations would go the pageable way).  Small trees take a plain
 * malloc: registration costs more than it saves there.
 */
#ifndef GEMST_HOST_TREE_H
#define GEMST_HOST_TREE_H

#include <pthread.h>

#include "context.h"

#define GEMST_PIN_CHUNK ((size_t)32 << 20)

typedef struct gemst_host_tree {
    int64_t m;               /* edges */
    int threads;             /* for touching the pages; 0 = OpenMP's default */
    gridemst_context *ctx;   /* its device writes the tree; its spares are taken first */
    gridemst_edge *edges;    /* NULL when out of memory */
    size_t capacity;         /* bytes allocated (and registered) */
    int registered;          /* registered with CUDA */
    int running;             /* the preparing thread is still to be joined */
    pthread_t thread;
} gemst_host_tree;

#ifdef __cplusplus
extern "C" {
#endif

/* Starts making room for m edges that ctx's device will write. */
void gemst_host_tree_start(gemst_host_tree *t, int64_t m, int threads, gridemst_context *ctx);

/* Waits for the room; the array, or NULL when out of host memory. */
gridemst_edge *gemst_host_tree_finish(gemst_host_tree *t);

/* Unregisters and frees a registered array of `capacity` bytes. */
void gemst_host_tree_free_pinned(void *p, size_t capacity);

/* Waits for the room and frees it (a failed solve); nothing when the
 * result took it. */
void gemst_host_tree_discard(gemst_host_tree *t);

#ifdef __cplusplus
}
#endif

#endif
