/*
 * Steps 1 and 2 of a partitioned solve: the working frame of the whole set,
 * and the sample sort that splits the points into parts.  The input is
 * taken as P slices of consecutive ids, one per part (the part that would
 * read it).
 *
 * The parts are ranges of Morton keys of the working coordinates, so equal
 * points (equal keys) always land in one part, and the splitters are keys
 * drawn from regular samples of each slice's sorted keys.  Each part gets
 * its points in the order of their ids: the solver breaks ties between
 * equal lengths by id, and a part's own numbering must agree.
 */
#include <stdlib.h>
#include <string.h>

#include "host_array.h"
#include "parts/devices.h"
#include "parts/parts.h"
#include "cpu/radix_sort.h"

/* Regular samples each slice offers for the splitters, per part: a part
 * holds at most about 2 n / (SAMPLES P) points more than n / P (regular
 * sampling's bound: each sample stands for n / (SAMPLES P^2) points of its
 * slice), unless equal keys pile up. */
#define SAMPLES 64

/* The milliseconds since *t0, which becomes now. */
static double lap(double *t0)
{
    const double now = gemst_now_ms(), ms = now - *t0;
    *t0 = now;
    return ms;
}

/* Bytes of one point in the caller's coordinates. */
static size_t point_bytes_of(const gemst_problem *pb)
{
    return (size_t)pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
}

static void slice_of(const gemst_parts_ctx *c, int s, int64_t *first, int64_t *count)
{
    const int64_t n = c->pb->n;
    *first = n * s / c->parts;
    *count = n * (s + 1) / c->parts - *first;
}

/* Slice s's bounding box, box[6 s ..] (lo, hi): on its part's device,
 * where the slice is copied for its keys (devices.h), else on the host. */
static int slice_box(const gemst_parts_ctx *c, int s, void *boxes, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    double *box = (double *)boxes + 6 * s;
    int64_t first, m;
    slice_of(c, s, &first, &m);
    int rc = c->xchg.devices ? gemst_devices_slice_box(c->xchg.devices, s, pb->dtype, pb->dim, pb->coords, first, m,
                                                       c->threads, box, err)
                             : gemst_host_bbox((const char *)pb->coords + point_bytes_of(pb) * (size_t)first,
                                               pb->dtype, m, pb->dim, c->threads, box, box + 3, err);
    if (rc == GRIDEMST_ERR_INPUT) /* a non-finite point, named by its id in the whole set, with its coordinates */
        return gemst_host_bbox(pb->coords, pb->dtype, first + m, pb->dim, c->threads, box, box + 3, err);
    return rc;
}

int gemst_parts_frame(gemst_parts_ctx *c, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    const int P = c->parts, dim = pb->dim;
    double box[GEMST_MAX_PARTS][6];
    const void *send[GEMST_MAX_PARTS] = {0};
    int64_t count[GEMST_MAX_PARTS] = {0};
    int rc = c->xchg.devices ? gemst_parts_each_device(c, slice_box, box, err) : gemst_parts_each(c, slice_box, box, err);
    if (rc != GRIDEMST_OK)
        return rc;
    for (int s = 0; s < P; s++) {
        int64_t first, m;
        slice_of(c, s, &first, &m);
        send[s] = box[s];
        count[s] = m > 0; /* an empty slice has no box */
    }
    double *boxes;
    int64_t got;
    rc = gemst_xchg_allgather(&c->xchg, send, count, sizeof box[0], (void **)&boxes, &got, err);
    if (rc != GRIDEMST_OK)
        return rc;
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = boxes[d];
        hi[d] = boxes[3 + d];
        for (int64_t k = 1; k < got; k++) {
            lo[d] = boxes[6 * k + d] < lo[d] ? boxes[6 * k + d] : lo[d];
            hi[d] = boxes[6 * k + 3 + d] > hi[d] ? boxes[6 * k + 3 + d] : hi[d];
        }
    }
    free(boxes);
    c->space = gemst_region_space_of(dim, c->metric.in_double);
    return gemst_frame_make(dim, lo, hi, c->metric.in_double, &c->frame, err);
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* One slice's work: its points' keys, and regular samples of them. */
typedef struct {
    int64_t first, n;
    uint64_t *key;       /* each point's key, in id order */
    uint64_t *sample;
    int64_t n_sample;
} slice;

