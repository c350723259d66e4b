/*
 * A part's contraction on its device (parts/device_contract.h): the safe
 * edges by Boruvka rounds, as parts/safe_rounds.c marks them, then the
 * safe components, their smallest gaps and the uncertain edges' list.
 *
 * The rounds keep a union-find over the part's points whose roots are the
 * components' smallest points (finds halve paths: every value they read or
 * write is an ancestor), and at each root the smallest gap of its component
 * (as bits: non-negative doubles order as their bits).  A round reads only
 * the live edges, the unmarked ones between two components, listed by
 * position: the first round takes most of a part's edges into components,
 * and the later ones then cost what is left.  Each round, every step a
 * kernel over the live edges:
 *
 *   pick     each offers its position to the roots of both its ends (an
 *            atomic minimum: the least incident edge, the tree being in
 *            the edge order);
 *   test     an edge a root picked is marked (NEW) when shorter than that
 *            root's smallest low, gemst_parts_lower of its smallest gap (the
 *            least of the points' lows: the bound is non-decreasing); the
 *            picks and tests read only the round's starting state, as the
 *            host's reference does;
 *   join     each NEW edge joins its ends' components, the larger root
 *            hooked under the smaller by compare-and-swap;
 *   least    each root hooked this round gives its smallest gap to its new
 *            root (an atomic minimum; a root that receives was not hooked);
 *   live     the edges still unmarked and between two components are
 *            listed again (a prefix count).
 *
 * A round that marks nothing ends them, as does one that leaves no live
 * edge: its state is the fixed point, and the marks are the reference's.
 * There are at most ceil(log2 n) + 2 rounds (docs/partitioned.md); a run
 * past them fails instead of looping.  Then every point's root (into
 * another array: a find that halves paths may still write its ancestors
 * into this one), a prefix count of the roots numbers the components in
 * the order of their smallest points, each root's smallest gap becomes its
 * component's, and a prefix count of the uncertain edges lists them in
 * order.
 */
#include <stdlib.h>

#include "context.h"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_download.cuh"
#include "cuda/cuda_parts_steps.cuh"
#include "parts/device_contract.h"
#include "graph/union_find.h"
#include "parts/working.h"

/* An edge's mark: uncertain, safe, or marked in the current round. */
#define UNMARKED 0
#define SAFE 1
#define NEW 2

/* The rounds' state on the device.  A round reads only its live edges:
 * the unmarked edges between two components, listed by position, so that
 * the rounds after the first (which take most edges into components) cost
 * what is left of the tree, not the whole tree. */
typedef struct {
    const gemst_parts_edge *tree; /* m */
    uint8_t *mark;                /* m */
    uint32_t *parent;             /* n: the union-find, its paths halved as it is read */
    uint32_t *pick;               /* n: at a root, its least incident live edge (GEMST_NONE: none) */
    uint64_t *least;              /* n: at a root, its component's smallest gap (bits) */
    uint32_t *live;               /* the live edges' positions (NULL: every edge, in the first round) ... */
    int64_t n_live;
    uint32_t *list[2];            /* n each: ... in one of these, the other the next round's */
    uint32_t *end_lo, *end_hi;    /* per live edge: the roots of its ends at the round's start; then the
                                     flags and ranks that list the next round's live edges */
    int *marked;                  /* 1: the round marked an edge */
} rounds_state;

static __device__ double gap_of_bits(uint64_t bits)
{
    return __longlong_as_double((long long)bits);
}

/* The position of the j-th live edge. */
static __device__ uint32_t live_edge(const uint32_t *live, int64_t j)
{
    return live ? live[j] : (uint32_t)j;
}

static __global__ void k_init(const double *gap, int64_t n, uint32_t *parent, uint64_t *least)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        parent[i] = (uint32_t)i;
        least[i] = (uint64_t)__double_as_longlong(gap[i]);
    }
}

