/*
 * The binary points format of the ArborX benchmarks: int32 n, int32 dim,
 * then n * dim float32 in row-major order, all little-endian.  Bytes are
 * assembled explicitly, so the code does not depend on the host's order.
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

#define HEADER_BYTES 8
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

/* Two's complement, without relying on the implementation-defined conversion. */
static int64_t signed32(uint32_t u)
{
    return u <= INT32_MAX ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32);
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

static int read_header(FILE *f, const char *path, int64_t *n, int *dim, gridemst_error *err)
{
    unsigned char h[HEADER_BYTES];
    size_t got = fread(h, 1, sizeof h, f);
    if (got < sizeof h && ferror(f))
        return read_failed(f, path, err);
    if (got < sizeof h)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: no header: the file has %zu bytes, the header needs %d", path,
                          got, HEADER_BYTES);
    int64_t count = signed32(get_le32(h)), d = signed32(get_le32(h + 4));
    if (count < 0)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: negative point count %lld in the header", path,
                          (long long)count);
    if (d != 2 && d != 3)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: dimension %lld in the header; expected 2 or 3", path,
                          (long long)d);
    *n = count;
    *dim = (int)d;
    return GRIDEMST_OK;
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

/* The points of a file of file_bytes whose header said n and dim, as its
 * mapping; *mapped 0 (nothing done) where it cannot be mapped. */
static int map_points(FILE *f, const char *path, int64_t file_bytes, int64_t n, int dim, gemst_pointset *out,
                      int *mapped, gridemst_error *err)
{
    const int64_t want = HEADER_BYTES + 4 * n * dim;
    *mapped = 0;
    if (file_bytes < want)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: truncated: expected %lld bytes, found %lld", path,
                          (long long)want, (long long)file_bytes);
    if (file_bytes > want)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: %lld trailing bytes after the points", path,
                          (long long)(file_bytes - want));
    void *m = mmap(NULL, (size_t)file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(f), 0);
    if (m == MAP_FAILED)
        return GRIDEMST_OK;
    *mapped = 1;
    out->mapping = m;
    out->mapping_bytes = (size_t)file_bytes;
    out->coords = (char *)m + HEADER_BYTES;
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
    int64_t n = 0;
    int dim = 2;
    int rc = read_header(f, path, &n, &dim, err);
    if (rc != GRIDEMST_OK)
        return rc;
    /* n < 2^31 and dim <= 3: no overflow in 64 bits; a 32-bit size_t may still be too small. */
    const int64_t want = 4 * n * dim;
    if ((uint64_t)want > SIZE_MAX)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: %lld points do not fit in this machine's memory", path,
                          (long long)n);
    struct stat st;
    if (may_map && is_little_endian() && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        int mapped;
        rc = map_points(f, path, (int64_t)st.st_size, n, dim, out, &mapped, err);
        if (rc != GRIDEMST_OK || mapped)
            return rc;
    }
    unsigned char *b = NULL;
    size_t got = 0;
    if ((rc = read_payload(f, path, (size_t)want, &b, &got, err)) != GRIDEMST_OK)
        return rc;
    out->coords = b;
    if (got < (size_t)want)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: truncated: expected %lld bytes, found %lld", path,
                          (long long)(HEADER_BYTES + want), (long long)(HEADER_BYTES + got));
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
    if (ps->n > INT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: %lld points; the binary format holds at most %d",
                          path, (long long)ps->n, INT32_MAX);
    int rc = check_float32(path, ps, err);
    gemst_output o;
    if (rc != GRIDEMST_OK || (rc = gemst_output_open(&o, path, err)) != GRIDEMST_OK)
        return rc;
    unsigned char buf[4096];
    put_le32(buf, (uint32_t)ps->n);
    put_le32(buf + 4, (uint32_t)ps->dim);
    size_t used = HEADER_BYTES;
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
