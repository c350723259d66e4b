/* gridemst_solve: argument checks, backend choice, and the result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "config.h"
#include "host_memory.h"
#include "result_edges.h"
#include "struct_size.h"
#include "parts/devices.h"
#include "parts/parts.h"

/* A partitioned solve runs on the CPU backend, or on the CUDA backend with
 * a part per device (devices.h), with a tree in host memory or, over
 * several devices, left on them. */
static int check_partitions(const gridemst_options *o, gridemst_error *err)
{
    if (o->partitions < 0 || o->partitions > GEMST_MAX_PARTS)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "partitions must be from 0 to %d, got %d",
                          GEMST_MAX_PARTS, o->partitions);
    if (o->partitions < 2)
        return GRIDEMST_OK;
    if (o->context)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "a partitioned solve makes its own contexts");
    if (o->result == GRIDEMST_RESULT_DEVICE && o->n_devices == 0 && o->backend != GRIDEMST_BACKEND_CUDA)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "a partitioned solve leaves its tree in device memory only on devices: over several "
                          "devices (n_devices), or its parts on one with the cuda backend");
    if (o->min_samples >= 2)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED,
                          "a partitioned solve gives the Euclidean tree only, not the mutual-reachability tree");
    return GRIDEMST_OK;
}

int gemst_check_points(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t max_points,
                       gridemst_error *err)
{
    if (dim != 2 && dim != 3)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "points must have 2 or 3 coordinates, got %d", dim);
    if (n < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "point count must be >= 0, got %lld", (long long)n);
    if (n > max_points)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%lld points exceed the limit of %lld", (long long)n,
                          (long long)max_points);
    if (n > 0 && !coords)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "coords must not be NULL");
    if (dtype != GRIDEMST_FLOAT32 && dtype != GRIDEMST_FLOAT64)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown coordinate type %d", (int)dtype);
    return GRIDEMST_OK;
}

int gemst_check_options(const gridemst_options *o, gridemst_error *err)
{
    if ((unsigned)o->backend > GRIDEMST_BACKEND_CUDA)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown backend %d", (int)o->backend);
    if ((unsigned)o->nns > GRIDEMST_NNS_AUTO)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown nearest-neighbour index %d", (int)o->nns);
    if ((unsigned)o->tuning.prune > GRIDEMST_PRUNE_STATIC)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown pruning strategy %d", (int)o->tuning.prune);
    if ((unsigned)o->tuning.findmin2 > GRIDEMST_FINDMIN2_ATOMIC)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown FindMin2 method %d", (int)o->tuning.findmin2);
    if ((unsigned)o->precision > GRIDEMST_PRECISION_DOUBLE)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown precision %d", (int)o->precision);
    if (o->threads < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "threads must be >= 0 (0 = default), got %d",
                          o->threads);
    if (o->device < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "device must be >= 0, got %d", o->device);
    if (!(o->tuning.cell_occupancy >= 0.0) || !isfinite(o->tuning.cell_occupancy))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "cell occupancy must be a finite number >= 0");
    if (o->tuning.crowded_cell < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "crowded cell size must be >= 0 (0 = default), got %lld",
                          (long long)o->tuning.crowded_cell);
    for (size_t k = 0; k < sizeof o->tuning.reserved / sizeof o->tuning.reserved[0]; k++)
        if (o->tuning.reserved[k] != 0)
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "tuning.reserved[%zu] is %d; it must be 0 (as gridemst_options_init sets it)", k,
                              o->tuning.reserved[k]);
    if (o->tuning.late_bvh < -1)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "late BVH iteration must be >= 1, 0 (the library's rule) or -1 (never), got %d",
                          o->tuning.late_bvh);
    if (o->max_device_bytes < 0 || o->max_host_bytes < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "memory limits must be >= 0 (0 = no limit)");
    if ((unsigned)o->result > GRIDEMST_RESULT_DEVICE)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "unknown result place %d", (int)o->result);
    if (o->backend == GRIDEMST_BACKEND_CPU && o->result == GRIDEMST_RESULT_DEVICE)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "a tree in device memory needs the cuda backend");
    if (o->backend == GRIDEMST_BACKEND_CPU && o->context)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "a context is for the cuda backend");
    if (o->min_samples < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "min_samples must be >= 0, got %lld",
                          (long long)o->min_samples);
    int rc = gemst_check_devices(o, err);
    return rc == GRIDEMST_OK ? check_partitions(o, err) : rc;
}

