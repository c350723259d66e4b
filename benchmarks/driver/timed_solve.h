/* One solve of the benchmark's point set, timed.
 *
 * CUDA backend: the points are copied to the device once, when the timer is
 * opened; each solve is gridemst_solve_device on a stream of the timer's own
 * (options.cuda_stream), between two CUDA events recorded on that stream,
 * on a context the timer keeps for all its solves or (fresh_context) on a
 * context of the call's own.  A tree left on the device is copied into the
 * result's host edges after the timing, so that trees can be compared.
 * CPU backend: gridemst_solve from host memory, timed by the wall clock. */
#ifndef GEMST_BENCH_TIMED_SOLVE_H
#define GEMST_BENCH_TIMED_SOLVE_H

#include "gridemst.h"
#include "tools/pointset.h"

typedef struct bench_timer bench_timer;

typedef struct bench_times {
    double ms;      /* CUDA: between the events; CPU: the wall clock */
    double wall_ms; /* the wall clock around the call: what a user waits for */
} bench_times;

/* A timer for the points of ps (which must outlive it); with_device: also
 * copy them to CUDA device `device` for CUDA solves.  GRIDEMST_OK, or a
 * status with *err filled (GRIDEMST_ERR_UNSUPPORTED without CUDA). */
int bench_timer_open(const gemst_pointset *ps, int with_device, int device, bench_timer **out, gridemst_error *err);

/* Solves on opt->backend (CPU or CUDA; CUDA needs a timer opened with the
 * device).  On success *res holds the tree (free it with
 * gridemst_result_free). */
int bench_timed_solve(bench_timer *t, const gridemst_options *opt, int fresh_context, gridemst_result *res,
                      bench_times *times, gridemst_error *err);

/* Frees the device copy, the stream and the events; NULL is fine. */
void bench_timer_close(bench_timer *t);

#endif
