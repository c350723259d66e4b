/*
 * The working precision, instantiated twice: a source that includes the
 * precision-generic headers first defines GEMST_REAL_IS_DOUBLE to 0 or 1.
 * GEMST_FN(name) then names the instance (name_f32 or name_f64), so that both
 * instances link into one library.
 *
 * Arithmetic that decides the tree (squared distances) goes through
 * GEMST_ADD/SUB/MUL: on the GPU these are the round-to-nearest intrinsics,
 * which nvcc never fuses into FMAs; host code is compiled with
 * -ffp-contract=off.  Both backends therefore round every operation the same
 * way and produce bit-identical squared distances (DESIGN.md, rule 2).
 */
#ifndef GEMST_REAL_H
#define GEMST_REAL_H

#include <math.h>

#include "common.h"

#ifndef GEMST_REAL_IS_DOUBLE
#error "define GEMST_REAL_IS_DOUBLE (0 or 1) before including real.h"
#endif

#if GEMST_REAL_IS_DOUBLE
typedef double gemst_real;
#define GEMST_FN(name) name##_f64
#define GEMST_REAL_INF ((double)INFINITY)
#define GEMST_REAL_MIN 0x1p-1022 /* the smallest normal number */
#if defined(__CUDA_ARCH__)
#define GEMST_ADD(a, b) __dadd_rn((a), (b))
#define GEMST_SUB(a, b) __dsub_rn((a), (b))
#define GEMST_MUL(a, b) __dmul_rn((a), (b))
#endif
#else
typedef float gemst_real;
#define GEMST_FN(name) name##_f32
#define GEMST_REAL_INF INFINITY
#define GEMST_REAL_MIN 0x1p-126f /* the smallest normal number */
#if defined(__CUDA_ARCH__)
#define GEMST_ADD(a, b) __fadd_rn((a), (b))
#define GEMST_SUB(a, b) __fsub_rn((a), (b))
#define GEMST_MUL(a, b) __fmul_rn((a), (b))
#endif
#endif

#ifndef GEMST_ADD
#define GEMST_ADD(a, b) ((a) + (b))
#define GEMST_SUB(a, b) ((a) - (b))
#define GEMST_MUL(a, b) ((a) * (b))
#endif

/* Squared distances between distinct points below this have no exact tree
 * (grid/grid_plan.h, "Where the working precision cannot hold a squared
 * distance"): subnormal ones and 0 in double, 0 in float. */
#if GEMST_REAL_IS_DOUBLE
#define GEMST_D2_TINY 0x1p-1022
#else
#define GEMST_D2_TINY 0x1p-149f
#endif

/* A lower bound on squared distances, shrunk by 2^-20 so that it stays below
 * every squared distance it bounds despite rounding in either computation
 * (each is within a few units in the last place of its exact value). */
#define GEMST_LB_SHRINK ((gemst_real)(1.0 - 1.0 / 1048576.0))

#endif
