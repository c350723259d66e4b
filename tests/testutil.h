/* Helpers shared by the Check test programs. */
#ifndef GEMST_TESTUTIL_H
#define GEMST_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"

/* Files shipped with the sources (GEMST_SRCDIR is set by Makefile.am). */
#define TEST_DATA(name) GEMST_SRCDIR "/tests/data/" name
#define TSPLIB_FILE(name) GEMST_SRCDIR "/tsplib/" name

/* Runs a suite; the exit status automake expects (0 pass, 1 fail).  Where
 * a GPU is present the tests run in this process: CUDA is not fork-safe,
 * and a test that Check forks from a process that has initialised CUDA
 * (as counting the devices does) may hang in the GPU's first call. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    if (gridemst_cuda_device_count() > 0)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A CUDA test's suite, run; or exit status 77 (skipped) where no GPU is
 * present. */
static inline int run_gpu_suite(Suite *s)
{
    if (gridemst_cuda_device_count() == 0) {
        srunner_free(srunner_create(s));
        printf("no CUDA device: skipped\n");
        return 77;
    }
    return run_suite(s);
}

/* Assertions that cost nothing when they hold (Check records every passing
 * ck_assert, which is slow in tight loops). */
#define REQUIRE(cond, ...)                                                                                        \
    do {                                                                                                          \
        if (!(cond))                                                                                              \
            ck_abort_msg(__VA_ARGS__);                                                                            \
    } while (0)
#define REQUIRE_TRUE(cond) REQUIRE(cond, "assertion failed: %s", #cond)
#define REQUIRE_CMP(a, op, b)                                                                                     \
    do {                                                                                                          \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                       \
        if (!(a_ op b_))                                                                                          \
            ck_abort_msg("assertion failed: %s %s %s (%lld vs %lld)", #a, #op, #b, a_, b_);                       \
    } while (0)

/* splitmix64: a tiny deterministic generator for test data. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, m). */
static inline uint64_t rng_below(uint64_t *s, uint64_t m)
{
    return rng_next(s) % m;
}

static inline void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* n points of dim coordinates uniform in [0, 1), interleaved: all pairwise
 * distances distinct (almost surely), so a unique tree and hierarchy. */
static inline double *random_points(int64_t n, int dim, uint64_t seed)
{
    double *p = xcalloc((size_t)(n * dim), sizeof *p);
    for (int64_t i = 0; i < n * dim; i++)
        p[i] = rng_unit(&seed);
    return p;
}

/* The per-iteration times add up to the phase totals, and the component
 * counts start at the unique points and at least halve each iteration. */
static inline void check_iteration_stats(const gridemst_stats *st, const char *what)
{
    REQUIRE(st->iterations >= 0 && st->iterations <= GRIDEMST_MAX_ITERATIONS, "%s: %d iterations", what,
            st->iterations);
    double f1 = st->time_ms.prepare, f2 = 0.0, merge = 0.0;
    for (int k = 0; k < st->iterations; k++) {
        const gridemst_iteration_times *it = &st->iteration_ms[k];
        int64_t expected_max = k == 0 ? st->n_unique : st->iteration_ms[k - 1].components / 2;
        REQUIRE(it->components >= 2 && it->components <= expected_max && (k > 0 || it->components == st->n_unique),
                "%s: iteration %d starts with %lld components", what, k + 1, (long long)it->components);
        REQUIRE(it->findmin1 >= 0 && it->findmin2 >= 0 && it->connect >= 0 && it->flatten >= 0,
                "%s: iteration %d has a negative time", what, k + 1);
        f1 += it->findmin1;
        f2 += it->findmin2;
        merge += it->connect + it->flatten;
    }
    const double tol = 1e-9 * (st->time_ms.findmin1 + st->time_ms.findmin2 + st->time_ms.merge) + 1e-12;
    REQUIRE(fabs(f1 - st->time_ms.findmin1) <= tol && fabs(f2 - st->time_ms.findmin2) <= tol &&
                fabs(merge - st->time_ms.merge) <= tol,
            "%s: per-iteration times do not add up to the phase totals", what);
    REQUIRE(st->time_ms.grid + f1 + f2 + merge <= st->time_ms.total * (1 + 1e-9) + 1e-3,
            "%s: the phases take longer than the solve", what);
}

/* Whether two trees have the identical edge list. */
static inline int same_edges(const gridemst_result *a, const gridemst_result *b)
{
    return a->n_edges == b->n_edges &&
           (a->n_edges == 0 || memcmp(a->edges, b->edges, sizeof *a->edges * (size_t)a->n_edges) == 0);
}

/* The tree for options o; the test stops on failure. */
static inline gridemst_result solve_with(const void *coords, gridemst_dtype dtype, int64_t n, int dim,
                                         const gridemst_options *o)
{
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    int rc = gridemst_solve(coords, dtype, n, dim, o, &r, &err);
    REQUIRE(rc == GRIDEMST_OK, "solve failed: %s", err.message);
    return r;
}

/* Options for the CPU backend with `threads` threads (0: OpenMP's
 * default), the rest the defaults. */
static inline gridemst_options cpu_defaults(int threads)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.threads = threads;
    return o;
}

/* The tree from the CPU backend; the test stops on failure. */
static inline gridemst_result solve_cpu(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int threads,
                                        gridemst_precision precision)
{
    gridemst_options o = cpu_defaults(threads);
    o.precision = precision;
    return solve_with(coords, dtype, n, dim, &o);
}

#endif
