/*
 * Synthetic point sets: the volume kinds, and the dispatch to every kind
 * (the surfaces and the filaments are in generate_surfaces.c and
 * generate_filaments.c).  generate_random.h says how the draws are made
 * reproducible and independent of the thread count.
 *
 * Each kind writes coordinates that are multiples of a fixed power of two
 * (its quantum) and spans fewer than 2^24 quanta, so that x - min over the
 * set is exact in float32.
 */
#include "tools/generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tools/generate_random.h"
#include "tools/generate_shapes.h"

#define NORMAL_STEPS ((int64_t)1 << 20)  /* normal: quantum 2^-20 on (-8, 8) */

/* ------------------------------------------------------------ generators */

typedef struct gen_ctx gen_ctx;
typedef void (*point_fn)(const gen_ctx *g, int64_t i, float *p);

/* One stretch of the seed spreader's walk: SPREAD_STEP points around c. */
typedef struct segment {
    double c[3];
    double r; /* r_vincinity */
} segment;

typedef struct blob_set blob_set;

struct gen_ctx {
    int dim;
    uint64_t key;         /* STREAM_POINTS */
    point_fn point;
    int64_t side;         /* lattice */
    segment *seg;         /* clustered */
    blob_set *blobs;      /* blobs */
    gemst_surfaces *surfaces;   /* shells, planes, tori */
    gemst_filaments *filaments; /* filaments */
};

/* uniform: quantum 2^-24, coordinates in [0, 1). */
static void point_uniform(const gen_ctx *g, int64_t i, float *p)
{
    rng r = rng_at(g->key, (uint64_t)i);
    for (int d = 0; d < g->dim; d++)
        p[d] = (float)rng_u24(&r) * UNIT_QUANTUM;
}

/* normal: quantum 2^-20, coordinates rounded and clamped into (-8, 8), i.e.
 * |k| < 2^23 quanta (|z| >= 8 has probability 1e-15). */
static void point_normal(const gen_ctx *g, int64_t i, float *p)
{
    const double kmax = (double)(F32_EXACT / 2 - 1);
    rng r = rng_at(g->key, (uint64_t)i);
    double z[3];
    rng_normals(&r, g->dim, z);
    for (int d = 0; d < g->dim; d++) {
        double k = nearbyint(z[d] * NORMAL_STEPS);
        p[d] = (float)((k < -kmax ? -kmax : k > kmax ? kmax : k) / NORMAL_STEPS);
    }
}

/* lattice: quantum 1; point i is (i mod side, i / side mod side, i / side^2),
 * x varying fastest; side <= 2^24 is checked beforehand. */
static void point_lattice(const gen_ctx *g, int64_t i, float *p)
{
    for (int d = 0; d < g->dim; d++) {
        p[d] = (float)(i % g->side);
        i /= g->side;
    }
}

/*
 * clustered: Gan & Tao's seed spreader with varying density (SS-varden, used
 * by Wang et al. 2021), in the unit cube instead of [0, 10^5]^dim.  The
 * spreader sits at a location c and emits SPREAD_STEP points uniformly in the
 * ball B(c, r_vincinity), then shifts c by r_shift in a random direction.
 * Before each step it restarts with probability SPREAD_RESETS * SPREAD_STEP /
 * n (so about SPREAD_RESETS restarts in all, Gan & Tao's c_reset) at a
 * uniform location with a fresh r_vincinity.  Each point is replaced by
 * uniform noise with probability SPREAD_NOISE (their rho_noise).
 *
 * Gan & Tao's defaults, scaled by 10^-5: c_step = 100, c_reset = 10,
 * r_vincinity = 100 -> 1e-3, r_shift = 50 dim -> r_vincinity * dim / 2.
 * Varying density: r_vincinity = 1e-3 * 10^(2u/dim) with u uniform in [0, 1)
 * for each restart, and r_shift stays proportional to it, so the density
 * along a walk (~ SPREAD_STEP / (r^(dim-1) r_shift)) varies over a factor
 * 100 between walks.  A walk that leaves the cube is mirrored back.
 * Quantum 2^-24, coordinates in [0, 1).
 */
#define SPREAD_STEP 100
#define SPREAD_RESETS 10.0
#define SPREAD_NOISE 1e-4
#define SPREAD_R_MIN 1e-3
#define SPREAD_DENSITY_RANGE 100.0

static void point_clustered(const gen_ctx *g, int64_t i, float *p)
{
    rng r = rng_at(g->key, (uint64_t)i);
    double x[3];
    if (rng_unit(&r) < SPREAD_NOISE) {
        for (int d = 0; d < g->dim; d++)
            x[d] = rng_unit(&r);
    } else {
        const segment *s = &g->seg[i / SPREAD_STEP];
        rng_ball(&r, g->dim, x);
        for (int d = 0; d < g->dim; d++)
            x[d] = s->c[d] + s->r * x[d];
    }
    store_unit(g->dim, x, p);
}

