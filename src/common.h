/* Internal definitions shared by every gridemst source, C and CUDA alike. */
#ifndef GEMST_COMMON_H
#define GEMST_COMMON_H

#include <stdint.h>
#include <stddef.h>
#include "gridemst.h"

/* Functions called from both the CPU loops and the CUDA kernels are
 * `static inline GEMST_HD`: __host__ __device__ under nvcc, plain otherwise. */
#ifdef __CUDACC__
#define GEMST_HD __host__ __device__
#else
#define GEMST_HD
#endif

/* Before a loop the GPU unrolls (where its count is a constant, such as a
 * per-dimension kernel's dim); nothing on the CPU. */
#ifdef __CUDA_ARCH__
#define GEMST_UNROLL _Pragma("unroll")
#else
#define GEMST_UNROLL
#endif

/* Marks an absent point or root index. */
#define GEMST_NONE UINT32_MAX

/* Largest number of points the solver accepts: point indices are 32-bit and
 * GEMST_NONE is reserved. */
#define GEMST_MAX_POINTS ((int64_t)UINT32_MAX - 1)

/* Largest number over several devices: as many a device's slice of the
 * input (parts/gid.h), on 64 devices. */
#define GEMST_MAX_SPLIT_POINTS (64 * GEMST_MAX_POINTS)

/* A tree's total weight is summed in groups of this many edges, each in
 * edge order, then the groups' sums the same way until one is left: an
 * order the GPU's threads and the CPU's follow alike, so that the total is
 * the same on every backend and thread count. */
#define GEMST_TOTAL_GROUP 1024

#ifdef __cplusplus
extern "C" {
#endif

/* Fills *err (when not NULL) with code and a printf-style message; returns code. */
int gemst_fail(gridemst_error *err, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Reports a phase to opt's progress callback, if any: GRIDEMST_OK, or
 * GRIDEMST_ERR_CANCELLED with *err filled when the callback asks the solve
 * to stop (its caller then frees what it made and returns that status). */
int gemst_progress(const gridemst_options *opt, const char *phase, int iteration, int64_t components,
                   gridemst_error *err);

/* Monotonic wall clock in milliseconds. */
double gemst_now_ms(void);

#ifdef __cplusplus
}
#endif

#endif
