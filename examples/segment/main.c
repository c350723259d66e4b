/* gridemst-segment: image segmentation by cutting the Euclidean minimum
 * spanning tree of the pixels' points (x, y, lambda * luma). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gridemst.h"
#include "image.h"
#include "segment.h"
#include "tools/omp_wait.h"

#define PROG "gridemst-segment"
#define DEFAULT_LAMBDA 1.0

enum { EXIT_INTERNAL = 1, EXIT_BAD = 2 };

typedef struct args {
    const char *input;
    const char *output; /* -o: the segments in colour */
    const char *labels; /* --labels: the labels as a 16-bit PGM */
    double lambda;
    seg_params seg;
    int have_k, have_cut;
    gridemst_options opt;
    int json, help, version;
} args;

static void print_help(void)
{
    printf("Usage: %s (-k K | --cut D) [OPTIONS] INPUT\n"
           "\n"
           "Segments a PGM, PPM or PNG image by cutting the Euclidean minimum spanning tree\n"
           "of its pixels, each the point (x, y, lambda * Y): x and y the pixel's column and\n"
           "row, Y its grey level or, in colour, its luma (0.299 R + 0.587 G + 0.114 B), on a\n"
           "0 to 255 scale whatever the maxval.  Segments are spatially coherent regions of\n"
           "similar brightness; colours of equal luma are not told apart.\n"
           "\n"
           "An edge of the tree may be cut only when each of the two parts it joins in the\n"
           "single-linkage hierarchy has at least M pixels (--min-size).  This is cutting the\n"
           "edges, then merging every region of fewer than M pixels into the region across its\n"
           "lightest cut edge, lightest first.\n"
           "\n"
           "Options (a value may also be given as --option=VALUE):\n"
           "  -k, --segments K    cut the K-1 heaviest edges that may be cut: K segments\n"
           "  --cut D             cut the edges longer than D that may be cut\n"
           "  --min-size M        smallest segment, in pixels (default 1: every edge may be cut)\n"
           "  --lambda L          weight of brightness against position: a grey level step of 1\n"
           "                      is as far as L pixels (default %g)\n"
           "  -o, --output FILE   write the segments, each in a colour fixed by its label, as\n"
           "                      PNG when FILE ends in .png, else as binary PPM\n"
           "  --labels FILE       write each pixel's segment label (0, 1, ... in the order of\n"
           "                      each segment's first pixel) as a 16-bit PGM, maxval 65535\n"
           "  --backend auto|cpu|cuda  where to solve (default auto: cuda when a GPU is usable)\n"
           "  --threads N         CPU threads (default 0: the OpenMP default)\n"
           "  --json              print one JSON object instead of the summary\n"
           "  -h, --help          print this help and exit\n"
           "  -V, --version       print the version and exit\n"
           "\n"
           "PNG support: %s.\n"
           "Exit status: 0 success; 1 internal error; 2 bad usage, bad input or unwritable output.\n",
           PROG, DEFAULT_LAMBDA, seg_have_png() ? "yes" : "no (this build has no libpng)");
}

static int usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nTry '" PROG " --help'.\n");
    return EXIT_BAD;
}