/* Slice s's place in the input, and room for its samples. */
static int slice_start(const gemst_parts_ctx *c, int s, slice *sl, gridemst_error *err)
{
    slice_of(c, s, &sl->first, &sl->n);
    sl->n_sample = sl->n < (int64_t)SAMPLES * c->parts ? sl->n : (int64_t)SAMPLES * c->parts;
    sl->sample = malloc(sizeof *sl->sample * (size_t)(sl->n_sample > 0 ? sl->n_sample : 1));
    if (!sl->sample)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    return GRIDEMST_OK;
}

static int slice_keys(const gemst_parts_ctx *c, int s, void *slices, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    slice *sl = (slice *)slices + s;
    int rc = slice_start(c, s, sl, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const int64_t m = sl->n;
    sl->key = malloc(sizeof *sl->key * (size_t)(m > 0 ? m : 1));
    uint64_t *sorted = malloc(sizeof *sorted * (size_t)(2 * m + 1));
    uint32_t *vals = calloc((size_t)(2 * m + 1), sizeof *vals);
    int ok = sl->key && sorted && vals;
    if (ok) {
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(static)
        for (int64_t i = 0; i < m; i++) {
            double w[3];
            sl->key[i] = sorted[i] = gemst_parts_point(c, pb->coords, sl->first + i, w);
        }
        ok = gemst_radix_sort(sorted, vals, (size_t)m, 64, sorted + m, vals + m, gemst_parts_threads(c, m)) == 0;
    }
    for (int64_t k = 0; ok && k < sl->n_sample; k++)
        sl->sample[k] = sorted[(2 * k + 1) * m / (2 * sl->n_sample)];
    free(sorted);
    free(vals);
    if (!ok)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the keys of %lld points",
                          (long long)m);
    return GRIDEMST_OK;
}

/* The splitters from every slice's samples (which every part gathers and
 * picks from alike): part p holds the keys from split[p - 1] up to
 * split[p] - 1 (none when they are equal: equal keys are never split). */
static int choose_ranges(gemst_parts_ctx *c, slice *sl, uint64_t *split, gridemst_error *err)
{
    const int P = c->parts;
    const void *send[GEMST_MAX_PARTS] = {0};
    int64_t count[GEMST_MAX_PARTS] = {0};
    for (int s = 0; s < P; s++) {
        send[s] = sl[s].sample;
        count[s] = sl[s].n_sample;
    }
    uint64_t *all;
    int64_t m;
    int rc = gemst_xchg_allgather(&c->xchg, send, count, sizeof *all, (void **)&all, &m, err);
    if (rc != GRIDEMST_OK)
        return rc;
    qsort(all, (size_t)m, sizeof *all, cmp_key);
    uint64_t first = 0;
    for (int p = 0; p < P - 1; p++) {
        split[p] = all[(int64_t)(p + 1) * m / P]; /* m >= 1: n >= 2 */
        c->range[p] = split[p] > first ? (gemst_key_range){first, split[p] - 1} : (gemst_key_range){1, 0};
        first = split[p];
    }
    c->range[P - 1] = (gemst_key_range){first, UINT64_MAX};
    free(all);
    return GRIDEMST_OK;
}

/* What the slices send: per slice, its points' places in it (gid.h) and
 * their coordinates in the order of their parts, and its row of counts. */
typedef struct {
    slice *sl;
    const uint64_t *split;
    int64_t *count;               /* P x P */
    uint32_t *places[GEMST_MAX_PARTS];
    char *xyz[GEMST_MAX_PARTS];
} outbox;

/* Slice s's points into its outbox, each part's in id order: a counting
 * sort by part, each thread's share of the points counted, then placed
 * after those of the threads before it. */
