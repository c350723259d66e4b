/* Option parsing for gridemst-bench. */
#include "args.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/device_list.h"

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *msg, size_t msg_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
    return -1;
}

/* A decimal integer in [lo, hi]; "1e6" counts when it denotes one. */
static int parse_int64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (*s == '\0' || strspn(s, "0123456789.eE+-") != strlen(s))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0) {
        double d = strtod(s, &end);
        if (*end != '\0' || !(d >= -9.2e18 && d <= 9.2e18) || d != floor(d))
            return -1;
        v = (long long)d;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    int64_t v;
    if (parse_int64(s, lo, hi, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || !isfinite(v) || v < 0.0)
        return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------ value lists */

/* The name of value v of one option; "unknown" past the last. */
typedef const char *(*name_fn)(int v);

static const char *backend_name(int v) { return gridemst_backend_name((gridemst_backend)v); }
static const char *nns_name(int v) { return gridemst_nns_name((gridemst_nns)v); }
static const char *prune_name(int v) { return gridemst_prune_name((gridemst_prune)v); }
static const char *findmin2_name(int v) { return gridemst_findmin2_name((gridemst_findmin2)v); }
static const char *result_name(int v) { return gridemst_result_place_name((gridemst_result_place)v); }
static const char *context_name(int v)
{
    static const char *const names[] = {"reuse", "fresh"};
    return v >= 0 && v < 2 ? names[v] : "unknown";
}

/* The values an option accepts: name(first), name(first + 1), ... */
typedef struct choice_table {
    const char *option; /* without "--" */
    name_fn name;
    int first;
} choice_table;

static int table_size(const choice_table *t)
{
    int v = t->first;
    while (v - t->first < BENCH_MAX_CHOICES && strcmp(t->name(v), "unknown") != 0)
        v++;
    return v - t->first;
}

/* "a|b|c", the names the table accepts. */
static void table_names(const choice_table *t, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int k = 0; k < table_size(t); k++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", k ? "|" : "", t->name(t->first + k));
    }
}

static void add_choice(bench_choices *c, int v)
{
    for (int k = 0; k < c->count; k++)
        if (c->value[k] == v)
            return;
    c->value[c->count++] = v;
}

/* One name of the table, "all", or (with auto_value >= 0) "auto". */
static int add_named(const choice_table *t, const char *token, int auto_value, bench_choices *out)
{
    if (strcmp(token, "all") == 0) {
        for (int k = 0; k < table_size(t); k++)
            add_choice(out, t->first + k);
        return 0;
    }
    if (auto_value >= 0 && strcmp(token, "auto") == 0) {
        add_choice(out, auto_value);
        return 0;
    }
    for (int k = 0; k < table_size(t); k++)
        if (strcmp(token, t->name(t->first + k)) == 0) {
            add_choice(out, t->first + k);
            return 0;
        }
    return -1;
}

/* A comma-separated list of names into *out. */
static int parse_choices(const choice_table *t, const char *text, int auto_value, bench_choices *out, char *msg,
                         size_t msg_size)
{
    char buf[256], names[128];
    if (strlen(text) >= sizeof buf)
        return fail(msg, msg_size, "--%s: list too long", t->option);
    strcpy(buf, text);
    out->count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (add_named(t, tok, auto_value, out) == 0)
            continue;
        table_names(t, names, sizeof names);
        return fail(msg, msg_size, "--%s: expected a comma-separated list of %s%s|all, got '%s'", t->option, names,
                    auto_value >= 0 ? "|auto" : "", tok);
    }
    if (out->count == 0)
        return fail(msg, msg_size, "--%s: empty list", t->option);
    return 0;
}

static const choice_table backend_table = {"backend", backend_name, GRIDEMST_BACKEND_CPU};
static const choice_table nns_table = {"nns", nns_name, 0};
static const choice_table prune_table = {"prune", prune_name, 0};
static const choice_table findmin2_table = {"findmin2", findmin2_name, 0};
static const choice_table result_table = {"result", result_name, 0};
static const choice_table context_table = {"context", context_name, 0};

