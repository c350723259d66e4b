/*
 * Synthetic point sets (float32), reproducible from a seed and independent
 * of the thread count.  Coordinates are multiples of a power of two, so that
 * translating a set to its bounding-box minimum is exact in float32.
 *
 *   uniform    uniform in the unit square / cube
 *   normal     standard normal in each coordinate
 *   clustered  Gan & Tao's seed spreader with varying density ("varden"),
 *              as used by Wang et al. 2021
 *   lattice    integer lattice points (massive distance ties)
 *   blobs      1000 Gaussian blobs of widely varying width plus 1% uniform
 *              noise (the skewed benchmark set of the CUDA issue)
 */
#ifndef GEMST_GENERATE_H
#define GEMST_GENERATE_H

#include <stdint.h>

#include "gridemst.h"
#include "tools/pointset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemst_gen_kind {
    GEMST_GEN_UNIFORM = 0,
    GEMST_GEN_NORMAL,
    GEMST_GEN_CLUSTERED,
    GEMST_GEN_LATTICE,
    GEMST_GEN_BLOBS
} gemst_gen_kind;

/* "uniform", "normal", "clustered", "lattice", "blobs"; 0, or -1 if unknown. */
int gemst_parse_gen_kind(const char *name, gemst_gen_kind *out);
const char *gemst_gen_kind_name(gemst_gen_kind k);

/* n points of dimension dim (2 or 3) into *out (FLOAT32). */
int gemst_generate(gemst_gen_kind kind, int64_t n, int dim, uint64_t seed, gemst_pointset *out, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
