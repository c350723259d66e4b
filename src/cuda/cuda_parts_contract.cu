/*
 * A part's contraction on its device (parts/device_contract.h): the safe
 * edges by Boruvka rounds, as parts/safe_rounds.c marks them, then the
 * safe components, their smallest gaps and the uncertain edges' list.
 *
 * The rounds keep a union-find over the part's points whose roots are the
 * components' smallest points, flat between rounds (every point's parent
 * its root), and at each root the smallest gap of its component (as bits:
 * non-negative doubles order as their bits).  Each round, every step a
 * kernel over the points or the tree's edges:
 *
 *   pick     each unmarked edge between two components offers its position
 *            to both roots (an atomic minimum: the least incident edge, the
 *            tree being in the edge order);
 *   test     each root's pick is marked (NEW) when shorter than the root's
 *            smallest low, gemst_parts_lower of its smallest gap (the least
 *            of the points' lows: the bound is non-decreasing); the picks
 *            and tests read only the round's starting state, as the host's
 *            reference does;
 *   join     each NEW edge joins its ends' components, the larger root
 *            hooked under the smaller by compare-and-swap (finds halve
 *            paths: every value they read or write is an ancestor);
 *   flatten  each point's root, into the other parent array (a find that
 *            halves paths may still write its ancestors into this one);
 *   least    each root hooked this round gives its smallest gap to its new
 *            root (an atomic minimum; a root that receives was not hooked).
 *
 * A round that marks nothing ends them: its state is the fixed point, and
 * the marks are the reference's.  There are at most ceil(log2 n) + 2
 * rounds (docs/partitioned.md); a run past them fails instead of looping.  Then a prefix count of the roots numbers
 * the components in the order of their smallest points, each root's
 * smallest gap becomes its component's, and a prefix count of the
 * uncertain edges lists them in order.
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

/* The rounds' state on the device. */
typedef struct {
    const gemst_parts_edge *tree; /* m */
    uint8_t *mark;                /* m */
    uint32_t *parent, *next;      /* n each: the flat parents, and the flatten's output */
    uint32_t *pick;               /* n: at a root, its least incident unmarked edge (GEMST_NONE: none) */
    uint64_t *least;              /* n: at a root, its component's smallest gap (bits) */
    uint8_t *was_root;            /* n: a root at the round's start */
    int *marked;                  /* 1: the round marked an edge */
} rounds_state;

static __device__ double gap_of_bits(uint64_t bits)
{
    return __longlong_as_double((long long)bits);
}

static __global__ void k_init(const double *gap, int64_t n, uint32_t *parent, uint64_t *least, uint8_t *was_root)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        parent[i] = (uint32_t)i;
        least[i] = (uint64_t)__double_as_longlong(gap[i]);
        was_root[i] = 1;
    }
}

static __global__ void k_pick(const gemst_parts_edge *tree, const uint8_t *mark, int64_t m, const uint32_t *parent,
                              uint32_t *pick)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m || mark[k] != UNMARKED)
        return;
    const uint32_t a = parent[tree[k].lo], b = parent[tree[k].hi];
    if (a == b) /* not in a forest */
        return;
    atomicMin((unsigned int *)&pick[a], (unsigned int)k);
    atomicMin((unsigned int *)&pick[b], (unsigned int)k);
}

static __global__ void k_test(const gemst_parts_edge *tree, int64_t n, const uint32_t *parent, const uint32_t *pick,
                              const uint64_t *least, uint8_t *mark, int *marked)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n || parent[r] != (uint32_t)r || pick[r] == GEMST_NONE)
        return;
    const uint32_t k = pick[r];
    if (tree[k].d2 < gemst_parts_lower(gap_of_bits(least[r]))) {
        mark[k] = NEW; /* both ends' roots may mark it: the same byte */
        *marked = 1;
    }
}

static __global__ void k_join(const gemst_parts_edge *tree, int64_t m, uint32_t *parent, uint8_t *mark)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m || mark[k] != NEW)
        return;
    mark[k] = SAFE;
    gemst_uf_unite(parent, tree[k].lo, tree[k].hi);
}

static __global__ void k_flatten(uint32_t *parent, int64_t n, uint32_t *next)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        next[i] = gemst_uf_find(parent, (uint32_t)i);
}

static __global__ void k_least(const uint32_t *parent, int64_t n, uint64_t *least, uint8_t *was_root)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && was_root[i] && parent[i] != (uint32_t)i) {
        atomicMin((unsigned long long *)&least[parent[i]], (unsigned long long)least[i]);
        was_root[i] = 0;
    }
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

/* One round; *any: whether it marked an edge (then joined). */
static int round_once(rounds_state *r, int64_t n, int64_t m, int *any, gridemst_error *err, cudaStream_t s)
{
    const unsigned points = gemst_blocks((uint64_t)n), edges = gemst_blocks((uint64_t)m);
    GEMST_CU(cudaMemsetAsync(r->pick, 0xff, sizeof *r->pick * (size_t)n, s)); /* GEMST_NONE */
    GEMST_CU(cudaMemsetAsync(r->marked, 0, sizeof *r->marked, s));
    k_pick<<<edges, GEMST_THREADS, 0, s>>>(r->tree, r->mark, m, r->parent, r->pick);
    GEMST_LAUNCHED();
    k_test<<<points, GEMST_THREADS, 0, s>>>(r->tree, n, r->parent, r->pick, r->least, r->mark, r->marked);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(any, r->marked, sizeof *any, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    if (!*any)
        return GRIDEMST_OK;
    k_join<<<edges, GEMST_THREADS, 0, s>>>(r->tree, m, r->parent, r->mark);
    GEMST_LAUNCHED();
    k_flatten<<<points, GEMST_THREADS, 0, s>>>(r->parent, n, r->next);
    GEMST_LAUNCHED();
    uint32_t *flat = r->next;
    r->next = r->parent;
    r->parent = flat;
    k_least<<<points, GEMST_THREADS, 0, s>>>(r->parent, n, r->least, r->was_root);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
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
    GEMST_DALLOC(mem, r->next, n, "a part's safe components");
    GEMST_DALLOC(mem, r->pick, n, "a part's picked edges");
    GEMST_DALLOC(mem, r->least, n, "a part's components' gaps");
    GEMST_DALLOC(mem, r->was_root, n, "a part's safe components");
    GEMST_DALLOC(mem, r->marked, 1, "a part's safe edges");
    GEMST_CU(cudaMemsetAsync(r->mark, UNMARKED, (size_t)(m > 0 ? m : 1), s));
    k_init<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(t->gap, n, r->parent, r->least, r->was_root);
    GEMST_LAUNCHED();
    int most = 2; /* ceil(log2 n) + 2 rounds at most (docs/partitioned.md): more would be a fault */
    for (int64_t size = 1; size < n; size *= 2)
        most++;
    for (int any = m > 0; any;) {
        if (times->rounds == most)
            return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the safe edges of %lld points unsettled after %d rounds",
                              (long long)n, most);
        GEMST_TRY(round_once(r, n, m, &any, err, s));
        times->rounds++;
    }
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