/* ------------------------------------------------------------ options */

enum {
    OPT_GENERATE = 256,
    OPT_N,
    OPT_DIM,
    OPT_SEED,
    OPT_LABEL,
    OPT_BACKEND,
    OPT_NNS,
    OPT_PRUNE,
    OPT_FINDMIN2,
    OPT_RESULT,
    OPT_CONTEXT,
    OPT_PRECISION,
    OPT_THREADS,
    OPT_DEVICE,
    OPT_DEVICES,
    OPT_OCCUPANCY,
    OPT_CROWDED,
    OPT_LATE_BVH,
    OPT_MIN_SAMPLES,
    OPT_REPEAT,
    OPT_WARMUP,
    OPT_MAX_SECONDS,
    OPT_ITERATIONS
};

static const struct option long_options[] = {
    {"generate", required_argument, NULL, OPT_GENERATE},
    {"n", required_argument, NULL, OPT_N},
    {"dim", required_argument, NULL, OPT_DIM},
    {"seed", required_argument, NULL, OPT_SEED},
    {"label", required_argument, NULL, OPT_LABEL},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"nns", required_argument, NULL, OPT_NNS},
    {"prune", required_argument, NULL, OPT_PRUNE},
    {"findmin2", required_argument, NULL, OPT_FINDMIN2},
    {"result", required_argument, NULL, OPT_RESULT},
    {"context", required_argument, NULL, OPT_CONTEXT},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"devices", required_argument, NULL, OPT_DEVICES},
    {"occupancy", required_argument, NULL, OPT_OCCUPANCY},
    {"crowded", required_argument, NULL, OPT_CROWDED},
    {"late-bvh", required_argument, NULL, OPT_LATE_BVH},
    {"min-samples", required_argument, NULL, OPT_MIN_SAMPLES},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"max-seconds", required_argument, NULL, OPT_MAX_SECONDS},
    {"iterations", required_argument, NULL, OPT_ITERATIONS},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The value of option c; 0, or -1 with the message. */
static int apply(bench_args *a, int c, const char *v, int *given_n, char *msg, size_t msg_size)
{
    const char *name = "";
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == c)
            name = o->name;
    int bad = 0;
    switch (c) {
    case OPT_GENERATE: a->generate = 1; bad = gemst_parse_gen_kind(v, &a->kind); break;
    case OPT_N: *given_n = 1; bad = parse_int64(v, 0, INT64_MAX, &a->n); break;
    case OPT_DIM: bad = parse_int(v, 2, 3, &a->dim); break;
    case OPT_SEED: bad = parse_int64(v, 0, INT64_MAX, &a->seed); break;
    case OPT_LABEL: a->label = v; break;
    case OPT_BACKEND: {
        int automatic = gridemst_cuda_device_count() > 0 ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
        return parse_choices(&backend_table, v, automatic, &a->backend, msg, msg_size);
    }
    case OPT_NNS: return parse_choices(&nns_table, v, -1, &a->nns, msg, msg_size);
    case OPT_PRUNE: return parse_choices(&prune_table, v, -1, &a->prune, msg, msg_size);
    case OPT_FINDMIN2: return parse_choices(&findmin2_table, v, -1, &a->findmin2, msg, msg_size);
    case OPT_RESULT: return parse_choices(&result_table, v, -1, &a->result, msg, msg_size);
    case OPT_CONTEXT: return parse_choices(&context_table, v, -1, &a->context, msg, msg_size);
    case OPT_PRECISION: bad = gridemst_parse_precision(v, &a->opt.precision); break;
    case OPT_THREADS: bad = parse_int(v, 0, INT_MAX, &a->opt.threads); break;
    case OPT_DEVICE: bad = parse_int(v, 0, INT_MAX, &a->opt.device); break;
    case OPT_DEVICES: {
        char why[160];
        if (gemst_parse_device_list(v, 64, a->devices, &a->opt.n_devices, why, sizeof why) != 0)
            return fail(msg, msg_size, "--devices: %s", why);
        a->opt.devices = a->opt.n_devices == GRIDEMST_ALL_DEVICES ? NULL : a->devices;
        break;
    }
    case OPT_OCCUPANCY: bad = parse_number(v, &a->opt.tuning.cell_occupancy); break;
    case OPT_CROWDED: bad = parse_int64(v, 0, INT64_MAX, &a->opt.tuning.crowded_cell); break;
    case OPT_LATE_BVH: bad = gridemst_parse_late_bvh(v, &a->opt.tuning.late_bvh); break;
    case OPT_MIN_SAMPLES: bad = parse_int64(v, 1, INT64_MAX, &a->opt.min_samples); break;
    case OPT_REPEAT: bad = parse_int(v, 1, INT_MAX, &a->repeat); break;
    case OPT_WARMUP: bad = parse_int(v, 0, INT_MAX, &a->warmup); break;
    case OPT_MAX_SECONDS: bad = parse_number(v, &a->max_seconds); break;
    case OPT_ITERATIONS: a->iterations = v; break;
    case 'o': a->output = v; break;
    case 'q': a->quiet = 1; break;
    case 'h': a->help = 1; break;
    default: return fail(msg, msg_size, "internal error: option %d has no handler", c);
    }
    if (bad)
        return fail(msg, msg_size, "--%s: invalid value '%s' (see --help)", name, v);
    return 0;
}

