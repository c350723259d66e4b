/*
 * The point-set readers and writers on good and bad files.  Expected values
 * are written by hand from the file contents; bad files are mostly made on
 * the fly in a temporary directory.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "testutil.h"
#include "tools/io.h"
#include "tools/io_internal.h"

/* ----------------------------------------------------------------- helpers */

static char tmpdir[512];

/* A path in the temporary directory (a ring of buffers: several can be alive). */
static const char *tmp_path(const char *name)
{
    static char ring[16][1024];
    static int next;
    char *p = ring[next++ % 16];
    snprintf(p, sizeof ring[0], "%s/%s", tmpdir, name);
    return p;
}

static const char *write_tmp(const char *name, const void *bytes, size_t len)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static const char *write_tmp_str(const char *name, const char *text)
{
    return write_tmp(name, text, strlen(text));
}

/* The whole file as a NUL-terminated string (caller frees). */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = NULL;
    size_t n = 0, cap = 0, k;
    do {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 8192;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        k = fread(buf + n, 1, 4096, f);
        n += k;
    } while (k > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(tmp_path(e->d_name));
    closedir(d);
    rmdir(tmpdir);
}

/* Little-endian int32 / float32 into b. */
static void put_i32(unsigned char *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(u >> (8 * i));
}

static void put_i64(unsigned char *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(u >> (8 * i));
}

/* The extended header, by hand: the count word -1, dim, then the int64 count. */
static void put_extended_header(unsigned char *b, int64_t n, int32_t dim)
{
    put_i32(b, -1);
    put_i32(b + 4, dim);
    put_i64(b + 8, n);
}

static void put_f32(unsigned char *b, float v)
{
    int32_t i;
    memcpy(&i, &v, sizeof i);
    put_i32(b, i);
}

/* Reads path as fmt and expects success. */
static void read_ok(const char *path, gemst_format fmt, gemst_pointset *ps)
{
    gridemst_error err = {0};
    int rc = gemst_read_points(path, fmt, ps, NULL, NULL, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "%s: rc %d: %s", path, rc, err.message);
}

/* Reads path as fmt and expects failure with code and the message "PATH<rest>". */
static void read_fails(const char *path, gemst_format fmt, int code, const char *rest)
{
    gemst_pointset ps;
    gridemst_error err = {0};
    char expected[1200];
    snprintf(expected, sizeof expected, "%s%s", path, rest);
    int rc = gemst_read_points(path, fmt, &ps, NULL, NULL, &err);
    ck_assert_int_eq(rc, code);
    ck_assert_int_eq(err.code, code);
    ck_assert_str_eq(err.message, expected);
    /* a failed read leaves an empty point set */
    ck_assert_int_eq(ps.n, 0);
    ck_assert_ptr_null(ps.coords);
    ck_assert_ptr_null(ps.tsp.orig);
}

/* Text content as a file in the temporary directory, expected to fail. */
static void text_fails(const char *content, const char *rest)
{
    read_fails(write_tmp_str("bad.txt", content), GEMST_FORMAT_TEXT, GRIDEMST_ERR_INPUT, rest);
}

static void tsplib_fails(const char *content, const char *rest)
{
    read_fails(write_tmp_str("bad.tsp", content), GEMST_FORMAT_TSPLIB, GRIDEMST_ERR_INPUT, rest);
}

static void binary_fails(const void *bytes, size_t len, const char *rest)
{
    read_fails(write_tmp("bad.bin", bytes, len), GEMST_FORMAT_BINARY, GRIDEMST_ERR_INPUT, rest);
}

/* Reads len bytes through standard input ("-") as fmt. */
static int read_stdin_bytes(const void *bytes, size_t len, gemst_format fmt, gemst_pointset *ps, gridemst_error *err)
{
    ck_assert_ptr_nonnull(freopen(write_tmp("stdin.txt", bytes, len), "rb", stdin));
    return gemst_read_points("-", fmt, ps, NULL, NULL, err);
}

/* Binary bytes refused alike from a named file (mapped) and from standard input (read). */
static void binary_fails_both_ways(const void *bytes, size_t len, const char *rest)
{
    binary_fails(bytes, len, rest);
    gemst_pointset ps;
    gridemst_error err = {0};
    char expected[1200];
    snprintf(expected, sizeof expected, "(standard input)%s", rest);
    ck_assert_int_eq(read_stdin_bytes(bytes, len, GEMST_FORMAT_BINARY, &ps, &err), GRIDEMST_ERR_INPUT);
    ck_assert_str_eq(err.message, expected);
    ck_assert_int_eq(ps.n, 0);
    ck_assert_ptr_null(ps.coords);
}

/* Every coordinate equal, exactly, to the expected ones. */
static void check_points(const gemst_pointset *ps, int64_t n, int dim, const double *want)
{
    ck_assert_int_eq(ps->n, n);
    ck_assert_int_eq(ps->dim, dim);
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            ck_assert_msg(gemst_pointset_coord(ps, i, d) == want[i * dim + d], "point %lld axis %d: %.17g, want %.17g",
                          (long long)i, d, gemst_pointset_coord(ps, i, d), want[i * dim + d]);
}

/* Reads text content and checks the points. */
static void text_reads(const char *content, int64_t n, int dim, const double *want)
{
    gemst_pointset ps;
    read_ok(write_tmp_str("good.txt", content), GEMST_FORMAT_TEXT, &ps);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT64);
    ck_assert_int_eq(ps.is_tsplib, 0);
    check_points(&ps, n, dim, want);
    gemst_pointset_free(&ps);
}

/* Warnings caught from the readers. */
typedef struct warnings {
    int count;
    char last[1024];
} warnings;

static void catch_warning(void *ctx, const char *message)
{
    warnings *w = ctx;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
}

/* ----------------------------------------------------------------- text */

