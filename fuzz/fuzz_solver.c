/*
 * The differential solver fuzzer.  Each case is a small random point set
 * built to be hard on the arithmetic: magnitudes from 1e-320 to 1e308 mixed
 * in one set, duplicates, near duplicates a few units in the last place
 * apart, ties (lattices), collinear and cocircular or cospherical points
 * (integer points of a circle or sphere), clusters, signed zeros, huge
 * offsets.  Each is solved in both precisions with every search (the grid
 * with each pruning, the late BVH, the BVH), both FindMin2 methods, with
 * and without crowded cells' grids, on the CPU backend and, where a GPU is
 * present, the CUDA backend.  Every outcome must be what the independent
 * reference says (src/tools/expected.h): exactly the tree Prim computes on
 * the documented working points, edge for edge and bit for bit, or a
 * refusal the reference explains.  A solve that gives no answer within
 * --alarm seconds is a hang, and fails.
 *
 * Float precision is held to the same exactness as double: its contract is
 * the exact tree of the float32 working points under float32 squared
 * distances, which the reference computes as documented.  Checking only
 * that lengths agree within float rounding would let a search that skips a
 * point pass wherever the skipped edge is within rounding of the one taken.
 *
 *   fuzz_solver                      cases 1 to 2500 (make check)
 *   fuzz_solver --cases 2501-90000   another range, by hand
 *   fuzz_solver --seconds 3600       from the range's first case on, for an hour
 *   fuzz_solver --print 123          case 123 as text the gridemst tool reads
 *   fuzz_solver --cuda-every 1       the GPU's solves for every case, not every 10th
 *
 * A failure prints the case, the options and the reason, and a command
 * that reproduces it with the gridemst tool; the exit status is 1.
 */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gridemst.h"
#include "tools/expected.h"

#define MAX_N 400

/* ----------------------------------------------------------------- cases */

/* splitmix64 */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t m)
{
    return next(s) % m;
}

static double unit(uint64_t *s)
{
    return (double)(next(s) >> 11) * 0x1.0p-53;
}

/* One in k. */
static int chance(uint64_t *s, uint64_t k)
{
    return below(s, k) == 0;
}

typedef struct {
    uint64_t seed;
    int64_t n;
    int dim;
    int float_input;   /* the caller's coordinates are float32 */
    double occupancy;  /* gridemst_options.tuning.cell_occupancy */
    double c[MAX_N * 3];
    float f[MAX_N * 3];
} fuzz_case;

/* Integer points of the circle or sphere of radius r (at most max): the
 * lattice points a circle or sphere passes through all lie at distance r. */
static int sphere_points(int dim, int r, int max, int out[][3])
{
    int k = 0;
    for (int x = -r; x <= r; x++)
        for (int y = -r; y <= r; y++)
            for (int z = dim == 3 ? -r : 0; z <= (dim == 3 ? r : 0); z++)
                if (x * x + y * y + z * z == r * r && k < max) {
                    out[k][0] = x;
                    out[k][1] = y;
                    out[k][2] = z;
                    k++;
                }
    return k;
}

