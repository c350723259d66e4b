/*
 * Helpers shared by the point-set readers and writers (src/tools/);
 * internal to the tools library.
 *
 * Readers open their input with gemst_input_open ("-" is standard input; a
 * directory is refused up front: fopen accepts one and only the first read
 * fails), or with gemst_lines_open for text, whose lines gemst_lines_next
 * gives one by one (no limit on the line length; a UTF-8 byte-order mark
 * before the first line is dropped) and gemst_read_body gives a format's
 * reader on all threads (lines.c); numbers are read with gemst_scan_double.
 * Writers go through gemst_output, which remembers the first write error so
 * that one message reports it at the end.
 */
#ifndef GEMST_IO_INTERNAL_H
#define GEMST_IO_INTERNAL_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common.h"
#include "gridemst.h"
#include "tools/io.h"

/* Longest excerpt of an offending token quoted in a message. */
#define GEMST_QUOTE_MAX 40

/* ----------------------------------------------------------------- input */

static inline int gemst_input_open(const char *path, FILE **out, gridemst_error *err)
{
    if (!path)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "no input file named");
    if (gemst_is_stdin(path)) {
        *out = stdin;
        return GRIDEMST_OK;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: is a directory", path);
    }
    *out = f;
    return GRIDEMST_OK;
}

/* Blanks separate tokens; '\r' is one, so CRLF line endings need no special case. */
static inline int gemst_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline char *gemst_skip_blanks(char *p)
{
    while (gemst_is_blank(*p))
        p++;
    return p;
}

/* Removes trailing blanks in place; returns s. */
static inline char *gemst_trim_end(char *s)
{
    size_t len = strlen(s);
    while (len > 0 && gemst_is_blank(s[len - 1]))
        s[--len] = '\0';
    return s;
}

/* The next field of a line, from *cursor.  Fields are separated by runs of
 * blanks and, when commas is set, by at most one comma among them.  Returns
 * 1 with the field in [*start, *end) and *cursor just after it, 0 at the end
 * of the line, or -1 for an empty field (a comma first or last on the line,
 * or two commas with only blanks between).  first: no field precedes. */
static inline int gemst_next_field(char **cursor, int commas, int first, char **start, char **end)
{
    char *p = gemst_skip_blanks(*cursor);
    if (commas && *p == ',') {
        if (first)
            return -1;
        p = gemst_skip_blanks(p + 1);
        if (*p == ',' || *p == '\0')
            return -1;
    }
    if (*p == '\0')
        return 0;
    *start = p;
    while (*p != '\0' && !gemst_is_blank(*p) && !(commas && *p == ','))
        p++;
    *cursor = *end = p;
    return 1;
}

/* Closes an input opened by gemst_input_open (standard input stays open). */
static inline void gemst_input_close(FILE *f)
{
    if (f && f != stdin)
        fclose(f);
}

/* A text file's lines, counted from 1: read from a stream (standard input,
 * a pipe, a device) or copied one by one from bytes in memory (a mapped
 * file, or one range of it). */
typedef struct gemst_lines {
    FILE *f;                /* the stream read, or NULL for bytes in memory */
    const char *next, *end; /* in memory: the bytes not read yet */
    const char *line_at;    /* in memory: where the last line read began */
    void *map;              /* the file's mapping, owned (NULL: none) ... */
    size_t map_bytes;       /* ... of this many bytes */
    const char *path;       /* as messages name it (gemst_input_name) */
    char *buf;
    size_t cap;
    char *line;             /* the last line read, within buf */
    int replay;             /* gemst_lines_next gives the last line again */
    int64_t lineno;
} gemst_lines;

/* Opens path ("-": standard input).  A named regular file is mapped,
 * read-only, so that gemst_read_body can split its lines among threads; a
 * file that cannot be mapped is read as a stream. */
int gemst_lines_open(gemst_lines *ln, const char *path, gridemst_error *err);

/* Lines from the bytes [start, end), numbered after lines_before; path
 * names them in messages.  Nothing is owned but the line buffer. */