static int pack_slice(const gemst_parts_ctx *c, int s, void *box, gridemst_error *err)
{
    outbox *o = box;
    const gemst_problem *pb = c->pb;
    const int P = c->parts, threads = gemst_parts_threads(c, o->sl[s].n);
    const size_t point_bytes = point_bytes_of(pb);
    const slice *sl = &o->sl[s];
    const int64_t m = sl->n;
    int64_t *row = o->count + (size_t)s * P;
    int64_t *at = calloc((size_t)threads * P, sizeof *at); /* per thread and part: where its next point goes */
    uint8_t *part = malloc((size_t)(m > 0 ? m : 1));       /* each point's part (P <= 64) */
    o->places[s] = malloc(sizeof *o->places[s] * (size_t)(m > 0 ? m : 1));
    o->xyz[s] = malloc(point_bytes * (size_t)(m > 0 ? m : 1));
    if (!at || !part || !o->places[s] || !o->xyz[s]) {
        free(at);
        free(part);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points to send", (long long)m);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++)
        for (int64_t i = m * t / threads; i < m * (t + 1) / threads; i++) {
            part[i] = (uint8_t)gemst_parts_part_of(o->split, P - 1, sl->key[i]);
            at[(size_t)t * P + part[i]]++;
        }
    int64_t next = 0;
    for (int p = 0; p < P; p++)
        for (int t = 0; t < threads; t++) {
            const int64_t here = at[(size_t)t * P + p];
            at[(size_t)t * P + p] = next;
            next += here;
            row[p] += here;
        }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++)
        for (int64_t i = m * t / threads; i < m * (t + 1) / threads; i++) {
            const int64_t k = at[(size_t)t * P + part[i]]++;
            o->places[s][k] = (uint32_t)i;
            memcpy(o->xyz[s] + point_bytes * (size_t)k,
                   (const char *)pb->coords + point_bytes * (size_t)(sl->first + i), point_bytes);
        }
    free(at);
    free(part);
    return GRIDEMST_OK;
}

/* Part p's ids from the places its points had in their slices (freed). */
static int ids_from_places(const gemst_parts_ctx *c, const slice *sl, const int64_t *count, int p, uint32_t *place,
                           gemst_part *part, gridemst_error *err)
{
    int64_t first[GEMST_MAX_PARTS];
    for (int s = 0; s < c->parts; s++)
        first[s] = sl[s].first;
    gemst_id_runs runs;
    gemst_id_runs_make(&runs, count, c->parts, p, first);
    part->id = gemst_host_array(sizeof *part->id * (size_t)(part->n > 0 ? part->n : 1));
    if (part->id)
#pragma omp parallel for num_threads(gemst_parts_threads(c, part->n)) schedule(static)
        for (int64_t i = 0; i < part->n; i++)
            part->id[i] = gemst_id_of(&runs, i, place[i]);
    free(place);
    return part->id ? GRIDEMST_OK
                    : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the ids of %lld points",
                                 (long long)part->n);
}

/* Each slice's points to their parts, ids and coordinates, in id order. */
static int send_points(gemst_parts_ctx *c, slice *sl, const uint64_t *split, gemst_part *parts,
                       gridemst_partition_stats *ps, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    const int P = c->parts;
    const size_t point_bytes = point_bytes_of(pb);
    outbox o = {sl, split, calloc((size_t)P * P, sizeof *o.count), {0}, {0}};
    double t0 = gemst_now_ms();
    int rc = o.count ? gemst_parts_each(c, pack_slice, &o, err)
                     : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    ps->pack_ms = lap(&t0);
    void *got_places[GEMST_MAX_PARTS], *got_xyz[GEMST_MAX_PARTS];
    int64_t got[GEMST_MAX_PARTS];
    if (rc == GRIDEMST_OK)
        rc = gemst_xchg_alltoall(&c->xchg, (const void *const *)o.places, o.count, sizeof *o.places[0], got_places,
                                 got, err);
    if (rc == GRIDEMST_OK) {
        rc = gemst_xchg_alltoall(&c->xchg, (const void *const *)o.xyz, o.count, point_bytes, got_xyz, got, err);
        for (int p = 0; p < P; p++) {
            parts[p].n = got[p];
            parts[p].coords = rc == GRIDEMST_OK ? got_xyz[p] : NULL;
        }
        for (int p = 0; p < P; p++) {
            if (rc == GRIDEMST_OK)
                rc = ids_from_places(c, sl, o.count, p, got_places[p], &parts[p], err);
            else
                free(got_places[p]);
        }
    }
    for (int s = 0; s < P; s++) {
        free(o.places[s]);
        free(o.xyz[s]);
    }
    free(o.count);
    ps->send_ms = lap(&t0);
    return rc;
}