/* The devices a solve with options o splits its points over: 1 on one
 * device or the CPU; every device the library takes where o names all
 * (not yet resolved). */
static int split_devices(const gridemst_options *o)
{
    return o->n_devices == GRIDEMST_ALL_DEVICES ? GEMST_MAX_DEVICES : o->n_devices > 1 ? o->n_devices : 1;
}

/* n points for a solve with options o, its devices resolved: up to
 * GEMST_MAX_POINTS, but over P devices up to P times as many (each
 * device's slice of the input that many, parts/gid.h), with the tree in
 * host memory (a device result names its points by 32-bit ids). */
static int check_count(const gridemst_options *o, int64_t n, gridemst_error *err)
{
    const int devices = split_devices(o);
    if (n <= GEMST_MAX_POINTS)
        return GRIDEMST_OK;
    if (devices == 1)
        return gemst_fail(err, GRIDEMST_ERR_INPUT,
                          "%lld points exceed the limit of %lld on one device or the cpu (more: over several devices, "
                          "n_devices)",
                          (long long)n, (long long)GEMST_MAX_POINTS);
    if (n > devices * GEMST_MAX_POINTS)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "%lld points exceed the limit of %lld over %d devices",
                          (long long)n, (long long)(devices * GEMST_MAX_POINTS), devices);
    if (o->result == GRIDEMST_RESULT_DEVICE)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED,
                          "a tree left on the devices names its points by 32-bit ids: at most %lld points, not %lld "
                          "(the tree of more goes to host memory)",
                          (long long)GEMST_MAX_POINTS, (long long)n);
    return GRIDEMST_OK;
}

/* The mutual-reachability tree (min_samples >= 2) runs on either backend,
 * on the grid with its plain ring search: the slab pruning of the other
 * strategies is unsound for that length (nns/edge_length.h).  (A
 * partitioned solve refuses it: check_partitions.) */
static int mutual_reachability_options(gemst_problem *pb, gridemst_error *err)
{
    gridemst_options *o = &pb->opt;
    if (o->min_samples < 2)
        return GRIDEMST_OK;
    if (pb->n > 0 && o->min_samples > pb->n)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "min_samples %lld exceeds the number of points, %lld",
                          (long long)o->min_samples, (long long)pb->n);
    o->tuning.prune = GRIDEMST_PRUNE_NONE;
    return GRIDEMST_OK;
}

/* The grid's pruning strategies do not apply to the BVH index (prune
 * becomes none); it runs on either backend. */
static void bvh_options(gridemst_options *o)
{
    o->tuning.prune = GRIDEMST_PRUNE_NONE;
}

/* The backend that runs: AUTO becomes CUDA when a device is present. */
static int resolve_backend(gridemst_options *o, gridemst_error *err)
{
    if (o->backend == GRIDEMST_BACKEND_AUTO && o->partitions > 1)
        o->backend = GRIDEMST_BACKEND_CPU;
    int devices = gridemst_cuda_device_count();
    int cuda_only = o->result == GRIDEMST_RESULT_DEVICE || o->context;
    if (o->backend == GRIDEMST_BACKEND_AUTO)
        o->backend = devices > 0 || cuda_only ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
    if (o->backend != GRIDEMST_BACKEND_CUDA)
        return GRIDEMST_OK;
#ifndef GRIDEMST_HAVE_CUDA
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA; use the cpu backend");
#else
    if (devices == 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "no usable CUDA device found");
    if (o->device >= devices && !o->context) /* a context's device is checked against it */
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "CUDA device %d requested, but only %d present", o->device,
                          devices);
    return GRIDEMST_OK;