void gemst_lines_in_memory(gemst_lines *ln, const char *path, const char *start, const char *end,
                           int64_t lines_before);

void gemst_lines_close(gemst_lines *ln);

/* Makes the next gemst_lines_next give the line it gave last (from a
 * stream as it was then, if the caller has not changed it; from memory as
 * the file has it), so that a first look at a line may leave it to the
 * reader proper. */
void gemst_lines_unread(gemst_lines *ln);

/* A UTF-8 byte-order mark, which some editors write at the start of a file. */
#define GEMST_UTF8_BOM "\xEF\xBB\xBF"

/* Reads the next line without its '\n' into *line (NULL at the end of the
 * input).  A NUL byte inside a line is refused: the text after it would be
 * lost silently (a binary file read as text).  A byte-order mark at the
 * start of the first line is dropped. */
int gemst_lines_next(gemst_lines *ln, char **line, gridemst_error *err);

/* What a line after a file's header is to the reader of its format. */
typedef enum gemst_line_kind {
    GEMST_LINE_SKIP, /* nothing to read: blank, or a comment */
    GEMST_LINE_ITEM, /* a point or a node, to read or to refuse */
    GEMST_LINE_END   /* the end of the items: it and the lines after it are not read */
} gemst_line_kind;

/* How a format reads the body of its files, the lines after the header,
 * one item a line, each into its place in the format's arrays.  kind and
 * read may run on several threads at once, each on lines and items of its
 * own. */
typedef struct gemst_body {
    void *reader;      /* the format's state, handed to room and read */
    const char *items; /* what messages call the items: "points", "nodes" */
    /* What *line is; it may move *line past leading blanks and cut the line short. */
    gemst_line_kind (*kind)(char **line);
    /* Room for count items, exactly when exact is set (the count is
     * known), else grown geometrically (items arrive one by one); 0, or
     * -1 when memory runs out. */
    int (*room)(void *reader, int64_t count, int exact);
    /* Reads the item on line into item index; ln numbers the line for messages. */
    int (*read)(void *reader, const gemst_lines *ln, char *line, int64_t index, gridemst_error *err);
} gemst_body;

/* Reads the body from ln's next line to the end of the input or to a line
 * of kind GEMST_LINE_END, and says in *count how many items it read.
 * From a stream, line by line; from a mapped file, on all threads: the
 * lines are split into ranges, each range's items counted, room made
 * once for all of them, and the ranges read into their places.  Both ways
 * read the same items and fail with the same message: that of the first
 * bad line in the file. */
int gemst_read_body(gemst_lines *ln, const gemst_body *body, int64_t *count, gridemst_error *err);