/* The spreader's walk, one segment per SPREAD_STEP points (sequential: each
 * location follows from the previous one). */
static void spreader_walk(segment *seg, int64_t nseg, int64_t n, int dim, uint64_t key)
{
    double p_reset = SPREAD_RESETS * SPREAD_STEP / (double)n;
    for (int64_t j = 0; j < nseg; j++) {
        rng r = rng_at(key, (uint64_t)j);
        if (j == 0 || rng_unit(&r) < p_reset) {
            for (int d = 0; d < dim; d++)
                seg[j].c[d] = rng_unit(&r);
            seg[j].r = SPREAD_R_MIN * pow(SPREAD_DENSITY_RANGE, rng_unit(&r) / dim);
        } else {
            double v[3];
            double shift = seg[j - 1].r * dim / 2.0;
            rng_direction(&r, dim, v);
            for (int d = 0; d < dim; d++)
                seg[j].c[d] = fold_unit(seg[j - 1].c[d] + shift * v[d]);
            seg[j].r = seg[j - 1].r;
        }
    }
}

/*
 * blobs: BLOB_COUNT Gaussian blobs with centers uniform in the unit cube,
 * standard deviations log-uniform in [1e-4, 1e-1] and shares of the points
 * log-uniform in [1, 100] (relative), plus BLOB_NOISE of the points uniform
 * over the cube.  Each point picks noise or a blob at random, so the blobs
 * are interleaved in the output.  Points outside the cube are mirrored back
 * in (clamping would pile them onto the faces).  Quantum 2^-24, coordinates
 * in [0, 1).
 */
#define BLOB_COUNT 1000
#define BLOB_NOISE 0.01
#define BLOB_SIGMA_MIN 1e-4
#define BLOB_SIGMA_RANGE 1e3
#define BLOB_SHARE_RANGE 1e2

struct blob_set {
    double c[BLOB_COUNT][3];
    double sigma[BLOB_COUNT];
    double cdf[BLOB_COUNT];  /* the blobs' point shares (choice_pick) */
    int guide[BLOB_COUNT];
};

static void point_blobs(const gen_ctx *g, int64_t i, float *p)
{
    rng r = rng_at(g->key, (uint64_t)i);
    double x[3];
    if (rng_unit(&r) < BLOB_NOISE) {
        for (int d = 0; d < g->dim; d++)
            x[d] = rng_unit(&r);
    } else {
        int b = choice_pick(g->blobs->cdf, g->blobs->guide, BLOB_COUNT, rng_unit(&r));
        rng_normals(&r, g->dim, x);
        for (int d = 0; d < g->dim; d++)
            x[d] = g->blobs->c[b][d] + g->blobs->sigma[b] * x[d];
    }
    store_unit(g->dim, x, p);
}

static void blob_params(blob_set *bs, int dim, uint64_t key)
{
    double total = 0.0;
    for (int b = 0; b < BLOB_COUNT; b++) {
        rng r = rng_at(key, (uint64_t)b);
        for (int d = 0; d < dim; d++)
            bs->c[b][d] = rng_unit(&r);
        bs->sigma[b] = BLOB_SIGMA_MIN * pow(BLOB_SIGMA_RANGE, rng_unit(&r));
        total += pow(BLOB_SHARE_RANGE, rng_unit(&r));
        bs->cdf[b] = total;
    }
    choice_finish(bs->cdf, bs->guide, BLOB_COUNT);
}

/* A surface or filament point, from its model. */
static void point_surfaces(const gen_ctx *g, int64_t i, float *p)
{
    gemst_surfaces_point(g->surfaces, i, p);
}

static void point_filaments(const gen_ctx *g, int64_t i, float *p)
{
    gemst_filaments_point(g->filaments, i, p);
}

/* ------------------------------------------------------------ setup */

static const char *const kind_names[] = {"uniform", "normal", "clustered", "lattice",  "blobs",
                                         "shells",  "planes", "tori",      "filaments"};
#define KIND_COUNT ((int)(sizeof kind_names / sizeof kind_names[0]))

int gemst_parse_gen_kind(const char *name, gemst_gen_kind *out)
{
    for (int k = 0; k < KIND_COUNT; k++) {
        if (strcmp(name, kind_names[k]) == 0) {
            *out = (gemst_gen_kind)k;
            return 0;
        }
    }
    return -1;
}

const char *gemst_gen_kind_name(gemst_gen_kind k)
{
    return (int)k >= 0 && (int)k < KIND_COUNT ? kind_names[k] : "unknown";
}

int gemst_gen_kind_has_dim(gemst_gen_kind k, int dim)
{
    return (dim == 2 || dim == 3) && (k != GEMST_GEN_TORI || dim == 3);
}