#endif
}

#ifdef GRIDEMST_HAVE_CUDA
/* AUTO chose CUDA but the job does not fit on the device: solve on the CPU
 * and say so in stats.note. */
static int fall_back_to_cpu(gemst_problem *pb, gemst_tree *tree, gridemst_stats *st, gridemst_error *err)
{
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err->message);
    gemst_tree_free(tree);
    memset(st, 0, sizeof *st);
    pb->opt.backend = GRIDEMST_BACKEND_CPU;
    st->backend = GRIDEMST_BACKEND_CPU;
    st->nns = gemst_index_before_choice(pb->opt.nns);
    st->prune = pb->opt.tuning.prune;
    st->findmin2 = pb->opt.tuning.findmin2;
    st->precision = pb->opt.precision;
    strcpy(st->device_name, "cpu");
    snprintf(st->note, sizeof st->note, "solved on the CPU: the GPU could not take it (%.200s)", why);
    err->code = GRIDEMST_OK;
    err->message[0] = '\0';
    return gemst_cpu_solve(pb, tree, st, err);
}
#endif

/* gridemst_solve_device runs on the CUDA backend only (AUTO means CUDA). */
static int device_input_backend(gridemst_options *o, gridemst_error *err)
{
#ifdef GRIDEMST_HAVE_CUDA
    if (o->backend == GRIDEMST_BACKEND_CPU)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "points in device memory need the cuda backend");
    if (o->partitions > 1)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "partitioned solves take points in host memory, for now");
    o->backend = GRIDEMST_BACKEND_CUDA;
    return GRIDEMST_OK;
#else
    (void)o;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA: no device input");
#endif
}

#ifdef GRIDEMST_HAVE_CUDA
/* The caller's points must be device memory of the chosen device.  Fewer
 * than 2 points are copied to host_points for the host's checks. */
static int check_device_input(gemst_problem *pb, double *host_points, gridemst_error *err)
{
    if (pb->n == 0)
        return GRIDEMST_OK;
    int rc = gemst_cuda_check_device_input(pb->coords, pb->opt.device, err);
    if (rc == GRIDEMST_OK && pb->n < 2) {
        size_t bytes = (size_t)pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
        rc = gemst_cuda_download(&pb->opt, pb->coords, host_points, bytes, err);
        pb->coords = host_points;
        pb->on_device = 0;
    }
    return rc;
}
#endif

/* Bytes of the result's edges for n points. */
/* The result's host edges (none when the tree stays on the device). */
static uint64_t result_bytes(const gridemst_options *o, int64_t n)
{
    return n >= 2 && o->result == GRIDEMST_RESULT_HOST ? (uint64_t)(n - 1) * sizeof(gridemst_edge) : 0;
}

/* Host memory for the backend: the caller's cap (options.max_host_bytes),
 * within what the process may use less the result's edges, which are
 * allocated first.  Fails when those edges alone do not fit. */
static int host_budget(gemst_problem *pb, gridemst_error *err)
{
    const uint64_t usable = gemst_usable_memory_bytes(), edges = result_bytes(&pb->opt, pb->n);
    if (usable == 0) /* unknown: the backend's own rule applies */
        return GRIDEMST_OK;
    if (edges > usable)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY,
                          "%lld points: the tree's edges need %llu bytes of host memory; %llu may be used",
                          (long long)pb->n, (unsigned long long)edges, (unsigned long long)usable);
    uint64_t left = usable - edges > INT64_MAX ? INT64_MAX : usable - edges;
    if (left == 0)
        left = 1; /* 0 would mean no cap */
    if (pb->opt.max_host_bytes == 0 || (uint64_t)pb->opt.max_host_bytes > left)
        pb->opt.max_host_bytes = (int64_t)left;
    return GRIDEMST_OK;
}

/* A tree whose total length is not a finite double: an error when an edge
 * itself is longer than the largest double (points that far apart have no
 * representable distance), else a note that only the sum overflows. */
