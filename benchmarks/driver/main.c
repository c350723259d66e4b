/* gridemst-bench: times repeated solves of one point set in each asked
 * configuration and checks that every tree is the first one (see --help and
 * benchmarks/README.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "common.h"
#include "bench.h"
#include "csv.h"
#include "timed_solve.h"
#include "tools/generate.h"
#include "tools/io.h"

enum {
    EXIT_FAILED = 1, /* a tree differs from the first, or an internal failure */
    EXIT_USAGE = 2   /* bad usage or bad input */
};

/* The timed solves of one configuration, for the summary. */
typedef struct config_times {
    bench_config c;
    double *ms;    /* one per timed solve */
    double *floor; /* one per timed solve: bench_floor_ms, NaN unless prune none */
    int runs;
} config_times;

typedef struct bench {
    const bench_args *a;
    gemst_pointset ps;
    char label[256];
    bench_timer *timer;
    FILE *runs, *iterations;
    gridemst_result first; /* the first solve's tree; every other must equal it */
    int kept_first;        /* first holds it */
    char first_what[240];  /* which solve that was */
    int mismatches;
    config_times *configs;
    int n_configs;
} bench;

static int exit_status(int code)
{
    switch (code) {
    case GRIDEMST_OK: return 0;
    case GRIDEMST_ERR_INVALID_ARGUMENT:
    case GRIDEMST_ERR_INPUT:
    case GRIDEMST_ERR_NO_MEMORY:
    case GRIDEMST_ERR_DEVICE_MEMORY:
    case GRIDEMST_ERR_NO_DEVICE:
    case GRIDEMST_ERR_UNSUPPORTED: return EXIT_USAGE;
    default: return EXIT_FAILED;
    }
}

static void print_warning(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "gridemst-bench: warning: %s\n", message);
}

/* The points and the dataset's name. */
static int load(bench *b, gridemst_error *err)
{
    const bench_args *a = b->a;
    int rc;
    if (a->generate) {
        snprintf(b->label, sizeof b->label, "%s-%dd-%lld", gemst_gen_kind_name(a->kind), a->dim, (long long)a->n);
        rc = gemst_generate(a->kind, a->n, a->dim, (uint64_t)a->seed, &b->ps, err);
    } else {
        const char *base = strrchr(a->input, '/') ? strrchr(a->input, '/') + 1 : a->input;
        snprintf(b->label, sizeof b->label, "%s", base);
        char *dot = strrchr(b->label, '.');
        if (dot && dot != b->label)
            *dot = '\0';
        rc = gemst_read_points(a->input, GEMST_FORMAT_AUTO, &b->ps, print_warning, NULL, err);
    }
    if (a->label)
        snprintf(b->label, sizeof b->label, "%s", a->label);
    return rc;
}

static FILE *open_output(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "gridemst-bench: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* Closes an output; 0, or -1 (said on stderr) when writing it failed. */
static int close_output(FILE *f, const char *path)
{
    if (!f)
        return 0;
    int bad = ferror(f) != 0;
    bad |= (f == stdout ? fflush(f) : fclose(f)) != 0;
    if (bad)
        fprintf(stderr, "gridemst-bench: error writing %s\n", strcmp(path, "-") == 0 ? "standard output" : path);
    return bad ? -1 : 0;
}

static void describe(const bench_config *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %s prune=%s findmin2=%s result=%s context=%s", c->dataset,
             gridemst_backend_name(c->backend), gridemst_nns_name(c->nns), gridemst_prune_name(c->prune),
             gridemst_findmin2_name(c->findmin2), gridemst_result_place_name(c->result), bench_context_name(c));
}

/* Whether the tree of res is the first solve's (which res is when no tree
 * was kept yet: keep_or_free keeps it). */
static int check_tree(bench *b, const gridemst_result *res, const char *what)
{
    if (!b->kept_first) {
        snprintf(b->first_what, sizeof b->first_what, "%s", what);
        return 1;
    }
    const gridemst_result *f = &b->first;
    if (res->n_edges == f->n_edges &&
        (f->n_edges == 0 || memcmp(res->edges, f->edges, sizeof *f->edges * (size_t)f->n_edges) == 0))
        return 1;
    fprintf(stderr, "gridemst-bench: %s: the tree differs from the first solve's (%s)\n", what, b->first_what);
    b->mismatches++;
    return 0;
}

/* Keeps the first solve's tree for check_tree; frees the others. */
static void keep_or_free(bench *b, gridemst_result *res)
{
    if (!b->kept_first) {
        b->first = *res;
        b->kept_first = 1;
    } else
        gridemst_result_free(res);
}