/* Each live edge's ends' roots, and its position offered to both. */
static __global__ void k_pick(const gemst_parts_edge *tree, const uint32_t *live, int64_t count, uint32_t *parent,
                              uint32_t *end_lo, uint32_t *end_hi, uint32_t *pick)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live_edge(live, j);
    const uint32_t a = gemst_uf_find(parent, tree[k].lo), b = gemst_uf_find(parent, tree[k].hi);
    end_lo[j] = a;
    end_hi[j] = b;
    if (a == b) /* not in a forest */
        return;
    atomicMin((unsigned int *)&pick[a], (unsigned int)k);
    atomicMin((unsigned int *)&pick[b], (unsigned int)k);
}

/* A live edge that a root at its end picked is marked (NEW) when shorter
 * than that root's smallest low. */
static __global__ void k_test(const gemst_parts_edge *tree, const uint32_t *live, int64_t count,
                              const uint32_t *end_lo, const uint32_t *end_hi, const uint32_t *pick,
                              const uint64_t *least, uint8_t *mark, int *marked)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live_edge(live, j), end[2] = {end_lo[j], end_hi[j]};
    for (int e = 0; e < 2; e++)
        if (pick[end[e]] == k && tree[k].d2 < gemst_parts_lower(gap_of_bits(least[end[e]]))) {
            mark[k] = NEW; /* both ends' roots may mark it: the same byte */
            *marked = 1;
        }
}

/* Each NEW edge joins its ends' components; every root's pick is cleared
 * for the next round (the tests have read them). */
static __global__ void k_join(const gemst_parts_edge *tree, const uint32_t *live, int64_t count,
                              const uint32_t *end_lo, const uint32_t *end_hi, uint32_t *parent, uint32_t *pick,
                              const uint8_t *mark)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live_edge(live, j);
    pick[end_lo[j]] = GEMST_NONE;
    pick[end_hi[j]] = GEMST_NONE;
    if (mark[k] == NEW)
        gemst_uf_unite(parent, tree[k].lo, tree[k].hi);
}

/* Each NEW edge becomes SAFE, and each root at its ends that the join
 * hooked gives its smallest gap to its new root.  Every root the join
 * hooked is such an end: the roots it finds for a NEW edge's ends are the
 * round's starting roots of NEW edges' ends, or roots they were hooked
 * under. */
static __global__ void k_least(const uint32_t *live, int64_t count, const uint32_t *end_lo, const uint32_t *end_hi,
                               uint32_t *parent, uint64_t *least, uint8_t *mark)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live_edge(live, j);
    if (mark[k] != NEW)
        return;
    mark[k] = SAFE;
    const uint32_t end[2] = {end_lo[j], end_hi[j]};
    for (int e = 0; e < 2; e++)
        if (gemst_load_relaxed(&parent[end[e]]) != end[e]) /* no longer a root: nothing writes its least now */
            atomicMin((unsigned long long *)&least[gemst_uf_find(parent, end[e])], (unsigned long long)least[end[e]]);
}

/* 1 where a live edge stays live: unmarked, between two components. */
static __global__ void k_still_live(const gemst_parts_edge *tree, const uint32_t *live, int64_t count,
                                    uint32_t *parent, const uint8_t *mark, uint32_t *flag)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live_edge(live, j);
    flag[j] = mark[k] == UNMARKED && gemst_uf_find(parent, tree[k].lo) != gemst_uf_find(parent, tree[k].hi);
}

/* The live edges that stay, in order (rank: the flags' inclusive count). */
static __global__ void k_keep_live(const uint32_t *live, int64_t count, const uint32_t *flag, const uint32_t *rank,
                                   uint32_t *out)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count && flag[j])
        out[rank[j] - 1] = live_edge(live, j);
}

static __global__ void k_flatten(uint32_t *parent, int64_t n, uint32_t *next)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        next[i] = gemst_uf_find(parent, (uint32_t)i);
}

/* 1 where point i is a root. */
static __global__ void k_roots(const uint32_t *parent, int64_t n, uint32_t *flag)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flag[i] = parent[i] == (uint32_t)i;
}

/* Each point's component (rank: the roots' inclusive count), and at each
 * root its component's smallest gap. */
static __global__ void k_components(const uint32_t *parent, const uint32_t *rank, const uint64_t *least, int64_t n,
                                    uint32_t *comp, uint64_t *comp_gap)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    comp[i] = rank[parent[i]] - 1;
    if (parent[i] == (uint32_t)i)
        comp_gap[rank[i] - 1] = least[i];
}