static int overflowing_weights(gridemst_result *result, gridemst_error *err)
{
    int64_t bad = -1;
    for (int64_t k = 0; k < result->n_edges && bad < 0; k++)
        if (!isfinite(result->edges[k].w))
            bad = k;
    if (bad >= 0) {
        int rc = gemst_fail(err, GRIDEMST_ERR_INPUT, "points %lld and %lld are farther apart than the largest double",
                            (long long)result->edges[bad].u, (long long)result->edges[bad].v);
        gridemst_result_free(result);
        return rc;
    }
    snprintf(result->stats.note, sizeof result->stats.note,
             "the total weight exceeds the largest double; every edge is finite");
    return GRIDEMST_OK;
}

/* The same for a tree in device memory (its shares), whose lengths are
 * looked at on the host (a rare case: only points near the largest double
 * get here). */
static int overflowing_device_weights(gridemst_result *result, gridemst_error *err)
{
    int rc = GRIDEMST_ERR_INTERNAL;
#ifdef GRIDEMST_HAVE_CUDA
    double *w = malloc(sizeof *w * (size_t)result->n_edges);
    rc = w ? GRIDEMST_OK : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (int k = 0; rc == GRIDEMST_OK && k < gridemst_result_device_shares(result); k++) {
        gridemst_device_edges share;
        int64_t first = 0, count = 0;
        rc = gridemst_result_device_share(result, k, &share, &first, &count);
        if (rc == GRIDEMST_OK)
            rc = gemst_cuda_copy_to_host(share.device, share.w, w + first, sizeof *w * (size_t)count, err);
    }
    int64_t bad = -1;
    for (int64_t k = 0; rc == GRIDEMST_OK && k < result->n_edges && bad < 0; k++)
        if (!isfinite(w[k]))
            bad = k;
    if (bad >= 0)
        rc = gemst_fail(err, GRIDEMST_ERR_INPUT, "the points of tree edge %lld are farther apart than the largest double",
                        (long long)bad);
    else if (rc == GRIDEMST_OK)
        snprintf(result->stats.note, sizeof result->stats.note,
                 "the total weight exceeds the largest double; every edge is finite");
    free(w);
#else
    (void)err;
#endif
    if (rc != GRIDEMST_OK)
        gridemst_result_free(result);
    return rc;
}

#ifdef GRIDEMST_HAVE_CUDA
/* The CUDA solve on its context: the caller's (checked) or one of its own. */
static int cuda_solve(gemst_problem *pb, const gridemst_options *opt, double one_point[3], gemst_tree *tree,
                      gridemst_stats *st, gridemst_error *err)
{
    int rc = gemst_context_for_solve(&pb->opt, &pb->ctx, err);
    if (rc != GRIDEMST_OK)
        return rc;
    pb->opt.device = pb->ctx->device;
    if (pb->on_device)
        rc = check_device_input(pb, one_point, err);
    if (rc == GRIDEMST_OK && pb->n >= 2)
        rc = gemst_cuda_solve(pb, tree, st, err);
    if (rc == GRIDEMST_ERR_DEVICE_MEMORY && !pb->on_device && (!opt || opt->backend == GRIDEMST_BACKEND_AUTO) &&
        pb->opt.result == GRIDEMST_RESULT_HOST && !pb->opt.context)
        rc = fall_back_to_cpu(pb, tree, st, err);
    return rc;
}
#endif

/* Moves the finished tree into the result, with what frees it. */
static int adopt_tree(gemst_problem *pb, gemst_tree *tree, gridemst_result *result, gridemst_error *err)
{
    int device = pb->opt.result == GRIDEMST_RESULT_DEVICE && tree->n_edges > 0;
    if (device || tree->host_registered) {
        result->owner = calloc(1, sizeof *result->owner);
        if (!result->owner)
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
        result->owner->host_registered = tree->host_registered;
        result->owner->host_capacity = tree->host_capacity;
        /* the device edges need their context (the shares hold their own);
           host edges go back to the caller's context as a spare */
        if ((device || pb->opt.context) && pb->ctx) {
            result->owner->ctx = pb->ctx;
            gemst_context_retain(pb->ctx);
        }
        result->owner->share = tree->share;
        result->owner->n_shares = tree->n_shares;
        tree->share = NULL;
        tree->n_shares = 0;
    }
    result->edges = tree->edges;
    result->device_edges = tree->device_edges;
    result->n_edges = tree->n_edges;
    result->total_weight = tree->total_weight;
    tree->edges = NULL;
    tree->host_registered = 0;
    memset(&tree->device_edges, 0, sizeof tree->device_edges);
    return GRIDEMST_OK;
}