/* Warm-ups, then the timed solves of one configuration. */
static int run_config(bench *b, config_times *ct, const gridemst_options *opt, gridemst_error *err)
{
    const bench_args *a = b->a;
    double spent_ms = 0.0;
    char name[200], what[240];
    describe(&ct->c, name, sizeof name);
    for (int k = 0; k < a->warmup + a->repeat; k++) {
        int run = k - a->warmup + 1; /* timed solves count from 1; warm-ups are < 1 */
        if (run > 1 && a->max_seconds > 0 && spent_ms >= 1e3 * a->max_seconds)
            break;
        gridemst_result res = GRIDEMST_RESULT_INIT;
        bench_times t;
        int rc = bench_timed_solve(b->timer, opt, ct->c.fresh_context, &res, &t, err);
        if (rc != GRIDEMST_OK)
            return rc;
        spent_ms += t.wall_ms;
        if (run < 1)
            snprintf(what, sizeof what, "%s warm-up %d", name, k + 1);
        else
            snprintf(what, sizeof what, "%s run %d", name, run);
        int same = check_tree(b, &res, what);
        if (run >= 1) {
            bench_csv_run(b->runs, &ct->c, run, &t, &res, same);
            if (b->iterations)
                bench_csv_iterations(b->iterations, &ct->c, run, &res);
            ct->ms[ct->runs] = t.wall_ms; /* the whole call */
            ct->floor[ct->runs] = bench_floor_ms(&res);
            ct->runs++;
        }
        keep_or_free(b, &res);
    }
    return GRIDEMST_OK;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of the values of v[0 .. m) that are not NaN; NaN when none. */
static double median(const double *v, int m)
{
    double *s = malloc(sizeof *s * (size_t)(m ? m : 1));
    int k = 0;
    for (int i = 0; s && i < m; i++)
        if (!isnan(v[i]))
            s[k++] = v[i];
    double med = NAN;
    if (k > 0) {
        qsort(s, (size_t)k, sizeof *s, cmp_double);
        med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
    }
    free(s);
    return med;
}

/* The floor of a backend: the median over its grid prune-none solves, for
 * every configuration of the backend, the BVH's too; NaN when there were
 * none. */
static double floor_of(const bench *b, const bench_config *c)
{
    int m = 0;
    for (int k = 0; k < b->n_configs; k++)
        m += b->configs[k].runs;
    double *v = malloc(sizeof *v * (size_t)(m ? m : 1));
    if (!v)
        return NAN;
    m = 0;
    for (int k = 0; k < b->n_configs; k++) {
        const config_times *o = &b->configs[k];
        if (o->c.backend == c->backend)
            for (int r = 0; r < o->runs; r++)
                v[m++] = o->floor[r];
    }
    double f = median(v, m);
    free(v);
    return f;
}

/* One line per configuration on stderr: median, min and max time, and the
 * median over the floor. */
static void print_summary(const bench *b)
{
    for (int k = 0; k < b->n_configs; k++) {
        const config_times *ct = &b->configs[k];
        if (ct->runs == 0)
            continue;
        double lo = ct->ms[0], hi = ct->ms[0], med = median(ct->ms, ct->runs), fl = floor_of(b, &ct->c);
        for (int r = 1; r < ct->runs; r++) {
            lo = ct->ms[r] < lo ? ct->ms[r] : lo;
            hi = ct->ms[r] > hi ? ct->ms[r] : hi;
        }
        char name[200], ratio[64] = "";
        describe(&ct->c, name, sizeof name);
        if (!isnan(fl) && fl > 0)
            snprintf(ratio, sizeof ratio, ", %.2f x the floor (%.4g ms)", med / fl, fl);
        fprintf(stderr, "gridemst-bench: %s: median %.4g ms (min %.4g, max %.4g) over %d runs%s\n", name, med, lo,
                hi, ct->runs, ratio);
    }
}

/* The configurations, backend by backend, in the order the lists give; the
 * CPU's tree is on the host and it has no contexts. */
static int make_configs(bench *b, gridemst_error *err)
{
    const bench_args *a = b->a;
    int m = a->backend.count * a->nns.count * a->prune.count * a->findmin2.count * a->result.count * a->context.count;
    b->configs = calloc((size_t)m, sizeof *b->configs);
    if (!b->configs)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (int i = 0; i < a->backend.count; i++)
        for (int j = 0; j < a->nns.count; j++)
            for (int p = 0; p < a->prune.count; p++)
                for (int f = 0; f < a->findmin2.count; f++)
                    for (int r = 0; r < a->result.count; r++)
                        for (int x = 0; x < a->context.count; x++) {
                            gridemst_backend backend = (gridemst_backend)a->backend.value[i];
                            int cpu = backend == GRIDEMST_BACKEND_CPU;
                            if (cpu && (a->result.value[r] != GRIDEMST_RESULT_HOST || x > 0))
                                continue;
                            config_times *ct = &b->configs[b->n_configs++];
                            ct->c = (bench_config){b->label,
                                                   b->ps.n,
                                                   b->ps.dim,
                                                   backend,
                                                   (gridemst_nns)a->nns.value[j],
                                                   (gridemst_prune)a->prune.value[p],
                                                   (gridemst_findmin2)a->findmin2.value[f],
                                                   a->opt.precision,
                                                   (gridemst_result_place)a->result.value[r],
                                                   a->context.value[x] == BENCH_CONTEXT_FRESH};
                            ct->ms = malloc(sizeof *ct->ms * (size_t)a->repeat);
                            ct->floor = malloc(sizeof *ct->floor * (size_t)a->repeat);
                            if (!ct->ms || !ct->floor)
                                return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
                        }
    return GRIDEMST_OK;
}

static int uses_cuda(const bench_args *a)
{
    for (int k = 0; k < a->backend.count; k++)
        if (a->backend.value[k] == GRIDEMST_BACKEND_CUDA)
            return 1;
    return 0;
}

/* Everything between parsing and the summary; a library status. */
static int run_all(bench *b, gridemst_error *err)
{
    const bench_args *a = b->a;
    int rc = load(b, err);
    if (rc == GRIDEMST_OK)
        rc = make_configs(b, err);
    if (rc == GRIDEMST_OK)
        rc = bench_timer_open(&b->ps, uses_cuda(a) && a->opt.n_devices == 0, a->opt.device, &b->timer, err);
    if (rc != GRIDEMST_OK)
        return rc;
    bench_csv_runs_header(b->runs);
    if (b->iterations)
        bench_csv_iterations_header(b->iterations);
    for (int k = 0; k < b->n_configs && rc == GRIDEMST_OK; k++) {
        config_times *ct = &b->configs[k];
        gridemst_options opt = a->opt;
        opt.backend = ct->c.backend;
        opt.nns = ct->c.nns;
        opt.tuning.prune = ct->c.prune;
        opt.tuning.findmin2 = ct->c.findmin2;
        opt.result = ct->c.result;
        rc = run_config(b, ct, &opt, err);
        if (rc != GRIDEMST_OK) {
            char name[200];
            describe(&ct->c, name, sizeof name);
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s: %s", name, err->message);
            memcpy(err->message, msg, sizeof msg);
        }
        fflush(b->runs);
    }
    return rc;
}

static void release(bench *b)
{
    /* the first tree may hold the timer's context, which works on the
       timer's stream: both go after it */
    gridemst_result_free(&b->first);
    bench_timer_close(b->timer);
    for (int k = 0; k < b->n_configs; k++) {
        free(b->configs[k].ms);
        free(b->configs[k].floor);
    }
    free(b->configs);
    gemst_pointset_free(&b->ps);
}

int main(int argc, char **argv)
{
    bench_args a;
    char msg[512];
    if (bench_parse_args(argc, argv, &a, msg, sizeof msg) != 0) {
        fprintf(stderr, "gridemst-bench: %s\n", msg);
        return EXIT_USAGE;
    }
    if (a.help) {
        bench_print_help(stdout);
        return 0;
    }
    bench b = {.a = &a};
    b.runs = open_output(a.output);
    b.iterations = a.iterations ? open_output(a.iterations) : NULL;
    if (!b.runs || (a.iterations && !b.iterations)) {
        close_output(b.runs, a.output);
        return EXIT_USAGE;
    }
    gridemst_error err = {0, ""};
    int rc = run_all(&b, &err), status = exit_status(rc);
    if (rc != GRIDEMST_OK)
        fprintf(stderr, "gridemst-bench: %s\n", err.message[0] ? err.message : gridemst_status_name(rc));
    else if (!a.quiet)
        print_summary(&b);
    if (close_output(b.runs, a.output) != 0 || (a.iterations && close_output(b.iterations, a.iterations) != 0))
        status = status ? status : EXIT_FAILED;
    if (b.mismatches) {
        fprintf(stderr, "gridemst-bench: %d solve(s) gave a tree other than the first solve's\n", b.mismatches);
        status = status ? status : EXIT_FAILED;
    }
    release(&b);
    return status;
}
