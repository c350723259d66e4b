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
    double *v;   /* n * dim coordinates */
    size_t cap;  /* capacity of v, in doubles */
    int dim;     /* numbers per point; 0 until the first point */
    int64_t header_line;
    char header[GEMST_HEADER_TEXT];
} text_reader;

static int empty_field(const gemst_lines *ln, gridemst_error *err)
{
    return gemst_lines_fail(ln, err,
                            "empty field (a comma at the start or end of the line, or two commas in a row)");
}

/* A data line's numbers: every field counted (*found), the first three
 * parsed into p.  dim is the count each line must have, 0 before the
 * first point. */
static int read_point(const gemst_lines *ln, char *line, int dim, double *p, int *found, gridemst_error *err)
{
    int64_t count = 0;
    char *cursor = line, *s, *e;
    int f;
    while ((f = gemst_next_field(&cursor, 1, count == 0, &s, &e)) > 0) {
        if (count < 3) {
            int rc = gemst_lines_number(ln, count + 1, s, e, &p[count], err);
            if (rc != GRIDEMST_OK)
                return rc;
        }
        count++;
    }
    if (f < 0)
        return empty_field(ln, err);
    if (dim == 0 && count != 2 && count != 3)
        return gemst_lines_fail(ln, err, "expected 2 or 3 coordinates per line, found %lld", (long long)count);
    if (dim != 0 && count != dim)
        return gemst_lines_fail(ln, err, "expected %d numbers, found %lld", dim, (long long)count);
    *found = (int)count;
    return GRIDEMST_OK;
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
static void keep_header(text_reader *r, const gemst_lines *ln, char *line)
{
    char *text = gemst_trim_end(gemst_skip_blanks(line));
    size_t len = strlen(text), room = sizeof r->header - 1;
    r->header_line = ln->lineno;
    if (len <= room)
        memcpy(r->header, text, len + 1);
    else
        snprintf(r->header, sizeof r->header, "%.*s...", (int)(room - 3), text);
}

/* Cuts the line's comment off: a line with nothing else is skipped. */
static gemst_line_kind point_line_kind(char **line)
{
    char *comment = strchr(*line, '#');
    if (comment)
        *comment = '\0';
    return *gemst_skip_blanks(*line) == '\0' ? GEMST_LINE_SKIP : GEMST_LINE_ITEM;
}

/* Reads the lines before the first point (blank lines, comments, the
 * header), then the first point's line, which fixes the dimension, and
 * leaves that line to the body. */
static int read_head(text_reader *r, gemst_lines *ln, gridemst_error *err)
{
    int seen_content = 0, rc;
    char *line;
    while ((rc = gemst_lines_next(ln, &line, err)) == GRIDEMST_OK && line) {
        if (point_line_kind(&line) == GEMST_LINE_SKIP)
            continue;
        if (!seen_content) {
            seen_content = 1;
            int header = is_header(line);
            if (header < 0)
                return empty_field(ln, err);
            if (header > 0) {
                keep_header(r, ln, line);
                continue;
            }
        }
        double p[3];
        rc = read_point(ln, line, 0, p, &r->dim, err);
        gemst_lines_unread(ln);
        return rc;
    }
    return rc;
}

static int make_room(void *reader, int64_t count, int exact)
{
    text_reader *r = reader;
    if ((uint64_t)count > SIZE_MAX / 3 / sizeof *r->v)
        return -1;
    double *v = gemst_room(r->v, &r->cap, (size_t)count * (size_t)r->dim, sizeof *v, exact);
    if (!v)
        return -1;
    r->v = v;
    return 0;
}

/* Parses into p and copies dim numbers: a line of 3 numbers where dim is
 * 2 fills p[2] before it fails, which in the array is the next point's. */
static int read_point_into(void *reader, const gemst_lines *ln, char *line, int64_t index, gridemst_error *err)
{
    const text_reader *r = reader;
    double p[3];
    int found;
    int rc = read_point(ln, line, r->dim, p, &found, err);
    if (rc == GRIDEMST_OK)
        memcpy(r->v + (size_t)index * (size_t)r->dim, p, (size_t)r->dim * sizeof *p);
    return rc;
}

int gemst_read_text_lines(gemst_lines *ln, gemst_pointset *out, gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    text_reader r = {0};
    const gemst_body body = {&r, "points", point_line_kind, make_room, read_point_into};
    int64_t n = 0;
    int rc = read_head(&r, ln, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_read_body(ln, &body, &n, err);
    if (rc == GRIDEMST_OK) {
        out->coords = gemst_shrink(r.v, (size_t)(n * r.dim), sizeof *r.v);
        r.v = NULL;
        if (!out->coords)
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory", ln->path);
    }
    out->n = n;
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
