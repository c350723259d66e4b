/*
 * The CUDA backend's friends-of-friends, precision-generic: included by
 * cuda_fof_f32.cu and cuda_fof_f64.cu after GEMST_REAL_IS_DOUBLE is set.
 *
 * The groups are the components of the pairs of friends: squared working
 * distance <= t, in the CPU backend's working frame and arithmetic
 * (fof/fof_grid.h, fof/fof_plan.h), so that both backends see the same
 * pairs.  The CPU runs Boruvka over them for the minimum spanning forest;
 * here a union-find joins them, and no forest is made:
 *   1. each point's working coordinates and top cell (fof_plan.h: cells no
 *      narrower than the linking length), and the points per top cell;
 *   2. crowded top cells split into sub-cells: of about the planned
 *      occupancy, or where that is finer or they would number only a few
 *      per point, "tight" ones, whose diagonal is shorter than the linking
 *      length by a margin for rounding, so that all their points are
 *      friends of each other;
 *   3. the points sorted by leaf (CUB radix sort) and the leaf table;
 *   4. union-find: every point's parent is the first point of its leaf when
 *      the leaf is tight (already one tree), else itself; then each point
 *      tests the points of the leaves within reach, its own leaf and those
 *      after it (each pair once), and joins its friends' trees, lock-free,
 *      hooking the larger root under the smaller: a tree's root ends up its
 *      smallest point whatever the order of the unions.  In a tight leaf a
 *      point stops at its first friend, and skips the leaf when it is in
 *      the same tree already;
 *   5. labels numbered in the order of each group's smallest caller id, as
 *      gemst_label_components numbers the CPU backend's (groups of fewer
 *      than min_size points -1): the same labels on both backends.
 */
#include "backend.h"
#include "context.h"
#include "cuda/cuda_fof_kernels.cuh"
#include "cuda/cuda_input.cuh"

#define fof_gpu GEMST_FN(fof_gpu)
typedef struct {
    const gemst_fof_problem *fp;
    int64_t min_size;
    cudaStream_t s;
    gemst_dmem mem;
    gemst_fof_plan plan;
    fof_split_rule rule;
    fof_dev dv;
    uint32_t n, leaves;
} fof_gpu;

/* CUB's two-call pattern with scratch from the pool, given back at once. */
#define GEMST_FOF_CUB(c, call_with_temp)                                                                          \
    do {                                                                                                          \
        void *temp = NULL;                                                                                        \
        size_t temp_bytes = 0;                                                                                    \
        GEMST_CU(call_with_temp);                                                                                 \
        GEMST_TRY(gemst_dalloc(&(c)->mem, &temp, temp_bytes, "friends-of-friends scratch", err));                \
        GEMST_CU(call_with_temp);                                                                                 \
        gemst_dfree(&(c)->mem, temp);                                                                             \
    } while (0)

/* The fewest sub-cells per axis that make a top cell's sub-cells tight:
 * per axis a sub-cell's side, widened by a relative 2^-20 and 16 units in
 * the last place of 1 (working coordinates lie below 1) for the rounding
 * of the points' sub-cells, squared and summed, stays below t less
 * 2^-10 of it, so that no rounding of a squared distance reaches t.  0 when
 * none up to GEMST_FOF_MAX_SPLIT is. */
static int GEMST_FN(fof_tight_split)(const gemst_fof_plan *plan)
{
    const double ulp = GEMST_REAL_IS_DOUBLE ? 0x1p-52 : 0x1p-23, limit = plan->t * (1.0 - 0x1p-10);
    for (int m = 2; m <= GEMST_FOF_MAX_SPLIT; m++) {
        double diag2 = 0.0;
        for (int d = 0; d < plan->dim; d++) {
            const double side = plan->L[d] / m * (1.0 + 0x1p-20) + 32.0 * ulp;
            diag2 += side * side;
        }
        if (diag2 <= limit)
            return m;
    }
    return 0;
}

/* Frame, linking length and plan, as the CPU backend makes them
 * (cpu_fof.inc), and the split rule. */
