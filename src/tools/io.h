/*
 * Reading point sets and writing trees, for the command-line tools.
 *
 * Formats:
 *   tsplib  TSPLIB .tsp with NODE_COORD_SECTION (EUC_2D, CEIL_2D, ATT, GEO
 *           mapped to 3D unit vectors, EUC_3D; MAN_* and MAX_* read as
 *           Euclidean with a warning; explicit matrices refused)
 *   text    one point per line, 2 or 3 numbers separated by blanks or
 *           commas; '#' starts a comment; the first line with content
 *           may be a header, when none of its fields looks like a number
 *   binary  int32 n, int32 dim, then n * dim float32, little-endian (the
 *           ArborX benchmark format); above INT32_MAX points the header
 *           is 16 bytes: -1, int32 dim, int64 n (binary.c)
 *
 * Errors are returned as GRIDEMST_ERR_INPUT with a one-line message
 * "FILE:LINE: problem" (or "FILE: problem" where no line applies).
 */
#ifndef GEMST_IO_H
#define GEMST_IO_H

#include <stdint.h>

#include "gridemst.h"
#include "tools/pointset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemst_format {
    GEMST_FORMAT_AUTO = 0, /* from the file name's extension */
    GEMST_FORMAT_TSPLIB,
    GEMST_FORMAT_TEXT,
    GEMST_FORMAT_BINARY
} gemst_format;

/* Warnings (a non-fatal oddity of the input) go through this callback with
 * a one-line message; NULL drops them. */
typedef void (*gemst_warn_fn)(void *ctx, const char *message);

/* "tsplib"/"tsp", "text"/"csv"/"txt", "binary"/"bin"; 0, or -1 if unknown. */
int gemst_parse_format(const char *name, gemst_format *out);
const char *gemst_format_name(gemst_format f);

/* The format a path's extension implies: .tsp is TSPLIB, .bin binary,
 * anything else text. */
gemst_format gemst_format_from_path(const char *path);

/* The input path "-" names standard input. */
static inline int gemst_is_stdin(const char *path)
{
    return path && path[0] == '-' && path[1] == '\0';
}

/* How messages name an input: its path, or "(standard input)". */
static inline const char *gemst_input_name(const char *path)
{
    return gemst_is_stdin(path) ? "(standard input)" : path;
}

/* Reads a point set from path, "-" for standard input (read to its end and
 * left open).  fmt AUTO picks by the extension, and for standard input by
 * the content: TSPLIB when its first line with content is a TSPLIB keyword
 * line ("NAME : ..."), else text.  Messages name standard input
 * "(standard input)".  A text file's header line is reported in
 * out->header_line and out->header. */
int gemst_read_points(const char *path, gemst_format fmt, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                      gridemst_error *err);

int gemst_read_tsplib(const char *path, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                      gridemst_error *err);
int gemst_read_text(const char *path, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx, gridemst_error *err);
int gemst_read_binary(const char *path, gemst_pointset *out, gridemst_error *err);

/* Writes the ArborX binary format (float32), with the 16-byte header
 * only where n exceeds INT32_MAX. */
int gemst_write_binary(const char *path, const gemst_pointset *ps, gridemst_error *err);

/* Writes the tree as CSV lines "u,v,w" (w printed to round-trip a double).
 * path "-" is standard output. */
int gemst_write_edges_csv(const char *path, const gridemst_edge *edges, int64_t m, gridemst_error *err);

/* Writes the single-linkage merges as CSV lines "a,b,distance,size" (the
 * rows of SciPy's linkage matrix) and flat cluster labels, one per line
 * in point order.  path "-" is standard output. */
int gemst_write_linkage_csv(const char *path, const gridemst_merge *rows, int64_t m, gridemst_error *err);
int gemst_write_labels(const char *path, const int64_t *labels, int64_t n, gridemst_error *err);

/* Writes one number per line in point order (what names them in messages:
 * "probabilities"), printed to round-trip a double; and HDBSCAN*'s
 * condensed tree as CSV lines "parent,child,lambda,child_size" (lambda
 * "inf" at distance 0).  path "-" is standard output. */
int gemst_write_values(const char *path, const double *values, int64_t n, const char *what, gridemst_error *err);
int gemst_write_condensed_csv(const char *path, const gridemst_condensed_row *rows, int64_t m, gridemst_error *err);
/* A friends-of-friends group: its label, its point count, its centre of
 * mass and its extent (largest less smallest coordinate) per axis. */
typedef struct gemst_group {
    int64_t id, size;
    double centre[3], extent[3];
} gemst_group;

/* The group catalogue as CSV: a header line, then one line per group:
 * group,size,x,y[,z],extent_x,extent_y[,extent_z]. */
int gemst_write_groups_csv(const char *path, const gemst_group *groups, int64_t m, int dim, gridemst_error *err);

/* The tree's length under the TSPLIB instance's own integer metric
 * (EUC_2D, CEIL_2D, ATT, GEO, EUC_3D).  Returns 0 and sets *length, or -1
 * when the instance's metric is not one of those (MAN, MAX). */
int gemst_tsplib_tree_length(const gemst_pointset *ps, const gridemst_edge *edges, int64_t m, int64_t *length);

#ifdef __cplusplus
}
#endif

#endif
