#include "host_tree.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "host_array.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many edges (1.5 MB) the array is a plain malloc. */
#define GEMST_HOST_TREE_PINNED_EDGES 65536

/* Threads that touch the pages: half the cores, at most 8.  The solving
 * thread keeps a core of its own (an oversubscribed machine delays its
 * kernel launches more than the touching gains), and a few threads already
 * zero pages as fast as memory takes it (H200 host, 240 MB of huge pages:
 * 35 ms on 1 thread, 11 on 4, 7 on 8, 12 on 16 beside a solving thread). */
static int touch_threads(int threads)
{
#ifdef _OPENMP
    int half = omp_get_num_procs() / 2;
    if (threads < 1 || threads > half)
        threads = half;
#endif
    if (threads > 8)
        threads = 8;
    return threads < 1 ? 1 : threads;
}

static size_t chunk_at(size_t bytes, size_t at)
{
    return bytes - at < GEMST_PIN_CHUNK ? bytes - at : GEMST_PIN_CHUNK;
}

static void unpin(void *p, size_t bytes)
{
    for (size_t at = 0; at < bytes; at += GEMST_PIN_CHUNK)
        gemst_cuda_unregister_host((char *)p + at);
}

/* Registers the array chunk by chunk: each registration holds a lock that
 * the solving thread's CUDA calls wait for, so one long registration would
 * stall the solve.  All or nothing: 0, or -1 with none left registered. */
static int pin(void *p, size_t bytes, int device)
{
    for (size_t at = 0; at < bytes; at += GEMST_PIN_CHUNK)
        if (gemst_cuda_register_host((char *)p + at, chunk_at(bytes, at), device) != 0) {
            unpin(p, at);
            return -1;
        }
    return 0;
}

void gemst_host_tree_free_pinned(void *p, size_t capacity)
{
    unpin(p, capacity);
    free(p);
}

static void *prepare(void *arg)
{
    gemst_host_tree *t = arg;
    size_t rounded;
    void *p = gemst_host_huge(sizeof *t->edges * (size_t)t->m, &rounded);
    if (!p)
        return NULL;
    gemst_host_touch(p, rounded, touch_threads(t->threads));
    t->registered = pin(p, rounded, t->ctx->device) == 0;
    t->edges = p;
    t->capacity = rounded;
    return NULL;
}

void gemst_host_tree_start(gemst_host_tree *t, int64_t m, int threads, gridemst_context *ctx)
{
    memset(t, 0, sizeof *t);
    t->m = m;
    t->threads = threads;
    t->ctx = ctx;
    size_t bytes = sizeof *t->edges * (size_t)m;
    if (m < GEMST_HOST_TREE_PINNED_EDGES) {
        t->edges = malloc(bytes ? bytes : 1);
        t->capacity = bytes;
        return;
    }
    void *spare;
    if (gemst_context_take_spare(ctx, bytes, &spare, &t->capacity)) {
        t->edges = spare;
        t->registered = 1;
        return;
    }
    if (pthread_create(&t->thread, NULL, prepare, t) == 0)
        t->running = 1;
    else
        prepare(t);
}

gridemst_edge *gemst_host_tree_finish(gemst_host_tree *t)
{
    if (t->running) {
        pthread_join(t->thread, NULL);
        t->running = 0;
    }
    return t->edges;
}

void gemst_host_tree_discard(gemst_host_tree *t)
{
    gridemst_edge *edges = gemst_host_tree_finish(t);
    if (edges && t->registered) /* none when the result took them */
        gemst_host_tree_free_pinned(edges, t->capacity);
    else
        free(edges);
    t->edges = NULL;
    t->registered = 0;
}