template <typename T>
static int GEMST_FN(fof_plan)(fof_gpu *c, const T *coords, gridemst_error *err)
{
    const gemst_fof_problem *fp = c->fp;
    const gemst_problem *pb = &fp->pb;
    fof_dev *dv = &c->dv;
    gemst_fof_grid *g = &dv->g;
    double lo[3], hi[3];
    GEMST_TRY(gemst_cuda_bbox<T>(&c->mem, c->s, coords, pb->n, pb->dim, lo, hi, err));
    GEMST_TRY(fp->box ? gemst_fof_box_frame(pb->dim, fp->box, &dv->f, err)
                      : gemst_frame_make(pb->dim, lo, hi, 0, &dv->f, err));
    double box_w[3] = {0, 0, 0};
    g->dim = pb->dim;
    g->periodic = dv->periodic = fp->box != NULL;
    for (int d = 0; g->periodic && d < pb->dim; d++) {
        dv->box[d] = fp->box[d];
        g->box[d] = (gemst_real)(fp->box[d] * dv->f.scale);
        box_w[d] = (double)g->box[d];
    }
    const double t = gemst_fof_threshold2(fp->linking_length, dv->f.scale, GEMST_REAL_IS_DOUBLE);
    gemst_fof_plan_make(&dv->f, pb->n, t, g->periodic ? box_w : NULL, GEMST_REAL_IS_DOUBLE, pb->opt.tuning.cell_occupancy,
                        &c->plan);
    for (int d = 0; d < 3; d++) {
        g->nc[d] = c->plan.nc[d];
        g->L[d] = (gemst_real)c->plan.L[d];
        g->inv_L[d] = (gemst_real)(1.0 / (double)g->L[d]);
    }
    g->t = (gemst_real)t;
    g->slack = (gemst_real)(16.0 * (GEMST_REAL_IS_DOUBLE ? 0x1p-52 : 0x1p-23));
    dv->reach = (gemst_real)(c->plan.min_side * (1.0 + 0x1p-10));
    if (c->plan.cells >= (uint64_t)UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "grid of %llu cells exceeds 32-bit cell indices",
                          (unsigned long long)c->plan.cells);
    c->rule.can_split = 1;
    for (int d = 0; d < pb->dim; d++)
        c->rule.can_split &= !(g->periodic && g->nc[d] <= 2);
    c->rule.m_tight = GEMST_FN(fof_tight_split)(&c->plan);
    c->rule.tight_leaves = pow((double)c->rule.m_tight, pb->dim);
    c->rule.occupancy = c->plan.occupancy;
    c->rule.dim = pb->dim;
    return GRIDEMST_OK;
}

/* The top cells, their splits and leaf numbers (leaf_of), and each caller
 * point's leaf in key. */
template <typename T>
static int GEMST_FN(fof_leaves)(fof_gpu *c, const T *coords, uint32_t *key, uint32_t *val, gridemst_error *err)
{
    fof_dev *dv = &c->dv;
    const uint32_t n = c->n, cells = (uint32_t)c->plan.cells;
    uint32_t *leaf_of;
    uint8_t *split, *tight;
    unsigned long long *extra, extra_h = 0;
    GEMST_DALLOC(&c->mem, leaf_of, (size_t)cells + 1, "the cell table");
    GEMST_DALLOC(&c->mem, split, cells, "the cell table");
    GEMST_DALLOC(&c->mem, tight, cells, "the cell table");
    GEMST_DALLOC(&c->mem, extra, 1, "the cell table");
    GEMST_CU(cudaMemsetAsync(leaf_of, 0, sizeof *leaf_of * ((size_t)cells + 1), c->s));
    GEMST_CU(cudaMemsetAsync(extra, 0, sizeof *extra, c->s));
    GEMST_FN(k_fof_top)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, key, leaf_of);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_split)<<<gemst_blocks(cells), GEMST_THREADS, 0, c->s>>>(c->rule, cells, leaf_of, split, tight,
                                                                           extra);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(&extra_h, extra, sizeof extra_h, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if ((uint64_t)cells + extra_h >= UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "grid of more than 2^32 leaf cells");
    c->leaves = (uint32_t)(cells + extra_h);
    GEMST_FOF_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, leaf_of, leaf_of, cells + 1, c->s));
    dv->g.leaf_of = leaf_of;
    dv->g.split = split;
    dv->tight = tight;
    GEMST_FN(k_fof_leaf_keys)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, key, val);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/*
 * The grid in leaf order: the caller's points sorted by leaf, their
 * working coordinates, the leaf table (leaf_start[k]: the first point of
 * a leaf >= k), and the union-find's first parents.
 */
