/* gridemst_fof: argument checks, the backend, the forest and the labels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "config.h"
#include "result_edges.h"
#include "struct_size.h"

static int check_arguments(const void *coords, gridemst_dtype dtype, int64_t n, int dim, double b, const double *box,
                           int64_t min_size, gridemst_error *err)
{
    int rc = gemst_check_points(coords, dtype, n, dim, GEMST_MAX_POINTS, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (!(b >= 0.0) || !isfinite(b))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the linking length must be a finite number >= 0");
    if (min_size < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "minimum group size must be >= 0, got %lld",
                          (long long)min_size);
    for (int d = 0; box && d < dim; d++) {
        if (!(box[d] > 0.0) || !isfinite(box[d]))
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "the periodic box's side along axis %d must be a finite number > 0, got %g", d,
                              box[d]);
        if (!(b < 0.5 * box[d]))
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "the linking length %g must be less than half the periodic box (%g along axis %d)", b,
                              box[d], d);
    }
    return GRIDEMST_OK;
}

/* The backend that runs: the CPU's builds the forest, the CUDA backend
 * gives labels alone.  AUTO is CUDA where the points or the labels are in
 * device memory or a context is given, or where a device is usable and no
 * forest is asked; else the CPU. */
static int resolve_backend(gridemst_options *o, int on_device, int forest, gridemst_error *err)
{
    const int cuda_only = on_device || o->result == GRIDEMST_RESULT_DEVICE || o->context;
    if (o->backend == GRIDEMST_BACKEND_AUTO)
        o->backend = cuda_only || (!forest && gridemst_cuda_device_count() > 0) ? GRIDEMST_BACKEND_CUDA
                                                                                 : GRIDEMST_BACKEND_CPU;
    if (o->backend == GRIDEMST_BACKEND_CPU)
        return on_device ? gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "points in device memory need the cuda backend")
                         : GRIDEMST_OK;
    if (forest)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED,
                          "the friends-of-friends forest is built on the cpu backend only (pass no forest for labels "
                          "on the cuda backend)");
#ifndef GRIDEMST_HAVE_CUDA
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this gridemst was built without CUDA; use the cpu backend");
#else
    const int devices = gridemst_cuda_device_count();
    if (devices == 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "no usable CUDA device found");
    if (o->device >= devices && !o->context)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "CUDA device %d requested, but only %d present", o->device,
                          devices);
    return GRIDEMST_OK;
#endif
}

/* The labels (and their count), into a scratch array when the caller
 * wants the count alone. */
static int label(int64_t n, const gridemst_edge *edges, int64_t m, int64_t min_size, int64_t *labels,
                 int64_t *n_groups, gridemst_error *err)
{
    if (!labels && !n_groups)
        return GRIDEMST_OK;
    int64_t *out = labels ? labels : malloc(sizeof *out * (size_t)(n > 0 ? n : 1));
    if (!out)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld labels", (long long)n);
    int rc = gemst_label_components(n, edges, m, min_size, out, n_groups, err);
    if (out != labels)
        free(out);
    return rc;
}

/* Friends-of-friends on the CPU backend: the forest, and the labels from
 * its components. */
static int cpu_fof(gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                   gridemst_result *forest, double t0, gridemst_error *err)
{
    const gemst_problem *pb = &fp->pb;
    const int64_t n = pb->n;
    gridemst_stats st;
    memset(&st, 0, sizeof st);
    st.backend = pb->opt.backend;
    st.nns = GRIDEMST_NNS_GRID;
    st.prune = GRIDEMST_PRUNE_NONE;
    st.findmin2 = GRIDEMST_FINDMIN2_ATOMIC;
    st.precision = pb->opt.precision;
    st.late_bvh_iteration = -1;
    strcpy(st.device_name, "cpu");
    st.n_unique = n;
    gemst_tree tree = {0};
    int rc;
    if (n < 2) {
        double lo[3], hi[3];
        rc = gemst_host_bbox(pb->coords, pb->dtype, n, pb->dim, 1, lo, hi, err);
    } else {
        rc = gemst_cpu_fof(fp, &tree, &st, err);
    }
    gridemst_edge *edges = NULL;
    if (rc == GRIDEMST_OK && !(edges = gemst_edges_alloc(tree.n_edges > 0 ? tree.n_edges : 1, pb->opt.threads)))
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld forest edges",
                        (long long)tree.n_edges);
    if (rc == GRIDEMST_OK) {
        if (tree.n_edges > 0) {
            gemst_edges_from_tree(&tree, edges, pb->opt.threads);
            gemst_edges_order_ties(edges, tree.n_edges, pb->opt.threads);
        }
        rc = label(n, edges, tree.n_edges, min_size, labels, n_groups, err);
    }
    if (rc != GRIDEMST_OK || !forest) {
        free(edges);
        gemst_tree_free(&tree);
        return rc;
    }
    forest->n = n;
    forest->dim = pb->dim;
    forest->n_edges = tree.n_edges;
    forest->edges = edges;
    gemst_tree_free(&tree);
    if (gemst_edges_total(edges, forest->n_edges, pb->opt.threads, &forest->total_weight) != 0) {
        gridemst_result_free(forest);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory summing the forest");
    }
    st.time_ms.total = gemst_now_ms() - t0;
    forest->stats = st;
    return GRIDEMST_OK;
}

