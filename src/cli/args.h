/* Command-line options of the gridemst tool. */
#ifndef GEMST_CLI_ARGS_H
#define GEMST_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gridemst.h"
#include "tools/generate.h"
#include "tools/io.h"

/* The most devices --devices names (the library's limit). */
#define CLI_MAX_DEVICES 64

typedef struct cli_args {
    const char *input;       /* INPUT, or NULL with --generate */
    gemst_format format;     /* --format; AUTO: from INPUT's extension */
    int generate;            /* --generate was given */
    gemst_gen_kind kind;     /* with --generate */
    int64_t n;               /* --n */
    int dim;                 /* --dim */
    int64_t seed;            /* --seed */
    const char *output;      /* -o: the tree as CSV; NULL: not written */
    const char *save_points; /* --save-points; NULL: not written */
    const char *linkage;     /* --linkage: the single-linkage merges as CSV; NULL: not written */
    int64_t clusters;        /* --clusters K; 0: not asked */
    double cut;              /* --cut D; negative: not asked */
    int64_t min_cluster_size; /* --min-cluster-size: smaller clusters are noise (-1) */
    const char *labels;      /* --labels: flat cluster labels, one per line; NULL: not written */
    int hdbscan;             /* --hdbscan: HDBSCAN* clusters (hdb holds their options) */
    gridemst_hdbscan_options hdb;
    const char *probabilities;  /* --probabilities: with --hdbscan, one per line; NULL: not written */
    const char *outlier_scores; /* --outlier-scores: with --hdbscan, one per line; NULL: not written */
    const char *condensed_tree; /* --condensed-tree: with --hdbscan, CSV rows; NULL: not written */
    double fof;              /* --fof D: friends-of-friends at linking length D; negative: not asked */
    double fof_b;            /* --fof-b X: the same at X times the mean spacing; negative: not asked */
    double box;              /* --box L: the periodic box's side; 0: open space */
    const char *groups;      /* --groups: the friends-of-friends group catalogue; NULL: not written */
    gridemst_options opt;    /* solver options (progress is set by main; devices points into
                                the devices below) */
    int devices[CLI_MAX_DEVICES]; /* --devices LIST */
    int json;
    int verify;
    int repeat;              /* --repeat: timed solves after a warm-up; 0: one solve */
    int quiet;
    int help;                /* -h: print the help and do nothing else */
    int version;             /* -V: print the version and do nothing else */
} cli_args;

/* Fills *args from argv.  Returns 0, or -1 with a one-line message in msg
 * (no program name, no newline) for bad usage.  Parsing stops at -h or -V,
 * which then take effect whatever else the command line says. */
int cli_parse_args(int argc, char **argv, cli_args *args, char *msg, size_t msg_size);

/* How many of the output files are standard output ("-"). */
int cli_files_on_stdout(const cli_args *a);

/* The --help text. */
void cli_print_help(FILE *f);

#endif
