/*
 * What the libFuzzer harnesses of the point-set readers share (fuzz/, built
 * and run by `make fuzz`).
 *
 * The readers take a path, so each input is written to a temporary file:
 * one per process, made once with mkstemp and rewritten for every input
 * (a new file per input would cost a create and an unlink each time).
 * Whatever a reader returns must satisfy the invariants below; a violation
 * abort()s, which libFuzzer reports as a crash with the input saved.
 */
#ifndef GEMST_FUZZ_COMMON_H
#define GEMST_FUZZ_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/io.h"

static char fuzz_path[4096];
static int fuzz_fd = -1;

static inline void fuzz_remove_file(void)
{
    unlink(fuzz_path);
}

static inline void fuzz_open_file(void)
{
    const char *dir = getenv("TMPDIR");
    snprintf(fuzz_path, sizeof fuzz_path, "%s/gemst-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
    fuzz_fd = mkstemp(fuzz_path);
    if (fuzz_fd < 0) {
        perror("gemst fuzz: mkstemp");
        abort();
    }
    atexit(fuzz_remove_file);
}

/* The path of a file that holds exactly data[0 .. size). */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    if (fuzz_fd < 0)
        fuzz_open_file();
    for (size_t done = 0; done < size;) {
        ssize_t k = pwrite(fuzz_fd, data + done, size - done, (off_t)done);
        if (k <= 0) {
            perror("gemst fuzz: pwrite");
            abort();
        }
        done += (size_t)k;
    }
    /* Cut the previous input's tail after writing: truncating to 0 first
     * makes ext4 flush the file to disk when the reader closes it
     * (auto_da_alloc), many times slower than the reading itself. */
    if (ftruncate(fuzz_fd, (off_t)size) != 0) {
        perror("gemst fuzz: ftruncate");
        abort();
    }
    return fuzz_path;
}

/* A one-line message "PATH..." as every reader error and warning is. */
static inline void fuzz_check_message(const char *message)
{
    size_t len = strlen(fuzz_path);
    if (strncmp(message, fuzz_path, len) != 0 || strchr(message, '\n'))
        abort();
}

/* Warnings are checked like errors and otherwise dropped. */
static inline void fuzz_check_warning(void *ctx, const char *message)
{
    (void)ctx;
    fuzz_check_message(message);
}

/* Checks a reader's outcome: on success a valid point set of the expected
 * type, on failure an empty one and a matching error code and message. */
static inline void fuzz_check_result(int rc, const gridemst_error *err, const gemst_pointset *ps, gridemst_dtype dtype)
{
    if (rc != GRIDEMST_OK) {
        if ((int)err->code != rc || ps->n != 0 || ps->coords || ps->tsp.orig)
            abort();
        fuzz_check_message(err->message);
        return;
    }
    if (ps->n < 0 || (ps->dim != 2 && ps->dim != 3) || !ps->coords || ps->dtype != dtype)
        abort();
    for (int64_t i = 0; i < ps->n; i++)
        for (int d = 0; d < ps->dim; d++)
            if (!isfinite(gemst_pointset_coord(ps, i, d)))
                abort();
}

#endif