#ifdef GRIDEMST_HAVE_CUDA
/* Friends-of-friends on the CUDA backend, on the caller's context or one
 * of its own. */
static int cuda_fof(gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                    gridemst_error *err)
{
    gemst_problem *pb = &fp->pb;
    if (pb->n == 0) {
        if (n_groups)
            *n_groups = 0;
        return GRIDEMST_OK;
    }
    int rc = gemst_context_for_solve(&pb->opt, &pb->ctx, err);
    if (rc != GRIDEMST_OK)
        return rc;
    pb->opt.device = pb->ctx->device;
    if (pb->on_device)
        rc = gemst_cuda_check_device_input(pb->coords, pb->opt.device, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_cuda_fof(fp, min_size, labels, n_groups, err);
    gemst_context_release(pb->ctx);
    pb->ctx = NULL;
    return rc;
}
#endif

static int fof(const void *coords, int on_device, gridemst_dtype dtype, int64_t n, int dim, double linking_length,
               const double *box, int64_t min_size, const gridemst_options *opt, int64_t *labels, int64_t *n_groups,
               gridemst_result *forest, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    if (err) {
        err->code = GRIDEMST_OK;
        err->message[0] = '\0';
    }
    gemst_fof_problem fp = {.linking_length = linking_length, .box = box};
    gemst_problem *pb = &fp.pb;
    gridemst_options_init(&pb->opt);
    if (opt)
        pb->opt = *opt;
    pb->coords = coords;
    pb->on_device = on_device;
    pb->dtype = dtype;
    pb->n = n;
    pb->dim = dim;
    int rc = check_arguments(coords, dtype, n, dim, linking_length, box, min_size, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_check_options(&pb->opt, err);
    if (rc == GRIDEMST_OK)
        rc = resolve_backend(&pb->opt, on_device, forest != NULL, err);
    if (rc != GRIDEMST_OK || pb->opt.backend == GRIDEMST_BACKEND_CPU)
        return rc != GRIDEMST_OK ? rc : cpu_fof(&fp, min_size, labels, n_groups, forest, t0, err);
#ifdef GRIDEMST_HAVE_CUDA
    rc = cuda_fof(&fp, min_size, labels, n_groups, err);
    /* AUTO chose the GPU for host points and labels, and the job does not
     * fit there: the CPU takes it */
    if (rc == GRIDEMST_ERR_DEVICE_MEMORY && (!opt || opt->backend == GRIDEMST_BACKEND_AUTO) && !on_device &&
        pb->opt.result == GRIDEMST_RESULT_HOST && !pb->opt.context) {
        if (err) {
            err->code = GRIDEMST_OK;
            err->message[0] = '\0';
        }
        pb->opt.backend = GRIDEMST_BACKEND_CPU;
        rc = cpu_fof(&fp, min_size, labels, n_groups, forest, t0, err);
    }
#endif
    return rc;
}

/* The public entry points: the caller's layouts of the options and the
 * forest to the library's and back (gridemst.h, structs that grow). */
static gridemst_status fof_public(const void *coords, int on_device, gridemst_dtype dtype, int64_t n, int dim,
                                  double linking_length, const double *box, int64_t min_size,
                                  const gridemst_options *opt, int64_t *labels, int64_t *n_groups,
                                  gridemst_result *forest, gridemst_error *err)
{
    int rc = forest ? gemst_struct_check(&gemst_result_kind, forest, err) : GRIDEMST_OK;
    if (rc != GRIDEMST_OK)
        return (gridemst_status)rc;
    gridemst_options given;
    gridemst_options_init(&given);
    if (opt)
        rc = gemst_struct_import(&gemst_options_kind, opt, &given, err);
    gridemst_result full;
    gridemst_result_init(&full);
    if (rc == GRIDEMST_OK)
        rc = fof(coords, on_device, dtype, n, dim, linking_length, box, min_size, opt ? &given : NULL, labels,
                 n_groups, forest ? &full : NULL, err);
    if (forest)
        gemst_struct_export(&gemst_result_kind, forest, &full);
    return (gridemst_status)rc;
}

gridemst_status gridemst_fof(const void *coords, gridemst_dtype dtype, int64_t n, int dim, double linking_length,
                             const double *box, int64_t min_size, const gridemst_options *opt, int64_t *labels,
                             int64_t *n_groups, gridemst_result *forest, gridemst_error *err)
{
    return fof_public(coords, 0, dtype, n, dim, linking_length, box, min_size, opt, labels, n_groups, forest, err);
}

gridemst_status gridemst_fof_device(const void *d_coords, gridemst_dtype dtype, int64_t n, int dim,
                                    double linking_length, const double *box, int64_t min_size,
                                    const gridemst_options *opt, int64_t *labels, int64_t *n_groups,
                                    gridemst_error *err)
{
    return fof_public(d_coords, 1, dtype, n, dim, linking_length, box, min_size, opt, labels, n_groups, NULL, err);
}
