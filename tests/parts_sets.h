/*
 * The point sets of the partitioned solve's tests (tests/test_parts.c on
 * the CPU's virtual parts, tests/test_multigpu.c on several GPUs): sets
 * that aim at the parts' boundaries.
 */
#ifndef GEMST_PARTS_SETS_H
#define GEMST_PARTS_SETS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tools/generate.h"

#define PI 3.14159265358979323846

typedef enum {
    SET_UNIFORM,    /* the generators' sets, float32 */
    SET_NORMAL,
    SET_CLUSTERED,
    SET_BLOBS,
    SET_LATTICE,
    SET_SHELL,      /* a thin spherical shell (a circle's ring in 2D), float64 */
    SET_DUPLICATES, /* uniform points, a third of them copied under other ids, and n / 10 copies of the centre */
    SET_PLANES,     /* points on the planes x = k/8 and y = k/8 (the splits' planes), float64 */
    SET_COUNT
} set_kind;

static const char *const set_names[] = {"uniform", "normal", "clustered", "blobs",
                                        "lattice", "shell",  "duplicates", "planes"};

typedef struct {
    char name[64];
    int dim;
    int64_t n;
    gridemst_dtype dtype;
    void *coords;
} dataset;

static inline dataset generated(gemst_gen_kind kind, int64_t n, int dim)
{
    gemst_pointset ps;
    gridemst_error err;
    REQUIRE(gemst_generate(kind, n, dim, 7, &ps, &err) == GRIDEMST_OK, "generate: %s", err.message);
    dataset ds = {"", dim, ps.n, ps.dtype, ps.coords};
    return ds;
}

static inline dataset doubles(int64_t n, int dim)
{
    dataset ds = {"", dim, n, GRIDEMST_FLOAT64, xcalloc((size_t)(n * dim), sizeof(double))};
    return ds;
}

static inline void shuffle(double *c, int64_t n, int dim, uint64_t *seed)
{
    for (int64_t i = n; i > 1; i--) {
        int64_t j = (int64_t)rng_below(seed, (uint64_t)i);
        for (int d = 0; d < dim; d++) {
            double t = c[(i - 1) * dim + d];
            c[(i - 1) * dim + d] = c[j * dim + d];
            c[j * dim + d] = t;
        }
    }
}

/* A set of the kind in dim dimensions, of about n points (0: the kind's
 * own size: 5000 or 10000; a lattice of 64^2 or 16^3). */
static inline dataset make_set(set_kind kind, int dim, int64_t n)
{
    static const int64_t sizes[] = {10000, 5000, 5000, 10000, 0, 5000, 5000, 5000};
    if (n == 0)
        n = kind == SET_LATTICE ? (dim == 2 ? 64 * 64 : 16 * 16 * 16) : sizes[kind];
    uint64_t seed = 11 + (uint64_t)kind * 3 + (uint64_t)dim;
    dataset ds;
    switch (kind) {
    case SET_UNIFORM: ds = generated(GEMST_GEN_UNIFORM, n, dim); break;
    case SET_NORMAL: ds = generated(GEMST_GEN_NORMAL, n, dim); break;
    case SET_CLUSTERED: ds = generated(GEMST_GEN_CLUSTERED, n, dim); break;
    case SET_BLOBS: ds = generated(GEMST_GEN_BLOBS, n, dim); break;
    case SET_LATTICE: ds = generated(GEMST_GEN_LATTICE, n, dim); break;
    case SET_SHELL: {
        ds = doubles(n, dim);
        double *c = ds.coords;
        for (int64_t i = 0; i < n; i++) {
            double r = 1.0 + 1e-3 * rng_unit(&seed), t = 2 * PI * rng_unit(&seed), z = 2 * rng_unit(&seed) - 1;
            double s = dim == 3 ? sqrt(1 - z * z) : 1.0;
            c[i * dim] = r * s * cos(t);
            c[i * dim + 1] = r * s * sin(t);
            if (dim == 3)
                c[i * dim + 2] = r * z;
        }
        break;
    }
    case SET_DUPLICATES: {
        ds = doubles(n, dim);
        double *c = ds.coords;
        const int64_t base = n / 2, centre = n / 10;
        for (int64_t i = 0; i < base; i++)
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = (double)rng_below(&seed, 1024) / 1024.0; /* on dyadic planes, often */
        for (int64_t i = base; i < n - centre; i++) {
            const int64_t of = (int64_t)rng_below(&seed, (uint64_t)base);
            memcpy(&c[i * dim], &c[of * dim], sizeof *c * (size_t)dim);
        }
        for (int64_t i = n - centre; i < n; i++)
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = 0.5; /* where the first splits cross */
        shuffle(c, n, dim, &seed);
        break;
    }
    case SET_PLANES: {
        ds = doubles(n, dim);
        double *c = ds.coords;
        for (int64_t i = 0; i < n; i++) {
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = rng_unit(&seed);
            c[i * dim + (i % 2)] = (double)rng_below(&seed, 9) / 8.0;
        }
        c[0] = c[1] = 0.0; /* the box is [0, 1]: the planes are dyadic in the working frame too */
        c[dim] = c[dim + 1] = 1.0;
        break;
    }
    default: ck_abort_msg("unknown set %d", (int)kind);
    }
    snprintf(ds.name, sizeof ds.name, "%s %dD", set_names[kind], dim);
    return ds;
}

/* n points on the grid of 3 values per axis: ties and duplicates (the
 * tiny sets, smaller than the number of parts or a little larger). */
static inline dataset tiny_set(int64_t n, int dim, uint64_t *seed)
{
    dataset ds = doubles(n, dim);
    double *c = ds.coords;
    for (int64_t i = 0; i < n * dim; i++)
        c[i] = (double)rng_below(seed, 3);
    snprintf(ds.name, sizeof ds.name, "%lld points %dD", (long long)n, dim);
    return ds;
}

#endif
