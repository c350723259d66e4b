/* gridemst: the exact Euclidean minimum spanning tree of a point file or a
 * generated point set, from the command line. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/args.h"
#include "cli/clusters.h"
#include "cli/fof.h"
#include "cli/outputs.h"
#include "cli/report.h"
#include "cli/rounding.h"
#include "common.h"
#include "host_memory.h"
#include "tools/generate.h"
#include "tools/io.h"
#include "tools/omp_wait.h"
#include "tools/pointset.h"

enum {
    EXIT_FAILED = 1, /* an internal failure, or a tree that failed --verify */
    EXIT_USAGE = 2   /* bad usage or bad input */
};

/* The exit status for a library status code: the user's fault, or ours. */
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

static int report_error(int code, const gridemst_error *err)
{
    fprintf(stderr, "gridemst: %s\n", err->message[0] ? err->message : gridemst_status_name(code));
    return exit_status(code);
}

static void print_warning(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "gridemst: warning: %s\n", message);
}

/* One run of the tool, from the points to the reports. */
typedef struct job {
    cli_args *args;
    gemst_pointset ps;
    gridemst_result res;
    cli_verify verify;
    cli_clusters clusters;
    cli_fof fof;
    cli_outputs outputs;
    cli_rounding rounding;
    cli_run run; /* what the reports describe */
    char label[160]; /* the name of a generated set */
    gridemst_error err;
} job;

/* --generate: refuses a set that cannot fit before making it, counting the
 * points and what the solve needs besides them (gridemst_host_bytes). */
static int check_generate_memory(const cli_args *a, gridemst_error *err)
{
    const uint64_t usable = gemst_usable_memory_bytes();
    const int64_t solve = gridemst_host_bytes(a->n, a->dim, &a->opt);
    if (usable == 0 || solve < 0)
        return GRIDEMST_OK;
    const uint64_t points = (uint64_t)a->n * (uint64_t)a->dim * sizeof(float), need = points + (uint64_t)solve;
    if (need <= usable)
        return GRIDEMST_OK;
    return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY,
                      "--generate: %lld points need about %llu bytes of host memory (%llu for the points, %llu for "
                      "the solve); %llu may be used",
                      (long long)a->n, (unsigned long long)need, (unsigned long long)points,
                      (unsigned long long)solve, (unsigned long long)usable);
}

/* Reads INPUT or generates the points; fills in the run's input, format and
 * input time. */
static int load_points(job *j)
{
    const cli_args *a = j->args;
    double t0 = cli_now_ms();
    int rc;
#ifdef _OPENMP
    if (a->opt.threads > 0) /* the readers and the generators run on OpenMP's default count */
        omp_set_num_threads(a->opt.threads);
#endif
    if (a->generate) {
        snprintf(j->label, sizeof j->label, "generate:%s:n=%lld:dim=%d:seed=%lld", gemst_gen_kind_name(a->kind),
                 (long long)a->n, a->dim, (long long)a->seed);
        j->run.input = j->label;
        j->run.format = "generated";
        rc = check_generate_memory(a, &j->err);
        if (rc == GRIDEMST_OK)
            rc = gemst_generate(a->kind, a->n, a->dim, (uint64_t)a->seed, &j->ps, &j->err);
    } else {
        gemst_format format = a->format;
        if (format == GEMST_FORMAT_AUTO && !gemst_is_stdin(a->input))
            format = gemst_format_from_path(a->input);
        j->run.input = a->input;
        rc = gemst_read_points(a->input, format, &j->ps, print_warning, NULL, &j->err);
        /* standard input's format came from its content */
        if (format == GEMST_FORMAT_AUTO)
            format = j->ps.is_tsplib ? GEMST_FORMAT_TSPLIB : GEMST_FORMAT_TEXT;
        j->run.format = gemst_format_name(format);
        if (rc == GRIDEMST_OK && j->ps.header_line > 0)
            fprintf(stderr, "gridemst: note: %s:%lld: read as a header line, not a point: '%s'\n",
                    gemst_input_name(a->input), (long long)j->ps.header_line, j->ps.header);
    }
    j->run.input_ms = cli_now_ms() - t0;
    return rc;
}

/* Float precision: counts what rounding did to the points, and warns when
 * it merged distinct points, which changes the tree's shape. */
