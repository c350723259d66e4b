/*
 * The binary points format of the ArborX benchmarks: int32 n, int32 dim,
 * then n * dim float32 in row-major order, all little-endian.  Bytes are
 * assembled explicitly, so the code does not depend on the host's order.
 *
 * The int32 count holds at most INT32_MAX points.  A larger set has an
 * extended header of 16 bytes: the count word -1, int32 dim, then int64 n
 * (io_internal.h).  Sets of at most INT32_MAX points keep the 8-byte
 * header, which ArborX reads; it does not read the extended one.  Either
 * header's length is a multiple of 4, so the floats of a mapped file (the
 * mapping starts on a page) are 4-byte aligned.
 *
 * A named regular file on a little-endian host is mapped rather than read
 * (privately: writes to the points stay in the process): its points are
 * then the file's pages, which the page cache holds once and a solve reads
 * where it needs them, so the set is never held twice in host memory (the
 * check for non-finite values reads them once, on all threads).  Standard
 * input, pipes, devices, and files that cannot be mapped are read.  Both
 * ways give the same points and the same messages.
 */
#include "tools/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tools/io_internal.h"

/* The payload is read in steps of at most this many bytes, so that a header
 * promising more than the file holds costs no memory. */
#define READ_STEP ((size_t)1 << 24)

static uint32_t get_le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_le32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

static uint64_t get_le64(const unsigned char *b)
{
    return (uint64_t)get_le32(b) | (uint64_t)get_le32(b + 4) << 32;
}

static void put_le64(unsigned char *b, uint64_t v)
{
    put_le32(b, (uint32_t)v);
    put_le32(b + 4, (uint32_t)(v >> 32));
}

/* Two's complement, without relying on the implementation-defined conversion. */
static int64_t signed32(uint32_t u)
{
    return u <= INT32_MAX ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32);
}

static int64_t signed64(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* The count word of the extended header. */
#define EXTENDED_MARK UINT32_MAX

int gemst_binary_header_encode(int64_t n, int dim, unsigned char *h)
{
    put_le32(h + 4, (uint32_t)dim);
    if (n <= INT32_MAX) {
        put_le32(h, (uint32_t)n);
        return GEMST_BINARY_HEADER_BYTES;
    }
    put_le32(h, EXTENDED_MARK);
    put_le64(h + 8, (uint64_t)n);
    return GEMST_BINARY_EXTENDED_HEADER_BYTES;
}

int gemst_binary_header_length(const unsigned char *h)
{
    return get_le32(h) == EXTENDED_MARK ? GEMST_BINARY_EXTENDED_HEADER_BYTES : GEMST_BINARY_HEADER_BYTES;
}

int gemst_binary_header_decode(const unsigned char *h, const char *path, gemst_binary_header *out,
                               gridemst_error *err)
{
    const int bytes = gemst_binary_header_length(h);
    const int extended = bytes == GEMST_BINARY_EXTENDED_HEADER_BYTES;
    const int64_t count = extended ? signed64(get_le64(h + 8)) : signed32(get_le32(h));
    const int64_t d = signed32(get_le32(h + 4));
    if (count < 0)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: negative point count %lld in the header", path,
                          (long long)count);
    if (extended && count <= INT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INPUT,
                          "%s: malformed header: the extended header counts %lld points; up to %d take the "
                          "8-byte header", path, (long long)count, INT32_MAX);
    if (count > GEMST_BINARY_MAX_POINTS)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: %lld points in the header; the format holds at most %lld",
                          path, (long long)count, (long long)GEMST_BINARY_MAX_POINTS);
    if (d != 2 && d != 3)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: dimension %lld in the header; expected 2 or 3", path,
                          (long long)d);
    out->n = count;
    out->dim = (int)d;
    out->bytes = bytes;
    return GRIDEMST_OK;
}

static int read_failed(FILE *f, const char *path, gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: cannot read: %s", path, ferror(f) ? strerror(errno) : "?");
}

/* Reads up to want bytes into a block allocated as they arrive; *got says
 * how many came (fewer at the end of the file). */
