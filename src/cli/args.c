/* Option parsing for the gridemst tool: one table drives parsing and --help. */
#include "cli/args.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tools/device_list.h"

typedef enum opt_id {
    OPT_OUTPUT,
    OPT_JSON,
    OPT_FORMAT,
    OPT_GENERATE,
    OPT_N,
    OPT_DIM,
    OPT_SEED,
    OPT_BACKEND,
    OPT_NNS,
    OPT_PRUNE,
    OPT_FINDMIN2,
    OPT_PRECISION,
    OPT_THREADS,
    OPT_DEVICE,
    OPT_DEVICES,
    OPT_OCCUPANCY,
    OPT_CROWDED,
    OPT_LATE_BVH,
    OPT_PARTITIONS,
    OPT_VERIFY,
    OPT_REPEAT,
    OPT_SAVE_POINTS,
    OPT_LINKAGE,
    OPT_CLUSTERS,
    OPT_CUT,
    OPT_MIN_CLUSTER_SIZE,
    OPT_LABELS,
    OPT_MIN_SAMPLES,
    OPT_HDBSCAN,
    OPT_CLUSTER_SELECTION,
    OPT_EPSILON,
    OPT_ALLOW_SINGLE,
    OPT_MAX_CLUSTER_SIZE,
    OPT_PROBABILITIES,
    OPT_OUTLIER_SCORES,
    OPT_CONDENSED_TREE,
    OPT_FOF,
    OPT_FOF_B,
    OPT_BOX,
    OPT_GROUPS,
    OPT_QUIET,
    OPT_HELP,
    OPT_VERSION,
    OPT_COUNT
} opt_id;

/* Where an option applies. */
typedef enum opt_scope {
    ANY,
    GENERATED, /* only with --generate */
    FILES      /* only with INPUT */
} opt_scope;

typedef struct opt_spec {
    opt_id id;
    const char *name;    /* the long name, without "--" */
    char short_name;     /* 0: none */
    const char *metavar; /* the value's placeholder, or the accepted names a|b|c; NULL: a flag */
    const char *help;
    opt_scope scope;
} opt_spec;

