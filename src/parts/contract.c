/*
 * Step 4 of a partitioned solve: the local tree's edges that belong to the
 * whole set's tree for certain.
 *
 * Kruskal over the part's tree, in the edge order, grows the components of
 * its edges so far (in parallel batches: safe_edges.h).  Every edge from a
 * point q of the part to another part is at least as long as q's gap:
 * the distance from q to the other parts' regions (region.h), rounded
 * down as the solver's arithmetic may round (working.h).  When the tree
 * edge e joins components S1 and S2 and e is shorter than the smallest
 * gap in S2 (or in S1), e is the shortest edge leaving S2 in the whole
 * set: the part's edges leaving S2 are no shorter (Kruskal's order), the
 * edges to other parts longer.  By the cut
 * property e is then in the whole set's tree: a safe edge.  The others are
 * uncertain and go to step 5.  The safe edges join the part's points into
 * safe components, step 5's vertices.
 *
 * The gaps come cell by cell (parts/gap.h, parts/gaps.c): runs of the
 * part's points in Morton order at one level, whose boxes also carry the
 * halo's reach in step 5 (requests.h).  A part on a device computes them
 * there (parts/device_gaps.h).
 *
 * Two rules mark the same safe edges: Kruskal's test above (in batches on
 * the host's threads, safe_edges.c), and Boruvka rounds over the tree
 * (safe_rounds.c): each component of the edges marked so far marks its
 * least incident tree edge when that edge is shorter than the component's
 * smallest gap (rounded down), until none does.  The rounds run on the
 * part's device where it has one, with the components and the uncertain
 * edges' list (parts/device_contract.h), reading the part's tree where its
 * solve left it on a device of a solve over several GPUs, and leaving the
 * marks there for the tree's assembly (parts/device_assemble.h); on the
 * host they are the serial reference.  GRIDEMST_SAFE_EDGES=kruskal|rounds
 * in the environment picks the rule; by default Kruskal's on the host's
 * parts, the rounds on devices.  With the rounds on a device, the points'
 * arrays stay there (part->on_device) for the boundary's store, which
 * takes only its points to host memory (device_store.h); with Kruskal's
 * they come to the host, with the part's ids and tree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "host_array.h"
#include "parts/device_assemble.h"
#include "parts/device_contract.h"
#include "parts/device_gaps.h"
#include "parts/device_store.h"
#include "parts/devices.h"
#include "parts/positions.h"
#include "parts/safe_edges.h"

/* An uncertain edge. */
static int uncertain(const void *safe, int64_t k)
{
    return !((const uint8_t *)safe)[k];
}

/* The uncertain edges' positions, and each safe component's smallest gap. */
static int list_uncertain_and_gaps(const gemst_parts_ctx *c, gemst_part *part, gridemst_error *err)
{
    const int64_t n = part->n, m = part->n_tree;
    int rc = gemst_parts_positions(m, uncertain, part->safe, gemst_parts_threads(c, m), part->uncertain,
                                   &part->n_uncertain, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const int64_t room = part->n_uncertain > 0 ? part->n_uncertain : 1;
    part->uncertain_edge = malloc(sizeof *part->uncertain_edge * (size_t)room);
    if (!part->uncertain_edge)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory contracting a part of %lld points",
                          (long long)n);
    for (int64_t k = 0; k < part->n_uncertain; k++)
        part->uncertain_edge[k] = part->tree[part->uncertain[k]];
    part->median_d2 = m > 0 ? part->tree[m / 2].d2 : 0.0;
    uint64_t *least = malloc(sizeof *least * (part->n_comp > 0 ? part->n_comp : 1));
    part->comp_gap = malloc(sizeof *part->comp_gap * (part->n_comp > 0 ? part->n_comp : 1));
    if (!least || !part->comp_gap) {
        free(least);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory contracting a part of %lld points",
                          (long long)n);
    }
    const double none = INFINITY;
    for (uint32_t k = 0; k < part->n_comp; k++)
        memcpy(&least[k], &none, sizeof least[k]);
#pragma omp parallel for num_threads(gemst_parts_threads(c, n)) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits; /* non-negative doubles order as their bits */
        memcpy(&bits, &part->gap[i], sizeof bits);
        gemst_atomic_min_u64(&least[part->comp[i]], bits);
    }
    memcpy(part->comp_gap, least, sizeof *least * part->n_comp);
    free(least);
    return GRIDEMST_OK;
}