template <typename T>
static int GEMST_FN(fof_build)(fof_gpu *c, const T *coords, gridemst_error *err)
{
    fof_dev *dv = &c->dv;
    const uint32_t n = c->n;
    uint32_t *key, *val, *leaf, *oid, *leaf_start;
    GEMST_TRY(GEMST_FN(fof_plan)<T>(c, coords, err));
    GEMST_DALLOC(&c->mem, key, n, "the sort by cell");
    GEMST_DALLOC(&c->mem, val, n, "the sort by cell");
    GEMST_TRY(GEMST_FN(fof_leaves)<T>(c, coords, key, val, err));
    GEMST_DALLOC(&c->mem, leaf, n, "the sort by cell");
    GEMST_DALLOC(&c->mem, oid, n, "the sort by cell");
    int end_bit = 1;
    while (end_bit < 32 && (c->leaves - 1) >> end_bit)
        end_bit++;
    GEMST_FOF_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, leaf, val, oid, n, 0, end_bit, c->s));
    gemst_dfree(&c->mem, key);
    gemst_dfree(&c->mem, val);
    GEMST_DALLOC(&c->mem, leaf_start, (size_t)c->leaves + 1, "the leaf table");
    GEMST_CU(cudaMemsetAsync(leaf_start, 0, sizeof *leaf_start * ((size_t)c->leaves + 1), c->s));
    GEMST_FN(k_cell_ends)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(leaf, n, leaf_start);
    GEMST_LAUNCHED();
    GEMST_FOF_CUB(c, cub::DeviceScan::InclusiveScan(temp, temp_bytes, leaf_start + 1, leaf_start + 1,
                                                    cuda::maximum<uint32_t>{}, c->leaves, c->s));
    gemst_real *axis[3] = {NULL, NULL, NULL};
    for (int d = 0; d < dv->g.dim; d++)
        GEMST_DALLOC(&c->mem, axis[d], n, "working coordinates");
    GEMST_DALLOC(&c->mem, dv->parent, n, "the union-find");
    dv->g.n = n;
    dv->g.leaf_start = leaf_start;
    dv->g.oid = oid;
    dv->leaf = leaf;
    GEMST_FN(k_fof_gather)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, axis[0], axis[1],
                                                                           axis[2]);
    GEMST_LAUNCHED();
    dv->g.x = axis[0];
    dv->g.y = axis[1];
    dv->g.z = axis[2];
    return GRIDEMST_OK;
}

/* Labels from the roots (parent after k_fof_flatten), into `labels` on the
 * device (NULL: the count alone); the number of groups into *n_groups. */
