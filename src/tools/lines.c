/*
 * Text files line by line, and the body of a text file (its lines after the
 * header) read on all threads.
 *
 * A named regular file is mapped rather than read through a stream: its
 * bytes are then held once, by the page cache, and its body can be split
 * into ranges at line boundaries and parsed on all threads, each range into
 * its own place in arrays allocated once at their exact size.  Every line,
 * from a stream or from memory, is copied into a buffer and goes through
 * gemst_lines_next, and every item line through the format's own kind and
 * read: both ways see the same lines under the same numbers, refuse the
 * same bytes and read the same items.
 *
 * A mapped body is read in three passes, each on all threads, one range a
 * thread:
 *   1. newlines: counted in each range, so that each knows its first line's
 *      number and messages name the line as a stream's reader would;
 *   2. items: the item lines counted in each range, which is cut short at
 *      its first line that ends the body or cannot be read;
 *   3. reading: each range's items into their places (where the counts of
 *      the ranges before it put them), up to its cut.
 * The ranges after the first that was cut are dropped.  The failure
 * reported is the first in the file: that of the first range that failed,
 * in pass 3, or else at the line that cut it in pass 2.
 */
#include "tools/io.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tools/io_internal.h"

/* The fewest bytes a range gets: parsing 64 KiB of numbers takes about half
 * a millisecond, far longer than starting a thread on it. */
#define MIN_RANGE_BYTES ((size_t)64 << 10)

/* ----------------------------------------------------------------- lines */

/* Maps a regular file, in place of its stream.  An empty file has nothing
 * to map (mmap refuses length 0); a file that cannot be mapped stays a
 * stream. */
static void map_file(gemst_lines *ln)
{
    struct stat st;
    if (fstat(fileno(ln->f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > SIZE_MAX)
        return;
    const size_t bytes = (size_t)st.st_size;
    void *m = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fileno(ln->f), 0);
    if (m == MAP_FAILED)
        return;
    fclose(ln->f);
    ln->f = NULL;
    ln->map = m;
    ln->map_bytes = bytes;
    ln->next = m;
    ln->end = (const char *)m + bytes;
}

int gemst_lines_open(gemst_lines *ln, const char *path, gridemst_error *err)
{
    memset(ln, 0, sizeof *ln);
    ln->path = gemst_input_name(path);
    int rc = gemst_input_open(path, &ln->f, err);
    if (rc == GRIDEMST_OK && !gemst_is_stdin(path))
        map_file(ln);
    return rc;
}

void gemst_lines_in_memory(gemst_lines *ln, const char *path, const char *start, const char *end,
                           int64_t lines_before)
{
    memset(ln, 0, sizeof *ln);
    ln->path = path;
    ln->next = start;
    ln->end = end;
    ln->lineno = lines_before;
}

void gemst_lines_close(gemst_lines *ln)
{
    gemst_input_close(ln->f);
    if (ln->map)
        munmap(ln->map, ln->map_bytes);
    free(ln->buf);
    memset(ln, 0, sizeof *ln);
}

/* From memory the line is read again rather than replayed, so that
 * ln->next is where the reader proper starts (gemst_read_body splits the
 * bytes from there). */
void gemst_lines_unread(gemst_lines *ln)
{
    if (ln->f) {
        ln->replay = ln->line != NULL;
    } else if (ln->line) {
        ln->next = ln->line_at;
        ln->lineno--;
        ln->line = NULL;
    }
}

static int out_of_memory_for_line(const gemst_lines *ln, gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s:%lld: out of memory for a line", ln->path,
                      (long long)ln->lineno + 1);
}

/* The next line, with its '\n' where it has one, into ln->buf: its length
 * in *len, -1 at the end of the input. */
static int fetch_from_stream(gemst_lines *ln, ssize_t *len, gridemst_error *err)
{
    errno = 0;
    *len = getline(&ln->buf, &ln->cap, ln->f);
    if (*len >= 0)
        return GRIDEMST_OK;
    if (errno == ENOMEM)
        return out_of_memory_for_line(ln, err);
    if (ferror(ln->f))
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: cannot read: %s", ln->path, strerror(errno));
    return GRIDEMST_OK;
}