/* The base shape, in coordinates of order 1. */
static void make_shape(fuzz_case *fc, uint64_t *s)
{
    const int dim = fc->dim;
    double *c = fc->c;
    switch (below(s, 6)) {
    case 0: /* uniform */
        for (int64_t i = 0; i < fc->n * dim; i++)
            c[i] = unit(s);
        break;
    case 1: { /* a lattice of few values per axis: ties everywhere */
        int side = 2 + (int)below(s, 6);
        for (int64_t i = 0; i < fc->n * dim; i++)
            c[i] = (double)below(s, (uint64_t)side);
        break;
    }
    case 2: { /* on a line, evenly spaced or not */
        double a[3], b[3];
        int even = chance(s, 2);
        for (int d = 0; d < dim; d++) {
            a[d] = (double)below(s, 5);
            b[d] = (double)below(s, 3);
        }
        b[0] += 1;
        for (int64_t i = 0; i < fc->n; i++) {
            double t = even ? (double)i : unit(s) * (double)fc->n;
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = a[d] + t * b[d];
        }
        break;
    }
    case 3: { /* integer points of a circle or sphere, and its centre */
        static const int radii[] = {5, 13, 25, 65};
        int pts[MAX_N][3];
        int k = sphere_points(dim, radii[below(s, 4)], MAX_N, pts);
        for (int64_t i = 0; i < fc->n; i++) {
            int64_t j = i == 0 ? -1 : (int64_t)below(s, (uint64_t)k);
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = j < 0 ? 0.0 : (double)pts[j][d];
        }
        break;
    }
    case 4: { /* clusters far smaller than their distances */
        int clusters = 1 + (int)below(s, 4);
        double spread = ldexp(1.0, -(int)below(s, 60));
        double centre[4][3];
        for (int k = 0; k < clusters; k++)
            for (int d = 0; d < dim; d++)
                centre[k][d] = unit(s);
        for (int64_t i = 0; i < fc->n; i++) {
            int k = (int)below(s, (uint64_t)clusters);
            for (int d = 0; d < dim; d++)
                c[i * dim + d] = centre[k][d] + spread * unit(s);
        }
        break;
    }
    default: /* points a few units in the last place from others */
        for (int64_t i = 0; i < fc->n; i++)
            for (int d = 0; d < dim; d++) {
                double v = i < 4 || chance(s, 3) ? unit(s) : c[below(s, (uint64_t)i) * dim + d];
                for (int k = (int)below(s, 4); k > 0; k--)
                    v = nextafter(v, chance(s, 2) ? INFINITY : -INFINITY);
                c[i * dim + d] = v;
            }
        break;
    }
}

/* Magnitudes: 1 to 3 powers of ten from 1e-320 to 1e300 in one set, by
 * point or by axis, and at times a huge offset, which rounds the small
 * coordinates away. */
static void mix_magnitudes(fuzz_case *fc, uint64_t *s)
{
    const int dim = fc->dim;
    double scales[3];
    int kinds = 1 + (int)below(s, 3);
    for (int k = 0; k < kinds; k++) {
        int e = (int)below(s, 601) - 300;
        if (chance(s, 10))
            e = -310 - (int)below(s, 14); /* subnormal */
        scales[k] = fc->float_input ? pow(10.0, (double)(e % 30)) : pow(10.0, (double)e);
    }
    int by_axis = chance(s, 3);
    for (int64_t i = 0; i < fc->n; i++) {
        int k = (int)below(s, (uint64_t)kinds);
        for (int d = 0; d < dim; d++)
            fc->c[i * dim + d] *= scales[by_axis ? d % kinds : k];
    }
    if (chance(s, 4)) {
        double offset = pow(10.0, (double)below(s, fc->float_input ? 30 : 300)) * (chance(s, 2) ? 1 : -1);
        int d = (int)below(s, (uint64_t)dim);
        for (int64_t i = 0; i < fc->n; i++)
            fc->c[i * dim + d] += offset;
    }
    if (chance(s, 12)) /* a coordinate near the largest double */
        fc->c[below(s, (uint64_t)(fc->n * dim))] = (chance(s, 2) ? 1 : -1) * (1.0 - 0.5 * unit(s)) * DBL_MAX;
}

/* Duplicates, near duplicates and signed zeros. */
static void copy_points(fuzz_case *fc, uint64_t *s)
{
    const int dim = fc->dim;
    if (chance(s, 3))
        for (int64_t k = fc->n / 5; k >= 0; k--) {
            int64_t i = (int64_t)below(s, (uint64_t)fc->n), j = (int64_t)below(s, (uint64_t)fc->n);
            memcpy(&fc->c[i * dim], &fc->c[j * dim], sizeof *fc->c * dim);
        }
    if (chance(s, 3))
        for (int64_t k = fc->n / 5; k >= 0; k--) {
            int64_t i = (int64_t)below(s, (uint64_t)fc->n), j = (int64_t)below(s, (uint64_t)fc->n);
            memcpy(&fc->c[i * dim], &fc->c[j * dim], sizeof *fc->c * dim);
            double *v = &fc->c[i * dim + below(s, (uint64_t)dim)];
            *v = nextafter(*v, chance(s, 2) ? INFINITY : -INFINITY);
        }
    if (chance(s, 4))
        for (int64_t i = 0; i < fc->n * dim; i++)
            if (chance(s, 3))
                fc->c[i] = chance(s, 2) ? 0.0 : -0.0;
}

