/* gridemst-segment: image segmentation by cutting the Euclidean minimum
 * spanning tree of the pixels' points (x, y, lambda * colour). */
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
#define DEFAULT_FEATURES SEG_RGB
/* The default smallest segment, in percent of the pixels: a thousandth of
 * the image, so that up to 1000 segments can be made at any size, and a
 * segment is a part of the picture rather than a speck. */
#define DEFAULT_MIN_SIZE_PERCENT 0.1

enum { EXIT_INTERNAL = 1, EXIT_BAD = 2 };

typedef struct args {
    const char *input;
    const char *output; /* -o: the segments in colour */
    const char *labels; /* --labels: the labels as a 16-bit PGM */
    double lambda;
    seg_features features;
    double min_size_percent; /* > 0: --min-size in percent of the pixels; 0: seg.min_size pixels */
    seg_params seg;
    int have_k, have_cut;
    gridemst_options opt;
    int json, help, version;
} args;

static void print_help(void)
{
    printf("Usage: %s (-k K | --cut D) [OPTIONS] INPUT\n"
           "\n"
           "Segments a PGM, PPM, PNG or JPEG image by cutting a minimum spanning tree of its\n"
           "pixels, each the point (x, y, lambda * c): x and y the pixel's column and row, c\n"
           "its colour coordinates (--features), each on a 0 to 255 scale whatever the\n"
           "maxval.  Segments are spatially coherent regions of similar colour.\n"
           "\n"
           "Features: luma, the one coordinate 0.299 R + 0.587 G + 0.114 B (the exact EMST\n"
           "of 3D points; colours of equal luma are not told apart); rgb, R, G and B; lab,\n"
           "CIE L*a*b* of the sRGB colour times 2.55 (L* 0 to 255).  With three coordinates\n"
           "the points are 5D: the tree is the minimum spanning tree of the union of the\n"
           "exact EMSTs of the ten projections of the points on three of their five\n"
           "coordinates, edges weighted by their 5D length (ten solves).  A grey image has\n"
           "its grey level alone.\n"
           "\n"
           "An edge of the tree may be cut only when each of the two parts it joins in the\n"
           "single-linkage hierarchy has at least M pixels (--min-size).  This is cutting the\n"
           "edges, then merging every region of fewer than M pixels into the region across its\n"
           "lightest cut edge, lightest first.\n"
           "\n"
           "Options (a value may also be given as --option=VALUE):\n"
           "  -k, --segments K    cut the K-1 heaviest edges that may be cut: K segments\n"
           "  --cut D             cut the edges longer than D that may be cut\n"
           "  --min-size M        smallest segment: M pixels, or M%% of the pixels with a\n"
           "                      %% sign (default %g%%, at least 1 pixel)\n"
           "  --features F        luma, rgb or lab (default %s)\n"
           "  --lambda L          weight of colour against position: a step of 1 in a colour\n"
           "                      coordinate is as far as L pixels (default %g)\n"
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
           "JPEG support: %s.\n"
           "Exit status: 0 success; 1 internal error; 2 bad usage, bad input or unwritable output.\n",
           PROG, DEFAULT_MIN_SIZE_PERCENT, seg_features_name(DEFAULT_FEATURES), DEFAULT_LAMBDA,
           seg_have_png() ? "yes" : "no (this build has no libpng)",
           seg_have_jpeg() ? "yes (input)" : "no (this build has no libjpeg)");
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

/* --min-size: "M" pixels (an integer >= 1) or "P%" of the pixels (0 < P <= 100). */
static int parse_min_size(const char *s, args *a)
{
    size_t len = strlen(s);
    if (len > 0 && s[len - 1] == '%') {
        char number[64];
        if (len > sizeof number)
            return -1;
        memcpy(number, s, len - 1);
        number[len - 1] = '\0';
        if (parse_number(number, 0.0, &a->min_size_percent) != 0 || a->min_size_percent == 0.0 ||
            a->min_size_percent > 100.0)
            return -1;
        return 0;
    }
    a->min_size_percent = 0.0;
    return parse_count(s, 1, INT64_MAX / 2, &a->seg.min_size);
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
    enum { OPT_CUT = 256, OPT_MIN_SIZE, OPT_FEATURES, OPT_LAMBDA, OPT_LABELS, OPT_BACKEND, OPT_THREADS, OPT_JSON };
    static const struct option longs[] = {
        {"segments", required_argument, NULL, 'k'},  {"cut", required_argument, NULL, OPT_CUT},
        {"min-size", required_argument, NULL, OPT_MIN_SIZE}, {"features", required_argument, NULL, OPT_FEATURES},
        {"lambda", required_argument, NULL, OPT_LAMBDA},
        {"output", required_argument, NULL, 'o'},    {"labels", required_argument, NULL, OPT_LABELS},
        {"backend", required_argument, NULL, OPT_BACKEND}, {"threads", required_argument, NULL, OPT_THREADS},
        {"json", no_argument, NULL, OPT_JSON},       {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->lambda = DEFAULT_LAMBDA;
    a->features = DEFAULT_FEATURES;
    a->min_size_percent = DEFAULT_MIN_SIZE_PERCENT;
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
            if (parse_min_size(optarg, a) != 0)
                return usage_error("--min-size: expected a pixel count >= 1 or a percentage in (0, 100]%%, got '%s'",
                                   optarg);
            break;
        case OPT_FEATURES:
            if (seg_parse_features(optarg, &a->features) != 0)
                return usage_error("--features: expected luma, rgb or lab, got '%s'", optarg);
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
    const seg_tree *tree;
    seg_params seg; /* a's, with the smallest segment in pixels */
    seg_summary s;
    double t_read, t_solve, t_segment, t_write, t_total;
} report;

static void print_json(const report *r)
{
    const args *a = r->a;
    printf("{\"input\": ");
    json_string(a->input);
    printf(", \"width\": %lld, \"height\": %lld, \"channels\": %d, \"maxval\": %u, \"pixels\": %lld, "
           "\"features\": \"%s\", \"lambda\": %.17g, ",
           (long long)r->img->width, (long long)r->img->height, r->img->channels, r->img->maxval,
           (long long)r->tree->n, seg_features_name(a->features), a->lambda);
    if (a->have_k)
        printf("\"k\": %lld, ", (long long)a->seg.k);
    else
        printf("\"cut\": %.17g, ", a->seg.cut);
    printf("\"min_size\": %lld, \"segments\": %lld, \"smallest\": %lld, \"largest\": %lld, \"backend\": \"%s\", "
           "\"trees\": %d, \"threads\": %d, \"device\": ",
           (long long)r->seg.min_size, (long long)r->s.segments, (long long)r->s.smallest, (long long)r->s.largest,
           gridemst_backend_name(r->tree->stats.backend), r->tree->solves, r->tree->stats.threads);
    json_string(r->tree->stats.device_name);
    printf(", \"time_ms\": {\"read\": %.3f, \"solve\": %.3f, \"segment\": %.3f, \"write\": %.3f, \"total\": %.3f}}\n",
           r->t_read, r->t_solve, r->t_segment, r->t_write, r->t_total);
}

static void print_summary(const report *r)
{
    const args *a = r->a;
    printf("%s: %lld x %lld %s, %lld pixels, features %s, lambda %g\n", a->input, (long long)r->img->width,
           (long long)r->img->height, r->img->channels == 1 ? "grey" : "colour", (long long)r->tree->n,
           r->img->channels == 1 ? "grey" : seg_features_name(a->features), a->lambda);
    printf("segments: %lld (smallest %lld px, largest %lld px; ", (long long)r->s.segments, (long long)r->s.smallest,
           (long long)r->s.largest);
    if (a->have_k)
        printf("-k %lld", (long long)a->seg.k);
    else
        printf("--cut %g", a->seg.cut);
    printf(", min size %lld)\n", (long long)r->seg.min_size);
    printf("time: %.1f ms (read %.1f, solve %.1f on %s, %d tree%s, segment %.1f, write %.1f)\n", r->t_total,
           r->t_read, r->t_solve, gridemst_backend_name(r->tree->stats.backend), r->tree->solves,
           r->tree->solves > 1 ? "s" : "", r->t_segment, r->t_write);
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
    seg_tree tree;
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
    r.seg = a->seg;
    if (a->min_size_percent > 0) {
        r.seg.min_size = (int64_t)ceil(a->min_size_percent / 100.0 * (double)n);
        if (r.seg.min_size < 1)
            r.seg.min_size = 1;
    }
    int rc = seg_tree_build(&img, a->features, a->lambda, &a->opt, &tree, &err);
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
    if (!labels || seg_segment(&tree, &r.seg, labels, &r.s, msg) != 0) {
        file_error(a->input, "out of memory for the labels", EXIT_BAD);
        goto done;
    }
    if (a->have_k && r.s.segments < r.seg.k)
        fprintf(stderr,
                PROG ": warning: made %lld of the %lld segments asked: only %lld tree edges have at least %lld "
                     "pixels on both sides\n",
                (long long)r.s.segments, (long long)r.seg.k, (long long)r.s.splits, (long long)r.seg.min_size);
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
    seg_tree_free(&tree);
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
