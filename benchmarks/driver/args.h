/* Command-line options of gridemst-bench. */
#ifndef GEMST_BENCH_ARGS_H
#define GEMST_BENCH_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gridemst.h"
#include "tools/generate.h"

/* The most values one list option can hold (every backend, index, pruning
 * or FindMin2 method the library names). */
#define BENCH_MAX_CHOICES 8

/* A comma-separated list of option values, in the order given, no repeats. */
typedef struct bench_choices {
    int value[BENCH_MAX_CHOICES];
    int count;
} bench_choices;

/* CUDA solves on one context kept for all of a configuration's solves, or
 * each on a context of its own (the plain call). */
enum { BENCH_CONTEXT_REUSE = 0, BENCH_CONTEXT_FRESH = 1 };

typedef struct bench_args {
    const char *input;     /* INPUT, or NULL with --generate */
    int generate;          /* --generate was given */
    gemst_gen_kind kind;
    int64_t n;
    int dim;
    int64_t seed;
    const char *label;     /* --label; NULL: derived from INPUT or the generator */
    bench_choices backend; /* gridemst_backend values, never AUTO */
    bench_choices nns;     /* gridemst_nns values */
    bench_choices prune;   /* gridemst_prune values */
    bench_choices findmin2; /* gridemst_findmin2 values */
    bench_choices result;  /* gridemst_result_place values (CUDA; the CPU's tree is on the host) */
    bench_choices context; /* BENCH_CONTEXT_* values (CUDA) */
    gridemst_options opt;  /* precision, threads, device or devices, occupancy */
    int devices[64];       /* --devices LIST: opt.devices */
    int repeat;            /* timed solves per configuration */
    int warmup;            /* untimed solves before them */
    double max_seconds;    /* stop repeating once a configuration took this long; 0: never */
    const char *output;    /* the runs CSV; "-" is standard output */
    const char *iterations; /* the per-iteration CSV; NULL: not written */
    int quiet;
    int help;
} bench_args;

/* Fills *args from argv.  Returns 0, or -1 with a one-line message in msg
 * (no program name, no newline) for bad usage.  AUTO in --backend becomes
 * CUDA when a device is usable, else CPU. */
int bench_parse_args(int argc, char **argv, bench_args *args, char *msg, size_t msg_size);

void bench_print_help(FILE *f);

#endif