static void make_case(uint64_t seed, fuzz_case *fc)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 17;
    static const double occupancies[] = {0.0, 0.0, 0.05, 1.0, 64.0};
    fc->seed = seed;
    fc->dim = 2 + (int)below(&s, 2);
    fc->n = chance(&s, 8) ? 2 + (int64_t)below(&s, 5) : chance(&s, 5) ? 100 + (int64_t)below(&s, MAX_N - 99)
                                                                      : 2 + (int64_t)below(&s, 60);
    fc->float_input = chance(&s, 8);
    fc->occupancy = occupancies[below(&s, 5)];
    make_shape(fc, &s);
    mix_magnitudes(fc, &s);
    copy_points(fc, &s);
    for (int64_t i = 0; i < fc->n * fc->dim; i++) {
        if (!isfinite(fc->c[i]))
            fc->c[i] = 0.0;
        if (fc->float_input) {
            fc->f[i] = isfinite((float)fc->c[i]) ? (float)fc->c[i] : 0.0f;
            fc->c[i] = fc->f[i];
        }
    }
}

static void print_case(FILE *out, const fuzz_case *fc)
{
    fprintf(out, "# fuzz_solver case %llu: %lld points, %dD%s\n", (unsigned long long)fc->seed, (long long)fc->n,
            fc->dim, fc->float_input ? ", float32 input" : "");
    for (int64_t i = 0; i < fc->n; i++)
        for (int d = 0; d < fc->dim; d++)
            fprintf(out, "%.17g%c", fc->c[i * fc->dim + d], d + 1 < fc->dim ? ' ' : '\n');
}

/* ----------------------------------------------------------------- solves */

/* The searches: the grid with each pruning, static pruning with the late
 * BVH from iteration 1, the BVH. */
#define SEARCHES 5

static const char *search_flags(int search)
{
    static const char *flags[SEARCHES] = {"--prune none", "--prune dynamic", "--prune static",
                                          "--prune static --late-bvh 1", "--nns bvh"};
    return flags[search];
}

static gridemst_options options(const fuzz_case *fc, gridemst_backend backend, int prec, int search, int list,
                                int crowded)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = backend;
    o.precision = prec;
    o.threads = 1;
    o.tuning.cell_occupancy = fc->occupancy;
    o.tuning.findmin2 = list ? GRIDEMST_FINDMIN2_LIST : GRIDEMST_FINDMIN2_ATOMIC;
    o.tuning.crowded_cell = crowded;
    if (search == SEARCHES - 1) {
        o.nns = GRIDEMST_NNS_BVH;
    } else {
        o.nns = GRIDEMST_NNS_GRID;
        o.tuning.prune = search == 0   ? GRIDEMST_PRUNE_NONE
                         : search == 1 ? GRIDEMST_PRUNE_DYNAMIC
                                       : GRIDEMST_PRUNE_STATIC;
        o.tuning.late_bvh = search == 3 ? 1 : 0;
    }
    return o;
}

/* What the alarm reports: the solve under way. */
static char current[512];
static unsigned alarm_seconds = 20;

/* Cases whose seed is a multiple of this are solved on the GPU too (where
 * one is present): a GPU solve of a few points costs milliseconds of
 * launches and copies, 40 times more than on the CPU. */
static unsigned long long cuda_every = 10;

static void on_alarm(int sig)
{
    (void)sig;
    static const char head[] = "fuzz_solver: FAILED: no answer after the alarm (a hang): ";
    ssize_t ignored = write(2, head, sizeof head - 1);
    ignored = write(2, current, strlen(current));
    (void)ignored;
    _exit(1);
}

/* The gridemst command that repeats a solve. */
static void describe(const fuzz_case *fc, gridemst_backend backend, int prec, int search, int list, int crowded,
                     char *out, size_t size)
{
    char occupancy[32] = "";
    if (fc->occupancy > 0.0)
        snprintf(occupancy, sizeof occupancy, " --occupancy %g", fc->occupancy);
    snprintf(out, size,
             "case %llu: fuzz_solver --print %llu > case.txt && gridemst -o - --backend %s --precision %s %s "
             "--findmin2 %s%s%s case.txt\n",
             (unsigned long long)fc->seed, (unsigned long long)fc->seed,
             backend == GRIDEMST_BACKEND_CPU ? "cpu" : "cuda", prec == GRIDEMST_PRECISION_DOUBLE ? "double" : "float",
             search_flags(search), list ? "list" : "atomic", crowded ? " --crowded 1" : "", occupancy);
}