/* Fails with GRIDEMST_ERR_INPUT and "PATH:LINE: problem" (printf-style). */
#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
static inline int gemst_lines_fail(const gemst_lines *ln, gridemst_error *err, const char *fmt, ...)
{
    char problem[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s:%lld: %s", ln->path, (long long)ln->lineno, problem);
}

/* Fails with "PATH:LINE: problem: 'token'", the token [s, end) shortened if long. */
static inline int gemst_lines_bad_token(const gemst_lines *ln, gridemst_error *err, const char *problem,
                                        const char *s, const char *end)
{
    int len = end - s > GEMST_QUOTE_MAX ? GEMST_QUOTE_MAX : (int)(end - s);
    return gemst_lines_fail(ln, err, "%s: '%.*s%s'", problem, len, s, end - s > len ? "..." : "");
}

/* Outcome of reading one number. */
typedef enum gemst_num {
    GEMST_NUM_OK = 0,
    GEMST_NUM_INVALID,   /* not a number */
    GEMST_NUM_NONFINITE, /* nan, inf */
    GEMST_NUM_RANGE      /* overflows to infinity */
} gemst_num;

/* Reads the token [s, end) as a double.  Underflow is accepted: the value
 * rounds to a subnormal or zero, which is still the nearest double. */
static inline gemst_num gemst_scan_double(const char *s, const char *end, double *out)
{
    char *stop;
    errno = 0;
    double v = strtod(s, &stop);
    if (s == end || stop != end)
        return GEMST_NUM_INVALID;
    if (!isfinite(v))
        return errno == ERANGE ? GEMST_NUM_RANGE : GEMST_NUM_NONFINITE;
    *out = v;
    return GEMST_NUM_OK;
}

/* Reads field number `field` (counted from 1) of a line, the token
 * [s, end), as a double, or fails with "PATH:LINE: field F is not a
 * number: 'TOKEN'" (or another problem). */
static inline int gemst_lines_number(const gemst_lines *ln, int64_t field, const char *s, const char *end,
                                     double *out, gridemst_error *err)
{
    static const char *const problem[] = {"", "is not a number", "is not a finite number", "is out of range"};
    gemst_num r = gemst_scan_double(s, end, out);
    if (r == GEMST_NUM_OK)
        return GRIDEMST_OK;
    char what[64];
    snprintf(what, sizeof what, "field %lld %s", (long long)field, problem[r]);
    return gemst_lines_bad_token(ln, err, what, s, end);
}

/* Ensures room for need elements of size elem in p (capacity *cap elements),
 * growing geometrically.  Returns the (maybe moved) block, or NULL when
 * memory runs out or the size overflows; p is then still valid. */
static inline void *gemst_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c = c > SIZE_MAX / 2 ? need : 2 * c;
    if (c > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, c * elem);
    if (q)
        *cap = c;
    return q;
}

/* Room for need elements of size elem: grown geometrically in p, as
 * gemst_grow does, or when exact is set (the count known up front, p
 * NULL) a new block of exactly need elements (at least one). */
static inline void *gemst_room(void *p, size_t *cap, size_t need, size_t elem, int exact)
{
    if (!exact)
        return gemst_grow(p, cap, need, elem);
    if (need == 0)
        need = 1;
    void *q = need <= SIZE_MAX / elem ? malloc(need * elem) : NULL;
    if (q)
        *cap = need;
    return q;
}

/* Gives back the unused tail of a grown block (at least one element is kept,
 * so that an empty point set still has a coordinate array). */
static inline void *gemst_shrink(void *p, size_t used, size_t elem)
{
    void *q = realloc(p, (used ? used : 1) * elem);
    return q ? q : p;
}

/* The readers proper, on lines already open: gemst_read_points looks at
 * the first line of standard input to choose one. */
int gemst_read_text_lines(gemst_lines *ln, gemst_pointset *out, gridemst_error *err);
int gemst_read_tsplib_lines(gemst_lines *ln, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                            gridemst_error *err);

/* Whether line is "KEY : value" for a keyword of a TSPLIB file's
 * specification part (NAME, TYPE, COMMENT, DIMENSION, ...). */
int gemst_tsplib_keyword_line(const char *line);

/* ----------------------------------------------------------------- binary header (binary.c) */

/* The binary format's header comes in two lengths.  Sets of at most
 * INT32_MAX points take the 8 bytes that ArborX reads: int32 n, int32 dim.
 * Larger sets take 16: the count word -1, int32 dim, int64 n.  Each set has
 * one encoding, so an extended header whose count would fit the short one
 * is malformed. */
#define GEMST_BINARY_HEADER_BYTES 8
#define GEMST_BINARY_EXTENDED_HEADER_BYTES 16
/* Most points a header may count: the file's size, 16 + 4 * 3 * n bytes,
 * must stay within int64. */
#define GEMST_BINARY_MAX_POINTS ((INT64_MAX - GEMST_BINARY_EXTENDED_HEADER_BYTES) / 12)

/* What a header says. */
typedef struct gemst_binary_header {
    int64_t n;
    int dim;
    int bytes; /* the header's own length: 8, or 16 when extended */
} gemst_binary_header;