static const opt_spec options[] = {
    {OPT_OUTPUT, "output", 'o', "FILE", "write the tree as CSV lines u,v,w sorted by (w, u, v); '-' is standard output",
     ANY},
    {OPT_JSON, "json", 0, NULL, "print one JSON object on standard output instead of the summary", ANY},
    {OPT_FORMAT, "format", 0, "auto|tsplib|text|binary",
     "input format (default auto: from the file name's extension; for standard input, from its first line)", FILES},
    {OPT_GENERATE, "generate", 0, GEMST_GEN_KIND_NAMES,
     "generate the points instead of reading INPUT", ANY},
    {OPT_N, "n", 0, "N", "number of points to generate (1e6 style accepted)", GENERATED},
    {OPT_DIM, "dim", 0, "D", "dimension of the generated points, 2 or 3 (default 2)", GENERATED},
    {OPT_SEED, "seed", 0, "S", "seed of the generator (default 1)", GENERATED},
    {OPT_BACKEND, "backend", 0, "auto|cpu|cuda", "where to solve (default auto: cuda when a GPU is usable)", ANY},
    {OPT_NNS, "nns", 0, "auto|grid|bvh",
     "nearest-neighbour index (default auto: the grid, or the BVH wherever the points do not fill their box "
     "evenly, on the GPU also for small sets, on the CPU only for curves, surfaces and sets in the plane)",
     ANY},
    {OPT_PRUNE, "prune", 0, "none|dynamic|static", "grid search pruning (default static; ignored with --nns bvh)", ANY},
    {OPT_FINDMIN2, "findmin2", 0, "list|atomic", "how each component's shortest edge is selected (default atomic)",
     ANY},
    {OPT_PRECISION, "precision", 0, "float|double", "distance arithmetic (default float)", ANY},
    {OPT_THREADS, "threads", 0, "N", "CPU threads (default 0: the OpenMP default)", ANY},
    {OPT_DEVICE, "device", 0, "N", "CUDA device number (default 0)", ANY},
    {OPT_DEVICES, "devices", 0, "LIST|all",
     "solve over several GPUs of this host: CUDA device numbers separated by commas (0,1,2,3), or all; one spatial "
     "part per device named (as --partitions), exchanged over NCCL or by CUDA copies: the same tree",
     ANY},
    {OPT_OCCUPANCY, "occupancy", 0, "X", "target mean points per grid cell (default 0: the library's choice)", ANY},
    {OPT_CROWDED, "crowded", 0, "N",
     "grid cells of more than N points get a grid of their own (default 0: the library's choice)", ANY},
    {OPT_LATE_BVH, "late-bvh", 0, "auto|never|K",
     "grid with static pruning: from Boruvka iteration K >= 1 on, search a BVH over the grid's points (iterations "
     "count from 0, and iteration 0 always searches the grid; default auto: on the CPU once clusters have merged "
     "and their gaps are wide, never on the GPU)",
     ANY},
    {OPT_PARTITIONS, "partitions", 0, "P",
     "split the points into P spatial parts, solve each on its own and join them along the edges between "
     "them, as a solve over P GPUs does: the same tree (cpu backend, or with --backend cuda all on one GPU; "
     "default 0: one part)",
     ANY},
    {OPT_VERIFY, "verify", 0, NULL, "check the tree against brute-force Prim (n <= 20000), above that its edges alone (count, ids, order, lengths)", ANY},
    {OPT_REPEAT, "repeat", 0, "R",
     "after a warm-up solve, solve R times and report the median time of each phase (benchmarking)", ANY},
    {OPT_SAVE_POINTS, "save-points", 0, "FILE", "write the points in the ArborX binary format (float32; a 16-byte header above 2^31 - 1 points)", ANY},
    {OPT_LINKAGE, "linkage", 0, "FILE",
     "write the single-linkage hierarchy as CSV lines a,b,distance,size (SciPy's linkage matrix)", ANY},
    {OPT_CLUSTERS, "clusters", 0, "K", "flat clusters: cut the tree's K-1 longest edges", ANY},
    {OPT_CUT, "cut", 0, "D",
     "flat clusters: cut the edges longer than D (friends-of-friends with linking length D)", ANY},
    {OPT_MIN_CLUSTER_SIZE, "min-cluster-size", 0, "M",
     "with --clusters, --cut or --fof: clusters of fewer than M points are noise, label -1; with --hdbscan: "
     "HDBSCAN*'s min_cluster_size (>= 2)",
     ANY},
    {OPT_LABELS, "labels", 0, "FILE",
     "with --clusters, --cut, --fof or --hdbscan: write each point's cluster label, one per line (-1: noise); flat "
     "clusters and groups are numbered from 0 in order of each cluster's first point, HDBSCAN* clusters as "
     "scikit-learn numbers them",
     ANY},
    {OPT_MIN_SAMPLES, "min-samples", 0, "K",
     "the tree of HDBSCAN*'s mutual reachability: core distance = distance to the K-th nearest point, the "
     "point itself counted (scikit-learn's min_samples; the hdbscan package's K-1); default 1 (the Euclidean "
     "tree), with --hdbscan the --min-cluster-size",
     ANY},
    {OPT_HDBSCAN, "hdbscan", 0, NULL, "HDBSCAN* clusters from the mutual-reachability tree (needs --min-cluster-size)",
     ANY},
    {OPT_CLUSTER_SELECTION, "cluster-selection", 0, "eom|leaf",
     "with --hdbscan: select the most stable clusters (eom, the default) or the condensed tree's leaves", ANY},
    {OPT_EPSILON, "cluster-selection-epsilon", 0, "E",
     "with --hdbscan: clusters split below distance E are merged back (default 0)", ANY},
    {OPT_ALLOW_SINGLE, "allow-single-cluster", 0, NULL, "with --hdbscan: the whole set may be the only cluster", ANY},
    {OPT_MAX_CLUSTER_SIZE, "max-cluster-size", 0, "X",
     "with --hdbscan and eom: clusters of more than X points are not selected (default 0: no limit)", ANY},
    {OPT_PROBABILITIES, "probabilities", 0, "FILE",
     "with --hdbscan: write each point's membership strength in [0, 1], one per line", ANY},
    {OPT_OUTLIER_SCORES, "outlier-scores", 0, "FILE",
     "with --hdbscan: write each point's GLOSH outlier score, one per line", ANY},
    {OPT_CONDENSED_TREE, "condensed-tree", 0, "FILE",
     "with --hdbscan: write the condensed tree as CSV lines parent,child,lambda,child_size (the hdbscan "
     "package's layout)",
     ANY},
    {OPT_FOF, "fof", 0, "D",
     "friends-of-friends groups at linking length D without the whole tree (the groups of --cut D); -o writes "
     "their minimum spanning forest",
     ANY},
    {OPT_FOF_B, "fof-b", 0, "X",
     "--fof at X times the mean spacing (volume / n)^(1/dim) of the box, or of the points' bounding box", ANY},
    {OPT_BOX, "box", 0, "L",
     "with --fof: the points lie in the periodic box [0, L)^dim (coordinates outside are wrapped into it)", ANY},
    {OPT_GROUPS, "groups", 0, "FILE",
     "with --fof: write the group catalogue as CSV (group,size,centre of mass,extent), largest first", ANY},
    {OPT_QUIET, "quiet", 'q', NULL, "print no summary (errors and warnings still go to standard error)", ANY},
    {OPT_HELP, "help", 'h', NULL, "print this help and exit", ANY},
    {OPT_VERSION, "version", 'V', NULL, "print the version and exit", ANY},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

/* The state of one pass over argv. */
typedef struct parser {
    int argc;
    char **argv;
    int i; /* the argument being parsed */
    cli_args *args;
    char given[OPT_COUNT];
    char *msg;
    size_t msg_size;
} parser;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static int fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, p->msg_size, fmt, ap);
    va_end(ap);
    return -1;
}