/* Every solve of one case; returns the failures, and prints the first. */
static int run_case(const fuzz_case *fc, int devices)
{
    const int last_backend = devices > 0 && fc->seed % cuda_every == 0 ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
    const void *coords = fc->float_input ? (const void *)fc->f : (const void *)fc->c;
    const gridemst_dtype dtype = fc->float_input ? GRIDEMST_FLOAT32 : GRIDEMST_FLOAT64;
    int failed = 0;
    for (int prec = GRIDEMST_PRECISION_FLOAT; prec <= GRIDEMST_PRECISION_DOUBLE; prec++) {
        gemst_expected e;
        if (gemst_expect(coords, dtype, fc->n, fc->dim, prec, &e) != GRIDEMST_OK) {
            fprintf(stderr, "fuzz_solver: out of memory for the reference\n");
            exit(1);
        }
        for (int backend = GRIDEMST_BACKEND_CPU; backend <= last_backend; backend++)
            for (int search = 0; search < SEARCHES; search++)
                for (int list = 0; list <= 1; list++)
                    for (int crowded = 0; crowded <= 1; crowded++) {
                        gridemst_options o = options(fc, backend, prec, search, list, crowded);
                        gridemst_result r = GRIDEMST_RESULT_INIT;
                        gridemst_error err = {0};
                        char why[400];
                        describe(fc, backend, prec, search, list, crowded, current, sizeof current);
                        alarm(alarm_seconds);
                        int rc = gridemst_solve(coords, dtype, fc->n, fc->dim, &o, &r, &err);
                        alarm(0);
                        if (!gemst_outcome_ok(&e, rc, &err, &r, why, sizeof why) && failed++ == 0)
                            fprintf(stderr, "fuzz_solver: FAILED: %s  %s\n", current, why);
                        gridemst_result_free(&r);
                    }
        gemst_expected_free(&e);
    }
    if (failed > 1)
        fprintf(stderr, "  and %d more solves of case %llu\n", failed - 1, (unsigned long long)fc->seed);
    return failed;
}

/* ----------------------------------------------------------------- main */

static void usage(void)
{
    fprintf(stderr, "usage: fuzz_solver [--cases FIRST-LAST] [--seconds S] [--alarm S] [--cuda-every K] "
                    "[--print CASE]\n");
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long long first = 1, last = 2500;
    double seconds = 0.0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--cases") == 0) {
            if (sscanf(argv[++i], "%llu-%llu", &first, &last) != 2 || first > last)
                usage();
        } else if (strcmp(argv[i], "--seconds") == 0) {
            seconds = atof(argv[++i]);
            last = ~0ull;
        } else if (strcmp(argv[i], "--alarm") == 0) {
            alarm_seconds = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--cuda-every") == 0) {
            cuda_every = strtoull(argv[++i], NULL, 10);
            if (cuda_every == 0)
                usage();
        } else if (strcmp(argv[i], "--print") == 0) {
            static fuzz_case fc;
            make_case(strtoull(argv[++i], NULL, 10), &fc);
            print_case(stdout, &fc);
            return 0;
        } else {
            usage();
        }
    }
    signal(SIGALRM, on_alarm);
    const int devices = gridemst_cuda_device_count();
    static fuzz_case fc;
    int failed_cases = 0;
    unsigned long long cases = 0;
    const double t0 = now_s();
    for (unsigned long long seed = first; seed <= last; seed++) {
        if (seconds > 0.0 && now_s() - t0 > seconds)
            break;
        make_case(seed, &fc);
        failed_cases += run_case(&fc, devices) > 0;
        cases++;
    }
    printf("fuzz_solver: %llu cases (%llu to %llu), %d solves each on the cpu", cases, first, first + cases - 1,
           SEARCHES * 2 * 2 * 2);
    if (devices > 0)
        printf(" (on cuda too where the case is a multiple of %llu)", cuda_every);
    printf(", %.1f s: %d failed\n", now_s() - t0, failed_cases);
    return failed_cases ? 1 : 0;
}
