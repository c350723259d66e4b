/*
 * A partitioned solve's gaps computed on a device (parts/device_gaps.h)
 * against the host's (parts/gaps.c): every array the contraction's later
 * steps read (working coordinates, gaps, the points by key and by gap,
 * each point's cell, the cells' starts, keys and boxes), byte for byte,
 * for every part of sets that aim at the parts' boundaries (uniform and
 * clustered points, thin shells, duplicates where the first splits cross,
 * lattices, points on the splits' planes, sets with empty parts), in 2D
 * and 3D, in float and double precision, over 2, 3 and 7 parts.  The
 * parts come from the CPU's partition; each part's coordinates are copied
 * to the device, as the partition on several devices leaves them there.
 * Every way of copying the arrays to host memory (GRIDEMST_HOST_COPY,
 * cuda/cuda_download.cuh) gives the same bytes, over arrays of several
 * pinned chunks; an unknown way is refused with a message naming it.
 *
 * One GPU is enough (no exchange between devices); skipped (exit 77)
 * without one.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testutil.h"
#include "parts_sets.h"
#include "parts/parts.h"

static const int part_counts[] = {2, 3, 7};
#define N_PART_COUNTS (int)(sizeof part_counts / sizeof part_counts[0])

static gridemst_context *ctx;

/* Part p's gaps (from `from`'s points; on ctx's device where device_coords
 * is not NULL) into *out. */
static void part_gaps(const gemst_parts_ctx *c, int p, const gemst_part *from, const void *device_coords,
                      gemst_part *out, const char *what)
{
    memset(out, 0, sizeof *out);
    out->n = from->n;
    out->coords = from->coords;
    uint64_t *key = xcalloc(2 * (size_t)from->n, sizeof *key);
    uint32_t *tmp = xcalloc((size_t)from->n, sizeof *tmp);
    gridemst_error err;
    int rc = gemst_part_gaps(c, p, out, device_coords ? ctx : NULL, device_coords, key, tmp, NULL, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s, part %d on the %s: %s", what, p, device_coords ? "device" : "host",
            err.message);
    free(key);
    free(tmp);
}

/* The first of `count` records of `size` bytes where a and b differ, or -1. */
static int64_t first_difference(const void *a, const void *b, size_t size, int64_t count)
{
    for (int64_t k = 0; k < count; k++)
        if (memcmp((const char *)a + size * (size_t)k, (const char *)b + size * (size_t)k, size) != 0)
            return k;
    return -1;
}

#define SAME(field, count)                                                                                        \
    do {                                                                                                          \
        int64_t at_ = first_difference(host->field, dev->field, sizeof *host->field, (count));                 \
        REQUIRE(at_ < 0, "%s, part %d: %s differs at %lld of %lld", what, p, #field, (long long)at_,             \
                (long long)(count));                                                                              \
    } while (0)

static void check_same(const gemst_part *host, const gemst_part *dev, int p, const char *what)
{
    const int64_t n = host->n, cells = host->n_cells;
    REQUIRE(dev->n_cells == cells && dev->cell_level == host->cell_level,
            "%s, part %d: %lld cells of level %d on the device, %lld of level %d on the host", what, p,
            (long long)dev->n_cells, dev->cell_level, (long long)cells, host->cell_level);
    SAME(w, 3 * n);
    SAME(gap, n);
    SAME(by_key, n);
    SAME(by_gap, n);
    SAME(cell_of, n);
    SAME(cell_start, cells + 1);
    SAME(cell_key, cells);
    SAME(cell_box, cells);
}

/* ds split `parts` ways in precision prec, its parts into part[] (room
 * for them), with the problem they refer to. */
static void split_set(const dataset *ds, int parts, gridemst_precision prec, gemst_problem *pb, gemst_parts_ctx *c,
                      gemst_part *part, const char *what)
{
    memset(pb, 0, sizeof *pb);
    pb->coords = ds->coords;
    pb->dtype = ds->dtype;
    pb->n = ds->n;
    pb->dim = ds->dim;
    gridemst_options_init(&pb->opt);
    pb->opt.partitions = parts;
    pb->opt.precision = prec;
    gemst_parts_ctx_init(c, pb);
    gridemst_partition_stats ps;
    memset(&ps, 0, sizeof ps);
    gridemst_error err;
    REQUIRE(gemst_parts_frame(c, &err) == GRIDEMST_OK, "%s: frame: %s", what, err.message);
    REQUIRE(gemst_parts_split(c, part, &ps, &err) == GRIDEMST_OK, "%s: split: %s", what, err.message);
}