/* A solve into the library's own layout of the result, with options in it
 * too (or NULL for the defaults). */
static int solve_full(const void *coords, int on_device, gridemst_dtype dtype, int64_t n, int dim,
                      const gridemst_options *opt, gridemst_result *result, gridemst_error *err)
{
    double t0 = gemst_now_ms();
    int rc = gemst_check_points(coords, dtype, n, dim, GEMST_MAX_SPLIT_POINTS, err);
    if (rc != GRIDEMST_OK)
        return rc;

    gemst_problem pb;
    memset(&pb, 0, sizeof pb);
    gridemst_options_init(&pb.opt);
    if (opt)
        pb.opt = *opt;
    pb.coords = coords;
    pb.on_device = on_device;
    pb.dtype = dtype;
    pb.n = n;
    pb.dim = dim;
    rc = gemst_check_options(&pb.opt, err);
    int ordinal[GEMST_MAX_DEVICES]; /* pb.opt.devices once resolved */
    if (rc == GRIDEMST_OK)
        rc = gemst_resolve_devices(&pb, ordinal, err);
    if (rc == GRIDEMST_OK && pb.opt.n_devices > 1)
        rc = check_partitions(&pb.opt, err); /* again, with the devices' parts */
    if (rc == GRIDEMST_OK)
        rc = check_count(&pb.opt, n, err);
    if (rc == GRIDEMST_OK && on_device)
        rc = device_input_backend(&pb.opt, err);
    if (rc == GRIDEMST_OK && pb.opt.nns == GRIDEMST_NNS_BVH)
        bvh_options(&pb.opt);
    if (rc == GRIDEMST_OK)
        rc = mutual_reachability_options(&pb, err);
    if (rc == GRIDEMST_OK)
        rc = resolve_backend(&pb.opt, err);
    if (rc == GRIDEMST_OK && n >= 2)
        rc = host_budget(&pb, err);
    if (rc != GRIDEMST_OK)
        return rc;

    gridemst_stats *st = &result->stats;
    st->backend = pb.opt.backend;
    st->nns = gemst_index_before_choice(pb.opt.nns);
    st->prune = pb.opt.tuning.prune;
    st->findmin2 = pb.opt.tuning.findmin2;
    st->precision = pb.opt.precision;
    strcpy(st->device_name, "cpu");
    st->n_unique = n;

    gemst_tree tree;
    memset(&tree, 0, sizeof tree);
    double one_point[3]; /* device input of one point, brought to the host */
    (void)one_point;
    if (n >= 2 && pb.opt.partitions > 1) {
        rc = gemst_parts_solve(&pb, &tree, st, err);
    } else if (pb.opt.backend == GRIDEMST_BACKEND_CUDA) {
#ifdef GRIDEMST_HAVE_CUDA
        rc = cuda_solve(&pb, opt, one_point, &tree, st, err);
#endif
    } else if (n >= 2) {
        rc = gemst_cpu_solve(&pb, &tree, st, err);
    }
    if (rc == GRIDEMST_OK && n < 2) {
        double lo[3], hi[3];
        if (!pb.on_device)
            rc = gemst_host_bbox(pb.coords, dtype, n, dim, 1, lo, hi, err);
    } else if (rc == GRIDEMST_OK && !tree.finished) {
        rc = gemst_finish_host_tree(&tree, pb.opt.threads, err);
    }
    if (rc == GRIDEMST_OK)
        rc = adopt_tree(&pb, &tree, result, err);
    free(tree.edges); /* a failed CPU solve's; the CUDA backend frees its own */
    gemst_free_device_shares(tree.share, tree.n_shares); /* unless the result took them */
    gemst_tree_free(&tree);
    if (pb.ctx)
        gemst_context_release(pb.ctx);
    if (rc != GRIDEMST_OK) {
        gridemst_result_free(result);
        return rc;
    }
    result->n = n;
    result->dim = dim;
    if (!isfinite(result->total_weight))
        return result->edges || result->n_edges == 0 ? overflowing_weights(result, err)
                                                     : overflowing_device_weights(result, err);
    st->time_ms.total = gemst_now_ms() - t0;
    return GRIDEMST_OK;
}