static int read_payload(FILE *f, const char *path, size_t want, unsigned char **buf, size_t *got,
                        gridemst_error *err)
{
    unsigned char *b = NULL;
    size_t cap = 0, n = 0;
    while (n < want) {
        size_t step = want - n < READ_STEP ? want - n : READ_STEP;
        unsigned char *q = gemst_grow(b, &cap, n + step, 1);
        if (!q) {
            free(b);
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory for %zu bytes of points", path, want);
        }
        b = q;
        size_t k = fread(b + n, 1, step, f);
        n += k;
        if (k < step)
            break;
    }
    if (ferror(f)) {
        free(b);
        return read_failed(f, path, err);
    }
    *buf = b;
    *got = n;
    return GRIDEMST_OK;
}

/* Bytes left in the file. */
static int64_t count_rest(FILE *f)
{
    unsigned char scratch[4096];
    int64_t total = 0;
    size_t k;
    while ((k = fread(scratch, 1, sizeof scratch, f)) > 0)
        total += (int64_t)k;
    return total;
}

/* Reads the header's bytes from *got up to need into h. */
static int read_header_bytes(FILE *f, const char *path, unsigned char *h, size_t *got, int need,
                             gridemst_error *err)
{
    *got += fread(h + *got, 1, (size_t)need - *got, f);
    if (*got < (size_t)need && ferror(f))
        return read_failed(f, path, err);
    if (*got < (size_t)need)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: no header: the file has %zu bytes, the header needs %d", path,
                          *got, need);
    return GRIDEMST_OK;
}

/* The short header's 8 bytes say whether 8 more follow. */
static int read_header(FILE *f, const char *path, gemst_binary_header *hd, gridemst_error *err)
{
    unsigned char h[GEMST_BINARY_EXTENDED_HEADER_BYTES];
    size_t got = 0;
    int rc = read_header_bytes(f, path, h, &got, GEMST_BINARY_HEADER_BYTES, err);
    if (rc == GRIDEMST_OK)
        rc = read_header_bytes(f, path, h, &got, gemst_binary_header_length(h), err);
    if (rc != GRIDEMST_OK)
        return rc;
    return gemst_binary_header_decode(h, path, hd, err);
}

/* The file that begins with header hd ends after found_bytes. */
static int truncated(const char *path, const gemst_binary_header *hd, int64_t found_bytes, gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: truncated: expected %lld bytes, found %lld", path,
                      (long long)gemst_binary_file_bytes(hd), (long long)found_bytes);
}

/* Value i of a point set of dimension dim is not finite. */
static int non_finite(const char *path, int64_t i, int dim, gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: point %lld has a non-finite coordinate", path,
                      (long long)(i / dim));
}

/* Decodes the little-endian floats in place and checks that each is finite. */
static int decode_points(unsigned char *b, int64_t n, int dim, const char *path, gridemst_error *err)
{
    float *v = (float *)b;
    for (int64_t i = 0; i < n * dim; i++) {
        uint32_t u = get_le32(b + 4 * i);
        memcpy(&v[i], &u, sizeof u);
        if (!isfinite(v[i]))
            return non_finite(path, i, dim, err);
    }
    return GRIDEMST_OK;
}

static int is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* The first of count floats that is not finite, or count; on all threads. */
static int64_t first_non_finite(const float *v, int64_t count)
{
    int64_t first = count;
#pragma omp parallel for reduction(min : first) schedule(static)
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(v[i]) && i < first)
            first = i;
    return first;
}

/* The points of a file of file_bytes that begins with header hd, as its
 * mapping; *mapped 0 (nothing done) where it cannot be mapped. */
static int map_points(FILE *f, const char *path, int64_t file_bytes, const gemst_binary_header *hd,
                      gemst_pointset *out, int *mapped, gridemst_error *err)
{
    const int64_t want = gemst_binary_file_bytes(hd), n = hd->n;
    const int dim = hd->dim;
    *mapped = 0;
    if (file_bytes < want)
        return truncated(path, hd, file_bytes, err);
    if (file_bytes > want)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: %lld trailing bytes after the points", path,
                          (long long)(file_bytes - want));
    void *m = mmap(NULL, (size_t)file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(f), 0);
    if (m == MAP_FAILED)
        return GRIDEMST_OK;
    *mapped = 1;
    out->mapping = m;
    out->mapping_bytes = (size_t)file_bytes;
    out->coords = (char *)m + hd->bytes;
    const int64_t bad = first_non_finite(out->coords, n * dim);
    if (bad < n * dim)
        return non_finite(path, bad, dim, err);
    out->n = n;
    out->dim = dim;
    out->dtype = GRIDEMST_FLOAT32;
    return GRIDEMST_OK;
}

