/* What the gridemst tool prints: the JSON object, the summary, the --verify
 * check and its line, and the progress line on a terminal. */
#ifndef GEMST_CLI_REPORT_H
#define GEMST_CLI_REPORT_H

#include <stdio.h>

#include "cli/clusters.h"
#include "cli/fof.h"
#include "cli/rounding.h"
#include "gridemst.h"
#include "tools/pointset.h"

/* Largest point count --verify checks against Prim: brute-force Prim takes
 * O(n^2) time.  Above it only the edges are checked (gemst_check_edges). */
#define CLI_VERIFY_MAX_N 20000

typedef struct cli_verify {
    int checked;             /* 0: skipped (n > CLI_VERIFY_MAX_N with min_samples >= 2) */
    int edges_only;          /* 1: n > CLI_VERIFY_MAX_N, the edges checked, not against Prim */
    int ok;                  /* checked and every check passed */
    double reference_weight; /* Prim's total (0 when edges_only) */
    double max_abs_diff;     /* largest |w - reference w| over the two sorted weight lists */
    double tolerance;        /* the largest per-edge tolerance (0 in double precision) */
    char reason[256];        /* why it failed or was skipped; empty when ok */
} cli_verify;

/* One run, as the reports describe it. */
typedef struct cli_run {
    const char *input;        /* the path, or "generate:KIND:n=N:dim=D:seed=S" */
    const char *format;       /* "tsplib", "text", "binary" or "generated" */
    const gemst_pointset *ps;
    const gridemst_result *res;
    double input_ms;          /* reading or generating the points */
    int repeat;               /* timed solves (--repeat); res's times are their medians */
    double device_ms[3];      /* device time of the solves: median, min, max (see cli_device_ms) */
    const cli_verify *verify; /* NULL without --verify */
    const cli_clusters *clusters; /* NULL without --clusters, --cut or --hdbscan */
    const cli_fof *fof;       /* NULL without --fof or --fof-b (res is then the forest) */
    const cli_rounding *rounding; /* float precision's rounding; NULL with double */
} cli_run;

/* The solve's time from points on the device to the sorted tree on the
 * device (CUDA), or the whole solve (CPU): grid + findmin1 + findmin2 +
 * merge + edges. */
double cli_device_ms(const gridemst_times *t);

/* Monotonic wall clock in milliseconds. */
double cli_now_ms(void);

/*
 * Checks res against brute-force Prim in double precision, edge by edge
 * (gemst_check_tree, tools/tree_check.h): one spanning tree in (w, u, v)
 * order, the same sorted lengths, and the same edges (in double precision
 * identical; in float, within the rounding of one distance evaluation).
 * With min_samples >= 2, the mutual-reachability tree against Prim under
 * that length: the same edges in double, the same sorted lengths in float.
 * Fills *v (the outcome) and returns GRIDEMST_OK, or an error code with
 * *err when memory runs out.
 */
int cli_verify_tree(const gemst_pointset *ps, const gridemst_result *res, int64_t min_samples, cli_verify *v,
                    gridemst_error *err);

/* The --json object, on one line. */
void cli_print_json(FILE *f, const cli_run *run);

/* The human summary, a few lines. */
void cli_print_summary(FILE *f, const cli_run *run);

/* "verify: ok (...)", "verify: FAILED (...)" or "verify: skipped (...)". */
void cli_print_verify(FILE *f, const cli_verify *v);

/* A progress line updated in place on standard error, shown only when that
 * is a terminal and only once the solve has taken more than a second. */
typedef struct cli_progress {
    double start_ms;
    int width; /* the longest line shown; 0 while none is */
} cli_progress;

/* Starts the clock and, on a terminal, sets opt's progress callback. */
void cli_progress_start(cli_progress *p, gridemst_options *opt);

/* Ends a progress line that was shown. */
void cli_progress_end(cli_progress *p);

#endif