/* Part p's coordinates copied to the device. */
static void *copy_to_device(const dataset *ds, const gemst_part *part)
{
    const size_t bytes = (size_t)part->n * ds->dim * (ds->dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
    void *to = NULL;
    CUDA_OK(cudaMalloc(&to, bytes));
    CUDA_OK(cudaMemcpy(to, part->coords, bytes, cudaMemcpyHostToDevice));
    return to;
}

/* Every part of ds split `parts` ways, in precision prec. */
static void check_set(const dataset *ds, int parts, gridemst_precision prec)
{
    char what[160];
    snprintf(what, sizeof what, "%s, %lld points, %d parts, %s", ds->name, (long long)ds->n, parts,
             prec == GRIDEMST_PRECISION_DOUBLE ? "double" : "float");
    gemst_problem pb;
    gemst_parts_ctx c;
    gemst_part *part = xcalloc((size_t)parts, sizeof *part);
    split_set(ds, parts, prec, &pb, &c, part, what);
    for (int p = 0; p < parts; p++) {
        if (part[p].n == 0) /* an empty part has no gaps (its contraction ends at once) */
            continue;
        void *on_device = copy_to_device(ds, &part[p]);
        gemst_part host, dev;
        part_gaps(&c, p, &part[p], NULL, &host, what);
        part_gaps(&c, p, &part[p], on_device, &dev, what);
        check_same(&host, &dev, p, what);
        host.coords = dev.coords = NULL; /* part[p]'s */
        gemst_part_free(&host);
        gemst_part_free(&dev);
        CUDA_OK(cudaFree(on_device));
    }
    for (int p = 0; p < parts; p++)
        gemst_part_free(&part[p]);
    free(part);
}

/* Every set kind, in 2D and 3D, in both precisions, over every part count. */
START_TEST(test_sets)
{
    const set_kind kind = (set_kind)(_i / 4);
    const int dim = 2 + _i % 2;
    const gridemst_precision prec = _i / 2 % 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
    dataset ds = make_set(kind, dim, 0);
    for (int k = 0; k < N_PART_COUNTS; k++)
        check_set(&ds, part_counts[k], prec);
    free(ds.coords);
}
END_TEST

/* Sets large enough for many blocks of every kernel and cells of many
 * warps' worth of points (the blobs). */
START_TEST(test_large)
{
    const int dim = 2 + _i % 2;
    dataset ds = make_set(_i / 2 ? SET_BLOBS : SET_UNIFORM, dim, 400000);
    check_set(&ds, 3, _i / 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT);
    free(ds.coords);
}
END_TEST

/* Each way of copying to host memory, over parts whose arrays span
 * several pinned chunks (the working coordinates of 1.5e6 points: 36 MB,
 * three chunks of 16 MB, the last one short). */
START_TEST(test_copy_ways)
{
    static const char *ways[] = {"staged", "touched", "plain"};
    ck_assert_int_eq(setenv("GRIDEMST_HOST_COPY", ways[_i], 1), 0);
    dataset ds = make_set(SET_UNIFORM, 3, 3000000);
    check_set(&ds, 2, GRIDEMST_PRECISION_FLOAT);
    free(ds.coords);
    unsetenv("GRIDEMST_HOST_COPY"); /* the tests share this process where a GPU is present */
}
END_TEST

/* An unknown way: the gaps on the device fail, naming the variable. */
START_TEST(test_unknown_way)
{
    ck_assert_int_eq(setenv("GRIDEMST_HOST_COPY", "pinned", 1), 0);
    dataset ds = make_set(SET_UNIFORM, 3, 20000);
    gemst_problem pb;
    gemst_parts_ctx c;
    gemst_part part[2];
    memset(part, 0, sizeof part);
    split_set(&ds, 2, GRIDEMST_PRECISION_FLOAT, &pb, &c, part, "unknown way");
    void *coords = copy_to_device(&ds, &part[0]);
    gemst_part dev;
    memset(&dev, 0, sizeof dev);
    dev.n = part[0].n;
    dev.coords = part[0].coords;
    uint64_t *key = xcalloc(2 * (size_t)dev.n, sizeof *key);
    uint32_t *tmp = xcalloc((size_t)dev.n, sizeof *tmp);
    gridemst_error err;
    const int rc = gemst_part_gaps(&c, 0, &dev, ctx, coords, key, tmp, NULL, &err);
    REQUIRE(rc == GRIDEMST_ERR_INVALID_ARGUMENT && strstr(err.message, "GRIDEMST_HOST_COPY") &&
                strstr(err.message, "pinned"),
            "an unknown way gave status %d: %s", rc, rc == GRIDEMST_OK ? "" : err.message);
    free(key);
    free(tmp);
    dev.coords = NULL;
    gemst_part_free(&dev);
    CUDA_OK(cudaFree(coords));
    for (int p = 0; p < 2; p++)
        gemst_part_free(&part[p]);
    free(ds.coords);
    unsetenv("GRIDEMST_HOST_COPY");
}
END_TEST

/* Fewer points than parts, or a few more: empty parts, parts of one point,
 * all points on a grid of 3 values per axis. */
START_TEST(test_tiny)
{
    uint64_t seed = 5 + (uint64_t)_i;
    const int dim = 2 + _i % 2;
    for (int64_t n = 2; n <= 12; n++) {
        dataset ds = tiny_set(n, dim, &seed);
        for (int k = 0; k < N_PART_COUNTS; k++)
            check_set(&ds, part_counts[k], _i / 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT);
        free(ds.coords);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_parts_gaps");
    TCase *tc = tcase_create("gaps");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_sets, 0, 4 * SET_COUNT);
    tcase_add_loop_test(tc, test_large, 0, 4);
    tcase_add_loop_test(tc, test_tiny, 0, 4);
    tcase_add_loop_test(tc, test_copy_ways, 0, 3);
    tcase_add_test(tc, test_unknown_way);
    suite_add_tcase(s, tc);
    return run_suite_with_context(s, &ctx);
}