static int64_t power_dim(int64_t s, int dim)
{
    return dim == 2 ? s * s : s * s * s;
}

/* Smallest s with s^dim >= n (n >= 1 small enough that s^dim fits, which
 * the size check guarantees); pow() may be off by one either way. */
static int64_t lattice_side(int64_t n, int dim)
{
    int64_t s = (int64_t)ceil(pow((double)n, 1.0 / dim));
    while (s > 1 && power_dim(s - 1, dim) >= n)
        s--;
    while (power_dim(s, dim) < n)
        s++;
    return s;
}

static void *alloc_or_fail(size_t bytes, const char *what, gridemst_error *err, int *rc)
{
    void *p = malloc(bytes);
    if (!p)
        *rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory allocating %zu bytes for %s", bytes, what);
    return p;
}

/* Fills g for a valid kind; may allocate (released by ctx_free). */
static int ctx_init(gen_ctx *g, gemst_gen_kind kind, int64_t n, int dim, uint64_t seed, gridemst_error *err)
{
    int rc = GRIDEMST_OK;
    memset(g, 0, sizeof *g);
    g->dim = dim;
    g->key = stream_key(seed, kind, STREAM_POINTS);
    switch (kind) {
    case GEMST_GEN_UNIFORM:
        g->point = point_uniform;
        break;
    case GEMST_GEN_NORMAL:
        g->point = point_normal;
        break;
    case GEMST_GEN_LATTICE:
        g->point = point_lattice;
        g->side = lattice_side(n, dim);
        if (g->side > F32_EXACT)
            rc = gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                            "a lattice of %lld points needs coordinates of 2^24 or more", (long long)n);
        break;
    case GEMST_GEN_CLUSTERED: {
        int64_t nseg = (n + SPREAD_STEP - 1) / SPREAD_STEP;
        g->point = point_clustered;
        g->seg = alloc_or_fail((size_t)nseg * sizeof *g->seg, "the seed spreader's walk", err, &rc);
        if (g->seg)
            spreader_walk(g->seg, nseg, n, dim, stream_key(seed, kind, STREAM_SEGMENTS));
        break;
    }
    case GEMST_GEN_BLOBS:
        g->point = point_blobs;
        g->blobs = alloc_or_fail(sizeof *g->blobs, "blob parameters", err, &rc);
        if (g->blobs)
            blob_params(g->blobs, dim, stream_key(seed, kind, STREAM_BLOBS));
        break;
    case GEMST_GEN_SHELLS:
    case GEMST_GEN_PLANES:
    case GEMST_GEN_TORI:
        g->point = point_surfaces;
        g->surfaces = alloc_or_fail(sizeof *g->surfaces, "the surfaces", err, &rc);
        if (g->surfaces)
            gemst_surfaces_init(g->surfaces, kind, n, dim, seed);
        break;
    case GEMST_GEN_FILAMENTS:
        g->point = point_filaments;
        g->filaments = alloc_or_fail(sizeof *g->filaments, "the filaments", err, &rc);
        if (g->filaments)
            rc = gemst_filaments_init(g->filaments, n, dim, seed, err);
        break;
    }
    return rc;
}

static void ctx_free(gen_ctx *g)
{
    free(g->seg);
    free(g->blobs);
    free(g->surfaces);
    if (g->filaments)
        gemst_filaments_free(g->filaments);
    free(g->filaments);
}

int gemst_generate(gemst_gen_kind kind, int64_t n, int dim, uint64_t seed, gemst_pointset *out, gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    if ((int)kind < 0 || (int)kind >= KIND_COUNT)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown generator kind %d", (int)kind);
    if (dim != 2 && dim != 3)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "points must have 2 or 3 coordinates, not %d", dim);
    if (!gemst_gen_kind_has_dim(kind, dim))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the %s generator makes 3D points only, not %dD",
                          kind_names[kind], dim);
    if (n < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "negative point count %lld", (long long)n);
    if ((uint64_t)n > SIZE_MAX / (sizeof(float) * (size_t)dim))
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%lld points of dimension %d need %.0f bytes, beyond size_t",
                          (long long)n, dim, (double)n * dim * sizeof(float));

    float *coords = NULL;
    if (n > 0) {
        gen_ctx g;
        int rc = ctx_init(&g, kind, n, dim, seed, err);
        if (rc == GRIDEMST_OK)
            coords = alloc_or_fail((size_t)n * (size_t)dim * sizeof *coords, "generated points", err, &rc);
        if (rc == GRIDEMST_OK) {
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < n; i++)
                g.point(&g, i, coords + i * dim);
        }
        ctx_free(&g);
        if (rc != GRIDEMST_OK)
            return rc;
    }
    out->n = n;
    out->dim = dim;
    out->dtype = GRIDEMST_FLOAT32;
    out->coords = coords;
    out->is_tsplib = 0;
    return GRIDEMST_OK;
}
