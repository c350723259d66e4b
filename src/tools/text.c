/*
 * Text point files: one point per line, 2 or 3 numbers separated by blanks
 * or commas; '#' starts a comment; blank lines are skipped.  The first line
 * with content is a header when none of its fields looks like a number (a
 * column header such as "x,y,z"); a line with a number among its fields is
 * data, and a field of it that is not a number is an error.
 */
#include "tools/io.h"

#include <string.h>

#include "tools/io_internal.h"

typedef struct text_reader {
    gemst_lines *ln;
    double *v;        /* n * dim coordinates read so far */
    size_t cap;       /* capacity of v, in doubles */
    int64_t n;
    int dim;          /* numbers per point; 0 until the first point */
    int seen_content; /* the line that may be a header is behind us */
    int64_t header_line;
    char header[GEMST_HEADER_TEXT];
} text_reader;

static int empty_field(const text_reader *r, gridemst_error *err)
{
    return gemst_lines_fail(r->ln, err,
                            "empty field (a comma at the start or end of the line, or two commas in a row)");
}

static int append_point(text_reader *r, const double *p, gridemst_error *err)
{
    size_t need = (size_t)(r->n + 1) * (size_t)r->dim;
    double *v = gemst_grow(r->v, &r->cap, need, sizeof *v);
    if (!v)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s:%lld: out of memory after %lld points", r->ln->path,
                          (long long)r->ln->lineno, (long long)r->n);
    memcpy(v + r->n * r->dim, p, (size_t)r->dim * sizeof *p);
    r->v = v;
    r->n++;
    return GRIDEMST_OK;
}

/* A data line: every field counted, the first three parsed. */
static int read_point(text_reader *r, char *line, gridemst_error *err)
{
    double p[3];
    int64_t count = 0;
    char *cursor = line, *s, *e;
    int f;
    while ((f = gemst_next_field(&cursor, 1, count == 0, &s, &e)) > 0) {
        if (count < 3) {
            int rc = gemst_lines_number(r->ln, count + 1, s, e, &p[count], err);
            if (rc != GRIDEMST_OK)
                return rc;
        }
        count++;
    }
    if (f < 0)
        return empty_field(r, err);
    if (r->dim == 0 && count != 2 && count != 3)
        return gemst_lines_fail(r->ln, err, "expected 2 or 3 coordinates per line, found %lld", (long long)count);
    if (r->dim == 0)
        r->dim = (int)count;
    if (count != r->dim)
        return gemst_lines_fail(r->ln, err, "expected %d numbers, found %lld", r->dim, (long long)count);
    return append_point(r, p, err);
}

/* A field that reads as a number, or starts as one does (a digit, after an
 * optional sign and point): "1.5x" is a mistyped number, not a column name. */
static int looks_numeric(const char *s, const char *e)
{
    double x;
    if (gemst_scan_double(s, e, &x) != GEMST_NUM_INVALID)
        return 1;
    if (s < e && (*s == '+' || *s == '-'))
        s++;
    if (s < e && *s == '.')
        s++;
    return s < e && *s >= '0' && *s <= '9';
}

/* 1 for a line none of whose fields looks like a number, 0 for one with a
 * number, -1 for one with an empty field. */
static int is_header(char *line)
{
    char *cursor = line, *s, *e;
    int f, first = 1;
    while ((f = gemst_next_field(&cursor, 1, first, &s, &e)) > 0) {
        if (looks_numeric(s, e))
            return 0;
        first = 0;
    }
    return f == 0 ? 1 : -1;
}

/* Keeps the header line's text, without its comment and outer blanks,
 * shortened with "..." when long. */
static void keep_header(text_reader *r, char *line)
{
    char *text = gemst_trim_end(gemst_skip_blanks(line));
    size_t len = strlen(text), room = sizeof r->header - 1;
    r->header_line = r->ln->lineno;
    if (len <= room)
        memcpy(r->header, text, len + 1);
    else
        snprintf(r->header, sizeof r->header, "%.*s...", (int)(room - 3), text);
}

static int read_line(text_reader *r, char *line, gridemst_error *err)
{
    char *comment = strchr(line, '#');
    if (comment)
        *comment = '\0';
    char *cursor = line, *s, *e;
    int f = gemst_next_field(&cursor, 1, 1, &s, &e);
    if (f == 0)
        return GRIDEMST_OK;
    if (f < 0)
        return empty_field(r, err);
    if (!r->seen_content) {
        r->seen_content = 1;
        int header = is_header(line);
        if (header < 0)
            return empty_field(r, err);
        if (header > 0) {
            keep_header(r, line);
            return GRIDEMST_OK;
        }
    }
    return read_point(r, line, err);
}

int gemst_read_text_lines(gemst_lines *ln, gemst_pointset *out, gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    text_reader r = {.ln = ln};
    int rc = GRIDEMST_OK;
    char *line;
    while (rc == GRIDEMST_OK && (rc = gemst_lines_next(ln, &line, err)) == GRIDEMST_OK && line)
        rc = read_line(&r, line, err);
    if (rc == GRIDEMST_OK) {
        out->coords = gemst_shrink(r.v, (size_t)(r.n * r.dim), sizeof *r.v);
        r.v = NULL;
        if (!out->coords)
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory", ln->path);
    }
    out->n = r.n;
    out->dim = r.dim ? r.dim : 2; /* no points: nothing tells; 2 is as good as 3 */
    out->dtype = GRIDEMST_FLOAT64;
    out->header_line = r.header_line;
    memcpy(out->header, r.header, sizeof out->header);
    free(r.v);
    if (rc != GRIDEMST_OK)
        gemst_pointset_free(out);
    return rc;
}

/* No warnings arise from text files; warn is accepted for the readers' common signature. */
int gemst_read_text(const char *path, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx, gridemst_error *err)
{
    (void)warn;
    (void)warn_ctx;
    gemst_lines ln;
    int rc = gemst_lines_open(&ln, path, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_read_text_lines(&ln, out, err);
    else
        memset(out, 0, sizeof *out);
    gemst_lines_close(&ln);
    return rc;
}