static int fetch_from_memory(gemst_lines *ln, ssize_t *len, gridemst_error *err)
{
    *len = -1;
    if (ln->next == ln->end)
        return GRIDEMST_OK;
    const size_t left = (size_t)(ln->end - ln->next);
    const char *newline = memchr(ln->next, '\n', left);
    const size_t bytes = newline ? (size_t)(newline + 1 - ln->next) : left;
    char *buf = gemst_grow(ln->buf, &ln->cap, bytes + 1, 1);
    if (!buf)
        return out_of_memory_for_line(ln, err);
    memcpy(buf, ln->next, bytes);
    buf[bytes] = '\0';
    ln->buf = buf;
    ln->line_at = ln->next;
    ln->next += bytes;
    *len = (ssize_t)bytes;
    return GRIDEMST_OK;
}

int gemst_lines_next(gemst_lines *ln, char **line, gridemst_error *err)
{
    if (ln->replay) {
        ln->replay = 0;
        *line = ln->line;
        return GRIDEMST_OK;
    }
    ln->line = NULL;
    *line = NULL;
    ssize_t len;
    int rc = ln->f ? fetch_from_stream(ln, &len, err) : fetch_from_memory(ln, &len, err);
    if (rc != GRIDEMST_OK || len < 0)
        return rc;
    ln->lineno++;
    if (len > 0 && ln->buf[len - 1] == '\n')
        ln->buf[--len] = '\0';
    if (strlen(ln->buf) != (size_t)len)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s:%lld: NUL byte in a text line (is this a binary file?)",
                          ln->path, (long long)ln->lineno);
    ln->line = ln->buf;
    if (ln->lineno == 1 && strncmp(ln->line, GEMST_UTF8_BOM, 3) == 0)
        ln->line += 3;
    *line = ln->line;
    return GRIDEMST_OK;
}

/* ----------------------------------------------------------------- the body from a stream */

static int read_body_stream(gemst_lines *ln, const gemst_body *body, int64_t *count, gridemst_error *err)
{
    char *line;
    int rc;
    *count = 0;
    while ((rc = gemst_lines_next(ln, &line, err)) == GRIDEMST_OK && line) {
        const gemst_line_kind kind = body->kind(&line);
        if (kind == GEMST_LINE_END)
            break;
        if (kind == GEMST_LINE_SKIP)
            continue;
        if (body->room(body->reader, *count + 1, 0) != 0)
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s:%lld: out of memory after %lld %s", ln->path,
                              (long long)ln->lineno, (long long)*count, body->items);
        if ((rc = body->read(body->reader, ln, line, *count, err)) != GRIDEMST_OK)
            break;
        ++*count;
    }
    return rc;
}

/* ----------------------------------------------------------------- the body from a mapped file */

/* A range of a mapped body's lines, and what the passes found in it. */
typedef struct body_range {
    const char *start, *end; /* whole lines; end is cut back by pass 2 */
    int64_t newlines;        /* its line ends (pass 1) */
    int64_t lines_before;    /* the file's lines before start */
    int64_t items;           /* its item lines, before its cut */
    int64_t first_item;      /* the index its first item reads into */
    int cut;                 /* pass 2 stopped at a line that ends the body or could not be read (rc) */
    int rc;                  /* its first failure ... */
    gridemst_error err;      /* ... and its message */
} body_range;

static int range_count(size_t bytes)
{
#ifdef _OPENMP
    const size_t threads = (size_t)omp_get_max_threads();
#else
    const size_t threads = 1;
#endif
    const size_t most = bytes / MIN_RANGE_BYTES;
    return (int)(most < 1 ? 1 : most < threads ? most : threads);
}

/* Ranges of about equal size over [start, end), each from a line's start. */
static void split_lines(body_range *ranges, int count, const char *start, const char *end)
{
    const size_t step = (size_t)(end - start) / (size_t)count;
    const char *at = start;
    for (int k = 0; k < count; k++) {
        const char *next = end;
        if (k + 1 < count) {
            const char *from = start + step * (size_t)(k + 1);
            if (from < at)
                from = at;
            const char *newline = memchr(from, '\n', (size_t)(end - from));
            next = newline ? newline + 1 : end;
        }
        ranges[k] = (body_range){.start = at, .end = next};
        at = next;
    }
}

static int64_t count_newlines(const char *s, const char *end)
{
    int64_t n = 0;
    while ((s = memchr(s, '\n', (size_t)(end - s))) != NULL) {
        n++;
        s++;
    }
    return n;
}