static int read_points(FILE *f, const char *path, int may_map, gemst_pointset *out, gridemst_error *err)
{
    gemst_binary_header hd;
    int rc = read_header(f, path, &hd, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const int64_t n = hd.n;
    const int dim = hd.dim;
    /* n <= GEMST_BINARY_MAX_POINTS and dim <= 3: no overflow in 64 bits; size_t may still be too small. */
    const int64_t want = 4 * n * dim;
    if ((uint64_t)want > SIZE_MAX)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: %lld points do not fit in this machine's memory", path,
                          (long long)n);
    struct stat st;
    if (may_map && is_little_endian() && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        int mapped;
        rc = map_points(f, path, (int64_t)st.st_size, &hd, out, &mapped, err);
        if (rc != GRIDEMST_OK || mapped)
            return rc;
    }
    unsigned char *b = NULL;
    size_t got = 0;
    if ((rc = read_payload(f, path, (size_t)want, &b, &got, err)) != GRIDEMST_OK)
        return rc;
    out->coords = b;
    if (got < (size_t)want)
        return truncated(path, &hd, hd.bytes + (int64_t)got, err);
    int64_t extra = count_rest(f);
    if (ferror(f))
        return read_failed(f, path, err);
    if (extra > 0)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: %lld trailing bytes after the points", path,
                          (long long)extra);
    if ((rc = decode_points(b, n, dim, path, err)) != GRIDEMST_OK)
        return rc;
    out->coords = gemst_shrink(b, (size_t)want, 1);
    out->n = n;
    out->dim = dim;
    out->dtype = GRIDEMST_FLOAT32;
    return GRIDEMST_OK;
}

int gemst_read_binary(const char *path, gemst_pointset *out, gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = NULL;
    int rc = gemst_input_open(path, &f, err);
    if (rc != GRIDEMST_OK)
        return rc;
    rc = read_points(f, gemst_input_name(path), !gemst_is_stdin(path), out, err);
    gemst_input_close(f);
    if (rc != GRIDEMST_OK)
        gemst_pointset_free(out);
    return rc;
}

/* Checks that every coordinate survives the conversion to float32. */
static int check_float32(const char *path, const gemst_pointset *ps, gridemst_error *err)
{
    for (int64_t i = 0; i < ps->n; i++)
        for (int d = 0; d < ps->dim; d++)
            if (!isfinite((float)gemst_pointset_coord(ps, i, d)))
                return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: point %lld does not fit in float32", path,
                                  (long long)i);
    return GRIDEMST_OK;
}

int gemst_write_binary(const char *path, const gemst_pointset *ps, gridemst_error *err)
{
    if (!path)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "no output file named");
    if (!ps || ps->n < 0 || (ps->dim != 2 && ps->dim != 3) || (ps->n > 0 && !ps->coords))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: not a valid point set", path);
    if (ps->n > GEMST_BINARY_MAX_POINTS)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: %lld points; the binary format holds at most %lld",
                          path, (long long)ps->n, (long long)GEMST_BINARY_MAX_POINTS);
    int rc = check_float32(path, ps, err);
    gemst_output o;
    if (rc != GRIDEMST_OK || (rc = gemst_output_open(&o, path, err)) != GRIDEMST_OK)
        return rc;
    unsigned char buf[4096];
    size_t used = (size_t)gemst_binary_header_encode(ps->n, ps->dim, buf);
    for (int64_t k = 0; k < ps->n * ps->dim && !o.error; k++) {
        float v = (float)gemst_pointset_coord(ps, k / ps->dim, (int)(k % ps->dim));
        uint32_t u;
        memcpy(&u, &v, sizeof u);
        put_le32(buf + used, u);
        used += 4;
        if (used == sizeof buf) {
            gemst_output_check(&o, fwrite(buf, 1, used, o.f) == used);
            used = 0;
        }
    }
    if (used > 0 && !o.error)
        gemst_output_check(&o, fwrite(buf, 1, used, o.f) == used);
    return gemst_output_close(&o, err);
}