/* 1 where edge k is uncertain. */
static __global__ void k_uncertain_flags(const uint8_t *mark, int64_t m, uint32_t *flag)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        flag[k] = mark[k] == UNMARKED;
}

/* The uncertain edges' positions, in order (rank: the flags' inclusive count). */
static __global__ void k_uncertain_list(const uint32_t *flag, const uint32_t *rank, int64_t m, uint32_t *list)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m && flag[k])
        list[rank[k] - 1] = (uint32_t)k;
}

/* The uncertain edges themselves, from their positions. */
static __global__ void k_uncertain_edges(const gemst_parts_edge *tree, const uint32_t *list, int64_t count,
                                         gemst_parts_edge *out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count)
        out[k] = tree[list[k]];
}

/* rank = the inclusive sum of flag[0 .. count) (count >= 1); its total
 * into *total. */
static int count_flags(gemst_dmem *mem, const uint32_t *flag, uint32_t *rank, int64_t count, uint32_t *total,
                       gridemst_error *err)
{
    GEMST_TRY(gemst_inclusive_count(mem, flag, rank, count, "a prefix count of a part's contraction", err));
    GEMST_CU(cudaMemcpyAsync(total, rank + count - 1, sizeof *total, cudaMemcpyDeviceToHost, mem->s));
    GEMST_CU(cudaStreamSynchronize(mem->s));
    return GRIDEMST_OK;
}

/* The list array that does not hold the live edges. */
static uint32_t *other_list(const rounds_state *r)
{
    return r->live == r->list[0] ? r->list[1] : r->list[0];
}

/* The live edges that stay live after a round's join, listed into the
 * other list array (end_lo and end_hi are free then: they hold the flags
 * and their ranks). */
static int keep_live(gemst_dmem *mem, rounds_state *r, gridemst_error *err)
{
    const unsigned blocks = gemst_blocks((uint64_t)r->n_live);
    uint32_t *flag = r->end_lo, *rank = r->end_hi, total;
    k_still_live<<<blocks, GEMST_THREADS, 0, mem->s>>>(r->tree, r->live, r->n_live, r->parent, r->mark, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, r->n_live, &total, err));
    uint32_t *next = other_list(r);
    k_keep_live<<<blocks, GEMST_THREADS, 0, mem->s>>>(r->live, r->n_live, flag, rank, next);
    GEMST_LAUNCHED();
    r->live = next;
    r->n_live = total;
    return GRIDEMST_OK;
}