START_TEST(text_quirks)
{
    /* header "x, y", comments, a blank line, tabs, runs of spaces, commas with blanks around */
    const double want[] = {1, 2, 3.5, -4, 500, 0.6, -7, 8};
    gemst_pointset ps;
    read_ok(TEST_DATA("points2d.txt"), GEMST_FORMAT_AUTO, &ps);
    check_points(&ps, 4, 2, want);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(text_extremes)
{
    const double want[] = {1e30, -1e-30, 0, -1e30, 1e-30, 2.5e-308};
    gemst_pointset ps;
    read_ok(TEST_DATA("extremes.txt"), GEMST_FORMAT_TEXT, &ps);
    check_points(&ps, 2, 3, want);
    gemst_pointset_free(&ps);
    /* underflow to a subnormal is not an error: it is still the nearest double */
    const double sub[] = {4e-320, 1};
    text_reads("4e-320 1\n", 1, 2, sub);
}
END_TEST

START_TEST(text_crlf_3d)
{
    const double want[] = {1, 2, 3, -4.25, 5e-3, 6};
    text_reads("a,b,c\r\n1,2,3\r\n\r\n-4.25,5e-3,6\r\n", 2, 3, want);
    text_reads("# comment\r\n1\t2\t3  \r\n-4.25 , 5e-3,6\r\n", 2, 3, want);
}
END_TEST

START_TEST(text_empty_sets)
{
    /* an empty file, a header alone, comments alone and /dev/null hold 0 points */
    const char *contents[] = {"", "x y z\n", "# nothing\n\n   \n# here\n", "\n\n", "x,y"};
    for (size_t i = 0; i < sizeof contents / sizeof contents[0]; i++)
        text_reads(contents[i], 0, 2, NULL);
    gemst_pointset ps;
    read_ok("/dev/null", GEMST_FORMAT_TEXT, &ps);
    ck_assert_int_eq(ps.n, 0);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(text_one_point)
{
    const double want[] = {-0.5, 7};
    text_reads("-0.5 7", 1, 2, want); /* no final newline */
    text_reads("# one point\nlon lat\n-0.5,7\n", 1, 2, want);
}
END_TEST

START_TEST(text_header_rules)
{
    /* a header may follow comments and blank lines, but only the first content line is one */
    const double want[] = {1, 2};
    text_reads("# c\n\n  x  y  # names\n1 2\n", 1, 2, want);
    text_fails("x y\n1 2\nfoo bar\n", ":3: field 1 is not a number: 'foo'");
    text_fails("1 2\nx y\n", ":2: field 1 is not a number: 'x'");
}
END_TEST

START_TEST(text_long_line)
{
    /* no fixed line buffer: 200000 blanks before the numbers */
    size_t pad = 200000;
    char *s = malloc(pad + 16);
    ck_assert_ptr_nonnull(s);
    memset(s, ' ', pad);
    strcpy(s + pad, "3 4\n5 6\n");
    const double want[] = {3, 4, 5, 6};
    text_reads(s, 2, 2, want);
    free(s);
}
END_TEST

START_TEST(text_bad_columns)
{
    read_fails(TEST_DATA("mixed_columns.txt"), GEMST_FORMAT_TEXT, GRIDEMST_ERR_INPUT,
               ":3: expected 3 numbers, found 2");
    text_fails("1 2\n3 4 5\n", ":2: expected 2 numbers, found 3");
    text_fails("# one column\n5\n", ":2: expected 2 or 3 coordinates per line, found 1");
    text_fails("1 2 3 4\n", ":1: expected 2 or 3 coordinates per line, found 4");
    text_fails("x y\n1,2,3,4,5,6\n", ":2: expected 2 or 3 coordinates per line, found 6");
}
END_TEST

START_TEST(text_bad_tokens)
{
    text_fails("1 2\n3 4x\n", ":2: field 2 is not a number: '4x'");
    text_fails("1 2\n3;4 5\n", ":2: field 1 is not a number: '3;4'");
    text_fails("1 2\n3 1e999\n", ":2: field 2 is out of range: '1e999'");
    text_fails("1 2\n-1e400 3\n", ":2: field 1 is out of range: '-1e400'");
}
END_TEST

START_TEST(text_nonfinite)
{
    /* NaN and Inf in every column, in the spellings strtod knows */
    text_fails("nan 1\n", ":1: field 1 is not a finite number: 'nan'");
    text_fails("1 2\n3 NaN\n", ":2: field 2 is not a finite number: 'NaN'");
    text_fails("1 2 3\n4 5 inf\n", ":2: field 3 is not a finite number: 'inf'");
    text_fails("1,2\n\n-Infinity,3\n", ":3: field 1 is not a finite number: '-Infinity'");
    text_fails("1 2\n3 nan(0x7)\n", ":2: field 2 is not a finite number: 'nan(0x7)'");
}
END_TEST

START_TEST(text_empty_fields)
{
    const char *rest = ": empty field (a comma at the start or end of the line, or two commas in a row)";
    char want[256];
    const char *bad[] = {"1,,2\n", "1,2,\n", ",1,2\n", "1 , , 2\n", "1,2 ,  \n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(want, sizeof want, ":1%s", rest);
        text_fails(bad[i], want);
    }
}
END_TEST

START_TEST(text_nul_byte)
{
    read_fails(write_tmp("nul.txt", "1 2\n3\0 4\n", 9), GEMST_FORMAT_TEXT, GRIDEMST_ERR_INPUT,
               ":2: NUL byte in a text line (is this a binary file?)");
}
END_TEST

/* A UTF-8 byte-order mark before the first line is not part of it: before
 * it was, the line read as a header and its point was lost. */
START_TEST(text_byte_order_mark)
{
    const double want[] = {1, 2, 3, 4, 5, 6};
    text_reads("\xEF\xBB\xBF" "1 2\n3 4\n5 6\n", 3, 2, want);
    text_reads("\xEF\xBB\xBF" "x,y\n1,2\n3,4\n5,6\n", 3, 2, want);
    /* only at the start of the file */
    text_fails("1 2\n\xEF\xBB\xBF" "3 4\n", ":2: field 1 is not a number: '\xEF\xBB\xBF" "3'");
}
END_TEST

/* A first line with a number among its fields is data, not a header: a
 * mistyped number there is an error naming the line and the field. */
START_TEST(text_typo_on_the_first_line)
{
    text_fails("l.5 2\n3 4\n5 6\n", ":1: field 1 is not a number: 'l.5'");
    text_fails("1.5x 2\n3 4\n", ":1: field 1 is not a number: '1.5x'");
    text_fails("1 2.5y\n3 4\n", ":1: field 2 is not a number: '2.5y'");
    /* fields that start as numbers do are mistyped numbers, even with no number beside them */
    text_fails("1.5x 2.5y\n3 4\n", ":1: field 1 is not a number: '1.5x'");
    text_fails("x -.5e\n3 4\n", ":1: field 1 is not a number: 'x'");
    text_fails("nan x\n3 4\n", ":1: field 1 is not a finite number: 'nan'");
    text_fails("# c\nx,,y\n", ":2: empty field (a comma at the start or end of the line, or two commas in a row)");
}
END_TEST

/* Reads content as text and checks the header the reader reports. */
static void check_header(const char *content, int64_t line, const char *text)
{
    gemst_pointset ps;
    read_ok(write_tmp_str("header.txt", content), GEMST_FORMAT_TEXT, &ps);
    ck_assert_int_eq(ps.header_line, line);
    ck_assert_str_eq(ps.header, text);
    gemst_pointset_free(&ps);
}

START_TEST(text_header_reported)
{
    check_header("1 2\n3 4\n", 0, "");
    check_header("x, y # names\n1 2\n", 1, "x, y");
    check_header("# c\n\n\t lon   lat \r\n1 2\n", 3, "lon   lat");
    check_header("x y z\n", 1, "x y z");
    check_header("-x +y .z\n1 2 3\n", 1, "-x +y .z");
    /* a long header is shortened to fit, with "..." */
    char content[256], want[GEMST_HEADER_TEXT];
    memset(content, 'h', 200);
    strcpy(content + 200, "\n1 2\n");
    memset(want, 'h', sizeof want - 4);
    strcpy(want + sizeof want - 4, "...");
    check_header(content, 1, want);
}
END_TEST

START_TEST(open_errors)
{
    /* every reader: a missing file and a directory */
    const gemst_format fmts[] = {GEMST_FORMAT_TEXT, GEMST_FORMAT_TSPLIB, GEMST_FORMAT_BINARY};
    for (size_t i = 0; i < 3; i++) {
        read_fails(tmp_path("missing.txt"), fmts[i], GRIDEMST_ERR_INPUT,
                   ": cannot open: No such file or directory");
        read_fails(tmpdir, fmts[i], GRIDEMST_ERR_INPUT, ": is a directory");
    }
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_read_text(NULL, &ps, NULL, NULL, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    /* err may be NULL */
    ck_assert_int_eq(gemst_read_binary(tmp_path("missing.bin"), &ps, NULL), GRIDEMST_ERR_INPUT);
}
END_TEST

/* ----------------------------------------------------------------- binary */

START_TEST(binary_hand_made)
{
    /* two.bin: n = 2, dim = 2, then 1.0f 2.0f -0.5f 0.25f (bytes written by hand) */
    const double want[] = {1, 2, -0.5, 0.25};
    gemst_pointset ps;
    read_ok(TEST_DATA("two.bin"), GEMST_FORMAT_AUTO, &ps);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT32);
    check_points(&ps, 2, 2, want);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(binary_round_trip)
{
    /* FLOAT64 in, float32 out: 0.1 comes back as 0.1f */
    double xyz[] = {0.1, -2, 3e20, 4.5, 5, -6.75};
    gemst_pointset ps = {.n = 2, .dim = 3, .dtype = GRIDEMST_FLOAT64, .coords = xyz};
    gridemst_error err;
    const char *path = tmp_path("round.bin");
    ck_assert_int_eq(gemst_write_binary(path, &ps, &err), GRIDEMST_OK);

    size_t len;
    char *bytes = read_all(path, &len);
    unsigned char want[8 + 6 * 4];
    put_i32(want, 2);
    put_i32(want + 4, 3);
    for (int i = 0; i < 6; i++)
        put_f32(want + 8 + 4 * i, (float)xyz[i]);
    ck_assert_uint_eq(len, sizeof want);
    ck_assert_int_eq(memcmp(bytes, want, len), 0);
    /* the header and the first value, byte by byte: 0.1f is 0x3dcccccd */
    const unsigned char head[] = {2, 0, 0, 0, 3, 0, 0, 0, 0xcd, 0xcc, 0xcc, 0x3d};
    ck_assert_int_eq(memcmp(bytes, head, sizeof head), 0);
    free(bytes);

    gemst_pointset back;
    read_ok(path, GEMST_FORMAT_BINARY, &back);
    ck_assert_int_eq(back.n, 2);
    ck_assert_int_eq(back.dim, 3);
    for (int i = 0; i < 6; i++)
        ck_assert(((float *)back.coords)[i] == (float)xyz[i]);

    /* and FLOAT32 through again: identical bytes */
    const char *again = tmp_path("again.bin");
    ck_assert_int_eq(gemst_write_binary(again, &back, &err), GRIDEMST_OK);
    size_t len2;
    char *a = read_all(path, &len), *b = read_all(again, &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_int_eq(memcmp(a, b, len), 0);
    free(a);
    free(b);
    gemst_pointset_free(&back);
}
END_TEST

START_TEST(binary_zero_points)
{
    unsigned char h[8];
    put_i32(h, 0);
    put_i32(h + 4, 3);
    gemst_pointset ps;
    read_ok(write_tmp("zero.bin", h, 8), GEMST_FORMAT_BINARY, &ps);
    ck_assert_int_eq(ps.n, 0);
    ck_assert_int_eq(ps.dim, 3);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(binary_bad_headers)
{
    unsigned char b[64] = {0};
    binary_fails(b, 0, ": no header: the file has 0 bytes, the header needs 8");
    binary_fails(b, 5, ": no header: the file has 5 bytes, the header needs 8");
    read_fails("/dev/null", GEMST_FORMAT_BINARY, GRIDEMST_ERR_INPUT,
               ": no header: the file has 0 bytes, the header needs 8");
    put_i32(b, -2);
    put_i32(b + 4, 2);
    binary_fails(b, 8, ": negative point count -2 in the header");
    /* the count word -1 announces the 16-byte header */
    put_i32(b, -1);
    binary_fails_both_ways(b, 8, ": no header: the file has 8 bytes, the header needs 16");
    binary_fails_both_ways(b, 15, ": no header: the file has 15 bytes, the header needs 16");
    const int32_t dims[] = {4, 1, 0, -3};
    char want[128];
    for (int i = 0; i < 4; i++) {
        put_i32(b, 1);
        put_i32(b + 4, dims[i]);
        snprintf(want, sizeof want, ": dimension %d in the header; expected 2 or 3", dims[i]);
        binary_fails(b, 8 + 4 * 4, want);
    }
}
END_TEST

START_TEST(binary_bad_sizes)
{
    unsigned char b[64] = {0};
    put_i32(b, 3);
    put_i32(b + 4, 2);
    /* 3 points of dimension 2: 8 + 24 = 32 bytes */
    binary_fails(b, 28, ": truncated: expected 32 bytes, found 28");
    binary_fails(b, 8, ": truncated: expected 32 bytes, found 8");
    binary_fails(b, 35, ": 3 trailing bytes after the points");
    /* n * dim beyond int32 (2147483647 * 3 floats): 8 + 25769803764 bytes; nothing is allocated for them */
    put_i32(b, INT32_MAX);
    put_i32(b + 4, 3);
    binary_fails(b, 40, ": truncated: expected 25769803772 bytes, found 40");
}
END_TEST

/* The header codec on counts too large for a test file: the 16-byte
 * header, written here by hand, against what binary.c encodes and decodes. */
START_TEST(binary_header_codec)
{
    const int64_t counts[] = {(int64_t)INT32_MAX + 1, 3000000000, GEMST_BINARY_MAX_POINTS};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        unsigned char want[16], got[16];
        put_extended_header(want, counts[i], 3);
        ck_assert_int_eq(gemst_binary_header_encode(counts[i], 3, got), 16);
        ck_assert_int_eq(memcmp(got, want, 16), 0);
        ck_assert_int_eq(gemst_binary_header_length(want), 16);
        gemst_binary_header hd;
        gridemst_error err = {0};
        ck_assert_int_eq(gemst_binary_header_decode(want, "x.bin", &hd, &err), GRIDEMST_OK);
        ck_assert_int_eq(hd.n, counts[i]);
        ck_assert_int_eq(hd.dim, 3);
        ck_assert_int_eq(hd.bytes, 16);
        ck_assert_int_eq(gemst_binary_file_bytes(&hd), 16 + 12 * counts[i]); /* no overflow at the largest */
    }
    /* 3e9 points byte by byte: -1, dim 3, then 3000000000 = 0xb2d05e00 */
    const unsigned char three_e9[] = {0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 0x00, 0x5e, 0xd0, 0xb2, 0, 0, 0, 0};
    gemst_binary_header hd;
    ck_assert_int_eq(gemst_binary_header_decode(three_e9, "x.bin", &hd, NULL), GRIDEMST_OK);
    ck_assert_int_eq(hd.n, 3000000000);
    ck_assert_int_eq(gemst_binary_file_bytes(&hd), 36000000016);

    /* up to INT32_MAX points: ArborX's 8 bytes, as always */
    unsigned char h[16];
    ck_assert_int_eq(gemst_binary_header_encode(INT32_MAX, 2, h), 8);
    const unsigned char short_header[] = {0xff, 0xff, 0xff, 0x7f, 2, 0, 0, 0};
    ck_assert_int_eq(memcmp(h, short_header, 8), 0);
    ck_assert_int_eq(gemst_binary_header_length(h), 8);
    ck_assert_int_eq(gemst_binary_header_decode(h, "x.bin", &hd, NULL), GRIDEMST_OK);
    ck_assert_int_eq(hd.n, INT32_MAX);
    ck_assert_int_eq(hd.bytes, 8);
    ck_assert_int_eq(gemst_binary_file_bytes(&hd), 8 + 8 * (int64_t)INT32_MAX);
}
END_TEST

/* An extended header whose count fits in int32 is malformed: every set has
 * one encoding.  Counts beyond what the file's size can hold in int64, and
 * negative ones, are refused; a header promising 3e9 points of which the
 * file holds two is truncated, found without reading or allocating the
 * promised 36 GB. */
START_TEST(binary_extended_headers)
{
    unsigned char b[16 + 6 * 4] = {0};
    put_extended_header(b, 3, 2);
    binary_fails_both_ways(b, sizeof b, ": malformed header: the extended header counts 3 points; up to 2147483647 "
                                        "take the 8-byte header");
    put_extended_header(b, 0, 2);
    binary_fails_both_ways(b, 16, ": malformed header: the extended header counts 0 points; up to 2147483647 "
                                  "take the 8-byte header");
    put_extended_header(b, INT32_MAX, 3);
    binary_fails_both_ways(b, sizeof b, ": malformed header: the extended header counts 2147483647 points; up to "
                                        "2147483647 take the 8-byte header");
    put_extended_header(b, -5, 3);
    binary_fails_both_ways(b, sizeof b, ": negative point count -5 in the header");
    put_extended_header(b, GEMST_BINARY_MAX_POINTS + 1, 3);
    char want[200];
    snprintf(want, sizeof want, ": %lld points in the header; the format holds at most %lld",
             (long long)GEMST_BINARY_MAX_POINTS + 1, (long long)GEMST_BINARY_MAX_POINTS);
    binary_fails_both_ways(b, sizeof b, want);
    put_extended_header(b, 3000000000, 4);
    binary_fails_both_ways(b, sizeof b, ": dimension 4 in the header; expected 2 or 3");

    put_extended_header(b, 3000000000, 3);
    binary_fails_both_ways(b, sizeof b, ": truncated: expected 36000000016 bytes, found 40");
    binary_fails_both_ways(b, 16, ": truncated: expected 36000000016 bytes, found 16");
}
END_TEST

START_TEST(binary_nonfinite)
{
    unsigned char b[8 + 3 * 2 * 4];
    put_i32(b, 3);
    put_i32(b + 4, 2);
    for (int i = 0; i < 6; i++)
        put_f32(b + 8 + 4 * i, (float)i);
    put_f32(b + 8 + 4 * 3, NAN); /* point 1, axis 1 */
    binary_fails(b, sizeof b, ": point 1 has a non-finite coordinate");
    put_f32(b + 8 + 4 * 3, 1);
    put_f32(b + 8 + 4 * 4, -INFINITY); /* point 2, axis 0 */
    binary_fails(b, sizeof b, ": point 2 has a non-finite coordinate");
}
END_TEST

/* A named regular file is mapped, privately (writes to its points stay in
 * the process); through a pipe the same bytes are read, to the same points.
 * The first non-finite value is found among many, by its point. */
START_TEST(binary_mapped_or_read)
{
    enum { N = 300000, DIM = 3, PIPED = 1000 };
    const size_t len = 8 + 4 * (size_t)N * DIM, piped_len = 8 + 4 * (size_t)PIPED * DIM;
    unsigned char *b = xcalloc(len, 1);
    put_i32(b, N);
    put_i32(b + 4, DIM);
    for (int i = 0; i < N * DIM; i++)
        put_f32(b + 8 + 4 * i, (float)i * 0.5f - 7);
    gemst_pointset mapped, piped;
    const char *path = write_tmp("mapped.bin", b, len);
    read_ok(path, GEMST_FORMAT_BINARY, &mapped);
    ck_assert_ptr_nonnull(mapped.mapping);
    ck_assert_int_eq(mapped.n, N);
    for (int i = 0; i < N * DIM; i++)
        REQUIRE(((float *)mapped.coords)[i] == (float)i * 0.5f - 7, "value %d", i);
    ((float *)mapped.coords)[0] = 42; /* the mapping's copy, not the file */
    size_t back_len;
    char *back = read_all(path, &back_len);
    ck_assert_uint_eq(back_len, len);
    ck_assert_int_eq(memcmp(back, b, len), 0);
    free(back);
    gemst_pointset_free(&mapped);

    put_i32(b, PIPED);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(write(fds[1], b, piped_len), (ssize_t)piped_len); /* within the pipe's buffer */
    ck_assert_int_eq(close(fds[1]), 0);
    char pipe_path[64];
    snprintf(pipe_path, sizeof pipe_path, "/proc/self/fd/%d", fds[0]);
    read_ok(pipe_path, GEMST_FORMAT_BINARY, &piped);
    close(fds[0]);
    ck_assert_ptr_null(piped.mapping);
    ck_assert_int_eq(piped.n, PIPED);
    for (int i = 0; i < PIPED * DIM; i++)
        REQUIRE(((float *)piped.coords)[i] == (float)i * 0.5f - 7, "piped value %d", i);
    gemst_pointset_free(&piped);

    put_i32(b, N);
    put_f32(b + 8 + 4 * (3 * 299000 + 1), NAN);
    put_f32(b + 8 + 4 * (3 * 250001 + 2), INFINITY);
    binary_fails(b, len, ": point 250001 has a non-finite coordinate");
    free(b);
}
END_TEST

START_TEST(binary_write_errors)
{
    gridemst_error err;
    double big[] = {1, 1e300};
    gemst_pointset ps = {.n = 1, .dim = 2, .dtype = GRIDEMST_FLOAT64, .coords = big};
    const char *path = tmp_path("big.bin");
    ck_assert_int_eq(gemst_write_binary(path, &ps, &err), GRIDEMST_ERR_INPUT);
    char want[1200];
    snprintf(want, sizeof want, "%s: point 0 does not fit in float32", path);
    ck_assert_str_eq(err.message, want);
    ck_assert_int_eq(access(path, F_OK), -1); /* checked before the file is made */

    big[1] = 2;
    ck_assert_int_eq(gemst_write_binary(tmpdir, &ps, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s: cannot write: Is a directory", tmpdir);
    ck_assert_str_eq(err.message, want);

    /* a count no header holds is refused before a coordinate is read */
    ps.n = GEMST_BINARY_MAX_POINTS + 1;
    ck_assert_int_eq(gemst_write_binary(path, &ps, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s: %lld points; the binary format holds at most %lld", path,
             (long long)GEMST_BINARY_MAX_POINTS + 1, (long long)GEMST_BINARY_MAX_POINTS);
    ck_assert_str_eq(err.message, want);
    ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* ----------------------------------------------------------------- TSPLIB */

START_TEST(tsplib_quirks)
{
    /* colons in COMMENT, "DIMENSION:4", "NODE_COORD_SECTION:" with trailing blanks, leading blanks,
     * a tab, exponents, "EOF   ", blank lines and text after EOF */
    const double want[] = {0, 0, 3, 4, 15, -2, 6, 8};
    gemst_pointset ps;
    read_ok(TEST_DATA("tiny.tsp"), GEMST_FORMAT_AUTO, &ps);
    check_points(&ps, 4, 2, want);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT64);
    ck_assert_int_eq(ps.is_tsplib, 1);
    ck_assert_str_eq(ps.tsp.name, "tiny");
    ck_assert_str_eq(ps.tsp.edge_weight_type, "EUC_2D");
    ck_assert_int_eq(ps.tsp.orig_dim, 2);
    for (int i = 0; i < 8; i++)
        ck_assert(ps.tsp.orig[i] == want[i]);
    ck_assert_ptr_ne(ps.tsp.orig, ps.coords);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_unordered_ids)
{
    /* ids 2, 0, 3, 1 in the file, no EOF, no final newline: index = rank of the id */
    const double want[] = {0, 1, 10, 11, 20, 21, 30, 31};
    gemst_pointset ps;
    read_ok(TEST_DATA("unordered.tsp"), GEMST_FORMAT_TSPLIB, &ps);
    check_points(&ps, 4, 2, want);
    gemst_pointset_free(&ps);

    /* negative ids with gaps: -5 < 7 < 10 */
    const double want2[] = {-5, 0, 7, 0, 10, 0};
    read_ok(write_tmp_str("gaps.tsp", "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
                                      "10 10 0\n-5 -5 0\n7 7 0\n"),
            GEMST_FORMAT_TSPLIB, &ps);
    check_points(&ps, 3, 2, want2);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_line_forms)
{
    /* "KEY :value", no TYPE, CRLF, EUC_3D, right-aligned columns, EOF then blank lines */
    const double want[] = {1.5, -2, 3e2, 4, 5, 6};
    gemst_pointset ps;
    read_ok(write_tmp_str("forms.tsp", "NAME :forms\r\nDIMENSION :2\r\nEDGE_WEIGHT_TYPE :EUC_3D\r\n"
                                       "NODE_COORD_SECTION\r\n   1  1.5  -2  3e2\r\n   2    4   5    6\r\nEOF\r\n\r\n"),
            GEMST_FORMAT_TSPLIB, &ps);
    check_points(&ps, 2, 3, want);
    ck_assert_str_eq(ps.tsp.name, "forms");
    ck_assert_str_eq(ps.tsp.edge_weight_type, "EUC_3D");
    ck_assert_int_eq(ps.tsp.orig_dim, 3);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_other_sections)
{
    /* a section before the nodes is skipped; one after them ends the reading */
    const double want[] = {0, 0, 1, 1};
    gemst_pointset ps;
    read_ok(write_tmp_str("sections.tsp", "NAME: s\nDIMENSION: 2\nFIXED_EDGES_SECTION\n1 2\n-1\n"
                                          "EDGE_WEIGHT_TYPE: CEIL_2D\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n"
                                          "DISPLAY_DATA_SECTION\n1 5 5\n2 6 6\n3 7 7\nEOF\n"),
            GEMST_FORMAT_TSPLIB, &ps);
    check_points(&ps, 2, 2, want);
    ck_assert_str_eq(ps.tsp.edge_weight_type, "CEIL_2D");
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_long_name)
{
    char text[512], name[201];
    memset(name, 'n', 200);
    name[200] = '\0';
    snprintf(text, sizeof text, "NAME: %s\nDIMENSION: 0\nEDGE_WEIGHT_TYPE: ATT\nNODE_COORD_SECTION\nEOF\n", name);
    gemst_pointset ps;
    read_ok(write_tmp_str("long.tsp", text), GEMST_FORMAT_TSPLIB, &ps);
    ck_assert_int_eq(ps.n, 0);
    ck_assert_uint_eq(strlen(ps.tsp.name), sizeof ps.tsp.name - 1);
    ck_assert_int_eq(strncmp(ps.tsp.name, name, sizeof ps.tsp.name - 1), 0);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_duplicate_ids)
{
    read_fails(TEST_DATA("dup_ids.tsp"), GEMST_FORMAT_TSPLIB, GRIDEMST_ERR_INPUT,
               ":8: duplicate node id 1 (first on line 6)");
}
END_TEST

START_TEST(tsplib_wrong_dimension)
{
    const char *head = "NAME: d\nTYPE: TSP\nEDGE_WEIGHT_TYPE: EUC_2D\n";
    char text[512];
    snprintf(text, sizeof text, "%sDIMENSION: 3\nNODE_COORD_SECTION\n1 0 0\n2 1 1\nEOF\n", head);
    tsplib_fails(text, ":4: DIMENSION says 3 but NODE_COORD_SECTION has 2 nodes");
    snprintf(text, sizeof text, "%sDIMENSION: 1\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n", head);
    tsplib_fails(text, ":4: DIMENSION says 1 but NODE_COORD_SECTION has 2 nodes");
    snprintf(text, sizeof text, "%sDIMENSION: -4\nNODE_COORD_SECTION\n", head);
    tsplib_fails(text, ":4: DIMENSION is not a non-negative integer: '-4'");
    snprintf(text, sizeof text, "%sDIMENSION: 4.0\nNODE_COORD_SECTION\n", head);
    tsplib_fails(text, ":4: DIMENSION is not a non-negative integer: '4.0'");
    snprintf(text, sizeof text, "%sNODE_COORD_SECTION\n1 0 0\n", head);
    tsplib_fails(text, ":4: NODE_COORD_SECTION before DIMENSION");
    tsplib_fails("DIMENSION: 1\nNODE_COORD_SECTION\n1 0 0\n", ":2: NODE_COORD_SECTION before EDGE_WEIGHT_TYPE");
}
END_TEST

START_TEST(tsplib_weight_types)
{
    tsplib_fails("NAME: x\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: XRAY1\nNODE_COORD_SECTION\n",
                 ":3: unsupported EDGE_WEIGHT_TYPE XRAY1");
    tsplib_fails("NAME: x\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n"
                 "EDGE_WEIGHT_SECTION\n0 1\n1 0\nEOF\n",
                 ":3: explicit distance matrices are not supported");
    tsplib_fails("NAME: x\nDIMENSION: 2\nEDGE_WEIGHT_SECTION\n0 1\n1 0\nEOF\n",
                 ":3: explicit distance matrices are not supported");
    tsplib_fails("NAME: x\nTYPE: ATSP\nDIMENSION: 2\n", ":2: only TYPE TSP is supported, not ATSP");
    tsplib_fails("NAME: x\nTYPE : TOUR\n", ":2: only TYPE TSP is supported, not TOUR");
    /* keys are case-sensitive, as in TSPLIB: "dimension" is an unknown key, ignored */
    tsplib_fails("dimension: 1\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n",
                 ":3: NODE_COORD_SECTION before DIMENSION");
}
END_TEST

START_TEST(tsplib_man_2d_warns)
{
    warnings w = {0};
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_read_points(TEST_DATA("man2d.tsp"), GEMST_FORMAT_AUTO, &ps, catch_warning, &w, &err),
                     GRIDEMST_OK);
    const double want[] = {0, 0, 1, 0, 0, 2};
    check_points(&ps, 3, 2, want);
    ck_assert_int_eq(w.count, 1);
    ck_assert_str_eq(w.last, TEST_DATA("man2d.tsp") ": EDGE_WEIGHT_TYPE MAN_2D: the tree is Euclidean; "
                                                    "tsplib_weight is not reported");
    gridemst_edge edges[] = {{0, 1, 1.0}, {0, 2, 2.0}};
    int64_t len = 12345;
    ck_assert_int_eq(gemst_tsplib_tree_length(&ps, edges, 2, &len), -1);
    ck_assert_int_eq(len, 12345);
    gemst_pointset_free(&ps);

    /* a NULL callback drops the warning */
    ck_assert_int_eq(gemst_read_tsplib(TEST_DATA("man2d.tsp"), &ps, NULL, NULL, &err), GRIDEMST_OK);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_geo)
{
    gemst_pointset ps;
    read_ok(TEST_DATA("geo.tsp"), GEMST_FORMAT_TSPLIB, &ps);
    ck_assert_int_eq(ps.n, 2);
    ck_assert_int_eq(ps.dim, 3);
    ck_assert_int_eq(ps.tsp.orig_dim, 2);
    ck_assert_str_eq(ps.tsp.edge_weight_type, "GEO");
    /* the file's DDD.MM values are kept */
    const double orig[] = {30.30, -45.00, -30.30, 120.15};
    for (int i = 0; i < 4; i++)
        ck_assert(ps.tsp.orig[i] == orig[i]);
    for (int i = 0; i < 2; i++) {
        double s = 0;
        for (int d = 0; d < 3; d++)
            s += gemst_pointset_coord(&ps, i, d) * gemst_pointset_coord(&ps, i, d);
        ck_assert_double_eq_tol(s, 1.0, 1e-15);
    }
    /* Node 1, by hand: 30.30 is 30 degrees 30 minutes = 30.5 degrees; with TSPLIB's PI = 3.141592,
     * lat = 3.141592 * 30.5 / 180 = 0.532325311, lon = -3.141592 * 45 / 180 = -0.785398
     * (not quite -pi/4, so x and -y differ in the 7th digit):
     * (cos lat cos lon, cos lat sin lon, sin lat) = (0.60926396, -0.60926376, 0.50753827). */
    ck_assert_double_eq_tol(gemst_pointset_coord(&ps, 0, 0), 0.60926396, 1e-8);
    ck_assert_double_eq_tol(gemst_pointset_coord(&ps, 0, 1), -0.60926376, 1e-8);
    ck_assert_double_eq_tol(gemst_pointset_coord(&ps, 0, 2), 0.50753827, 1e-8);
    /* Node 2: -30.30 is -30.5 degrees (the minutes take the sign of the degrees), so z is node 1's negated */
    ck_assert_double_eq(gemst_pointset_coord(&ps, 1, 2), -gemst_pointset_coord(&ps, 0, 2));
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_bad_nodes)
{
    const char *head = "NAME: b\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n";
    char text[512];
    struct {
        const char *nodes, *rest;
    } cases[] = {
        {"1 0 0\n1.5 1 1\n", ":6: node id is not an integer: '1.5'"},
        {"1 0 0\nabc 1 1\n", ":6: node id is not an integer: 'abc'"},
        {"1 0 0\n99999999999999999999 1 1\n", ":6: node id is not an integer: '99999999999999999999'"},
        {"1 0 0\n2 1\n", ":6: expected a node id and 2 coordinates, found 2 fields"},
        {"1 0 0\n2 1 1 1\n", ":6: expected a node id and 2 coordinates, found 4 fields"},
        {"1 0 0\n2 1,1\n", ":6: field 2 is not a number: '1,1'"},
        {"1 nan 0\n2 1 1\n", ":5: field 2 is not a finite number: 'nan'"},
        {"1 0 0\n2 1 -inf\n", ":6: field 3 is not a finite number: '-inf'"},
        {"1 0 0\n2 1e999 1\n", ":6: field 2 is out of range: '1e999'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%sEOF\n", head, cases[i].nodes);
        tsplib_fails(text, cases[i].rest);
    }
}
END_TEST

/* Found by fuzzing: a GEO value beyond about 5.7e307 degrees overflowed to infinite radians, and the point
 * read came out as NaN instead of an error. */
START_TEST(tsplib_geo_out_of_range)
{
    const char *head = "NAME: g\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n";
    char text[512];
    snprintf(text, sizeof text, "%s1 0 0\n2 -1.7e308 0\nEOF\n", head);
    tsplib_fails(text, ":6: GEO coordinate out of range: '-1.7e308'");
    snprintf(text, sizeof text, "%s1 0 1e308\n2 0 0\nEOF\n", head);
    tsplib_fails(text, ":5: GEO coordinate out of range: '1e308'");
    /* 5e307 degrees is still a finite angle, and any finite number is fine for the other metrics */
    gemst_pointset ps;
    snprintf(text, sizeof text, "%s1 5e307 -5e307\n2 0 0\nEOF\n", head);
    read_ok(write_tmp_str("big.tsp", text), GEMST_FORMAT_TSPLIB, &ps);
    for (int d = 0; d < 3; d++)
        ck_assert(isfinite(gemst_pointset_coord(&ps, 0, d)));
    gemst_pointset_free(&ps);
    read_ok(write_tmp_str("big.tsp", "DIMENSION: 1\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 -1.7e308 1e308\n"),
            GEMST_FORMAT_TSPLIB, &ps);
    ck_assert(gemst_pointset_coord(&ps, 0, 0) == -1.7e308);
    gemst_pointset_free(&ps);
}
END_TEST

START_TEST(tsplib_bad_files)
{
    read_fails("/dev/null", GEMST_FORMAT_TSPLIB, GRIDEMST_ERR_INPUT, ": no NODE_COORD_SECTION");
    tsplib_fails("", ": no NODE_COORD_SECTION");
    tsplib_fails("NAME: x\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nEOF\n1 0 0\n", ": no NODE_COORD_SECTION");
    tsplib_fails("NAME: x\nthis is not a header line\n", ":2: not a 'KEY : value' line: 'this is not a header line'");
    read_fails(write_tmp("nul.tsp", "NAME: x\0y\n", 10), GEMST_FORMAT_TSPLIB, GRIDEMST_ERR_INPUT,
               ":1: NUL byte in a text line (is this a binary file?)");
    /* a text point file is not TSPLIB */
    read_fails(TEST_DATA("mixed_columns.txt"), GEMST_FORMAT_TSPLIB, GRIDEMST_ERR_INPUT,
               ":1: not a 'KEY : value' line: '1 2 3'");
}
END_TEST

/* A byte-order mark before the first keyword: before, the keyword was not
 * recognised ("NODE_COORD_SECTION before DIMENSION"). */
START_TEST(tsplib_byte_order_mark)
{
    const double want[] = {0, 0, 3, 4};
    gemst_pointset ps;
    read_ok(write_tmp_str("bom.tsp", "\xEF\xBB\xBF" "DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
                                     "1 0 0\n2 3 4\nEOF\n"),
            GEMST_FORMAT_TSPLIB, &ps);
    check_points(&ps, 2, 2, want);
    gemst_pointset_free(&ps);
}
END_TEST

/* ----------------------------------------------------------------- mapped or piped */

/* A named regular text or TSPLIB file is mapped and its lines are split
 * among threads; a pipe is read line by line.  The same bytes must give
 * the same points, or the same message, both ways.  The files made here
 * hold 1 to 2 MB: several of the reader's ranges (64 KiB at least) at 2,
 * 3 and 8 threads. */

enum { BIG_POINTS = 40000 };

/* Bytes built up by the generators. */
typedef struct byte_buf {
    char *b;
    size_t len, cap;
} byte_buf;

static void buf_add(byte_buf *t, const void *bytes, size_t len)
{
    if (t->len + len + 1 > t->cap) {
        t->cap = 2 * (t->len + len + 1);
        t->b = realloc(t->b, t->cap);
        ck_assert_ptr_nonnull(t->b);
    }
    memcpy(t->b + t->len, bytes, len);
    t->len += len;
    t->b[t->len] = '\0';
}

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void buf_printf(byte_buf *t, const char *fmt, ...)
{
    char s[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    ck_assert(k >= 0 && (size_t)k < sizeof s);
    buf_add(t, s, (size_t)k);
}

/* A line end, CRLF one time in four. */
static void end_line(byte_buf *t, uint64_t *rng)
{
    const int crlf = rng_below(rng, 4) == 0;
    buf_add(t, crlf ? "\r\n" : "\n", crlf ? 2 : 1);
}

/* A finite number in one of the forms strtod reads, form 0 to 11.  The
 * last, a double's extremes, is too large for GEO angles (about 5.7e307
 * at most). */
enum { NUMBER_FORMS = 12 };
static void number_text(char *s, size_t size, int form, uint64_t *rng)
{
    const double u = rng_unit(rng) * 2 - 1;
    const char *sign = u < -0.5 ? "-" : u < 0 ? "+" : "";
    switch (form) {
    case 0: snprintf(s, size, "%.17g", u * 1e3); break;
    case 1: snprintf(s, size, "%d", (int)(u * 1e6)); break;
    case 2: snprintf(s, size, "%+.3f", u * 100); break;
    case 3: snprintf(s, size, "%.6e", u * 1e-5); break;
    case 4: snprintf(s, size, "%.4E", u * 1e12); break;
    case 5: snprintf(s, size, "%s.%03d", sign, (int)(fabs(u) * 1000)); break; /* .5, +.5, -.5 */
    case 6: snprintf(s, size, "%d.", (int)(u * 1000)); break;                  /* 5. */
    case 7: snprintf(s, size, u < 0 ? "%a" : "%A", u * 3); break;              /* hexadecimal */
    case 8: snprintf(s, size, "%s", u < 0 ? "4e-320" : "-0"); break;           /* subnormal, -0 */
    case 9: /* underflow to 0; more digits than a double holds */
        snprintf(s, size, "%s", u < 0 ? "1e-400" : "0.1000000000000000055511151231257827021181583404541015625");
        break;
    case 10: snprintf(s, size, "00%.2f", fabs(u) * 10); break; /* leading zeros */
    default: snprintf(s, size, "%s", u < 0 ? "1.7976931348623157e308" : "-2.2250738585072014e-308"); break;
    }
}

/* A number appended to t, its value into *value. */
static void put_number(byte_buf *t, int forms, uint64_t *rng, double *value)
{
    char s[128];
    number_text(s, sizeof s, (int)rng_below(rng, (uint64_t)forms), rng);
    *value = strtod(s, NULL);
    buf_add(t, s, strlen(s));
}

/* A line put in the place of point (or node) `point`; the generator sets
 * its line number. */
typedef struct bad_point {
    int64_t point;
    const char *text; /* without its line end */
    size_t len;
    int64_t line;
} bad_point;

#define BAD(point, text) {(point), (text), sizeof(text) - 1, 0}

/* Puts the bad line meant for point i, if any, as line number `line`;
 * whether there was one. */
static int put_bad_line(byte_buf *t, bad_point *bad, int n_bad, int64_t i, int64_t line)
{
    for (int k = 0; k < n_bad; k++) {
        if (bad[k].point == i) {
            buf_add(t, bad[k].text, bad[k].len);
            bad[k].line = line;
            return 1;
        }
    }
    return 0;
}

/* A comment, a blank line or a line of blanks, now and then. */
static int64_t put_filler(byte_buf *t, uint64_t *rng)
{
    static const char *const fillers[] = {"# a comment, with commas, 1 2 3", "", "  \t ", "\r", "   # indented"};
    if (rng_below(rng, 6) != 0)
        return 0;
    const char *f = fillers[rng_below(rng, sizeof fillers / sizeof fillers[0])];
    buf_add(t, f, strlen(f));
    end_line(t, rng);
    return 1;
}

/* A generated text file: 2 or 3 numbers a point; a byte-order mark, a
 * header line and a final newline, or not. */
typedef struct text_shape {
    int dim, bom, header, final_newline;
} text_shape;

/* A text file of BIG_POINTS points of every form, blanks, commas or both
 * between them, comments and blank lines between them; their values into
 * want (BIG_POINTS * dim) where not NULL. */
static void make_text(byte_buf *t, const text_shape *s, uint64_t seed, double *want, bad_point *bad, int n_bad)
{
    static const char *const gaps[] = {" ", "\t", ",", " , ", ",  ", "   "};
    uint64_t rng = seed;
    int64_t line = 0;
    if (s->bom)
        buf_add(t, "\xEF\xBB\xBF", 3);
    if (s->header) {
        buf_printf(t, "# made by test_io\n%s", s->dim == 3 ? "x, y, z  # columns" : "\tlon\tlat ");
        end_line(t, &rng);
        line += 2;
    }
    for (int64_t i = 0; i < BIG_POINTS; i++) {
        line += put_filler(t, &rng);
        line++;
        if (!put_bad_line(t, bad, n_bad, i, line)) {
            if (rng_below(&rng, 5) == 0)
                buf_add(t, "  ", 2);
            for (int d = 0; d < s->dim; d++) {
                double v;
                if (d > 0) {
                    const char *gap = gaps[rng_below(&rng, sizeof gaps / sizeof gaps[0])];
                    buf_add(t, gap, strlen(gap));
                }
                put_number(t, NUMBER_FORMS, &rng, &v);
                if (want)
                    want[i * s->dim + d] = v;
            }
            if (rng_below(&rng, 7) == 0)
                buf_add(t, " # a note", 9);
        }
        if (i + 1 < BIG_POINTS || s->final_newline)
            end_line(t, &rng);
    }
}

/* One read of a point file. */
typedef struct read_outcome {
    char name[1024]; /* the path, as messages name it */
    int rc;
    gridemst_error err;
    gemst_pointset ps;
    warnings warned;
} read_outcome;

static void read_into(read_outcome *o, gemst_format fmt)
{
    o->rc = gemst_read_points(o->name, fmt, &o->ps, catch_warning, &o->warned, &o->err);
}

/* Through a pipe that a child process fills: the line-by-line path. */
static void read_piped(const byte_buf *t, gemst_format fmt, read_outcome *o)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(fds[0]);
        for (size_t done = 0; done < t->len;) {
            ssize_t k = write(fds[1], t->b + done, t->len - done);
            if (k <= 0)
                _exit(1); /* the reader stopped at an error and closed the pipe */
            done += (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    snprintf(o->name, sizeof o->name, "/proc/self/fd/%d", fds[0]);
    read_into(o, fmt);
    close(fds[0]);
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
}

/* The message after the name it starts with. */
static const char *after_name(const char *message, const char *name)
{
    const size_t k = strlen(name);
    ck_assert_msg(strncmp(message, name, k) == 0, "'%s' does not start with '%s'", message, name);
    return message + k;
}

static void expect_same_points(const gemst_pointset *a, const gemst_pointset *b)
{
    ck_assert_int_eq(a->n, b->n);
    ck_assert_int_eq(a->dim, b->dim);
    ck_assert_int_eq(a->dtype, b->dtype);
    ck_assert_int_eq(a->header_line, b->header_line);
    ck_assert_int_eq(memcmp(a->header, b->header, sizeof a->header), 0);
    ck_assert_int_eq(memcmp(a->coords, b->coords, (size_t)(a->n * a->dim) * sizeof(double)), 0);
    ck_assert_int_eq(a->is_tsplib, b->is_tsplib);
    ck_assert_int_eq(memcmp(a->tsp.name, b->tsp.name, sizeof a->tsp.name), 0);
    ck_assert_int_eq(memcmp(a->tsp.edge_weight_type, b->tsp.edge_weight_type, sizeof a->tsp.edge_weight_type), 0);
    ck_assert_int_eq(a->tsp.orig_dim, b->tsp.orig_dim);
    if (a->is_tsplib)
        ck_assert_int_eq(memcmp(a->tsp.orig, b->tsp.orig, (size_t)(a->n * a->tsp.orig_dim) * sizeof(double)), 0);
}

static void set_threads(int threads)
{
#ifdef _OPENMP
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
}

static int max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Reads t from a named file on `threads` threads and through a pipe, and
 * expects the same outcome; the file's is left in *mapped. */
static void read_both_ways(const byte_buf *t, gemst_format fmt, int threads, read_outcome *mapped)
{
    const int threads_before = max_threads();
    read_outcome piped = {0};
    memset(mapped, 0, sizeof *mapped);
    snprintf(mapped->name, sizeof mapped->name, "%s", write_tmp(fmt == GEMST_FORMAT_TSPLIB ? "big.tsp" : "big.txt",
                                                                t->b, t->len));
    set_threads(threads);
    read_into(mapped, fmt);
    set_threads(threads_before);
    read_piped(t, fmt, &piped);
    ck_assert_int_eq(mapped->rc, piped.rc);
    ck_assert_int_eq(mapped->warned.count, piped.warned.count);
    if (mapped->warned.count > 0)
        ck_assert_str_eq(after_name(mapped->warned.last, mapped->name), after_name(piped.warned.last, piped.name));
    if (mapped->rc != GRIDEMST_OK) {
        ck_assert_int_eq(mapped->err.code, piped.err.code);
        ck_assert_str_eq(after_name(mapped->err.message, mapped->name), after_name(piped.err.message, piped.name));
    } else {
        expect_same_points(&mapped->ps, &piped.ps);
    }
    gemst_pointset_free(&piped.ps);
}

static const int big_threads[] = {2, 3, 8};
enum { BIG_THREAD_COUNTS = sizeof big_threads / sizeof big_threads[0] };

START_TEST(mapped_text_points)
{
    /* byte-order mark, header, final newline: each with and without, in 2D and 3D */
    static const text_shape shapes[] = {{3, 1, 1, 1}, {2, 1, 0, 0}, {3, 0, 0, 0}, {2, 0, 1, 1}, {3, 1, 0, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int dim = shapes[s].dim;
        double *want = xcalloc((size_t)BIG_POINTS * dim, sizeof *want);
        byte_buf t = {0};
        make_text(&t, &shapes[s], 100 + s, want, NULL, 0);
        for (int k = 0; k < BIG_THREAD_COUNTS; k++) {
            read_outcome o;
            read_both_ways(&t, GEMST_FORMAT_TEXT, big_threads[k], &o);
            ck_assert_msg(o.rc == GRIDEMST_OK, "shape %zu, %d threads: %s", s, big_threads[k], o.err.message);
            ck_assert_int_eq(o.ps.header_line, shapes[s].header ? 2 : 0);
            ck_assert_int_eq(o.ps.n, BIG_POINTS);
            ck_assert_int_eq(memcmp(o.ps.coords, want, (size_t)BIG_POINTS * dim * sizeof *want), 0);
            gemst_pointset_free(&o.ps);
        }
        free(t.b);
        free(want);
    }
}
END_TEST

/* t, read both ways at each thread count: the same message, which names
 * the line of `named` (t is freed). */
static void big_file_fails(byte_buf *t, gemst_format fmt, const bad_point *named, const char *problem)
{
    for (int k = 0; k < BIG_THREAD_COUNTS; k++) {
        read_outcome o;
        read_both_ways(t, fmt, big_threads[k], &o);
        char want[1200];
        snprintf(want, sizeof want, "%s:%lld: %s", o.name, (long long)named->line, problem);
        ck_assert_int_eq(o.rc, GRIDEMST_ERR_INPUT);
        ck_assert_str_eq(o.err.message, want);
    }
    free(t->b);
}

/* A 2D text file with bad lines put in, failing on bad[named]'s. */
static void big_text_fails(bad_point *bad, int n_bad, int named, const char *problem)
{
    static const text_shape shape = {2, 0, 1, 1};
    byte_buf t = {0};
    make_text(&t, &shape, 7, NULL, bad, n_bad);
    big_file_fails(&t, GEMST_FORMAT_TEXT, &bad[named], problem);
}

START_TEST(mapped_text_errors)
{
    const int64_t n = BIG_POINTS;
    const char *not_a_number = "field 2 is not a number: '4x'";
    const char *nul = "NUL byte in a text line (is this a binary file?)";
    /* where the bad line lies: the first range, a middle one, the last line */
    bad_point first[] = {BAD(n / 20, "3 4x")}, middle[] = {BAD(n * 45 / 100, "3 4x")}, last[] = {BAD(n - 1, "3 4x")};
    big_text_fails(first, 1, 0, not_a_number);
    big_text_fails(middle, 1, 0, not_a_number);
    big_text_fails(last, 1, 0, not_a_number);
    /* two bad lines in different ranges, either kind first: the first is named */
    bad_point two[] = {BAD(n * 3 / 10, "3 4x"), BAD(n * 8 / 10, "1 2\0 3")};
    big_text_fails(two, 2, 0, not_a_number);
    bad_point two_nul_first[] = {BAD(n * 3 / 10, "1 2\0 3"), BAD(n * 8 / 10, "3 4x")};
    big_text_fails(two_nul_first, 2, 0, nul);
    /* and in one range */
    bad_point near[] = {BAD(n * 40 / 100, "3 4x"), BAD(n * 40 / 100 + 3, "1 2\0 3")};
    big_text_fails(near, 2, 0, not_a_number);
    bad_point near_nul_first[] = {BAD(n * 40 / 100, "1 2\0 3"), BAD(n * 40 / 100 + 3, "3 4x")};
    big_text_fails(near_nul_first, 2, 0, nul);
    /* each kind of problem, in a middle range */
    bad_point fields[] = {BAD(n / 2, "1 2 3")}, empty[] = {BAD(n / 2, "1,,2")}, lone_nul[] = {BAD(n / 2, "\0")};
    big_text_fails(fields, 1, 0, "expected 2 numbers, found 3");
    big_text_fails(empty, 1, 0, "empty field (a comma at the start or end of the line, or two commas in a row)");
    big_text_fails(lone_nul, 1, 0, nul);
    bad_point range[] = {BAD(n / 2, "1e999 0")}, nonfinite[] = {BAD(n / 2, "0 nan")};
    big_text_fails(range, 1, 0, "field 1 is out of range: '1e999'");
    big_text_fails(nonfinite, 1, 0, "field 2 is not a finite number: 'nan'");
    /* the first point's three numbers fix the dimension: every later line is wrong, the second named */
    bad_point three[] = {BAD(0, "1 2 3"), BAD(1, "5 6")};
    big_text_fails(three, 2, 1, "expected 3 numbers, found 2");
}
END_TEST

typedef struct tsp_shape {
    const char *type; /* EDGE_WEIGHT_TYPE */
    int dim;          /* coordinates per node */
    int nodes;
    const char *end;  /* what follows the nodes: "EOF", another section, or nothing */
    int junk;         /* lines after the end, which are not read */
    int final_newline;
} tsp_shape;

/* A TSPLIB file of nodes whose ids are shuffled, with gaps, some
 * negative; each node's coordinates into want at the rank of its id. */
static void make_tsplib(byte_buf *t, const tsp_shape *s, uint64_t seed, double *want, bad_point *bad, int n_bad)
{
    uint64_t rng = seed;
    int64_t *rank = xcalloc((size_t)s->nodes, sizeof *rank);
    for (int64_t i = 0; i < s->nodes; i++)
        rank[i] = i;
    for (int64_t i = s->nodes - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&rng, (uint64_t)i + 1), r = rank[i];
        rank[i] = rank[j];
        rank[j] = r;
    }
    buf_printf(t, "NAME : big\r\nCOMMENT : made by test_io: ids shuffled\nTYPE : TSP\nDIMENSION : %d\n"
                  "EDGE_WEIGHT_TYPE : %s\n\nNODE_COORD_SECTION\n",
               s->nodes, s->type);
    int64_t line = 7;
    /* GEO takes angles: no number of the last form */
    const int forms = strcmp(s->type, "GEO") == 0 ? NUMBER_FORMS - 1 : NUMBER_FORMS;
    for (int64_t i = 0; i < s->nodes; i++) {
        if (rng_below(&rng, 10) == 0) {
            buf_add(t, " \t", 2);
            end_line(t, &rng);
            line++;
        }
        line++;
        if (!put_bad_line(t, bad, n_bad, i, line)) {
            buf_printf(t, "%s%lld", rng_below(&rng, 3) == 0 ? "   " : "", (long long)(3 * rank[i] - 7));
            for (int d = 0; d < s->dim; d++) {
                double v;
                const char *gap = rng_below(&rng, 2) ? " " : " \t ";
                buf_add(t, gap, strlen(gap));
                put_number(t, forms, &rng, &v);
                if (want)
                    want[rank[i] * s->dim + d] = v;
            }
        }
        if (i + 1 < s->nodes || *s->end || s->final_newline)
            end_line(t, &rng);
    }
    if (*s->end)
        buf_printf(t, "%s%s", s->end, s->junk || s->final_newline ? "\n" : "");
    static const char junk[] = "not a node line, with 4x fields\n", junk_nul[] = "1 2\0 3\n";
    for (int k = 0; k < s->junk; k++)
        buf_add(t, k % 1000 == 999 ? junk_nul : junk, k % 1000 == 999 ? sizeof junk_nul - 1 : sizeof junk - 1);
    free(rank);
}

START_TEST(mapped_tsplib_nodes)
{
    static const tsp_shape shapes[] = {
        {"EUC_2D", 2, BIG_POINTS, "EOF", 0, 1},
        {"EUC_3D", 3, BIG_POINTS, "", 0, 0},
        {"GEO", 2, BIG_POINTS, "EOF", 0, 0},
        {"MAN_2D", 2, BIG_POINTS, "EOF", 0, 1},             /* a warning, the same both ways */
        {"CEIL_2D", 2, BIG_POINTS / 2, "EOF", 30000, 1},     /* about half the file after the end */
        {"ATT", 2, BIG_POINTS / 2, "DISPLAY_DATA_SECTION", 30000, 0},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int dim = shapes[s].dim;
        double *want = xcalloc((size_t)shapes[s].nodes * dim, sizeof *want);
        byte_buf t = {0};
        make_tsplib(&t, &shapes[s], 200 + s, want, NULL, 0);
        for (int k = 0; k < BIG_THREAD_COUNTS; k++) {
            read_outcome o;
            read_both_ways(&t, GEMST_FORMAT_TSPLIB, big_threads[k], &o);
            ck_assert_msg(o.rc == GRIDEMST_OK, "%s, %d threads: %s", shapes[s].type, big_threads[k], o.err.message);
            ck_assert_int_eq(o.ps.n, shapes[s].nodes);
            ck_assert_int_eq(o.warned.count, strcmp(shapes[s].type, "MAN_2D") == 0);
            ck_assert_int_eq(memcmp(o.ps.tsp.orig, want, (size_t)shapes[s].nodes * dim * sizeof *want), 0);
            gemst_pointset_free(&o.ps);
        }
        free(t.b);
        free(want);
    }
}
END_TEST

/* A TSPLIB file with bad lines put in, failing on bad[named]'s. */
static void big_tsplib_fails(const tsp_shape *shape, bad_point *bad, int n_bad, int named, const char *problem)
{
    byte_buf t = {0};
    make_tsplib(&t, shape, 9, NULL, bad, n_bad);
    big_file_fails(&t, GEMST_FORMAT_TSPLIB, &bad[named], problem);
}

START_TEST(mapped_tsplib_errors)
{
    const int64_t n = BIG_POINTS;
    const tsp_shape shape = {"EUC_2D", 2, BIG_POINTS, "EOF", 0, 1};
    const char *nul = "NUL byte in a text line (is this a binary file?)";
    bad_point first[] = {BAD(n / 20, "1.5 0 0")}, middle[] = {BAD(n * 45 / 100, "1.5 0 0")},
              last[] = {BAD(n - 1, "1.5 0 0")};
    big_tsplib_fails(&shape, first, 1, 0, "node id is not an integer: '1.5'");
    big_tsplib_fails(&shape, middle, 1, 0, "node id is not an integer: '1.5'");
    big_tsplib_fails(&shape, last, 1, 0, "node id is not an integer: '1.5'");
    bad_point two[] = {BAD(n * 3 / 10, "8 1 x"), BAD(n * 8 / 10, "9 1\0 1")};
    big_tsplib_fails(&shape, two, 2, 0, "field 3 is not a number: 'x'");
    bad_point two_nul_first[] = {BAD(n * 3 / 10, "9 1\0 1"), BAD(n * 8 / 10, "8 1 x")};
    big_tsplib_fails(&shape, two_nul_first, 2, 0, nul);
    bad_point fields[] = {BAD(n / 2, "7 1")}, nonfinite[] = {BAD(n / 2, "7 1 inf")};
    big_tsplib_fails(&shape, fields, 1, 0, "expected a node id and 2 coordinates, found 2 fields");
    big_tsplib_fails(&shape, nonfinite, 1, 0, "field 3 is not a finite number: 'inf'");
    /* an id no other node has, twice, far apart: the second is named */
    bad_point twice[] = {BAD(n / 5, "1000000 0 0"), BAD(n * 4 / 5, "1000000 1 1")};
    byte_buf lines = {0};
    make_tsplib(&lines, &shape, 9, NULL, twice, 2); /* for the first one's line, in the message */
    free(lines.b);
    char dup[128];
    snprintf(dup, sizeof dup, "duplicate node id 1000000 (first on line %lld)", (long long)twice[0].line);
    big_tsplib_fails(&shape, twice, 2, 1, dup);
    /* a bad line before the end counts, none after it: junk fills the later ranges */
    const tsp_shape short_shape = {"EUC_2D", 2, BIG_POINTS / 2, "EOF", 30000, 1};
    bad_point before_end[] = {BAD(n / 4, "1 2 3 4")};
    big_tsplib_fails(&short_shape, before_end, 1, 0, "expected a node id and 2 coordinates, found 4 fields");
    /* GEO angles beyond about 5.7e307 degrees */
    const tsp_shape geo = {"GEO", 2, BIG_POINTS, "EOF", 0, 1};
    bad_point far[] = {BAD(n * 6 / 10, "5 1e308 0")};
    big_tsplib_fails(&geo, far, 1, 0, "GEO coordinate out of range: '1e308'");
}
END_TEST

/* DIMENSION is checked against the nodes read before the end, both ways. */
START_TEST(mapped_tsplib_dimension)
{
    const tsp_shape shape = {"EUC_2D", 2, BIG_POINTS, "EOF", 0, 1};
    bad_point gone[] = {BAD(BIG_POINTS / 2, "")};
    byte_buf t = {0};
    make_tsplib(&t, &shape, 11, NULL, gone, 1);
    for (int k = 0; k < BIG_THREAD_COUNTS; k++) {
        read_outcome o;
        read_both_ways(&t, GEMST_FORMAT_TSPLIB, big_threads[k], &o);
        char want[1200];
        snprintf(want, sizeof want, "%s:4: DIMENSION says %d but NODE_COORD_SECTION has %d nodes", o.name,
                 BIG_POINTS, BIG_POINTS - 1);
        ck_assert_str_eq(o.err.message, want);
    }
    free(t.b);
}
END_TEST

/* ----------------------------------------------------------------- formats */

START_TEST(format_names)
{
    struct {
        const char *name;
        gemst_format f;
    } names[] = {{"tsplib", GEMST_FORMAT_TSPLIB}, {"tsp", GEMST_FORMAT_TSPLIB}, {"text", GEMST_FORMAT_TEXT},
                 {"csv", GEMST_FORMAT_TEXT},      {"txt", GEMST_FORMAT_TEXT},   {"binary", GEMST_FORMAT_BINARY},
                 {"bin", GEMST_FORMAT_BINARY},    {"auto", GEMST_FORMAT_AUTO}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        gemst_format f = (gemst_format)-1;
        ck_assert_int_eq(gemst_parse_format(names[i].name, &f), 0);
        ck_assert_int_eq(f, names[i].f);
    }
    gemst_format f = GEMST_FORMAT_BINARY;
    ck_assert_int_eq(gemst_parse_format("TSP", &f), -1);
    ck_assert_int_eq(gemst_parse_format("", &f), -1);
    ck_assert_int_eq(gemst_parse_format(NULL, &f), -1);
    ck_assert_int_eq(f, GEMST_FORMAT_BINARY);
    ck_assert_str_eq(gemst_format_name(GEMST_FORMAT_TSPLIB), "tsplib");
    ck_assert_str_eq(gemst_format_name(GEMST_FORMAT_TEXT), "text");
    ck_assert_str_eq(gemst_format_name(GEMST_FORMAT_BINARY), "binary");
    ck_assert_str_eq(gemst_format_name(GEMST_FORMAT_AUTO), "auto");
    ck_assert_str_eq(gemst_format_name((gemst_format)42), "unknown");
}
END_TEST

START_TEST(format_from_path)
{
    ck_assert_int_eq(gemst_format_from_path("a/b/berlin52.tsp"), GEMST_FORMAT_TSPLIB);
    ck_assert_int_eq(gemst_format_from_path("X.TSP"), GEMST_FORMAT_TSPLIB);
    ck_assert_int_eq(gemst_format_from_path("points.bin"), GEMST_FORMAT_BINARY);
    ck_assert_int_eq(gemst_format_from_path("points.Bin"), GEMST_FORMAT_BINARY);
    ck_assert_int_eq(gemst_format_from_path("points.csv"), GEMST_FORMAT_TEXT);
    ck_assert_int_eq(gemst_format_from_path("points"), GEMST_FORMAT_TEXT);
    ck_assert_int_eq(gemst_format_from_path("dir.tsp/points"), GEMST_FORMAT_TEXT);
    ck_assert_int_eq(gemst_format_from_path("points.tsp.gz"), GEMST_FORMAT_TEXT);
    ck_assert_int_eq(gemst_format_from_path("-"), GEMST_FORMAT_TEXT);
}
END_TEST

START_TEST(format_dispatch)
{
    /* AUTO follows the extension; an explicit format overrides it */
    gemst_pointset ps;
    read_ok(write_tmp("pts.bin", "\x01\0\0\0\x02\0\0\0\0\0\x80\x3f\0\0\0\x40", 16), GEMST_FORMAT_AUTO, &ps);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT32);
    gemst_pointset_free(&ps);
    read_ok(write_tmp_str("pts.bin.txt", "1 2\n"), GEMST_FORMAT_AUTO, &ps);
    ck_assert_int_eq(ps.dtype, GRIDEMST_FLOAT64);
    gemst_pointset_free(&ps);
    read_ok(write_tmp_str("pts.tsp", "1 2\n"), GEMST_FORMAT_TEXT, &ps);
    ck_assert_int_eq(ps.is_tsplib, 0);
    gemst_pointset_free(&ps);
    gridemst_error err;
    ck_assert_int_eq(gemst_read_points("x", (gemst_format)9, &ps, NULL, NULL, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    /* freeing twice and freeing a zeroed set are safe */
    gemst_pointset_free(&ps);
    gemst_pointset_free(NULL);
}
END_TEST

/* ----------------------------------------------------------------- edges CSV */

static const gridemst_edge csv_edges[] = {{0, 1, 0.5}, {1, 2, 0.1}, {2, 5, 2.0 / 3.0}, {3, 4, 1e-300}, {4, 6, 3.0}};
/* %.17g by hand: 0.1 is 0.1000000000000000055511..., 2/3 is 0.6666666666666666296... */
static const char csv_want[] = "0,1,0.5\n1,2,0.10000000000000001\n2,5,0.66666666666666663\n3,4,1e-300\n4,6,3\n";

static int read_stdin(const char *content, gemst_format fmt, gemst_pointset *ps, gridemst_error *err)
{
    return read_stdin_bytes(content, strlen(content), fmt, ps, err);
}

START_TEST(standard_input)
{
    const double want[] = {0, 0, 3, 4};
    const char *tsp = "NAME : two\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\nEOF\n";
    gemst_pointset ps;
    gridemst_error err = {0};
    /* auto: TSPLIB from its first keyword line (after blank lines and a byte-order mark), else text */
    const char *as_tsplib[] = {tsp, "\n  \n" "COMMENT: x\nTYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\n"
                                      "NODE_COORD_SECTION\n1 0 0\n2 3 4\n",
                               "\xEF\xBB\xBF" "DIMENSION : 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n"};
    const char *as_text[] = {"0 0\n3 4\n", "\n# NAME: not a keyword in a comment\n0 0\n3 4\n", "x:y\n0,0\n3,4\n",
                             "\xEF\xBB\xBF" "0 0\n3 4\n"};
    for (size_t i = 0; i < sizeof as_tsplib / sizeof as_tsplib[0] + sizeof as_text / sizeof as_text[0]; i++) {
        const int tsplib = i < sizeof as_tsplib / sizeof as_tsplib[0];
        const char *content = tsplib ? as_tsplib[i] : as_text[i - sizeof as_tsplib / sizeof as_tsplib[0]];
        ck_assert_int_eq(read_stdin(content, GEMST_FORMAT_AUTO, &ps, &err), GRIDEMST_OK);
        ck_assert_int_eq(ps.is_tsplib, tsplib);
        check_points(&ps, 2, 2, want);
        gemst_pointset_free(&ps);
    }
    ck_assert_int_eq(read_stdin("", GEMST_FORMAT_AUTO, &ps, &err), GRIDEMST_OK);
    ck_assert_int_eq(ps.n, 0);
    gemst_pointset_free(&ps);
    /* --format wins over the content; messages name standard input */
    ck_assert_int_eq(read_stdin(tsp, GEMST_FORMAT_TEXT, &ps, &err), GRIDEMST_ERR_INPUT);
    ck_assert_str_eq(err.message, "(standard input):2: field 1 is not a number: 'DIMENSION:'");
    ck_assert_int_eq(read_stdin("0 0\n3 x\n", GEMST_FORMAT_AUTO, &ps, &err), GRIDEMST_ERR_INPUT);
    ck_assert_str_eq(err.message, "(standard input):2: field 2 is not a number: 'x'");
    ck_assert_int_eq(read_stdin("0 0\n", GEMST_FORMAT_TSPLIB, &ps, &err), GRIDEMST_ERR_INPUT);
    ck_assert_str_eq(err.message, "(standard input):1: not a 'KEY : value' line: '0 0'");
    ck_assert_int_eq(read_stdin_bytes("\x02\0\0\0\x02\0\0", 7, GEMST_FORMAT_BINARY, &ps, &err), GRIDEMST_ERR_INPUT);
    ck_assert_str_eq(err.message, "(standard input): no header: the file has 7 bytes, the header needs 8");
}
END_TEST

START_TEST(csv_bytes)
{
    gridemst_error err;
    const char *path = tmp_path("edges.csv");
    ck_assert_int_eq(gemst_write_edges_csv(path, csv_edges, 5, &err), GRIDEMST_OK);
    size_t len;
    char *got = read_all(path, &len);
    ck_assert_str_eq(got, csv_want);
    /* every weight reads back as the same double */
    char *line = got;
    for (int i = 0; i < 5; i++) {
        char *w = strrchr(strtok(i ? NULL : line, "\n"), ',') + 1;
        ck_assert(strtod(w, NULL) == csv_edges[i].w);
    }
    free(got);

    ck_assert_int_eq(gemst_write_edges_csv(path, NULL, 0, &err), GRIDEMST_OK);
    got = read_all(path, &len);
    ck_assert_uint_eq(len, 0);
    free(got);
}
END_TEST

START_TEST(csv_stdout)
{
    /* "-" is standard output: catch it in a file */
    const char *path = tmp_path("stdout.csv");
    gridemst_error err;
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    int rc = gemst_write_edges_csv("-", csv_edges, 5, &err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_int_eq(rc, GRIDEMST_OK);
    size_t len;
    char *got = read_all(path, &len);
    ck_assert_str_eq(got, csv_want);
    free(got);
}
END_TEST

START_TEST(csv_errors)
{
    gridemst_error err;
    char want[1200];
    const char *missing = tmp_path("no-such-dir/edges.csv");
    ck_assert_int_eq(gemst_write_edges_csv(missing, csv_edges, 5, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s: cannot write: No such file or directory", missing);
    ck_assert_str_eq(err.message, want);

    ck_assert_int_eq(gemst_write_edges_csv(tmpdir, csv_edges, 5, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "%s: cannot write: Is a directory", tmpdir);
    ck_assert_str_eq(err.message, want);

    /* a full disk shows when the buffer is flushed, at the latest at fclose */
    if (access("/dev/full", W_OK) == 0) {
        ck_assert_int_eq(gemst_write_edges_csv("/dev/full", csv_edges, 5, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
        ck_assert_str_eq(err.message, "/dev/full: cannot write: No space left on device");
    }
    ck_assert_int_eq(gemst_write_edges_csv(tmp_path("neg.csv"), csv_edges, -1, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ----------------------------------------------------------------- main */

static Suite *io_suite(void)
{
    Suite *s = suite_create("io");
    TCase *text = tcase_create("text");
    tcase_add_test(text, text_quirks);
    tcase_add_test(text, text_extremes);
    tcase_add_test(text, text_crlf_3d);
    tcase_add_test(text, text_empty_sets);
    tcase_add_test(text, text_one_point);
    tcase_add_test(text, text_header_rules);
    tcase_add_test(text, text_long_line);
    tcase_add_test(text, text_bad_columns);
    tcase_add_test(text, text_bad_tokens);
    tcase_add_test(text, text_nonfinite);
    tcase_add_test(text, text_empty_fields);
    tcase_add_test(text, text_nul_byte);
    tcase_add_test(text, text_byte_order_mark);
    tcase_add_test(text, text_typo_on_the_first_line);
    tcase_add_test(text, text_header_reported);
    tcase_add_test(text, open_errors);
    suite_add_tcase(s, text);

    TCase *binary = tcase_create("binary");
    tcase_add_test(binary, binary_hand_made);
    tcase_add_test(binary, binary_round_trip);
    tcase_add_test(binary, binary_zero_points);
    tcase_add_test(binary, binary_bad_headers);
    tcase_add_test(binary, binary_bad_sizes);
    tcase_add_test(binary, binary_header_codec);
    tcase_add_test(binary, binary_extended_headers);
    tcase_add_test(binary, binary_nonfinite);
    tcase_add_test(binary, binary_mapped_or_read);
    tcase_add_test(binary, binary_write_errors);
    suite_add_tcase(s, binary);

    TCase *tsplib = tcase_create("tsplib");
    tcase_add_test(tsplib, tsplib_quirks);
    tcase_add_test(tsplib, tsplib_unordered_ids);
    tcase_add_test(tsplib, tsplib_line_forms);
    tcase_add_test(tsplib, tsplib_other_sections);
    tcase_add_test(tsplib, tsplib_long_name);
    tcase_add_test(tsplib, tsplib_duplicate_ids);
    tcase_add_test(tsplib, tsplib_wrong_dimension);
    tcase_add_test(tsplib, tsplib_weight_types);
    tcase_add_test(tsplib, tsplib_man_2d_warns);
    tcase_add_test(tsplib, tsplib_geo);
    tcase_add_test(tsplib, tsplib_bad_nodes);
    tcase_add_test(tsplib, tsplib_geo_out_of_range);
    tcase_add_test(tsplib, tsplib_bad_files);
    tcase_add_test(tsplib, tsplib_byte_order_mark);
    suite_add_tcase(s, tsplib);

    TCase *mapped = tcase_create("mapped");
    tcase_set_timeout(mapped, 120); /* 1 to 2 MB files, read 6 times each; slower under sanitizers */
    tcase_add_test(mapped, mapped_text_points);
    tcase_add_test(mapped, mapped_text_errors);
    tcase_add_test(mapped, mapped_tsplib_nodes);
    tcase_add_test(mapped, mapped_tsplib_errors);
    tcase_add_test(mapped, mapped_tsplib_dimension);
    suite_add_tcase(s, mapped);

    TCase *format = tcase_create("format");
    tcase_add_test(format, format_names);
    tcase_add_test(format, format_from_path);
    tcase_add_test(format, format_dispatch);
    tcase_add_test(format, standard_input);
    suite_add_tcase(s, format);

    TCase *csv = tcase_create("csv");
    tcase_add_test(csv, csv_bytes);
    tcase_add_test(csv, csv_stdout);
    tcase_add_test(csv, csv_errors);
    suite_add_tcase(s, csv);
    return s;
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gemst-io-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 99; /* a hard error to automake */
    }
    int rc = run_suite(io_suite());
    remove_tmpdir();
    return rc;
}
