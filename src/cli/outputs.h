/* The output files of a gridemst run, claimed before the input is read. */
#ifndef GEMST_CLI_OUTPUTS_H
#define GEMST_CLI_OUTPUTS_H

#include "cli/args.h"
#include "gridemst.h"

#define CLI_OUTPUTS 4

typedef struct cli_outputs {
    const char *path[CLI_OUTPUTS]; /* -o, --linkage, --labels, --save-points; NULL: none */
    int created[CLI_OUTPUTS];      /* the claim created the file */
} cli_outputs;

/*
 * Makes sure that every output file named in a (standard output aside) can
 * be written before any work is done: a missing file is created empty, an
 * existing one is opened for writing and left as it is until the writer
 * replaces its content; a device or a FIFO is only checked for write
 * permission.  Returns GRIDEMST_OK, or GRIDEMST_ERR_INVALID_ARGUMENT with
 * "PATH: cannot write: reason" for the first that cannot be written (the
 * files claimed before it are discarded, and *o is left empty).
 */
int cli_outputs_claim(const cli_args *a, cli_outputs *o, gridemst_error *err);

/* After a failed run: removes the files the claim created, so that no empty
 * or partial output is left behind.  Files that existed are kept. */
void cli_outputs_discard(const cli_outputs *o);

#endif
