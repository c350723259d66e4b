/*
 * A partitioned solve's arithmetic.  Its parts compute working coordinates
 * and squared distances bit for bit as the solver does (the whole set's
 * frame, grid/grid_plan.h; gemst_sq_dist, nns/ring.h), in the working
 * precision, so that every edge it compares has the length the single
 * solve gives it.  Coordinates are held as doubles, which hold float32
 * values exactly; in 2D the third is 0.
 */
#ifndef GEMST_PARTS_WORKING_H
#define GEMST_PARTS_WORKING_H

#include "common.h"
#include "grid/grid_plan.h"

/* The squared distance the solver computes between working points a, b. */
double gemst_parts_d2_f32(int dim, const double a[3], const double b[3]);
double gemst_parts_d2_f64(int dim, const double a[3], const double b[3]);

/* The precision in force. */
typedef struct gemst_parts_metric {
    int dim;
    int in_double; /* options.precision is double */
} gemst_parts_metric;

static inline double gemst_parts_d2(const gemst_parts_metric *m, const double a[3], const double b[3])
{
    return m->in_double ? gemst_parts_d2_f64(m->dim, a, b) : gemst_parts_d2_f32(m->dim, a, b);
}

/* Caller coordinate v along axis d in the working frame and precision, as
 * the solver rounds it (on the host and on the devices alike). */
static inline GEMST_HD double gemst_parts_working(const gemst_parts_metric *m, const gemst_frame *f, double v, int d)
{
    const double w = gemst_frame_working(f, v, d);
    return m->in_double ? w : (double)(float)w;
}

/*
 * A lower bound on the squared distance the solver computes between two
 * points whose exact squared distance (of their working coordinates) is
 * at least d2, given d2 itself computed in double.  The solver's rounding
 * (a few units in the last place of float32, far less in double, plus at
 * most a few of the smallest subnormals where squares underflow) stays
 * within the margins.  Non-decreasing in d2, so that the least of the
 * bounds of several points is the bound of their least d2.
 */
static inline GEMST_HD double gemst_parts_lower(double d2)
{
#ifdef __CUDA_ARCH__ /* rounded step by step as on the host, not fused into a multiply-add */
    return __dadd_rn(__dmul_rn(d2, 1.0 - 0x1p-20), -0x1p-140);
#else
    return d2 * (1.0 - 0x1p-20) - 0x1p-140;
#endif
}

#endif
