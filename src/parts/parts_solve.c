/* The partitioned solve (parts.h): its steps in order, their statistics,
 * and the whole set's tree. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "host_array.h"
#include "parts/device_assemble.h"
#include "parts/device_gaps.h"
#include "parts/devices.h"
#include "parts/halo.h"
#include "parts/merge_edges.h"
#include "parts/store.h"
#include "result_edges.h"

void gemst_part_free(gemst_part *part)
{
    void *arrays[] = {part->id,       part->coords,         part->w,        part->tree,       part->gap,
                      part->safe,     part->uncertain,      part->comp,     part->by_gap,     part->comp_gap,
                      part->by_key,   part->uncertain_edge, part->cell_start, part->cell_key, part->cell_of,
                      part->cell_box, part->cell_rho,       part->halo,     part->cell_sent};
    gemst_halo_free(part->halo);
    gemst_store_free(part->store);
    gemst_part_free_on_device(part);
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    memset(part, 0, sizeof *part);
}

void gemst_part_free_on_device(gemst_part *part)
{
    gemst_device_gaps_free(part->on_device);
    part->on_device = NULL;
}

/* The whole set's tree: every part's safe edges, in its tree's order and
 * renumbered here in ids of the whole set (the parts' trees are not read
 * in their own numbering after this), and the boundary's edges (sorted
 * here), merged in the edge order into *tree. */
static int merge_trees(const gemst_parts_ctx *c, gemst_part *parts, gemst_parts_edge *boundary, int64_t n_boundary,
                       gemst_tree *tree, gridemst_error *err)
{
    gemst_edge_list list[GEMST_MAX_PARTS + 1];
    int64_t m = n_boundary, merged = 0;
    for (int p = 0; p < c->parts; p++) {
        gemst_parts_edges_in_ids(parts[p].tree, parts[p].n_tree, parts[p].id, gemst_parts_threads(c, parts[p].n_tree));
        list[p] = (gemst_edge_list){parts[p].tree, parts[p].n_tree, parts[p].safe};
        m += parts[p].n_tree - parts[p].n_uncertain;
    }
    if (m != c->pb->n - 1)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the partitioned solve found %lld edges for %lld points",
                          (long long)m, (long long)c->pb->n);
    gemst_parts_sort_edges(boundary, n_boundary);
    list[c->parts] = (gemst_edge_list){boundary, n_boundary, NULL};
    tree->lo = gemst_host_array(sizeof *tree->lo * (size_t)m);
    tree->hi = gemst_host_array(sizeof *tree->hi * (size_t)m);
    tree->d2 = gemst_host_array(sizeof *tree->d2 * (size_t)m);
    if (!tree->lo || !tree->hi || !tree->d2 ||
        gemst_parts_merge_edges(list, c->parts + 1, gemst_parts_threads(c, m), tree->lo, tree->hi, tree->d2,
                                &merged) != 0) {
        gemst_tree_free(tree);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a tree of %lld edges", (long long)m);
    }
    if (merged != m) {
        gemst_tree_free(tree);
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the partitioned solve kept %lld of its %lld edges",
                          (long long)merged, (long long)m);
    }
    tree->n_edges = m;
    tree->scale = c->frame.scale;
    return GRIDEMST_OK;
}

/* The same from the boundary's edges in ids of the whole set: ids of 32
 * bits, as the tree's, for the host puts together trees of up to
 * GEMST_MAX_POINTS points. */
static int assemble(const gemst_parts_ctx *c, gemst_part *parts, const gemst_gid_edge *boundary_ids,
                    int64_t n_boundary, gemst_tree *tree, gridemst_error *err)
{
    if (c->pb->n > GEMST_MAX_POINTS)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED,
                          "the tree of %lld points is put together on the devices only (not with "
                          "GRIDEMST_SAFE_EDGES=kruskal)",
                          (long long)c->pb->n);
    gemst_parts_edge *boundary = malloc(sizeof *boundary * (size_t)(n_boundary > 0 ? n_boundary : 1));
    if (!boundary)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld edges", (long long)n_boundary);
    for (int64_t k = 0; k < n_boundary; k++)
        boundary[k] = (gemst_parts_edge){boundary_ids[k].d2, (uint32_t)boundary_ids[k].lo,
                                         (uint32_t)boundary_ids[k].hi};
    const int rc = merge_trees(c, parts, boundary, n_boundary, tree, err);
    free(boundary);
    return rc;
}

