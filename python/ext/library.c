/*
 * Every call into libgridemst (library.h): options from their names, the
 * solve, and what a tree gives.  Its failures become pyg_failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gridemst.h>

#include "library.h"

struct pyg_tree {
    gridemst_result result;
};

static pyg_fail_kind kind_of(int status)
{
    switch (status) {
    case GRIDEMST_ERR_INVALID_ARGUMENT:
    case GRIDEMST_ERR_INPUT:
        return PYG_FAIL_VALUE;
    case GRIDEMST_ERR_NO_MEMORY:
    case GRIDEMST_ERR_DEVICE_MEMORY:
        return PYG_FAIL_MEMORY;
    default:
        return PYG_FAIL_RUNTIME;
    }
}

static int fail_with(pyg_failure *fail, int status, const char *message)
{
    fail->kind = kind_of(status);
    snprintf(fail->status, sizeof fail->status, "%s", gridemst_status_name(status));
    snprintf(fail->message, sizeof fail->message, "%s", message);
    return -1;
}

/* A bad option name, answered with the library's own list of names. */
static int bad_name(pyg_failure *fail, const char *option, const char *given, const char *(*name_of)(int))
{
    char names[128] = "";
    for (int v = 0; strcmp(name_of(v), "unknown") != 0; v++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'", v ? ", " : "", name_of(v));
    char message[256];
    snprintf(message, sizeof message, "%s must be one of %s; got '%s'", option, names, given);
    return fail_with(fail, GRIDEMST_ERR_INVALID_ARGUMENT, message);
}

/* The name accessors, with the int argument bad_name walks the values by. */
static const char *backend_name(int v) { return gridemst_backend_name((gridemst_backend)v); }
static const char *nns_name(int v) { return gridemst_nns_name((gridemst_nns)v); }
static const char *precision_name(int v) { return gridemst_precision_name((gridemst_precision)v); }

static int make_options(const pyg_request *rq, gridemst_options *opt, pyg_failure *fail)
{
    gridemst_options_init(opt);
    if (gridemst_parse_precision(rq->precision, &opt->precision) != 0)
        return bad_name(fail, "precision", rq->precision, precision_name);
    if (gridemst_parse_backend(rq->backend, &opt->backend) != 0)
        return bad_name(fail, "backend", rq->backend, backend_name);
    if (gridemst_parse_nns(rq->index, &opt->nns) != 0)
        return bad_name(fail, "index", rq->index, nns_name);
    opt->threads = rq->threads;
    opt->device = rq->device;
    opt->cuda_stream = rq->stream;
    opt->result = rq->device_result ? GRIDEMST_RESULT_DEVICE : GRIDEMST_RESULT_HOST;
    opt->n_devices = rq->n_devices < 0 ? GRIDEMST_ALL_DEVICES : rq->n_devices;
    opt->devices = rq->n_devices > 0 ? rq->devices : NULL;
    return 0;
}

/* The library's progress report, passed on as the question whether to
 * stop: a nonzero answer cancels the solve (GRIDEMST_ERR_CANCELLED). */
static int on_progress(void *arg, const char *phase, int iteration, int64_t components)
{
    const pyg_request *rq = arg;
    (void)phase;
    (void)iteration;
    (void)components;
    return rq->stop(rq->stop_arg);
}

int pyg_solve(const pyg_request *rq, pyg_tree **tree, pyg_failure *fail)
{
    gridemst_options opt;
    if (make_options(rq, &opt, fail) != 0)
        return -1;
    if (rq->stop) {
        opt.progress = on_progress;
        opt.progress_ctx = (void *)rq;
    }
    pyg_tree *t = malloc(sizeof *t);
    if (!t)
        return fail_with(fail, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a result");
    gridemst_result_init(&t->result);
    gridemst_dtype dtype = rq->float64 ? GRIDEMST_FLOAT64 : GRIDEMST_FLOAT32;
    gridemst_error err;
    int rc = rq->on_device ? gridemst_solve_device(rq->coords, dtype, rq->n, rq->dim, &opt, &t->result, &err)
                           : gridemst_solve(rq->coords, dtype, rq->n, rq->dim, &opt, &t->result, &err);
    if (rc != GRIDEMST_OK) {
        free(t);
        return fail_with(fail, rc, err.message);
    }
    *tree = t;
    return 0;
}

void pyg_tree_free(pyg_tree *tree)
{
    if (tree) {
        gridemst_result_free(&tree->result);
        free(tree);
    }
}

int64_t pyg_tree_points(const pyg_tree *tree) { return tree->result.n; }
int pyg_tree_dim(const pyg_tree *tree) { return tree->result.dim; }
int64_t pyg_tree_edge_count(const pyg_tree *tree) { return tree->result.n_edges; }
double pyg_tree_total_weight(const pyg_tree *tree) { return tree->result.total_weight; }

void pyg_tree_copy_edges(const pyg_tree *tree, int64_t *uv, double *w)
{
    const gridemst_edge *e = tree->result.edges;
    for (int64_t i = 0; i < tree->result.n_edges; i++) {
        uv[2 * i] = e[i].u;
        uv[2 * i + 1] = e[i].v;
        w[i] = e[i].w;
    }
}

int pyg_tree_linkage(const pyg_tree *tree, double *z, pyg_failure *fail)
{
    int64_t m = tree->result.n_edges;
    gridemst_merge *rows = malloc(sizeof *rows * (size_t)(m > 0 ? m : 1));
    if (!rows)
        return fail_with(fail, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the linkage matrix");
    gridemst_error err;
    int rc = gridemst_linkage(&tree->result, rows, &err);
    for (int64_t i = 0; rc == GRIDEMST_OK && i < m; i++) {
        z[4 * i] = (double)rows[i].a;
        z[4 * i + 1] = (double)rows[i].b;
        z[4 * i + 2] = rows[i].distance;
        z[4 * i + 3] = (double)rows[i].size;
    }
    free(rows);
    return rc == GRIDEMST_OK ? 0 : fail_with(fail, rc, err.message);
}

int pyg_tree_clusters_k(const pyg_tree *tree, int64_t k, int64_t min_size, int64_t *labels, int64_t *n_clusters,
                        pyg_failure *fail)
{
    gridemst_error err;
    int rc = gridemst_clusters_k(&tree->result, k, min_size, labels, n_clusters, &err);
    return rc == GRIDEMST_OK ? 0 : fail_with(fail, rc, err.message);
}

int pyg_tree_clusters_cut(const pyg_tree *tree, double distance, int64_t min_size, int64_t *labels,
                          int64_t *n_clusters, pyg_failure *fail)
{
    gridemst_error err;
    int rc = gridemst_clusters_cut(&tree->result, distance, min_size, labels, n_clusters, &err);
    return rc == GRIDEMST_OK ? 0 : fail_with(fail, rc, err.message);
}

void pyg_tree_device_arrays(const pyg_tree *tree, uintptr_t *u, uintptr_t *v, uintptr_t *w, int *device)
{
    const gridemst_device_edges *d = &tree->result.device_edges;
    *u = (uintptr_t)d->u;
    *v = (uintptr_t)d->v;
    *w = (uintptr_t)d->w;
    *device = d->device;
}

int pyg_tree_shares(const pyg_tree *tree) { return gridemst_result_device_shares(&tree->result); }

void pyg_tree_share(const pyg_tree *tree, int k, uintptr_t *u, uintptr_t *v, uintptr_t *w, int *device,
                    int64_t *first, int64_t *count)
{
    gridemst_device_edges d;
    /* it fails for a k out of range only, which the caller does not ask */
    (void)gridemst_result_device_share(&tree->result, k, &d, first, count);
    *u = (uintptr_t)d.u;
    *v = (uintptr_t)d.v;
    *w = (uintptr_t)d.w;
    *device = d.device;
}

const char *pyg_library_version(void) { return gridemst_version(); }
int pyg_cuda_device_count(void) { return gridemst_cuda_device_count(); }