/* A decimal number: strtod also takes blanks, hex, inf and nan. */
static int parse_number(const char *s, double lo, double *out)
{
    char *end;
    if (*s == '\0' || strspn(s, "0123456789.eE+-") != strlen(s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v) || v < lo)
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    double v;
    if (parse_number(s, (double)lo, &v) != 0 || v > (double)hi || v != floor(v))
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* How the option whose getopt value is val is written, or NULL for none:
 * "--lambda", or "-k/--segments" for one with a short form too. */
static const char *option_name(const struct option *longs, int val, char *buf, size_t size)
{
    for (const struct option *o = longs; o->name; o++) {
        if (o->val == val) {
            if (val < 256)
                snprintf(buf, size, "-%c/--%s", val, o->name);
            else
                snprintf(buf, size, "--%s", o->name);
            return buf;
        }
    }
    return NULL;
}

/* Returns 0, or the exit status of a usage error (printed). */
static int parse_args(int argc, char **argv, args *a)
{
    enum { OPT_CUT = 256, OPT_MIN_SIZE, OPT_LAMBDA, OPT_LABELS, OPT_BACKEND, OPT_THREADS, OPT_JSON };
    static const struct option longs[] = {
        {"segments", required_argument, NULL, 'k'},  {"cut", required_argument, NULL, OPT_CUT},
        {"min-size", required_argument, NULL, OPT_MIN_SIZE}, {"lambda", required_argument, NULL, OPT_LAMBDA},
        {"output", required_argument, NULL, 'o'},    {"labels", required_argument, NULL, OPT_LABELS},
        {"backend", required_argument, NULL, OPT_BACKEND}, {"threads", required_argument, NULL, OPT_THREADS},
        {"json", no_argument, NULL, OPT_JSON},       {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->lambda = DEFAULT_LAMBDA;
    a->seg.min_size = 1;
    gridemst_options_init(&a->opt);
    opterr = 0; /* our messages, not getopt's */
    char name[64];
    int c;
    while ((c = getopt_long(argc, argv, ":k:o:hV", longs, NULL)) != -1) {
        int64_t count;
        switch (c) {
        case 'k':
            if (parse_count(optarg, 1, INT64_MAX / 2, &a->seg.k) != 0)
                return usage_error("-k: expected an integer >= 1, got '%s'", optarg);
            a->have_k = 1;
            break;
        case OPT_CUT:
            if (parse_number(optarg, 0.0, &a->seg.cut) != 0)
                return usage_error("--cut: expected a number >= 0, got '%s'", optarg);
            a->have_cut = 1;
            break;
        case OPT_MIN_SIZE:
            if (parse_count(optarg, 1, INT64_MAX / 2, &a->seg.min_size) != 0)
                return usage_error("--min-size: expected an integer >= 1, got '%s'", optarg);
            break;
        case OPT_LAMBDA:
            if (parse_number(optarg, 0.0, &a->lambda) != 0 || a->lambda == 0.0)
                return usage_error("--lambda: expected a number > 0, got '%s'", optarg);
            break;
        case 'o': a->output = optarg; break;
        case OPT_LABELS: a->labels = optarg; break;
        case OPT_BACKEND:
            if (gridemst_parse_backend(optarg, &a->opt.backend) != 0)
                return usage_error("--backend: expected auto, cpu or cuda, got '%s'", optarg);
            break;
        case OPT_THREADS:
            if (parse_count(optarg, 0, 1 << 20, &count) != 0)
                return usage_error("--threads: expected an integer >= 0, got '%s'", optarg);
            a->opt.threads = (int)count;
            break;
        case OPT_JSON: a->json = 1; break;
        case 'h': a->help = 1; return 0;
        case 'V': a->version = 1; return 0;
        case ':': return usage_error("option '%s' needs a value", option_name(longs, optopt, name, sizeof name));
        default:
            /* getopt sets optopt to 0 for an unknown or ambiguous long option
             * (then the last argument read), to the option's value for a
             * long option given a value it does not take, else to the
             * unknown short option */
            if (optopt == 0)
                return usage_error("unknown option '%s'", argv[optind - 1]);
            if (option_name(longs, optopt, name, sizeof name))
                return usage_error("option '%s' takes no value", name);
            name[0] = '-', name[1] = (char)optopt, name[2] = '\0';
            return usage_error("unknown option '%s'", name);
        }
    }
    if (optind == argc)
        return usage_error("%s", "no INPUT given");
    if (optind + 1 < argc)
        return usage_error("more than one INPUT: '%s' ...", argv[optind + 1]);
    a->input = argv[optind];
    if (a->have_k == a->have_cut)
        return usage_error("%s", a->have_k ? "give either -k or --cut, not both" : "give -k K or --cut D");
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

typedef struct report {
    const args *a;
    const seg_image *img;
    const gridemst_result *tree;
    seg_summary s;
    double t_read, t_solve, t_segment, t_write, t_total;
} report;

static void print_json(const report *r)
{
    const args *a = r->a;
    printf("{\"input\": ");
    json_string(a->input);
    printf(", \"width\": %lld, \"height\": %lld, \"channels\": %d, \"maxval\": %u, \"pixels\": %lld, "
           "\"lambda\": %.17g, ",
           (long long)r->img->width, (long long)r->img->height, r->img->channels, r->img->maxval,
           (long long)r->tree->n, a->lambda);
    if (a->have_k)
        printf("\"k\": %lld, ", (long long)a->seg.k);
    else
        printf("\"cut\": %.17g, ", a->seg.cut);
    printf("\"min_size\": %lld, \"segments\": %lld, \"smallest\": %lld, \"largest\": %lld, \"backend\": \"%s\", "
           "\"threads\": %d, \"device\": ",
           (long long)a->seg.min_size, (long long)r->s.segments, (long long)r->s.smallest, (long long)r->s.largest,
           gridemst_backend_name(r->tree->stats.backend), r->tree->stats.threads);
    json_string(r->tree->stats.device_name);
    printf(", \"time_ms\": {\"read\": %.3f, \"solve\": %.3f, \"segment\": %.3f, \"write\": %.3f, \"total\": %.3f}}\n",
           r->t_read, r->t_solve, r->t_segment, r->t_write, r->t_total);
}

static void print_summary(const report *r)
{
    const args *a = r->a;
    printf("%s: %lld x %lld %s, %lld pixels, lambda %g\n", a->input, (long long)r->img->width,
           (long long)r->img->height, r->img->channels == 1 ? "grey" : "colour", (long long)r->tree->n, a->lambda);
    printf("segments: %lld (smallest %lld px, largest %lld px; ", (long long)r->s.segments, (long long)r->s.smallest,
           (long long)r->s.largest);
    if (a->have_k)
        printf("-k %lld", (long long)a->seg.k);
    else
        printf("--cut %g", a->seg.cut);
    printf(", min size %lld)\n", (long long)a->seg.min_size);
    printf("time: %.1f ms (read %.1f, solve %.1f on %s, segment %.1f, write %.1f)\n", r->t_total, r->t_read,
           r->t_solve, gridemst_backend_name(r->tree->stats.backend), r->t_segment, r->t_write);
}

/* Prints "PROG: FILE: message" and returns status. */
static int file_error(const char *file, const char *message, int status)
{
    fprintf(stderr, PROG ": %s: %s\n", file, message);
    return status;
}

static int run(const args *a)
{
    char msg[SEG_MSG];
    seg_image img;
    gridemst_result tree = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    seg_rgb rgb = {0, 0, NULL};
    int32_t *labels = NULL;
    report r = {.a = a, .img = &img, .tree = &tree};
    int status = EXIT_BAD;

    double t0 = now_ms();
    if (seg_image_read(a->input, &img, msg) != 0)
        return file_error(a->input, msg, EXIT_BAD);
    double t1 = now_ms();
    int64_t n = img.width * img.height;
    float *xyz = seg_features(&img, a->lambda);
    if (!xyz) {
        file_error(a->input, "out of memory for the points", EXIT_BAD);
        goto done;
    }
    int rc = gridemst_solve(xyz, GRIDEMST_FLOAT32, n, 3, &a->opt, &tree, &err);
    free(xyz);
    if (rc != GRIDEMST_OK) {
        /* the user's input, options or machine, unless the library failed */
        status = rc == GRIDEMST_ERR_INTERNAL || rc == GRIDEMST_ERR_CUDA ? EXIT_INTERNAL : EXIT_BAD;
        file_error(a->input, err.message, status);
        goto done;
    }
    if (tree.stats.note[0])
        fprintf(stderr, PROG ": warning: %s\n", tree.stats.note);
    double t2 = now_ms();
    labels = malloc((size_t)n * sizeof *labels);
    if (!labels || seg_segment(&tree, &a->seg, labels, &r.s, msg) != 0) {
        file_error(a->input, "out of memory for the labels", EXIT_BAD);
        goto done;
    }
    if (a->have_k && r.s.segments < a->seg.k)
        fprintf(stderr,
                PROG ": warning: made %lld of the %lld segments asked: only %lld tree edges have at least %lld "
                     "pixels on both sides\n",
                (long long)r.s.segments, (long long)a->seg.k, (long long)r.s.splits, (long long)a->seg.min_size);
    double t3 = now_ms();
    if (a->labels && r.s.segments > 65536) {
        snprintf(msg, sizeof msg, "%lld segments do not fit in a 16-bit PGM (at most 65536)", (long long)r.s.segments);
        file_error(a->labels, msg, EXIT_BAD);
        goto done;
    }
    if (a->output &&
        (seg_render(img.width, img.height, labels, &rgb, msg) != 0 || seg_rgb_write(a->output, &rgb, msg) != 0)) {
        file_error(a->output, msg, EXIT_BAD);
        goto done;
    }
    if (a->labels && seg_pgm16_write(a->labels, img.width, img.height, labels, msg) != 0) {
        file_error(a->labels, msg, EXIT_BAD);
        goto done;
    }
    double t4 = now_ms();
    r.t_read = t1 - t0;
    r.t_solve = t2 - t1;
    r.t_segment = t3 - t2;
    r.t_write = t4 - t3;
    r.t_total = t4 - t0;
    if (a->json)
        print_json(&r);
    else
        print_summary(&r);
    status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : file_error("standard output", "write error", EXIT_BAD);
done:
    free(labels);
    free(rgb.pix);
    gridemst_result_free(&tree);
    seg_image_free(&img);
    return status;
}

int main(int argc, char **argv)
{
    gemst_default_passive_wait(argv);
    args a;
    int status = parse_args(argc, argv, &a);
    if (status != 0)
        return status;
    if (a.help) {
        print_help();
        return 0;
    }
    if (a.version) {
        printf("%s (gridemst) %s\n", PROG, gridemst_version());
        return 0;
    }
    return run(&a);
}