/* The same on the devices (device_assemble.h), where the parts' trees
 * stayed; a device result stays there. */
static int assemble_on_devices(const gemst_parts_ctx *c, const gemst_gid_edge *boundary, int64_t n_boundary,
                               gemst_tree *tree, gridemst_error *err)
{
    const int keep = c->pb->opt.result == GRIDEMST_RESULT_DEVICE;
    const int rc = gemst_devices_assemble(c->xchg.devices, boundary, n_boundary, c->pb->n, c->frame.scale,
                                          c->threads, keep, tree, err);
    tree->scale = c->frame.scale;
    return rc;
}

/* A device result whose tree the host put together (no part kept a tree
 * on its device): finished in host memory, then put on the devices. */
static int shares_from_host(const gemst_parts_ctx *c, gemst_tree *tree, gridemst_error *err)
{
    const int rc = gemst_finish_host_tree(tree, c->threads, err);
    return rc == GRIDEMST_OK ? gemst_devices_share_edges(c->xchg.devices, tree, err) : rc;
}

/* *most = ms where ms is more. */
static void slowest(double *most, double ms)
{
    *most = ms > *most ? ms : *most;
}

static int contract_part(const gemst_parts_ctx *c, int p, void *parts, gridemst_error *err)
{
    return gemst_part_contract(c, p, &((gemst_part *)parts)[p], err);
}

