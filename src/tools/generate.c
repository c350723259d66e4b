/*
 * Synthetic point sets.
 *
 * Every random number comes from a counter-based generator: item j (a point,
 * a spreader segment, a blob) of a stream draws mix64(base + k * GOLDEN) for
 * k = 1, 2, ..., where base hashes the stream's key (seed and purpose) with
 * j.  A point's coordinates are therefore a pure function of (kind, n, dim,
 * seed, i), and the loop over points runs in parallel with a result that does
 * not depend on the thread count.  (Kinds that call log, pow, cos or sin are
 * reproducible wherever the C library gives the same results for them.)
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

/* ------------------------------------------------------------ random numbers */

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define TWO_PI 6.283185307179586476925

/* Stream purposes, hashed into the key with the seed. */
enum { STREAM_POINTS = 1, STREAM_SEGMENTS, STREAM_BLOBS };

/* A bijective 64-bit mixer (the splitmix64 finalizer). */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The draws of one item of one stream. */
typedef struct rng {
    uint64_t base;
    uint64_t k;
} rng;

static uint64_t stream_key(uint64_t seed, gemst_gen_kind kind, int purpose)
{
    return mix64(seed ^ mix64(GOLDEN * (uint64_t)(16 * (int)kind + purpose)));
}

static inline rng rng_at(uint64_t key, uint64_t item)
{
    rng r = {mix64(key + mix64(item)), 0};
    return r;
}

static inline uint64_t rng_next(rng *r)
{
    r->k++;
    return mix64(r->base + r->k * GOLDEN);
}

/* Integer uniform in [0, 2^24). */
static inline uint32_t rng_u24(rng *r)
{
    return (uint32_t)(rng_next(r) >> 40);
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

/* dim independent standard normals (Marsaglia's polar method, one pair per
 * two axes: a log and a square root per pair, no trigonometry). */
static inline void rng_normals(rng *r, int dim, double z[3])
{
    for (int d = 0; d < dim; d += 2) {
        double u, v, q;
        do {
            u = 2.0 * rng_unit(r) - 1.0;
            v = 2.0 * rng_unit(r) - 1.0;
            q = u * u + v * v;
        } while (q >= 1.0 || q == 0.0);
        double f = sqrt(-2.0 * log(q) / q);
        z[d] = u * f;
        if (d + 1 < dim)
            z[d + 1] = v * f;
    }
}

/* Uniform in the unit ball, by rejection from [-1, 1)^dim (accepts pi/4 of
 * the draws in 2D, pi/6 in 3D: cheaper than trigonometry). */
static inline void rng_ball(rng *r, int dim, double v[3])
{
    for (;;) {
        double q = 0.0;
        for (int d = 0; d < dim; d++) {
            v[d] = 2.0 * rng_unit(r) - 1.0;
            q += v[d] * v[d];
        }
        if (q < 1.0)
            return;
    }
}

/* Uniform on the unit sphere (circle in 2D). */
static void rng_direction(rng *r, int dim, double v[3])
{
    double ang = TWO_PI * rng_unit(r);
    double h = dim == 3 ? 2.0 * rng_unit(r) - 1.0 : 0.0;
    double s = sqrt(1.0 - h * h);
    v[0] = s * cos(ang);
    v[1] = s * sin(ang);
    if (dim == 3)
        v[2] = h;
}

/* ------------------------------------------------------------ quantization */

/* float32 holds the integers below 2^24 exactly: every kind spans fewer than
 * F32_EXACT of its quanta, so x - min is exact. */
#define F32_EXACT ((int64_t)1 << 24)
#define UNIT_QUANTUM (1.0f / F32_EXACT)  /* 2^-24: uniform, clustered, blobs on [0, 1) */
#define NORMAL_STEPS ((int64_t)1 << 20)  /* normal: quantum 2^-20 on (-8, 8) */

/* Reflects x into [0, 1] (a mirror at each face of the unit cube). */
static inline double fold_unit(double x)
{
    if (x >= 0.0 && x <= 1.0)
        return x;
    double t = fmod(x, 2.0);
    if (t < 0.0)
        t += 2.0;
    return t > 1.0 ? 2.0 - t : t;
}

/* x in [0, 1] to a multiple of 2^-24 in [0, 1). */
static inline float quantize_unit(double x)
{
    int64_t k = (int64_t)(x * F32_EXACT);
    return (float)(k < F32_EXACT - 1 ? k : F32_EXACT - 1) * UNIT_QUANTUM;
}

/* Writes x folded into the unit cube and quantized. */
static inline void store_unit(int dim, const double x[3], float *p)
{
    for (int d = 0; d < dim; d++)
        p[d] = quantize_unit(fold_unit(x[d]));
}

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
    double cdf[BLOB_COUNT];  /* cumulative point shares, the last exactly 1 */
    int guide[BLOB_COUNT];   /* guide[k]: the first blob with cdf > k / BLOB_COUNT */
};

/* The blob whose cumulative share first exceeds u in [0, 1): the guide table
 * leaves about one step of linear search (a binary search would cost ten
 * mispredicted branches per point). */
static int blob_pick(const blob_set *bs, double u)
{
    int b = bs->guide[(int)(u * BLOB_COUNT)];
    while (bs->cdf[b] <= u)
        b++;
    return b;
}

static void point_blobs(const gen_ctx *g, int64_t i, float *p)
{
    rng r = rng_at(g->key, (uint64_t)i);
    double x[3];
    if (rng_unit(&r) < BLOB_NOISE) {
        for (int d = 0; d < g->dim; d++)
            x[d] = rng_unit(&r);
    } else {
        int b = blob_pick(g->blobs, rng_unit(&r));
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
    for (int b = 0; b < BLOB_COUNT; b++)
        bs->cdf[b] /= total;
    bs->cdf[BLOB_COUNT - 1] = 1.0;
    for (int k = 0, b = 0; k < BLOB_COUNT; k++) {
        while (bs->cdf[b] <= (double)k / BLOB_COUNT)
            b++;
        bs->guide[k] = b;
    }
}

/* ------------------------------------------------------------ setup */

static const char *const kind_names[] = {"uniform", "normal", "clustered", "lattice", "blobs"};
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
    }
    return rc;
}

static void ctx_free(gen_ctx *g)
{
    free(g->seg);
    free(g->blobs);
}

int gemst_generate(gemst_gen_kind kind, int64_t n, int dim, uint64_t seed, gemst_pointset *out, gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    if ((int)kind < 0 || (int)kind >= KIND_COUNT)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown generator kind %d", (int)kind);
    if (dim != 2 && dim != 3)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "points must have 2 or 3 coordinates, not %d", dim);
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
