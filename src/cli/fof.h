/* Friends-of-friends from the command line: --fof, --fof-b, --box, and
 * the outputs --labels and --groups. */
#ifndef GEMST_CLI_FOF_H
#define GEMST_CLI_FOF_H

#include <stdint.h>

#include "cli/args.h"
#include "tools/pointset.h"

typedef struct cli_fof {
    double linking_length; /* in the points' units */
    double box;            /* the periodic box's side; 0: open space */
    int64_t groups;        /* groups of at least --min-cluster-size points */
    int64_t noise_points;  /* points labelled -1 */
} cli_fof;

/* Whether --fof or --fof-b was given. */
int cli_fof_asked(const cli_args *a);

/* Finds the groups of ps (the forest into *forest), fills *f and writes
 * --labels and --groups.  Returns GRIDEMST_OK or an error code with *err. */
int cli_fof_run(const cli_args *a, const gemst_pointset *ps, gridemst_result *forest, cli_fof *f,
                gridemst_error *err);

#endif
