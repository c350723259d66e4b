/*
 * What every generator draws with (src/tools/generate*.c): a counter-based
 * random number generator, draws of common distributions, a weighted choice
 * among a set's components, and the quantized storage of coordinates.
 *
 * Every random number comes from a counter-based generator: item j (a point,
 * a spreader segment, a blob, a surface) of a stream draws mix64(base + k *
 * GOLDEN) for k = 1, 2, ..., where base hashes the stream's key (seed, kind
 * and purpose) with j.  A point's coordinates are therefore a pure function
 * of (kind, n, dim, seed, i), and the loop over points runs in parallel with
 * a result that does not depend on the thread count.  (Kinds that call log,
 * pow, cos or sin are reproducible wherever the C library gives the same
 * results for them.)
 */
#ifndef GEMST_GENERATE_RANDOM_H
#define GEMST_GENERATE_RANDOM_H

#include <math.h>
#include <stdint.h>

/* ------------------------------------------------------------ random numbers */

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define TWO_PI 6.283185307179586476925

/* Stream purposes, hashed into the key with the seed and the kind. */
enum { STREAM_POINTS = 1, STREAM_SEGMENTS, STREAM_BLOBS, STREAM_SHAPES };

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

/* The key of a kind's stream (kind: a gemst_gen_kind). */
static inline uint64_t stream_key(uint64_t seed, int kind, int purpose)
{
    return mix64(seed ^ mix64(GOLDEN * (uint64_t)(16 * kind + purpose)));
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

/* Log-uniform in [lo, lo * ratio). */
static inline double rng_log_uniform(rng *r, double lo, double ratio)
{
    return lo * pow(ratio, rng_unit(r));
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

/* Uniform in the unit ball of dimension dim (1 to 3), by rejection from
 * [-1, 1)^dim (accepts pi/4 of the draws in 2D, pi/6 in 3D: cheaper than
 * trigonometry). */
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
static inline void rng_direction(rng *r, int dim, double v[3])
{
    double ang = TWO_PI * rng_unit(r);
    double h = dim == 3 ? 2.0 * rng_unit(r) - 1.0 : 0.0;
    double s = sqrt(1.0 - h * h);
    v[0] = s * cos(ang);
    v[1] = s * sin(ang);
    if (dim == 3)
        v[2] = h;
}

/* ------------------------------------------------------------ weighted choice */

/*
 * A choice among count components (blobs, surfaces, curves) with given
 * weights: cdf[] holds the cumulative weights, normalized by choice_finish,
 * and guide[k] the first component with cdf > k / count, so that a pick
 * costs about one step of linear search (a binary search would cost ten
 * mispredicted branches per point).
 */

/* Turns cdf[], the running sums of the weights, into the cumulative shares
 * (the last exactly 1) and fills guide[count]. */
static inline void choice_finish(double *cdf, int *guide, int count)
{
    double total = cdf[count - 1];
    for (int b = 0; b < count; b++)
        cdf[b] /= total;
    cdf[count - 1] = 1.0;
    for (int k = 0, b = 0; k < count; k++) {
        while (cdf[b] <= (double)k / count)
            b++;
        guide[k] = b;
    }
}

/* The component whose cumulative share first exceeds u in [0, 1). */
static inline int choice_pick(const double *cdf, const int *guide, int count, double u)
{
    int b = guide[(int)(u * count)];
    while (cdf[b] <= u)
        b++;
    return b;
}

/* ------------------------------------------------------------ quantization */

/* float32 holds the integers below 2^24 exactly: every kind spans fewer than
 * F32_EXACT of its quanta, so x - min is exact. */
#define F32_EXACT ((int64_t)1 << 24)
#define UNIT_QUANTUM (1.0f / F32_EXACT) /* 2^-24: the kinds on [0, 1) */

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

#endif