static const opt_spec *find_long(const char *name, size_t len)
{
    for (size_t k = 0; k < N_OPTIONS; k++)
        if (strlen(options[k].name) == len && strncmp(options[k].name, name, len) == 0)
            return &options[k];
    return NULL;
}

static const opt_spec *find_short(char c)
{
    for (size_t k = 0; k < N_OPTIONS; k++)
        if (options[k].short_name == c)
            return &options[k];
    return NULL;
}

/* strtoll and strtod also accept blanks, hex, "inf" and "nan": allow only
 * what a decimal number in plain or exponent notation is made of. */
static int is_decimal(const char *s)
{
    return *s != '\0' && strspn(s, "0123456789.eE+-") == strlen(s);
}

/* A decimal integer in [lo, hi]; "1e6" and "2.5e3" count when they denote one. */
static int parse_integer(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!is_decimal(s))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno != 0) {
        double d = strtod(s, &end);
        /* 9.2e18 stays below INT64_MAX, so the conversion is defined */
        if (*end != '\0' || !(d >= -9.2e18 && d <= 9.2e18) || d != (double)(long long)d)
            return -1;
        v = (long long)d;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int integer_option(parser *p, const opt_spec *o, const char *value, int64_t lo, int64_t hi, int64_t *out)
{
    if (parse_integer(value, lo, hi, out) == 0)
        return 0;
    if (hi == lo + 1)
        return fail(p, "--%s: expected %lld or %lld, got '%s'", o->name, (long long)lo, (long long)hi, value);
    if (hi == INT64_MAX || hi == INT_MAX) /* no one means such a bound */
        return fail(p, "--%s: expected an integer >= %lld, got '%s'", o->name, (long long)lo, value);
    return fail(p, "--%s: expected an integer from %lld to %lld, got '%s'", o->name, (long long)lo, (long long)hi,
                value);
}

/* An option whose value is an int. */
static int int_option(parser *p, const opt_spec *o, const char *value, int lo, int hi, int *out)
{
    int64_t v;
    if (integer_option(p, o, value, lo, hi, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int number_option(parser *p, const opt_spec *o, const char *value, double *out)
{
    char *end;
    double v = strtod(value, &end);
    if (!is_decimal(value) || *end != '\0' || !isfinite(v) || v < 0.0)
        return fail(p, "--%s: expected a number >= 0, got '%s'", o->name, value);
    *out = v;
    return 0;
}

static int positive_option(parser *p, const opt_spec *o, const char *value, double *out)
{
    if (number_option(p, o, value, out) != 0 || *out == 0.0)
        return fail(p, "--%s: expected a number > 0, got '%s'", o->name, value);
    return 0;
}

/* --n: no more points than a solve takes: 2^32 - 2 on one device or the
 * CPU (checked with the other options), as many a device over several. */
static int point_count_option(parser *p, const opt_spec *o, const char *value, int64_t *out)
{
    if (integer_option(p, o, value, 0, INT64_MAX, out) != 0)
        return -1;
    if (*out > GEMST_MAX_SPLIT_POINTS)
        return fail(p, "--%s %s: more than 64 (2^32 - 2) points, the most a solve over 64 devices takes", o->name,
                    value);
    return 0;
}

/* --devices: "all", or distinct device numbers separated by commas. */
static int devices_option(parser *p, const opt_spec *o, const char *value)
{
    cli_args *a = p->args;
    char why[160];
    if (gemst_parse_device_list(value, CLI_MAX_DEVICES, a->devices, &a->opt.n_devices, why, sizeof why) != 0)
        return fail(p, "--%s: %s", o->name, why);
    a->opt.devices = a->opt.n_devices == GRIDEMST_ALL_DEVICES ? NULL : a->devices;
    return 0;
}

/* rc is what the name parser returned for value. */
static int choice_option(parser *p, const opt_spec *o, const char *value, int rc)
{
    if (rc == 0)
        return 0;
    return fail(p, "--%s: expected %s, got '%s'", o->name, o->metavar, value);
}

/* Applies one option; value is NULL for a flag. */
static int apply(parser *p, const opt_spec *o, const char *value)
{
    cli_args *a = p->args;
    p->given[o->id] = 1;
    switch (o->id) {
    case OPT_OUTPUT: a->output = value; return 0;
    case OPT_JSON: a->json = 1; return 0;
    case OPT_FORMAT: return choice_option(p, o, value, gemst_parse_format(value, &a->format));
    case OPT_GENERATE: a->generate = 1; return choice_option(p, o, value, gemst_parse_gen_kind(value, &a->kind));
    case OPT_N: return point_count_option(p, o, value, &a->n);
    case OPT_DIM: return int_option(p, o, value, 2, 3, &a->dim);
    case OPT_SEED: return integer_option(p, o, value, 0, INT64_MAX, &a->seed);
    case OPT_BACKEND: return choice_option(p, o, value, gridemst_parse_backend(value, &a->opt.backend));
    case OPT_NNS: return choice_option(p, o, value, gridemst_parse_nns(value, &a->opt.nns));
    case OPT_PRUNE: return choice_option(p, o, value, gridemst_parse_prune(value, &a->opt.tuning.prune));
    case OPT_FINDMIN2: return choice_option(p, o, value, gridemst_parse_findmin2(value, &a->opt.tuning.findmin2));
    case OPT_PRECISION: return choice_option(p, o, value, gridemst_parse_precision(value, &a->opt.precision));
    case OPT_THREADS: return int_option(p, o, value, 0, INT_MAX, &a->opt.threads);
    case OPT_DEVICE: return int_option(p, o, value, 0, INT_MAX, &a->opt.device);
    case OPT_DEVICES: return devices_option(p, o, value);
    case OPT_OCCUPANCY: return number_option(p, o, value, &a->opt.tuning.cell_occupancy);
    case OPT_CROWDED: return integer_option(p, o, value, 0, INT64_MAX, &a->opt.tuning.crowded_cell);
    case OPT_LATE_BVH:
        if (gridemst_parse_late_bvh(value, &a->opt.tuning.late_bvh) == 0)
            return 0;
        return fail(p, "--%s: expected auto, never or an iteration K >= 1 (iteration 0 always searches the grid), "
                       "got '%s'",
                    o->name, value);
    case OPT_PARTITIONS: return int_option(p, o, value, 0, INT_MAX, &a->opt.partitions);
    case OPT_VERIFY: a->verify = 1; return 0;
    case OPT_REPEAT: return int_option(p, o, value, 0, INT_MAX, &a->repeat);
    case OPT_SAVE_POINTS: a->save_points = value; return 0;
    case OPT_LINKAGE: a->linkage = value; return 0;
    case OPT_CLUSTERS: return integer_option(p, o, value, 1, INT64_MAX, &a->clusters);
    case OPT_CUT: return number_option(p, o, value, &a->cut);
    case OPT_MIN_CLUSTER_SIZE: return integer_option(p, o, value, 0, INT64_MAX, &a->min_cluster_size);
    case OPT_LABELS: a->labels = value; return 0;
    case OPT_MIN_SAMPLES: return integer_option(p, o, value, 1, INT64_MAX, &a->opt.min_samples);
    case OPT_HDBSCAN: a->hdbscan = 1; return 0;
    case OPT_CLUSTER_SELECTION:
        return choice_option(p, o, value, gridemst_parse_cluster_selection(value, &a->hdb.selection));
    case OPT_EPSILON: return number_option(p, o, value, &a->hdb.cluster_selection_epsilon);
    case OPT_ALLOW_SINGLE: a->hdb.allow_single_cluster = 1; return 0;
    case OPT_MAX_CLUSTER_SIZE: return integer_option(p, o, value, 1, INT64_MAX, &a->hdb.max_cluster_size);
    case OPT_PROBABILITIES: a->probabilities = value; return 0;
    case OPT_OUTLIER_SCORES: a->outlier_scores = value; return 0;
    case OPT_CONDENSED_TREE: a->condensed_tree = value; return 0;
    case OPT_FOF: return number_option(p, o, value, &a->fof);
    case OPT_FOF_B: return number_option(p, o, value, &a->fof_b);
    case OPT_BOX: return positive_option(p, o, value, &a->box);
    case OPT_GROUPS: a->groups = value; return 0;
    case OPT_QUIET: a->quiet = 1; return 0;
    case OPT_HELP: a->help = 1; return 0;
    case OPT_VERSION: a->version = 1; return 0;
    case OPT_COUNT: break;
    }
    return fail(p, "internal error: option --%s has no handler", o->name);
}

/* The value of an option given as a separate argument. */
static const char *next_value(parser *p)
{
    return p->i + 1 < p->argc ? p->argv[++p->i] : NULL;
}

/* "--name", "--name=VALUE" or "--name VALUE". */
static int parse_long(parser *p, const char *arg)
{
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const opt_spec *o = find_long(name, len);
    if (!o)
        return fail(p, "unknown option '--%.*s'", (int)len, name);
    if (!o->metavar && eq)
        return fail(p, "option '--%s' takes no value", o->name);
    const char *value = NULL;
    if (o->metavar && !(value = eq ? eq + 1 : next_value(p)))
        return fail(p, "option '--%s' needs a value", o->name);
    return apply(p, o, value);
}

/* "-q", "-qV", "-o FILE", "-oFILE": flags may be grouped; an option with a
 * value takes the rest of the argument or else the next argument. */
static int parse_short(parser *p, const char *arg)
{
    for (const char *c = arg + 1; *c; c++) {
        const opt_spec *o = find_short(*c);
        if (!o)
            return fail(p, "unknown option '-%c'", *c);
        if (!o->metavar) {
            if (apply(p, o, NULL) != 0)
                return -1;
            continue;
        }
        const char *value = c[1] ? c + 1 : next_value(p);
        if (!value)
            return fail(p, "option '-%c' needs a value", *c);
        return apply(p, o, value);
    }
    return 0;
}

static int add_operand(parser *p, const char *arg)
{
    if (p->args->input)
        return fail(p, "more than one INPUT: '%s' and '%s'", p->args->input, arg);
    p->args->input = arg;
    return 0;
}

/* Friends-of-friends: one linking length, and none of the tree's own
 * outputs (it builds no whole tree). */
static int check_fof(parser *p)
{
    static const opt_id tree_only[] = {OPT_LINKAGE, OPT_CLUSTERS, OPT_CUT, OPT_VERIFY, OPT_REPEAT, OPT_HDBSCAN,
                                       OPT_MIN_SAMPLES};
    int fof = p->given[OPT_FOF] || p->given[OPT_FOF_B];
    if (p->given[OPT_FOF] && p->given[OPT_FOF_B])
        return fail(p, "give either --fof or --fof-b, not both");
    if (!fof && (p->given[OPT_BOX] || p->given[OPT_GROUPS]))
        return fail(p, "--%s needs --fof D or --fof-b X", p->given[OPT_BOX] ? "box" : "groups");
    for (size_t k = 0; fof && k < sizeof tree_only / sizeof tree_only[0]; k++)
        if (p->given[tree_only[k]])
            for (size_t j = 0; j < N_OPTIONS; j++)
                if (options[j].id == tree_only[k])
                    return fail(p, "--%s does not apply with --fof (no whole tree is built)", options[j].name);
    return 0;
}

/* One source of points, no more of them than the devices take, and no
 * option that does not apply to it. */
static int check_combination(parser *p)
{
    const cli_args *a = p->args;
    if (a->input && a->generate)
        return fail(p, "give either INPUT or --generate, not both");
    if (!a->input && !a->generate)
        return fail(p, "no INPUT given (or --generate KIND --n N)");
    if (a->generate && !p->given[OPT_N])
        return fail(p, "--generate needs --n N");
    if (a->n > GEMST_MAX_POINTS && a->opt.n_devices != GRIDEMST_ALL_DEVICES && a->opt.n_devices < 2)
        return fail(p, "--n %lld: more than 2^32 - 2 points, the most a solve on one device or the CPU takes "
                       "(more: --devices over several GPUs)",
                    (long long)a->n);
    if (a->opt.n_devices >= 2 && a->n > a->opt.n_devices * GEMST_MAX_POINTS)
        return fail(p, "--n %lld: more than %d (2^32 - 2) points, the most a solve over %d devices takes", (long long)a->n,
                    a->opt.n_devices, a->opt.n_devices);
    for (size_t k = 0; k < N_OPTIONS; k++) {
        const opt_spec *o = &options[k];
        if (p->given[o->id] && o->scope == GENERATED && !a->generate)
            return fail(p, "--%s applies only with --generate", o->name);
        if (p->given[o->id] && o->scope == FILES && a->generate)
            return fail(p, "--%s applies only to an INPUT file", o->name);
    }
    if (p->given[OPT_CLUSTERS] + p->given[OPT_CUT] + p->given[OPT_HDBSCAN] > 1)
        return fail(p, "give only one of --clusters, --cut and --hdbscan");
    if (check_fof(p) != 0)
        return -1;
    int flat = p->given[OPT_CLUSTERS] || p->given[OPT_CUT] || p->given[OPT_FOF] || p->given[OPT_FOF_B];
    if (!flat && !a->hdbscan && p->given[OPT_LABELS])
        return fail(p, "--labels needs --clusters K, --cut D, --fof D or --hdbscan");
    if (!flat && !a->hdbscan && p->given[OPT_MIN_CLUSTER_SIZE])
        return fail(p, "--min-cluster-size needs --clusters K, --cut D, --fof D or --hdbscan");
    const opt_id hdbscan_only[] = {OPT_CLUSTER_SELECTION, OPT_EPSILON,       OPT_ALLOW_SINGLE,  OPT_MAX_CLUSTER_SIZE,
                                   OPT_PROBABILITIES,     OPT_OUTLIER_SCORES, OPT_CONDENSED_TREE};
    for (size_t k = 0; k < N_OPTIONS; k++)
        for (size_t h = 0; h < sizeof hdbscan_only / sizeof hdbscan_only[0]; h++)
            if (!a->hdbscan && options[k].id == hdbscan_only[h] && p->given[options[k].id])
                return fail(p, "--%s needs --hdbscan", options[k].name);
    if (a->hdbscan && (!p->given[OPT_MIN_CLUSTER_SIZE] || a->min_cluster_size < 2))
        return fail(p, "--hdbscan needs --min-cluster-size M with M >= 2");
    if (a->json + cli_files_on_stdout(a) > 1)
        return fail(p, "more than one of --json and the files named '-' would write to standard output");
    return 0;
}

int cli_files_on_stdout(const cli_args *a)
{
    const char *files[] = {a->output,        a->linkage,        a->labels,         a->save_points,
                           a->probabilities, a->outlier_scores, a->condensed_tree, a->groups};
    int on_stdout = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        on_stdout += files[k] && strcmp(files[k], "-") == 0;
    return on_stdout;
}

static void set_defaults(cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->format = GEMST_FORMAT_AUTO;
    a->kind = GEMST_GEN_UNIFORM;
    a->dim = 2;
    a->seed = 1;
    a->cut = -1.0;
    a->fof = -1.0;
    a->fof_b = -1.0;
    gridemst_options_init(&a->opt);
    gridemst_hdbscan_options_init(&a->hdb);
}

int cli_parse_args(int argc, char **argv, cli_args *args, char *msg, size_t msg_size)
{
    parser p = {.argc = argc, .argv = argv, .args = args, .msg = msg, .msg_size = msg_size};
    int operands_only = 0; /* after "--" */
    set_defaults(args);
    for (p.i = 1; p.i < argc && !args->help && !args->version; p.i++) {
        const char *arg = argv[p.i];
        int rc;
        if (operands_only || arg[0] != '-' || arg[1] == '\0')
            rc = add_operand(&p, arg);
        else if (strcmp(arg, "--") == 0)
            rc = 0, operands_only = 1;
        else if (arg[1] == '-')
            rc = parse_long(&p, arg);
        else
            rc = parse_short(&p, arg);
        if (rc != 0)
            return -1;
    }
    if (args->help || args->version)
        return 0;
    if (check_combination(&p) != 0)
        return -1;
    if (args->hdbscan) {
        args->hdb.min_cluster_size = args->min_cluster_size;
        if (!p.given[OPT_MIN_SAMPLES]) /* scikit-learn's default */
            args->opt.min_samples = args->min_cluster_size;
    }
    return 0;
}

/* One option line; a long left column puts the description on the next line. */
static void print_option(FILE *f, const opt_spec *o)
{
    enum { COLUMN = 24 };
    char left[96];
    snprintf(left, sizeof left, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
             o->short_name ? ',' : ' ', o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    if (strlen(left) < COLUMN)
        fprintf(f, "  %-*s%s\n", COLUMN, left, o->help);
    else
        fprintf(f, "  %s\n  %-*s%s\n", left, COLUMN, "", o->help);
}

void cli_print_help(FILE *f)
{
    fputs("Usage: gridemst [OPTIONS] INPUT\n"
          "       gridemst [OPTIONS] --generate KIND --n N [--dim D] [--seed S]\n"
          "\n"
          "Computes the exact Euclidean minimum spanning tree of 2D or 3D points.\n"
          "INPUT is a TSPLIB file (.tsp), an ArborX binary file (.bin: int32 n, int32 dim,\n"
          "n*dim float32; above 2^31-1 points the header is int32 -1, int32 dim, int64 n)\n"
          "or a text file (anything else: 2 or 3 numbers per line, separated by blanks or\n"
          "commas, '#' comments, a first line with no number is a header).\n"
          "INPUT '-' is standard input: TSPLIB when its first line is a TSPLIB keyword line\n"
          "(NAME : ...), else text; binary with --format binary.\n"
          "\n"
          "Options (a value may also be given as --option=VALUE):\n",
          f);
    for (size_t k = 0; k < N_OPTIONS; k++)
        print_option(f, &options[k]);
    fputs("\n"
          "Exit status: 0 success; 1 internal error or failed --verify; 2 bad usage or bad input.\n",
          f);
}