static int GEMST_FN(fof_label)(fof_gpu *c, int64_t *labels, int64_t *n_groups, gridemst_error *err)
{
    const uint32_t n = c->n;
    const int64_t min_size = c->min_size;
    uint32_t *first, *size, *number;
    GEMST_DALLOC(&c->mem, first, n, "group labels");
    GEMST_DALLOC(&c->mem, size, n, "group labels");
    GEMST_DALLOC(&c->mem, number, (size_t)n + 1, "group labels");
    GEMST_CU(cudaMemsetAsync(first, 0xff, sizeof *first * n, c->s));
    GEMST_CU(cudaMemsetAsync(size, 0, sizeof *size * n, c->s));
    GEMST_CU(cudaMemsetAsync(number, 0, sizeof *number * ((size_t)n + 1), c->s));
    GEMST_FN(k_fof_groups)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->dv.g.oid, n, first, size);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_numbered)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, first, size, n, min_size,
                                                                          number);
    GEMST_LAUNCHED();
    GEMST_FOF_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, number, number, n + 1, c->s));
    if (labels) {
        GEMST_FN(k_fof_labels)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->dv.g.oid, first, size,
                                                                            number, n, min_size, labels);
        GEMST_LAUNCHED();
    }
    uint32_t groups = 0;
    GEMST_CU(cudaMemcpyAsync(&groups, number + n, sizeof groups, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if (n_groups)
        *n_groups = groups;
    return GRIDEMST_OK;
}

/* Fails unless labels is device or managed memory of `device`. */
static int GEMST_FN(fof_check_labels)(const int64_t *labels, int device, gridemst_error *err)
{
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, labels);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    if (e != cudaSuccess || (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) ||
        (a.type == cudaMemoryTypeDevice && a.device != device))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "labels must be memory of CUDA device %d with a device result", device);
    return GRIDEMST_OK;
}

static int GEMST_FN(fof_run)(fof_gpu *c, int64_t *labels, int64_t *n_groups, gridemst_error *err)
{
    const gemst_problem *pb = &c->fp->pb;
    const int on_device_labels = pb->opt.result == GRIDEMST_RESULT_DEVICE;
    c->n = (uint32_t)pb->n;
    if (labels && on_device_labels)
        GEMST_TRY(GEMST_FN(fof_check_labels)(labels, pb->opt.device, err));
    const void *coords;
    void *uploaded;
    GEMST_TRY(gemst_input_on_device(&c->mem, pb, &coords, &uploaded, err));
    if (pb->dtype == GRIDEMST_FLOAT32)
        GEMST_TRY(GEMST_FN(fof_build)<float>(c, (const float *)coords, err));
    else
        GEMST_TRY(GEMST_FN(fof_build)<double>(c, (const double *)coords, err));
    gemst_dfree(&c->mem, uploaded);
    if (pb->opt.progress)
        pb->opt.progress(pb->opt.progress_ctx, "grid", 0, c->n);
    GEMST_FN(k_fof_link)<<<gemst_blocks(c->n), GEMST_THREADS, 0, c->s>>>(c->dv, c->n);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_flatten)<<<gemst_blocks(c->n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->n);
    GEMST_LAUNCHED();
    int64_t *d_labels = on_device_labels ? labels : NULL;
    if (labels && !on_device_labels)
        GEMST_DALLOC(&c->mem, d_labels, c->n, "the labels");
    GEMST_TRY(GEMST_FN(fof_label)(c, d_labels, n_groups, err));
    if (labels && !on_device_labels) {
        GEMST_CU(cudaMemcpyAsync(labels, d_labels, sizeof *labels * c->n, cudaMemcpyDeviceToHost, c->s));
        GEMST_CU(cudaStreamSynchronize(c->s));
    }
    return GRIDEMST_OK;
}

/* Friends-of-friends on the problem's context (fp->pb.ctx): labels into
 * host memory, or device memory with a device result; the device's work
 * is done when it returns. */
extern "C" int GEMST_FN(gemst_cuda_fof)(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels,
                                       int64_t *n_groups, gridemst_error *err)
{
    gridemst_context *ctx = fp->pb.ctx;
    int previous = 0;
    GEMST_CU(cudaGetDevice(&previous));
    /* from here on every return goes through the cudaSetDevice(previous) below */
    GEMST_CU(cudaSetDevice(ctx->device));
    fof_gpu c;
    memset(&c, 0, sizeof c);
    c.fp = fp;
    c.min_size = min_size;
    c.s = (cudaStream_t)ctx->stream;
    gemst_dmem_init(&c.mem, (cudaMemPool_t)ctx->pool, c.s);
    int rc = GEMST_FN(fof_run)(&c, labels, n_groups, err);
    cudaStreamSynchronize(c.s);
    gemst_dfree_all(&c.mem);
    cudaSetDevice(previous);
    return rc;
}