/* Pass 1: the lines before each range, after the lines_before the body. */
static void number_lines(body_range *ranges, int count, int64_t lines_before)
{
#pragma omp parallel for num_threads(count) schedule(static, 1)
    for (int k = 0; k < count; k++)
        ranges[k].newlines = count_newlines(ranges[k].start, ranges[k].end);
    for (int k = 0; k < count; k++) {
        ranges[k].lines_before = lines_before;
        lines_before += ranges[k].newlines;
    }
}

/* Pass 2 on one range: its item lines counted, up to its first line that
 * ends the body or cannot be read, where the range is cut (the failure of
 * a line that cannot be read stays in r->rc). */
static void count_items(body_range *r, const gemst_body *body, const char *path)
{
    gemst_lines ln;
    gemst_lines_in_memory(&ln, path, r->start, r->end, r->lines_before);
    for (;;) {
        const char *at = ln.next;
        char *line;
        r->rc = gemst_lines_next(&ln, &line, &r->err);
        if (r->rc == GRIDEMST_OK && !line)
            break;
        const gemst_line_kind kind = r->rc == GRIDEMST_OK ? body->kind(&line) : GEMST_LINE_END;
        if (kind == GEMST_LINE_END) {
            r->end = at;
            r->cut = 1;
            break;
        }
        r->items += kind == GEMST_LINE_ITEM;
    }
    gemst_lines_close(&ln);
}

/* The first index of each range's items, up to and with the first range
 * that was cut; returns how many ranges that keeps, *total their items. */
static int place_items(body_range *ranges, int count, int64_t *total)
{
    int64_t items = 0;
    int k = 0;
    while (k < count) {
        ranges[k].first_item = items;
        items += ranges[k].items;
        if (ranges[k++].cut)
            break;
    }
    *total = items;
    return k;
}

/* Pass 3 on one range.  The range ends before the line that cut it, so a
 * failure here is on an earlier line and replaces pass 2's. */
static void read_items(body_range *r, const gemst_body *body, const char *path)
{
    gemst_lines ln;
    gemst_lines_in_memory(&ln, path, r->start, r->end, r->lines_before);
    gridemst_error err;
    int64_t index = r->first_item;
    char *line;
    int rc;
    while ((rc = gemst_lines_next(&ln, &line, &err)) == GRIDEMST_OK && line) {
        if (body->kind(&line) != GEMST_LINE_ITEM)
            continue;
        if ((rc = body->read(body->reader, &ln, line, index++, &err)) != GRIDEMST_OK)
            break;
    }
    if (rc != GRIDEMST_OK) {
        r->rc = rc;
        r->err = err;
    }
    gemst_lines_close(&ln);
}

static int first_failure(const body_range *ranges, int count, gridemst_error *err)
{
    for (int k = 0; k < count; k++) {
        if (ranges[k].rc != GRIDEMST_OK) {
            if (err)
                *err = ranges[k].err;
            return ranges[k].rc;
        }
    }
    return GRIDEMST_OK;
}

static int read_body_mapped(const gemst_lines *ln, const gemst_body *body, int64_t *count, gridemst_error *err)
{
    const int n_ranges = range_count((size_t)(ln->end - ln->next));
    body_range *ranges = calloc((size_t)n_ranges, sizeof *ranges);
    if (!ranges)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory", ln->path);
    split_lines(ranges, n_ranges, ln->next, ln->end);
    number_lines(ranges, n_ranges, ln->lineno);
#pragma omp parallel for num_threads(n_ranges) schedule(static, 1)
    for (int k = 0; k < n_ranges; k++)
        count_items(&ranges[k], body, ln->path);
    const int kept = place_items(ranges, n_ranges, count);
    int rc = GRIDEMST_OK;
    if (body->room(body->reader, *count, 1) != 0)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory for %lld %s", ln->path, (long long)*count,
                        body->items);
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(kept) schedule(static, 1)
        for (int k = 0; k < kept; k++)
            read_items(&ranges[k], body, ln->path);
        rc = first_failure(ranges, kept, err);
    }
    free(ranges);
    return rc;
}

int gemst_read_body(gemst_lines *ln, const gemst_body *body, int64_t *count, gridemst_error *err)
{
    return ln->f ? read_body_stream(ln, body, count, err) : read_body_mapped(ln, body, count, err);
}