static void set_defaults(bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->kind = GEMST_GEN_UNIFORM;
    a->dim = 2;
    a->seed = 1;
    a->repeat = 5;
    a->warmup = 1;
    a->output = "-";
    gridemst_options_init(&a->opt);
    a->backend.value[a->backend.count++] =
        gridemst_cuda_device_count() > 0 ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
    a->nns.value[a->nns.count++] = a->opt.nns;
    a->prune.value[a->prune.count++] = a->opt.tuning.prune;
    a->findmin2.value[a->findmin2.count++] = a->opt.tuning.findmin2;
    a->result.value[a->result.count++] = GRIDEMST_RESULT_HOST;
    a->context.value[a->context.count++] = BENCH_CONTEXT_REUSE;
}

int bench_parse_args(int argc, char **argv, bench_args *a, char *msg, size_t msg_size)
{
    set_defaults(a);
    int given_n = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        if (c == '?')
            return fail(msg, msg_size, "unknown option '%s'", argv[optind - 1]);
        if (c == ':')
            return fail(msg, msg_size, "option '%s' needs a value", argv[optind - 1]);
        if (apply(a, c, optarg, &given_n, msg, msg_size) != 0)
            return -1;
        if (a->help)
            return 0;
    }
    if (optind < argc)
        a->input = argv[optind++];
    if (optind < argc)
        return fail(msg, msg_size, "more than one INPUT: '%s' and '%s'", a->input, argv[optind]);
    if (a->input && a->generate)
        return fail(msg, msg_size, "give either INPUT or --generate, not both");
    if (!a->input && !a->generate)
        return fail(msg, msg_size, "no INPUT given (or --generate KIND --n N)");
    if (a->generate && !given_n)
        return fail(msg, msg_size, "--generate needs --n N");
    for (int k = 0; k < a->backend.count; k++)
        if (a->backend.value[k] == GRIDEMST_BACKEND_CUDA && gridemst_cuda_device_count() == 0)
            return fail(msg, msg_size, "--backend cuda: no usable CUDA device (or a build without CUDA)");
    for (int k = 0; k < a->context.count && a->opt.n_devices != 0; k++)
        if (a->context.value[k] == BENCH_CONTEXT_REUSE)
            return fail(msg, msg_size, "--devices: a solve over several devices makes its own contexts: give "
                                       "--context fresh");
    return 0;
}