/* The rule of the safe edges: 1 for the rounds, 0 for Kruskal's. */
static int rounds_rule(int on_device, int *rounds, gridemst_error *err)
{
    const char *v = getenv("GRIDEMST_SAFE_EDGES");
    if (!v || !*v)
        *rounds = on_device;
    else if (strcmp(v, "kruskal") == 0 || strcmp(v, "rounds") == 0)
        *rounds = v[0] == 'r';
    else
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "GRIDEMST_SAFE_EDGES is \"%.64s\": kruskal or rounds",
                          v);
    return GRIDEMST_OK;
}

/* The arrays of the safe edges and components (safe, comp: 1, each
 * edge's mark, each point's component in host memory; 0, where they stay
 * on the device). */
static int contraction_arrays(gemst_part *part, int safe, int comp, gridemst_error *err)
{
    const int64_t n = part->n, m = part->n_tree;
    part->safe = safe ? gemst_host_array((size_t)(m > 0 ? m : 1)) : NULL;
    part->uncertain = gemst_host_array(sizeof *part->uncertain * (size_t)(m > 0 ? m : 1));
    part->comp = comp ? gemst_host_array(sizeof *part->comp * (size_t)n) : NULL;
    if ((safe && !part->safe) || !part->uncertain || (comp && !part->comp))
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory contracting a part of %lld points",
                          (long long)n);
    return GRIDEMST_OK;
}

/* After the gaps, on the host: the lows, the safe edges by either rule,
 * the components, the uncertain edges and the components' gaps (low: n
 * entries of scratch). */
static int contract_on_host(const gemst_parts_ctx *c, gemst_part *part, int rounds, double *low, gridemst_error *err)
{
    const int64_t n = part->n, m = part->n_tree;
    double t0 = gemst_now_ms();
    int rc = contraction_arrays(part, 1, 1, err);
    const int threads = gemst_parts_threads(c, n);
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; i++)
            low[i] = gemst_parts_lower(part->gap[i]);
        rc = rounds ? gemst_safe_edges_rounds(part->tree, m, low, n, part->safe, err)
                    : gemst_safe_edges(part->tree, m, low, n, threads, part->safe, err);
    }
    part->safe_ms = gemst_now_ms() - t0;
    t0 = gemst_now_ms();
    if (rc == GRIDEMST_OK)
        rc = gemst_safe_components(part->tree, m, part->safe, n, threads, part->comp, &part->n_comp, err);
    if (rc == GRIDEMST_OK)
        rc = list_uncertain_and_gaps(c, part, err);
    part->components_ms = gemst_now_ms() - t0;
    return rc;
}

/* After the gaps, on ctx's device, from the gaps left there (g), the
 * components left there too, and the marks with the tree where it stays
 * on the device (part p's of c's devices). */
static int contract_on_device(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_context *ctx,
                              gemst_device_gaps *g, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    uint8_t *marks = NULL;
    int rc = contraction_arrays(part, !part->device_tree, 0, err);
    if (rc == GRIDEMST_OK && part->device_tree)
        rc = gemst_devices_tree_marks(c->xchg.devices, p, &marks, err);
    const double alloc_ms = gemst_now_ms() - t0;
    const gemst_contract_task task = {part->tree,
                                      part->n_tree,
                                      gemst_device_gaps_gap(g),
                                      gemst_device_gaps_comp(g),
                                      part->n,
                                      gemst_parts_threads(c, part->n),
                                      part->device_tree,
                                      marks,
                                      gemst_device_gaps_by_key(g)};
    gemst_contract_out out = {part->safe, part->comp, part->uncertain, 0, 0, NULL, NULL, 0.0};
    gemst_contract_times times = {0, 0, 0, 0};
    if (rc == GRIDEMST_OK)
        rc = gemst_device_contract(ctx, &task, &out, &times, err);
    gemst_device_gaps_drop_by_key(g);
    part->n_uncertain = out.n_uncertain;
    part->n_comp = out.n_comp;
    part->comp_gap = out.comp_gap;
    part->uncertain_edge = out.uncertain_edge;
    part->median_d2 = out.median_d2;
    part->safe_ms = times.safe_ms;
    part->components_ms = alloc_ms + times.components_ms;
    part->contract_copy_ms = times.copy_ms;
    return rc;
}

/* Part p's ids, and its tree where its solve left it on its device,
 * copied to host memory. */
static int to_host(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err)
{
    const int rc = gemst_parts_ids_to_host(c, p, part, err);
    if (rc != GRIDEMST_OK || !part->device_tree)
        return rc;
    part->tree = gemst_host_array(sizeof *part->tree * (size_t)(part->n_tree > 0 ? part->n_tree : 1));
    if (!part->tree)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a part's tree of %lld edges",
                          (long long)part->n_tree);
    part->device_tree = NULL;
    return gemst_devices_tree_to_host(c->xchg.devices, p, part->tree, gemst_parts_threads(c, part->n_tree), err);
}