static void check_rounding(job *j)
{
    if (j->res.stats.precision != GRIDEMST_PRECISION_FLOAT)
        return;
    cli_rounding_check(&j->ps, &j->res, j->args->json, &j->rounding); /* the count is for --json alone */
    j->run.rounding = &j->rounding;
    int64_t m = j->rounding.merged_points;
    if (m > 0)
        fprintf(stderr,
                "gridemst: warning: float precision merged %lld point%s with other points (their coordinates round to "
                "the same float32 working point) and joined them by zero-length edges; use --precision double for "
                "the points as given\n",
                (long long)m, m == 1 ? "" : "s");
}

static int solve_once(job *j)
{
    cli_progress progress;
    cli_progress_start(&progress, &j->args->opt);
    int rc = gridemst_solve(j->ps.coords, j->ps.dtype, j->ps.n, j->ps.dim, &j->args->opt, &j->res, &j->err);
    cli_progress_end(&progress);
    if (rc == GRIDEMST_OK && j->res.stats.note[0])
        fprintf(stderr, "gridemst: warning: %s\n", j->res.stats.note);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int m)
{
    qsort(v, (size_t)m, sizeof *v, cmp_double);
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

/* The phases of gridemst_times and of a partitioned solve's steps, for
 * per-phase medians. */
static const size_t phase_offsets[] = {
    offsetof(gridemst_stats, time_ms.total),    offsetof(gridemst_stats, time_ms.upload),
    offsetof(gridemst_stats, time_ms.grid),     offsetof(gridemst_stats, time_ms.findmin1),
    offsetof(gridemst_stats, time_ms.prepare),  offsetof(gridemst_stats, time_ms.findmin2),
    offsetof(gridemst_stats, time_ms.merge),    offsetof(gridemst_stats, time_ms.edges),
    offsetof(gridemst_stats, time_ms.download), offsetof(gridemst_stats, partitions.partition_ms),
    offsetof(gridemst_stats, partitions.local_ms), offsetof(gridemst_stats, partitions.contract_ms),
    offsetof(gridemst_stats, partitions.search_ms), offsetof(gridemst_stats, partitions.halo_ms),
    offsetof(gridemst_stats, partitions.merge_ms), offsetof(gridemst_stats, partitions.frame_ms),
    offsetof(gridemst_stats, partitions.keys_ms), offsetof(gridemst_stats, partitions.splitters_ms),
    offsetof(gridemst_stats, partitions.pack_ms), offsetof(gridemst_stats, partitions.send_ms),
    offsetof(gridemst_stats, partitions.tree_edges_ms), offsetof(gridemst_stats, partitions.gaps_ms),
    offsetof(gridemst_stats, partitions.safe_ms), offsetof(gridemst_stats, partitions.components_ms),
    offsetof(gridemst_stats, partitions.gaps_alloc_ms), offsetof(gridemst_stats, partitions.gaps_device_ms),
    offsetof(gridemst_stats, partitions.gaps_copy_ms), offsetof(gridemst_stats, partitions.part_copy_ms),
    offsetof(gridemst_stats, partitions.free_ms), offsetof(gridemst_stats, partitions.contract_copy_ms),
    offsetof(gridemst_stats, partition_devices_ms), offsetof(gridemst_stats, partition_border_ms)};
#define N_PHASES (sizeof phase_offsets / sizeof phase_offsets[0])

static double *phase(gridemst_stats *st, size_t k)
{
    return (double *)((char *)st + phase_offsets[k]);
}

/* One solve, or with --repeat R a warm-up and R timed solves whose
 * per-phase medians replace the last result's times. */
static int solve(job *j)
{
    const int runs = j->args->repeat;
    int rc = solve_once(j);
    j->run.device_ms[0] = j->run.device_ms[1] = j->run.device_ms[2] = cli_device_ms(&j->res.stats.time_ms);
    if (rc != GRIDEMST_OK || runs == 0)
        return rc;
    double *times = malloc(sizeof *times * (size_t)runs * (N_PHASES + 1));
    if (!times)
        return GRIDEMST_ERR_NO_MEMORY;
    for (int r = 0; r < runs && rc == GRIDEMST_OK; r++) {
        gridemst_result_free(&j->res);
        rc = solve_once(j);
        for (size_t k = 0; rc == GRIDEMST_OK && k < N_PHASES; k++)
            times[k * runs + r] = *phase(&j->res.stats, k);
        times[N_PHASES * runs + r] = cli_device_ms(&j->res.stats.time_ms);
    }
    if (rc == GRIDEMST_OK) {
        for (size_t k = 0; k < N_PHASES; k++)
            *phase(&j->res.stats, k) = median(times + k * runs, runs);
        double *dev = times + N_PHASES * runs;
        j->run.device_ms[0] = median(dev, runs); /* sorts dev */
        j->run.device_ms[1] = dev[0];
        j->run.device_ms[2] = dev[runs - 1];
        j->run.repeat = runs;
    }
    free(times);
    return rc;
}

/* Friends-of-friends in place of the solve (--fof, --fof-b). */
static int fof(job *j)
{
    cli_progress progress;
    cli_progress_start(&progress, &j->args->opt);
    int rc = cli_fof_run(j->args, &j->ps, &j->res, &j->fof, &j->err);
    cli_progress_end(&progress);
    j->run.fof = &j->fof;
    j->run.device_ms[0] = j->run.device_ms[1] = j->run.device_ms[2] = cli_device_ms(&j->res.stats.time_ms);
    return rc;
}

/* Everything up to the reports: output files claimed, points, solve,
 * files written, --verify. */
static int compute(job *j)
{
    const cli_args *a = j->args;
    j->run.ps = &j->ps;
    j->run.res = &j->res;
    int rc = cli_outputs_claim(a, &j->outputs, &j->err);
    if (rc == GRIDEMST_OK)
        rc = load_points(j);
    /* saved before solving, so that an input the solver fails on can be kept */
    if (rc == GRIDEMST_OK && a->save_points)
        rc = gemst_write_binary(a->save_points, &j->ps, &j->err);
    if (rc == GRIDEMST_OK)
        rc = cli_fof_asked(a) ? fof(j) : solve(j);
    if (rc == GRIDEMST_OK)
        check_rounding(j);
    if (rc == GRIDEMST_OK && a->output)
        rc = gemst_write_edges_csv(a->output, j->res.edges, j->res.n_edges, &j->err);
    if (rc == GRIDEMST_OK && !cli_fof_asked(a)) {
        double t0 = cli_now_ms();
        rc = cli_cluster(a, &j->res, &j->clusters, &j->err);
        j->run.clusters = cli_clusters_asked(a) ? &j->clusters : NULL;
        j->clusters.ms = cli_now_ms() - t0;
    }
    if (rc == GRIDEMST_OK && a->verify) {
        rc = cli_verify_tree(&j->ps, &j->res, a->opt.min_samples, &j->verify, &j->err);
        j->run.verify = &j->verify;
    }
    return rc;
}

/* Prints the JSON object or the summary; returns the exit status. */
static int report(const cli_args *a, const cli_run *run)
{
    const cli_verify *v = run->verify;
    /* a file written to standard output keeps it for itself */
    FILE *human = cli_files_on_stdout(a) ? stderr : stdout;
    if (a->json)
        cli_print_json(stdout, run);
    else if (!a->quiet)
        cli_print_summary(human, run);
    if (v && !a->json && !a->quiet)
        cli_print_verify(human, v);
    else if (v && v->checked && !v->ok)
        fprintf(stderr, "gridemst: verify FAILED (%s)\n", v->reason);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gridemst: cannot write to standard output\n");
        return EXIT_USAGE;
    }
    return v && v->checked && !v->ok ? EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
    gemst_default_passive_wait(argv);
    cli_args args;
    char msg[512];
    if (cli_parse_args(argc, argv, &args, msg, sizeof msg) != 0) {
        fprintf(stderr, "gridemst: %s\nTry 'gridemst --help'.\n", msg);
        return EXIT_USAGE;
    }
    if (args.help) {
        cli_print_help(stdout);
        return 0;
    }
    if (args.version) {
        printf("gridemst %s\n", gridemst_version());
        return 0;
    }

    job j = {.args = &args, .res = GRIDEMST_RESULT_INIT};
    int rc = compute(&j);
    if (rc != GRIDEMST_OK)
        cli_outputs_discard(&j.outputs);
    int status = rc == GRIDEMST_OK ? report(&args, &j.run) : report_error(rc, &j.err);
    gridemst_result_free(&j.res);
    gemst_pointset_free(&j.ps);
    return status;
}