/* One round; *any: whether it marked an edge (then joined). */
static int round_once(gemst_dmem *mem, rounds_state *r, int *any, gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    const unsigned blocks = gemst_blocks((uint64_t)r->n_live);
    GEMST_CU(cudaMemsetAsync(r->marked, 0, sizeof *r->marked, s));
    k_pick<<<blocks, GEMST_THREADS, 0, s>>>(r->tree, r->live, r->n_live, r->parent, r->end_lo, r->end_hi, r->pick);
    GEMST_LAUNCHED();
    k_test<<<blocks, GEMST_THREADS, 0, s>>>(r->tree, r->live, r->n_live, r->end_lo, r->end_hi, r->pick, r->least,
                                            r->mark, r->marked);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(any, r->marked, sizeof *any, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    if (!*any)
        return GRIDEMST_OK;
    k_join<<<blocks, GEMST_THREADS, 0, s>>>(r->tree, r->live, r->n_live, r->end_lo, r->end_hi, r->parent, r->pick,
                                            r->mark);
    GEMST_LAUNCHED();
    k_least<<<blocks, GEMST_THREADS, 0, s>>>(r->live, r->n_live, r->end_lo, r->end_hi, r->parent, r->least, r->mark);
    GEMST_LAUNCHED();
    return keep_live(mem, r, err);
}

/* The rounds, from the tree and the gaps on the device; the marks and the
 * flat union-find left in *r. */
static int mark(gemst_dmem *mem, const gemst_contract_task *t, rounds_state *r, gemst_contract_times *times,
                gridemst_error *err)
{
    const int64_t n = t->n, m = t->m;
    const cudaStream_t s = mem->s;
    if (t->mark_on_device)
        r->mark = t->mark_on_device;
    else
        GEMST_DALLOC(mem, r->mark, m, "a part's safe edges");
    GEMST_DALLOC(mem, r->parent, n, "a part's safe components");
    GEMST_DALLOC(mem, r->pick, n, "a part's picked edges");
    GEMST_DALLOC(mem, r->least, n, "a part's components' gaps");
    GEMST_DALLOC(mem, r->list[0], n, "a part's live edges"); /* m < n; n: the flatten's output at the end */
    GEMST_DALLOC(mem, r->list[1], n, "a part's live edges");
    GEMST_DALLOC(mem, r->end_lo, n, "a part's live edges");
    GEMST_DALLOC(mem, r->end_hi, n, "a part's live edges");
    GEMST_DALLOC(mem, r->marked, 1, "a part's safe edges");
    r->live = NULL;
    r->n_live = m;
    GEMST_CU(cudaMemsetAsync(r->mark, UNMARKED, (size_t)(m > 0 ? m : 1), s));
    GEMST_CU(cudaMemsetAsync(r->pick, 0xff, sizeof *r->pick * (size_t)n, s)); /* GEMST_NONE */
    k_init<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(t->gap, n, r->parent, r->least);
    GEMST_LAUNCHED();
    int most = 2; /* ceil(log2 n) + 2 rounds at most (docs/partitioned.md): more would be a fault */
    for (int64_t size = 1; size < n; size *= 2)
        most++;
    for (int any = m > 0; any && r->n_live > 0;) {
        if (times->rounds == most)
            return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the safe edges of %lld points unsettled after %d rounds",
                              (long long)n, most);
        GEMST_TRY(round_once(mem, r, &any, err));
        times->rounds++;
    }
    /* flat for the numbering: every point's parent its root (into another
     * array: a find that halves paths may still write into this one) */
    uint32_t *flat = other_list(r);
    k_flatten<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(r->parent, n, flat);
    GEMST_LAUNCHED();
    r->parent = flat;
    return GRIDEMST_OK;
}

/* The components' numbers and smallest gaps, and the uncertain edges'
 * list, on the device: *comp (n; t->comp_on_device where given),
 * *comp_gap (out->n_comp), *list (out->n_uncertain). */
static int number(gemst_dmem *mem, const gemst_contract_task *t, const rounds_state *r, uint32_t **comp,
                  uint64_t **comp_gap, uint32_t **list, gemst_contract_out *out, gridemst_error *err)
{
    const int64_t n = t->n, m = t->m;
    const cudaStream_t s = mem->s;
    uint32_t *flag, *rank, total;
    GEMST_DALLOC(mem, flag, n, "a part's safe components"); /* and its uncertain edges: m < n */
    GEMST_DALLOC(mem, rank, n, "a part's safe components");
    k_roots<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(r->parent, n, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, n, &total, err));
    out->n_comp = total;
    if (t->comp_on_device)
        *comp = t->comp_on_device;
    else
        GEMST_DALLOC(mem, *comp, n, "a part's safe components");
    GEMST_DALLOC(mem, *comp_gap, total, "a part's components' gaps");
    k_components<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(r->parent, rank, r->least, n, *comp,
                                                                     *comp_gap);
    GEMST_LAUNCHED();
    out->n_uncertain = 0;
    GEMST_DALLOC(mem, *list, m, "a part's uncertain edges");
    if (m == 0)
        return GRIDEMST_OK;
    k_uncertain_flags<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(r->mark, m, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, m, &total, err));
    out->n_uncertain = total;
    k_uncertain_list<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(flag, rank, m, *list);
    GEMST_LAUNCHED();
    GEMST_CU(cudaStreamSynchronize(s));
    return GRIDEMST_OK;
}