/* Steps 3 and 4: each part's tree and its safe edges. */
static int local_steps(gemst_parts_ctx *c, gemst_part *parts, gridemst_stats *st, int64_t *components,
                       gridemst_error *err)
{
    gridemst_partition_stats *ps = &st->partitions;
    int rc = GRIDEMST_OK;
    double t0 = gemst_now_ms();
    rc = gemst_parts_local_trees(c, parts, st, err);
    ps->local_ms = gemst_now_ms() - t0;
    t0 = gemst_now_ms();
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_each(c, contract_part, parts, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_number_components(c, parts, components, err);
    ps->contract_ms = gemst_now_ms() - t0;
    for (int p = 0; p < c->parts && rc == GRIDEMST_OK; p++) {
        const gemst_part *part = &parts[p];
        ps->uncertain_edges += part->n_uncertain;
        ps->safe_edges += part->n_tree - part->n_uncertain;
        /* the parts contract at once: the slowest part's sub-steps are what the solve waits for */
        slowest(&ps->gaps_ms, part->gaps_ms);
        slowest(&ps->gaps_alloc_ms, part->gaps_alloc_ms);
        slowest(&ps->gaps_device_ms, part->gaps_device_ms);
        slowest(&ps->gaps_copy_ms, part->gaps_copy_ms);
        slowest(&ps->safe_ms, part->safe_ms);
        slowest(&ps->components_ms, part->components_ms);
        slowest(&ps->contract_copy_ms, part->contract_copy_ms);
    }
    ps->components = *components;
    return rc;
}

void gemst_parts_ctx_init(gemst_parts_ctx *c, const gemst_problem *pb)
{
    memset(c, 0, sizeof *c);
    c->pb = pb;
    c->parts = pb->opt.partitions;
    c->threads = pb->opt.threads;
#ifdef _OPENMP
    if (c->threads <= 0)
        c->threads = omp_get_max_threads();
#else
    c->threads = 1;
#endif
    c->metric = (gemst_parts_metric){pb->dim, pb->opt.precision == GRIDEMST_PRECISION_DOUBLE};
    c->xchg.parts = c->parts;
}

int gemst_parts_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *st, gridemst_error *err)
{
    gemst_parts_ctx c;
    gemst_parts_ctx_init(&c, pb);
    gridemst_partition_stats *ps = &st->partitions;
    ps->parts = c.parts;
    st->n_unique = 0; /* the parts' solves add theirs */
    st->late_bvh_iteration = -1;
    gemst_part *parts = calloc((size_t)c.parts, sizeof *parts);
    if (!parts)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    int rc = GRIDEMST_OK;
    double t0 = gemst_now_ms();
    if (pb->opt.n_devices > 1) {
        rc = gemst_devices_open(pb->opt.devices, pb->opt.n_devices, &c.xchg.devices, err);
        if (rc == GRIDEMST_OK)
            gemst_devices_name(c.xchg.devices, st->device_name, sizeof st->device_name);
    }
    st->partition_devices_ms = gemst_now_ms() - t0;

    t0 = gemst_now_ms();
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_frame(&c, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_choose_index(&c, st, err);
    ps->frame_ms = gemst_now_ms() - t0;
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_split(&c, parts, ps, err);
    ps->partition_ms = gemst_now_ms() - t0;
    /* After the slices' copies to the devices: the tree's host array is
     * touched and registered on threads of its own, which would take cores
     * and the driver's locks from the copies. */
    if (rc == GRIDEMST_OK && c.xchg.devices && pb->opt.result == GRIDEMST_RESULT_HOST)
        gemst_devices_ready_tree(c.xchg.devices, pb->n - 1, c.threads);
    if (rc == GRIDEMST_OK) {
        ps->smallest_part = pb->n;
        for (int p = 0; p < c.parts; p++) {
            ps->largest_part = parts[p].n > ps->largest_part ? parts[p].n : ps->largest_part;
            ps->smallest_part = parts[p].n < ps->smallest_part ? parts[p].n : ps->smallest_part;
        }
        rc = ps->largest_part <= GEMST_MAX_POINTS
                 ? gemst_progress(&pb->opt, "partition", 0, c.parts, err)
                 : gemst_fail(err, GRIDEMST_ERR_INPUT,
                              "a part holds %lld points, more than a part's solve takes (%lld): equal points pile up "
                              "in one part",
                              (long long)ps->largest_part, (long long)GEMST_MAX_POINTS);
    }

    int64_t components = 0;
    if (rc == GRIDEMST_OK)
        rc = local_steps(&c, parts, st, &components, err);
    gemst_gid_edge *boundary = NULL;
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_boundary(&c, parts, components, &boundary, st, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_progress(&pb->opt, "edges", ps->iterations, 1, err);
    int on_devices = 0; /* the parts' trees stayed on their devices */
    for (int p = 0; p < c.parts; p++)
        on_devices |= parts[p].device_tree != NULL;
    if (rc == GRIDEMST_OK) {
        t0 = gemst_now_ms();
        rc = on_devices ? assemble_on_devices(&c, boundary, components - 1, tree, err)
                        : assemble(&c, parts, boundary, components - 1, tree, err);
        if (rc == GRIDEMST_OK && !on_devices && c.xchg.devices && pb->opt.result == GRIDEMST_RESULT_DEVICE)
            rc = shares_from_host(&c, tree, err);
        ps->merge_ms += gemst_now_ms() - t0;
    }
    ps->exchanged_bytes = c.xchg.bytes;
    t0 = gemst_now_ms();
    for (int p = 0; p < c.parts; p++) /* where the boundary did not end: before the devices' contexts */
        gemst_part_free_on_device(&parts[p]);
    gemst_devices_close(c.xchg.devices);
    st->partition_devices_ms += gemst_now_ms() - t0;
    free(boundary);
    t0 = gemst_now_ms();
    for (int p = 0; p < c.parts; p++)
        gemst_part_free(&parts[p]);
    free(parts);
    ps->free_ms = gemst_now_ms() - t0;
    return rc;
}