int gemst_part_contract(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err)
{
    /* the gaps on the part's device where it has one, from its points there */
    gridemst_context *ctx = c->xchg.devices ? gemst_devices_context(c->xchg.devices, p) : NULL;
    const void *on_device = c->xchg.devices ? gemst_devices_part_coords(c->xchg.devices, p) : NULL;
    return gemst_part_contract_on(c, p, part, ctx, on_device, err);
}

int gemst_part_contract_on(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_context *ctx,
                           const void *device_coords, gridemst_error *err)
{
    const int64_t n = part->n;
    if (n == 0)
        return GRIDEMST_OK;
    int rounds = 0;
    int rc = rounds_rule(ctx != NULL, &rounds, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const int device_rounds = ctx && rounds;
    if (!device_rounds && c->xchg.devices) /* Kruskal's test, the store and the assembly read them on the host */
        rc = to_host(c, p, part, err);
    if (rc != GRIDEMST_OK)
        return rc;
    double t0 = gemst_now_ms();
    /* scratch on the host: the keys of the sorts and their second halves, then each point's gap rounded down */
    uint64_t *key = device_rounds ? NULL : gemst_host_array(sizeof *key * 2 * (size_t)n);
    uint32_t *tmp = device_rounds ? NULL : gemst_host_array(sizeof *tmp * (size_t)n);
    gemst_device_gaps *g = NULL;
    if (device_rounds || (key && tmp))
        rc = gemst_part_gaps(c, p, part, ctx, device_coords, key, tmp, device_rounds ? &g : NULL, err);
    else
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points", (long long)n);
    free(tmp);
    part->gaps_ms = gemst_now_ms() - t0;
    if (rc == GRIDEMST_OK)
        rc = device_rounds ? contract_on_device(c, p, part, ctx, g, err)
                           : contract_on_host(c, part, rounds, (double *)key, err);
    if (rc == GRIDEMST_OK && g && c->xchg.devices) /* the part's ids too, where the partition left them */
        gemst_device_store_use_ids(g, gemst_devices_part_places(c->xchg.devices, p),
                                   gemst_devices_part_runs(c->xchg.devices, p));
    if (rc == GRIDEMST_OK && g)
        part->on_device = g; /* the points' arrays, for the boundary's store */
    else
        gemst_device_gaps_free(g);
    free(key);
    /* read by nothing after: the points' own coordinates (w holds them as the solve does), and the points by
     * cell (the boundary's answers index the points of its store) */
    free(part->coords);
    free(part->by_key);
    free(part->cell_start);
    part->coords = NULL;
    part->by_key = NULL;
    part->cell_start = NULL;
    return rc;
}

int gemst_parts_number_components(gemst_parts_ctx *c, gemst_part *parts, int64_t *components, gridemst_error *err)
{
    const int P = c->parts;
    const void *send[GEMST_MAX_PARTS] = {0};
    int64_t count[GEMST_MAX_PARTS] = {0};
    for (int p = 0; p < P; p++) {
        send[p] = &parts[p].n_comp;
        count[p] = 1;
    }
    uint32_t *n_comp;
    int64_t got;
    int rc = gemst_xchg_allgather(&c->xchg, send, count, sizeof *n_comp, (void **)&n_comp, &got, err);
    if (rc != GRIDEMST_OK)
        return rc;
    int64_t offset = 0;
    for (int p = 0; p < P; p++)
        offset += n_comp[p];
    if (offset > GEMST_MAX_POINTS) { /* numbered in 32 bits, as a part's points */
        free(n_comp);
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED,
                          "the parts' trees leave %lld safe components, more than the boundary numbers (%lld)",
                          (long long)offset, (long long)GEMST_MAX_POINTS);
    }
    offset = 0;
    for (int p = 0; p < P; p++) {
        /* on a device, the store adds comp_base as it gathers the components there */
        const int64_t on_host = parts[p].on_device ? 0 : parts[p].n;
#pragma omp parallel for num_threads(gemst_parts_threads(c, on_host)) schedule(static)
        for (int64_t i = 0; i < on_host; i++)
            parts[p].comp[i] += (uint32_t)offset;
        parts[p].comp_base = (uint32_t)offset;
        offset += n_comp[p];
    }
    free(n_comp);
    *components = offset;
    return GRIDEMST_OK;
}