/* The partition on the devices (devices.h): each slice's keys sorted and
 * sampled, then its points packed by part and sent, on its part's device;
 * the splitters chosen here from the samples as for the host's slices, so
 * that the parts are the same. */
typedef struct {
    slice *sl;
    const uint64_t *split;
    int64_t *count; /* P x P: slice s's points for part p */
    gemst_part *parts;
} device_split;

static int device_slice_keys(const gemst_parts_ctx *c, int s, void *arg, gridemst_error *err)
{
    slice *sl = &((device_split *)arg)->sl[s];
    int rc = slice_start(c, s, sl, err);
    if (rc != GRIDEMST_OK)
        return rc;
    return gemst_devices_slice_keys(c->xchg.devices, s, &c->metric, &c->frame, &c->space, sl->n_sample, sl->sample,
                                    err);
}

static int device_slice_pack(const gemst_parts_ctx *c, int s, void *arg, gridemst_error *err)
{
    device_split *ds = arg;
    return gemst_devices_slice_pack(c->xchg.devices, s, ds->split, c->parts - 1, ds->count + (size_t)s * c->parts,
                                    err);
}

/* Each part's size: its points and their ids stay on its device (the
 * boundary's store reads the ids there, device_store.h). */
static void device_part_sizes(const gemst_parts_ctx *c, const device_split *ds)
{
    for (int p = 0; p < c->parts; p++) {
        gemst_part *part = &ds->parts[p];
        part->n = 0;
        for (int s = 0; s < c->parts; s++)
            part->n += ds->count[(size_t)s * c->parts + p];
    }
}

int gemst_parts_ids_to_host(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err)
{
    if (part->id || part->n == 0)
        return GRIDEMST_OK;
    part->id = gemst_host_array(sizeof *part->id * (size_t)part->n);
    if (!part->id)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a part of %lld points",
                          (long long)part->n);
    return gemst_devices_part_ids(c->xchg.devices, p, part->id, gemst_parts_threads(c, part->n), err);
}

static int split_on_devices(gemst_parts_ctx *c, slice *sl, uint64_t *split, gemst_part *parts,
                            gridemst_partition_stats *ps, gridemst_error *err)
{
    const int P = c->parts;
    const size_t point_bytes = point_bytes_of(c->pb);
    device_split ds = {sl, split, calloc((size_t)P * P, sizeof *ds.count), parts};
    double t0 = gemst_now_ms();
    int rc = ds.count ? gemst_parts_each_device(c, device_slice_keys, &ds, err)
                      : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    ps->keys_ms = lap(&t0);
    if (rc == GRIDEMST_OK)
        rc = choose_ranges(c, sl, split, err);
    ps->splitters_ms = lap(&t0);
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_each_device(c, device_slice_pack, &ds, err);
    ps->pack_ms = lap(&t0);
    if (rc == GRIDEMST_OK)
        rc = gemst_devices_send_points(c->xchg.devices, ds.count, err);
    if (rc == GRIDEMST_OK) {
        gemst_xchg_count_alltoall(&c->xchg, ds.count, sizeof(uint32_t)); /* places in their slices */
        gemst_xchg_count_alltoall(&c->xchg, ds.count, point_bytes);
        device_part_sizes(c, &ds);
    }
    ps->send_ms = lap(&t0);
    free(ds.count);
    return rc;
}

int gemst_parts_split(gemst_parts_ctx *c, gemst_part *parts, gridemst_partition_stats *ps, gridemst_error *err)
{
    const int P = c->parts;
    slice sl[GEMST_MAX_PARTS];
    uint64_t split[GEMST_MAX_PARTS];
    memset(sl, 0, sizeof sl);
    int rc = GRIDEMST_OK;
    if (c->xchg.devices) {
        rc = split_on_devices(c, sl, split, parts, ps, err);
    } else {
        double t0 = gemst_now_ms();
        rc = gemst_parts_each(c, slice_keys, sl, err);
        ps->keys_ms = lap(&t0);
        if (rc == GRIDEMST_OK)
            rc = choose_ranges(c, sl, split, err);
        ps->splitters_ms = lap(&t0);
        if (rc == GRIDEMST_OK)
            rc = send_points(c, sl, split, parts, ps, err);
    }
    for (int s = 0; s < P; s++) {
        free(sl[s].key);
        free(sl[s].sample);
    }
    return rc;
}
