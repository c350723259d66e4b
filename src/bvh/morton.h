/*
 * 64-bit Morton codes of points mapped into [0, 1] (gemst_morton_in), for
 * the linear BVH (Karras 2012).  2D: 32 bits per axis; 3D: 21 bits per axis.
 * The mapping subtracts the box's corner and scales by a power of two, and
 * quantisation multiplies by a power of two and truncates: each step is one
 * correctly rounded double operation (none fuses into an FMA), so that the
 * CPU and the GPU give every point the same code.
 *
 * Distinct points may share a code (float coordinates near 0, or 3D
 * coordinates finer than 2^-21): the tree breaks such ties by leaf index
 * (gemst_bvh_delta), never by the code alone.
 */
#ifndef GEMST_MORTON_H
#define GEMST_MORTON_H

#include "common.h"

/* Key bits the radix sort must look at. */
#define GEMST_MORTON_BITS 64

static inline GEMST_HD int gemst_clz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

static inline GEMST_HD int gemst_clz32(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __clz((int)x);
#else
    return x ? __builtin_clz(x) : 32;
#endif
}

/* v in [0, 1] to an integer in [0, 2^bits), as floor(v 2^bits) capped. */
static inline GEMST_HD uint64_t gemst_morton_quantize(double v, int bits)
{
    const double top = (double)((uint64_t)1 << bits);
    double s = v * top;
    if (!(s > 0.0))
        return 0;
    return s >= top ? ((uint64_t)1 << bits) - 1 : (uint64_t)s;
}

/* The 32 low bits of v spread to the even bits of the result. */
static inline GEMST_HD uint64_t gemst_morton_spread2(uint64_t v)
{
    v &= 0xffffffffull;
    v = (v | (v << 16)) & 0x0000ffff0000ffffull;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
    v = (v | (v << 2)) & 0x3333333333333333ull;
    v = (v | (v << 1)) & 0x5555555555555555ull;
    return v;
}

/* The 21 low bits of v spread to every third bit of the result. */
static inline GEMST_HD uint64_t gemst_morton_spread3(uint64_t v)
{
    v &= 0x1fffffull;
    v = (v | (v << 32)) & 0x001f00000000ffffull;
    v = (v | (v << 16)) & 0x001f0000ff0000ffull;
    v = (v | (v << 8)) & 0x100f00f00f00f00full;
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}

/* The Morton code of a point (z ignored in 2D); x's bit is the lowest of
 * each group. */
static inline GEMST_HD uint64_t gemst_morton(int dim, double x, double y, double z)
{
    if (dim == 2)
        return gemst_morton_spread2(gemst_morton_quantize(x, 32)) |
               (gemst_morton_spread2(gemst_morton_quantize(y, 32)) << 1);
    return gemst_morton_spread3(gemst_morton_quantize(x, 21)) |
           (gemst_morton_spread3(gemst_morton_quantize(y, 21)) << 1) |
           (gemst_morton_spread3(gemst_morton_quantize(z, 21)) << 2);
}

/* The Morton code of working point p (p[2] ignored in 2D) in the box of
 * corner lo, unit a power of two that maps the box's sides into [0, 1]. */
static inline GEMST_HD uint64_t gemst_morton_in(int dim, const double p[3], const double lo[3], double unit)
{
    return gemst_morton(dim, (p[0] - lo[0]) * unit, (p[1] - lo[1]) * unit, (p[2] - lo[2]) * unit);
}

#endif
