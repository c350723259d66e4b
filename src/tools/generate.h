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
 *              noise
 *   shells     points on 12 thin spherical shells (circles in 2D) of radii
 *              0.05 to 0.25 and different centres: 2D surfaces in 3D
 *   planes     points on 12 thin planes (lines in 2D) at random orientations,
 *              cut by the unit cube
 *   tori       points on 8 thin tori at random orientations (3D only)
 *   filaments  points along smooth random curves (300 in 3D, 20 in 2D,
 *              each about 0.8 long) with a small transverse scatter: the
 *              cosmic web, neurons, roads
 *
 * The surfaces and the filaments are uniformly dense along their surfaces or
 * curves, and as thick as a quarter of the mean spacing of their points
 * along them (at most 0.01), so that they stay thin at every n
 * (generate_shapes.h says why).  Every kind but normal and lattice lies in
 * [0, 1)^dim.
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
    GEMST_GEN_BLOBS,
    GEMST_GEN_SHELLS,
    GEMST_GEN_PLANES,
    GEMST_GEN_TORI,
    GEMST_GEN_FILAMENTS
} gemst_gen_kind;

/* The kinds' names as usage texts list them. */
#define GEMST_GEN_KIND_NAMES "uniform|normal|clustered|lattice|blobs|shells|planes|tori|filaments"

/* A kind's name (as in GEMST_GEN_KIND_NAMES) to *out; 0, or -1 if unknown. */
int gemst_parse_gen_kind(const char *name, gemst_gen_kind *out);
const char *gemst_gen_kind_name(gemst_gen_kind k);

/* Whether the kind exists in dimension dim (tori: 3D only). */
int gemst_gen_kind_has_dim(gemst_gen_kind k, int dim);

/* n points of dimension dim (2 or 3) into *out (FLOAT32).  Fails with
 * GRIDEMST_ERR_INVALID_ARGUMENT for an unknown kind, a dimension other than
 * 2 or 3 or one the kind lacks, or a negative n; GRIDEMST_ERR_NO_MEMORY when
 * the points do not fit in memory. */
int gemst_generate(gemst_gen_kind kind, int64_t n, int dim, uint64_t seed, gemst_pointset *out, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
