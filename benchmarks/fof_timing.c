/*
 * gridemst-fof-bench: times whole gridemst_fof calls (labels, no forest)
 * on one generated point set at X times its mean spacing, per
 * configuration: the CPU backend; the CUDA backend from host points to host
 * labels (a plain call, and on a reused context); from device points to
 * labels left on the device (reused context).  W untimed calls, then R
 * timed ones, the host clock around each call; prints min, median and max
 * in ms.  Every configuration's labels must be the first's.
 *
 *   gridemst-fof-bench KIND N DIM SEED X [--box] [--repeat R] [--warmup W]
 *                      [--threads T] [--backends cpu,cuda]
 *
 * X: the linking length in mean spacings ((1 / N)^(1/DIM): the generators'
 * points lie in the unit box); --box: the periodic unit box.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gridemst.h"
#include "tools/generate.h"
#include "tools/pointset.h"

#ifdef GRIDEMST_HAVE_CUDA
#include <cuda_runtime.h>
#endif

typedef struct {
    gemst_pointset ps;
    double b;
    const double *box;
    int repeat, warmup;
    int64_t *first; /* the first configuration's labels */
    int64_t groups;
} fof_bench;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One configuration: coords on the host or device, labels into `labels`
 * (host or device memory, as opt->result says); host_labels receives them
 * for the check.  0, or 1 after saying what failed. */
static int run(fof_bench *fb, const char *name, const void *coords, int on_device, const gridemst_options *opt,
               int64_t *labels, int64_t *host_labels)
{
    const gemst_pointset *ps = &fb->ps;
    double *ms = calloc((size_t)fb->repeat, sizeof *ms);
    int64_t groups = -1;
    gridemst_error err;
    for (int k = 0; ms && k < fb->warmup + fb->repeat; k++) {
        const double t0 = now_ms();
        int rc = on_device ? gridemst_fof_device(coords, ps->dtype, ps->n, ps->dim, fb->b, fb->box, 1, opt, labels,
                                                 &groups, &err)
                           : gridemst_fof(coords, ps->dtype, ps->n, ps->dim, fb->b, fb->box, 1, opt, labels,
                                          &groups, NULL, &err);
        const double t1 = now_ms();
        if (rc != GRIDEMST_OK) {
            fprintf(stderr, "gridemst-fof-bench: %s: %s\n", name, err.message);
            free(ms);
            return 1;
        }
        if (k >= fb->warmup)
            ms[k - fb->warmup] = t1 - t0;
    }
    if (!ms)
        return 1;
#ifdef GRIDEMST_HAVE_CUDA
    if (labels != host_labels &&
        cudaMemcpy(host_labels, labels, sizeof *labels * (size_t)ps->n, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "gridemst-fof-bench: %s: cannot copy the labels back\n", name);
        free(ms);
        return 1;
    }
#endif
    qsort(ms, (size_t)fb->repeat, sizeof *ms, cmp_double);
    printf("%-34s n %lld  groups %lld  ms min %.2f median %.2f max %.2f\n", name, (long long)ps->n,
           (long long)groups, ms[0], ms[fb->repeat / 2], ms[fb->repeat - 1]);
    free(ms);
    if (!fb->first) {
        fb->first = host_labels;
        fb->groups = groups;
        return 0;
    }
    if (groups != fb->groups || memcmp(host_labels, fb->first, sizeof *host_labels * (size_t)ps->n) != 0) {
        fprintf(stderr, "gridemst-fof-bench: %s: labels differ from the first configuration's\n", name);
        return 1;
    }
    return 0;
}

