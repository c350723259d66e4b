/* What the benchmark driver's parts share: one configuration's identity. */
#ifndef GEMST_BENCH_H
#define GEMST_BENCH_H

#include <math.h>
#include <stdint.h>

#include "gridemst.h"

/* One configuration of the solver on one dataset: the first columns of
 * every CSV row. */
typedef struct bench_config {
    const char *dataset;
    int64_t n;
    int dim;
    gridemst_backend backend;
    gridemst_nns nns;
    gridemst_prune prune;
    gridemst_findmin2 findmin2;
    gridemst_precision precision;
    gridemst_result_place result; /* where the tree is left */
    int fresh_context;            /* CUDA: each solve makes its own context (else one is reused) */
} bench_config;

/* The floor of a solve: on the grid with prune none, iteration 0's
 * FindMin1 is one nearest-neighbour query of every point (every point is
 * its own component).  NAN for other prunings and for the BVH (whose
 * stats also say prune none). */
static inline double bench_floor_ms(const gridemst_result *r)
{
    if (r->stats.nns != GRIDEMST_NNS_GRID || r->stats.prune != GRIDEMST_PRUNE_NONE || r->stats.iterations < 1)
        return NAN;
    return r->stats.iteration_ms[0].findmin1;
}

/* "reuse" or "fresh" for CUDA configurations, "none" for the CPU's. */
static inline const char *bench_context_name(const bench_config *c)
{
    if (c->backend != GRIDEMST_BACKEND_CUDA)
        return "none";
    return c->fresh_context ? "fresh" : "reuse";
}

/* The phase sum: the library's measured phases (the upload and download
 * included); the whole call's wall time minus it is the dark time. */
static inline double bench_phase_ms(const gridemst_result *r)
{
    const gridemst_times *p = &r->stats.time_ms;
    return p->upload + p->grid + p->findmin1 + p->findmin2 + p->merge + p->edges + p->download;
}

#endif
