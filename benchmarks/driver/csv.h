/* The driver's CSV output: one row per timed solve, and one per Boruvka
 * iteration of each timed solve.  Times in milliseconds; an empty field is
 * a value that does not apply. */
#ifndef GEMST_BENCH_CSV_H
#define GEMST_BENCH_CSV_H

#include <stdio.h>

#include "bench.h"
#include "timed_solve.h"

void bench_csv_runs_header(FILE *f);

/* Run `run` (1, 2, ...) of configuration c: the driver's times t, the
 * library's stats, and whether the tree is the first solve's. */
void bench_csv_run(FILE *f, const bench_config *c, int run, const bench_times *t, const gridemst_result *r,
                   int same_edges);

void bench_csv_iterations_header(FILE *f);

/* The Boruvka iterations of run `run`. */
void bench_csv_iterations(FILE *f, const bench_config *c, int run, const gridemst_result *r);

#endif