#ifdef GRIDEMST_HAVE_CUDA
/* The CUDA configurations, on one context (and a plain call). */
static int run_cuda(fof_bench *fb, const gridemst_options *base)
{
    const gemst_pointset *ps = &fb->ps;
    const size_t bytes = (size_t)ps->n * ps->dim * (ps->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    int64_t *plain = malloc(sizeof *plain * (size_t)ps->n), *reused = malloc(sizeof *reused * (size_t)ps->n);
    int64_t *from_device = malloc(sizeof *from_device * (size_t)ps->n), *d_labels = NULL;
    void *d_coords = NULL;
    gridemst_context *ctx = NULL;
    gridemst_error err;
    int bad = !plain || !reused || !from_device || cudaMalloc(&d_coords, bytes) != cudaSuccess ||
              cudaMalloc((void **)&d_labels, sizeof *d_labels * (size_t)ps->n) != cudaSuccess ||
              cudaMemcpy(d_coords, ps->coords, bytes, cudaMemcpyHostToDevice) != cudaSuccess;
    if (bad)
        fprintf(stderr, "gridemst-fof-bench: no room for the points and labels on the device\n");
    else if (gridemst_context_create(base->device, NULL, &ctx, &err) != GRIDEMST_OK) {
        fprintf(stderr, "gridemst-fof-bench: %s\n", err.message);
        bad = 1;
    }
    gridemst_options o = *base;
    o.backend = GRIDEMST_BACKEND_CUDA;
    bad = bad || run(fb, "cuda host->host, plain call", ps->coords, 0, &o, plain, plain);
    o.context = ctx;
    bad = bad || run(fb, "cuda host->host, context", ps->coords, 0, &o, reused, reused);
    o.result = GRIDEMST_RESULT_DEVICE;
    bad = bad || run(fb, "cuda device->device, context", d_coords, 1, &o, d_labels, from_device);
    gridemst_context_free(ctx);
    cudaFree(d_coords);
    cudaFree(d_labels);
    if (fb->first != plain)
        free(plain);
    if (fb->first != reused)
        free(reused);
    if (fb->first != from_device)
        free(from_device);
    return bad;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: gridemst-fof-bench KIND N DIM SEED X [--box] [--repeat R] [--warmup W] "
                        "[--threads T] [--backends cpu,cuda]\n");
        return 2;
    }
    fof_bench fb = {.repeat = 5, .warmup = 1};
    gemst_gen_kind kind;
    const long long n = atoll(argv[2]);
    const int dim = atoi(argv[3]);
    const double unit[3] = {1.0, 1.0, 1.0};
    const char *backends = "cpu,cuda";
    gridemst_options opt;
    gridemst_options_init(&opt);
    for (int k = 6; k < argc; k++) {
        if (strcmp(argv[k], "--box") == 0)
            fb.box = unit;
        else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc)
            fb.repeat = atoi(argv[++k]);
        else if (strcmp(argv[k], "--warmup") == 0 && k + 1 < argc)
            fb.warmup = atoi(argv[++k]);
        else if (strcmp(argv[k], "--threads") == 0 && k + 1 < argc)
            opt.threads = atoi(argv[++k]);
        else if (strcmp(argv[k], "--backends") == 0 && k + 1 < argc)
            backends = argv[++k];
        else {
            fprintf(stderr, "gridemst-fof-bench: unknown argument %s\n", argv[k]);
            return 2;
        }
    }
    gridemst_error err;
    if (gemst_parse_gen_kind(argv[1], &kind) != 0 || n < 1 || fb.repeat < 1 || fb.warmup < 0 ||
        gemst_generate(kind, n, dim, (uint64_t)atoll(argv[4]), &fb.ps, &err) != GRIDEMST_OK) {
        fprintf(stderr, "gridemst-fof-bench: bad arguments or no points\n");
        return 2;
    }
    fb.b = atof(argv[5]) * pow(1.0 / (double)n, 1.0 / dim);
    printf("%s %dD n %lld b %g (%s mean spacings)%s\n", argv[1], dim, n, fb.b, argv[5], fb.box ? " periodic" : "");
    int bad = 0;
    int64_t *cpu = malloc(sizeof *cpu * (size_t)n);
    if (strstr(backends, "cpu")) {
        opt.backend = GRIDEMST_BACKEND_CPU;
        bad = !cpu || run(&fb, "cpu host->host", fb.ps.coords, 0, &opt, cpu, cpu);
    }
#ifdef GRIDEMST_HAVE_CUDA
    if (!bad && strstr(backends, "cuda"))
        bad = run_cuda(&fb, &opt);
#endif
    if (fb.first != cpu)
        free(fb.first);
    free(cpu);
    gemst_pointset_free(&fb.ps);
    return bad;
}