/* The caller's structs in and out of the library's layout (gridemst.h,
 * "Structs that grow"). */
static gridemst_status solve(const void *coords, int on_device, gridemst_dtype dtype, int64_t n, int dim,
                             const gridemst_options *opt, gridemst_result *result, gridemst_error *err)
{
    if (err) {
        err->code = GRIDEMST_OK;
        err->message[0] = '\0';
    }
    if (!result)
        return (gridemst_status)gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "result must not be NULL");
    int rc = gemst_struct_check(&gemst_result_kind, result, err);
    if (rc != GRIDEMST_OK)
        return (gridemst_status)rc;
    gridemst_options given;
    gridemst_options_init(&given);
    if (opt)
        rc = gemst_struct_import(&gemst_options_kind, opt, &given, err);
    gridemst_result full;
    gridemst_result_init(&full);
    if (rc == GRIDEMST_OK)
        rc = solve_full(coords, on_device, dtype, n, dim, opt ? &given : NULL, &full, err);
    gemst_struct_export(&gemst_result_kind, result, &full);
    return (gridemst_status)rc;
}

gridemst_status gridemst_solve(const void *coords, gridemst_dtype dtype, int64_t n, int dim,
                               const gridemst_options *opt, gridemst_result *result, gridemst_error *err)
{
    return solve(coords, 0, dtype, n, dim, opt, result, err);
}

gridemst_status gridemst_solve_device(const void *d_coords, gridemst_dtype dtype, int64_t n, int dim,
                                      const gridemst_options *opt, gridemst_result *result, gridemst_error *err)
{
    return solve(d_coords, 1, dtype, n, dim, opt, result, err);
}

int64_t gridemst_host_bytes(int64_t n, int dim, const gridemst_options *opt)
{
    gemst_problem pb;
    memset(&pb, 0, sizeof pb);
    gridemst_options_init(&pb.opt);
    if (opt && gemst_struct_import(&gemst_options_kind, opt, &pb.opt, NULL) != GRIDEMST_OK)
        return -1;
    if (n < 0 || n > split_devices(&pb.opt) * GEMST_MAX_POINTS || (dim != 2 && dim != 3) ||
        gemst_check_options(&pb.opt, NULL) != GRIDEMST_OK)
        return -1;
    pb.n = n;
    pb.dim = dim;
    if (pb.opt.nns == GRIDEMST_NNS_BVH)
        bvh_options(&pb.opt);
    if (pb.opt.backend == GRIDEMST_BACKEND_AUTO)
        pb.opt.backend = gridemst_cuda_device_count() > 0 ? GRIDEMST_BACKEND_CUDA : GRIDEMST_BACKEND_CPU;
    uint64_t bytes = result_bytes(&pb.opt, n);
    if (n >= 2 && pb.opt.backend == GRIDEMST_BACKEND_CPU)
        bytes += gemst_cpu_host_bytes(&pb);
    return (int64_t)bytes;
}

void gridemst_result_free(gridemst_result *caller)
{
    gridemst_result result;
    gridemst_result_init(&result);
    if (!caller || gemst_struct_import(&gemst_result_kind, caller, &result, NULL) != GRIDEMST_OK)
        return;
    if (result.owner)
        gemst_result_owner_free(result.owner, &result);
    free(result.edges);
    gridemst_result_init(&result);
    gemst_struct_export(&gemst_result_kind, caller, &result);
}