static int run(gemst_dmem *mem, const gemst_contract_task *t, gemst_contract_out *out, gemst_contract_times *times,
               gridemst_error *err)
{
    const int64_t n = t->n, m = t->m;
    double t0 = gemst_now_ms();
    rounds_state r;
    memset(&r, 0, sizeof r);
    if (t->device_tree) {
        r.tree = t->device_tree;
    } else {
        gemst_parts_edge *tree;
        GEMST_DALLOC(mem, tree, m, "a part's tree");
        if (m > 0)
            GEMST_CU(cudaMemcpyAsync(tree, t->tree, sizeof *tree * (size_t)m, cudaMemcpyHostToDevice, mem->s));
        GEMST_CU(cudaStreamSynchronize(mem->s));
        r.tree = tree;
    }
    times->copy_ms += gemst_lap_ms(&t0);
    GEMST_TRY(mark(mem, t, &r, times, err));
    GEMST_CU(cudaStreamSynchronize(mem->s));
    times->safe_ms += gemst_lap_ms(&t0);
    uint32_t *comp, *list;
    uint64_t *comp_gap;
    GEMST_TRY(number(mem, t, &r, &comp, &comp_gap, &list, out, err));
    gemst_parts_edge *edges;
    GEMST_DALLOC(mem, edges, out->n_uncertain, "a part's uncertain edges");
    if (out->n_uncertain > 0) {
        k_uncertain_edges<<<gemst_blocks((uint64_t)out->n_uncertain), GEMST_THREADS, 0, mem->s>>>(
            r.tree, list, out->n_uncertain, edges);
        GEMST_LAUNCHED();
    }
    out->median_d2 = 0.0;
    if (m > 0)
        GEMST_CU(cudaMemcpyAsync(&out->median_d2, &r.tree[m / 2].d2, sizeof out->median_d2, cudaMemcpyDeviceToHost,
                                 mem->s));
    out->comp_gap = (double *)malloc(sizeof *out->comp_gap * (out->n_comp > 0 ? out->n_comp : 1));
    out->uncertain_edge = (gemst_parts_edge *)malloc(sizeof *edges * (out->n_uncertain > 0 ? out->n_uncertain : 1));
    if (!out->comp_gap || !out->uncertain_edge)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %u components",
                          out->n_comp);
    times->components_ms += gemst_lap_ms(&t0);
    gemst_download down;
    GEMST_TRY(gemst_download_open(&down, mem->s, t->threads, err));
    int rc = t->mark_on_device ? GRIDEMST_OK : gemst_download_copy(&down, out->safe, r.mark, (size_t)m, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, out->uncertain_edge, edges, sizeof *edges * (size_t)out->n_uncertain, err);
    if (rc == GRIDEMST_OK && !t->comp_on_device)
        rc = gemst_download_copy(&down, out->comp, comp, sizeof *comp * (size_t)n, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, out->uncertain, list, sizeof *list * (size_t)out->n_uncertain, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, out->comp_gap, comp_gap, sizeof *comp_gap * (size_t)out->n_comp, err);
    gemst_download_close(&down);
    times->copy_ms += gemst_lap_ms(&t0);
    return rc;
}

extern "C" int gemst_device_contract(gridemst_context *ctx, const gemst_contract_task *t, gemst_contract_out *out,
                                     gemst_contract_times *times, gridemst_error *err)
{
    out->comp_gap = NULL;
    out->uncertain_edge = NULL;
    out->n_comp = 0;
    out->n_uncertain = 0;
    if (t->n < 1 || t->m < 0 || t->m >= t->n || t->n > GEMST_MAX_POINTS)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the contraction of a part of %lld points and %lld edges",
                          (long long)t->n, (long long)t->m);
    gemst_device_scope on(ctx->device);
    if (!on.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", ctx->device);
    gemst_dmem mem;
    gemst_dmem_init(&mem, (cudaMemPool_t)ctx->pool, (cudaStream_t)ctx->stream);
    const int rc = run(&mem, t, out, times, err);
    (void)cudaStreamSynchronize(mem.s); /* nothing queued may outlive the buffers */
    gemst_dfree_all(&mem);
    (void)cudaGetLastError(); /* freeing: the status is rc's */
    if (rc != GRIDEMST_OK) {
        free(out->comp_gap);
        free(out->uncertain_edge);
        out->comp_gap = NULL;
        out->uncertain_edge = NULL;
    }
    return rc;
}