void bench_print_help(FILE *f)
{
    fputs("Usage: gridemst-bench [OPTIONS] INPUT\n"
          "       gridemst-bench [OPTIONS] --generate KIND --n N [--dim D] [--seed S]\n"
          "\n"
          "Loads or generates one point set, copies it to the GPU once (CUDA backend), and\n"
          "for each configuration (backend x nns x prune x findmin2 x result x context)\n"
          "solves it W times to warm up and R times timed.  The headline, call_ms, is the\n"
          "wall clock around the whole call (gridemst_solve_device on CUDA, from points on\n"
          "the device to the tree in host or device memory; gridemst_solve on the CPU);\n"
          "phase_ms is the sum of the library's measured phases and dark_ms the rest;\n"
          "time_ms is CUDA events on the solve's stream around the call.  Every tree must\n"
          "be the first solve's, edge for edge (a device tree is copied back to check it,\n"
          "outside the timing).  Writes one CSV row per timed solve, and with --iterations\n"
          "one row per Boruvka iteration of each timed solve.\n"
          "\n"
          "Options (LIST: comma-separated names, or all):\n"
          "  --generate KIND         uniform|normal|clustered|lattice|blobs\n"
          "  --n N, --dim D, --seed S  the generated set (dim 2 or 3, default 2; seed 1)\n"
          "  --label NAME            the dataset's name in the CSV (default: INPUT's base\n"
          "                          name, or KIND-Dd-N)\n"
          "  --backend LIST          cpu|cuda|auto (default auto: cuda when a GPU is usable)\n"
          "  --nns LIST              auto|grid|bvh (default auto: the library's choice)\n"
          "  --prune LIST            none|dynamic|static (default static)\n"
          "  --findmin2 LIST         list|atomic (default atomic)\n"
          "  --result LIST           host|device: where CUDA solves leave the tree (default host)\n"
          "  --context LIST          reuse|fresh: CUDA solves on one context per configuration,\n"
          "                          or each on its own, as a plain call (default reuse)\n"
          "  --precision P           float|double (default float)\n"
          "  --threads N             CPU threads (default 0: the OpenMP default)\n"
          "  --device N              CUDA device (default 0)\n"
          "  --devices LIST|all      solve over these CUDA devices (needs --context fresh):\n"
          "                          points in host memory, gridemst_solve timed by the wall\n"
          "                          clock; --result device leaves a share on each\n"
          "  --occupancy X           target mean points per grid cell (default: the library's)\n"
          "  --crowded N             cells of more points get a grid of their own (default: the library's)\n"
          "  --late-bvh auto|never|K the grid's static pruning searches a BVH from iteration K\n"
          "                          on (default auto: the library's rule)\n"
          "  --min-samples K         HDBSCAN*'s mutual-reachability tree with core distances\n"
          "                          to the K-th nearest point, itself counted (default 1:\n"
          "                          the Euclidean tree); the grid then searches with prune none\n"
          "  --repeat R              timed solves per configuration (default 5)\n"
          "  --warmup W              untimed solves before them (default 1)\n"
          "  --max-seconds S         stop repeating a configuration once its solves, warm-ups\n"
          "                          included, took S seconds (at least one timed solve)\n"
          "  -o, --output FILE       the runs CSV (default '-': standard output)\n"
          "  --iterations FILE       the per-iteration CSV\n"
          "  -q, --quiet             no per-configuration summary on standard error\n"
          "  -h, --help              this help\n"
          "\n"
          "With prune none, iteration 0's FindMin1 is one all-points nearest-neighbour\n"
          "query on the grid: its time is the floor_ms column, and the summary gives each\n"
          "configuration's median time over the median floor of its backend.\n"
          "\n"
          "Exit status: 0 success; 1 a tree differs from the first one, or an internal\n"
          "failure; 2 bad usage or bad input.\n",
          f);
}