/* Writes the header of n points (0 <= n <= GEMST_BINARY_MAX_POINTS) of
 * dimension dim into h, which has room for 16 bytes; returns its length. */
int gemst_binary_header_encode(int64_t n, int dim, unsigned char *h);

/* The length of the header whose first 8 bytes are h: 16 when its count
 * word is -1, else 8. */
int gemst_binary_header_length(const unsigned char *h);

/* Decodes and checks the gemst_binary_header_length(h) bytes of header h,
 * or fails with GRIDEMST_ERR_INPUT and "PATH: problem". */
int gemst_binary_header_decode(const unsigned char *h, const char *path, gemst_binary_header *out,
                               gridemst_error *err);

/* The size of the file that header hd begins: header, then the floats. */
static inline int64_t gemst_binary_file_bytes(const gemst_binary_header *hd)
{
    return hd->bytes + 4 * hd->n * hd->dim;
}

/* ----------------------------------------------------------------- output */

/* An output file ("-" is standard output) that keeps its first error. */
typedef struct gemst_output {
    FILE *f;
    const char *path;
    int error; /* errno of the first failure, 0 if none */
} gemst_output;

static inline int gemst_output_open(gemst_output *o, const char *path, gridemst_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!o->f)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: cannot write: %s", path, strerror(errno));
    return GRIDEMST_OK;
}

/* Records a failure when ok is false (call right after the write). */
static inline void gemst_output_check(gemst_output *o, int ok)
{
    if (!ok && !o->error)
        o->error = errno ? errno : EIO;
}

/* Closes the file (flushes standard output); a full disk often shows only here. */
static inline int gemst_output_close(gemst_output *o, gridemst_error *err)
{
    errno = 0;
    if (o->f == stdout)
        gemst_output_check(o, fflush(stdout) == 0);
    else
        gemst_output_check(o, fclose(o->f) == 0);
    o->f = NULL;
    if (o->error)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: cannot write: %s", o->path, strerror(o->error));
    return GRIDEMST_OK;
}

/* Prints line i of a text output (fprintf's return value). */
typedef int (*gemst_line_printer)(FILE *f, const void *rows, int64_t i);

/* Writes count lines to path ("-": standard output), each by print_line;
 * what names the rows in the message when they are missing. */
static inline int gemst_write_lines(const char *path, const void *rows, int64_t count, const char *what,
                                    gemst_line_printer print_line, gridemst_error *err)
{
    if (!path)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "no output file named");
    if (count < 0 || (count > 0 && !rows))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: no %s to write", path, what);
    gemst_output o;
    int rc = gemst_output_open(&o, path, err);
    if (rc != GRIDEMST_OK)
        return rc;
    for (int64_t i = 0; i < count && !o.error; i++)
        gemst_output_check(&o, print_line(o.f, rows, i) >= 0);
    return gemst_output_close(&o, err);
}

/* ----------------------------------------------------------------- TSPLIB metrics (tsplib_metric.c) */

typedef enum gemst_tsp_metric {
    GEMST_TSP_EUC_2D,
    GEMST_TSP_CEIL_2D,
    GEMST_TSP_ATT,
    GEMST_TSP_GEO,
    GEMST_TSP_EUC_3D,
    GEMST_TSP_MANHATTAN, /* read as Euclidean; no integer length */
    GEMST_TSP_MAXIMUM    /* read as Euclidean; no integer length */
} gemst_tsp_metric;

typedef struct gemst_tsp_metric_info {
    const char *name;       /* EDGE_WEIGHT_TYPE as TSPLIB spells it */
    gemst_tsp_metric metric;
    int dim;                /* coordinates per node in the file */
} gemst_tsp_metric_info;

/* The supported EDGE_WEIGHT_TYPE called name, or NULL. */
const gemst_tsp_metric_info *gemst_tsp_metric_find(const char *name);

/* TSPLIB's GEO conversion of DDD.MM (degrees and minutes) to radians. */
double gemst_tsp_geo_radians(double ddd_mm);

#endif
