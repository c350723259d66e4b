/*
 * A part's contraction on its device (parts/device_contract.h): the safe
 * edges by Boruvka rounds, as parts/safe_rounds.c marks them, then the
 * safe components, their smallest gaps and the uncertain edges' list.
 *
 * The rounds number the part's points by *place*: in the order of their
 * keys (gemst_device_gaps_by_key), where a tree edge's ends, neighbours in
 * space, lie near each other, rather than in the order of their ids, which
 * scatters them over the whole part.  They keep a union-find over the
 * places (finds halve paths: every value they read or write is an
 * ancestor), and at each root the smallest gap of its component (as bits:
 * non-negative doubles order as their bits).  A round reads only the live
 * edges, the unmarked ones between two components, each with its ends'
 * places; the first round lists every edge, sorted by its lower end's place
 * so that neighbouring threads read neighbouring entries, and each round
 * lists the edges that stay live in the same order.  Each round, every step
 * a kernel over the live edges:
 *
 *   pick     each offers its position to the roots of both its ends (an
 *            atomic minimum: the least incident edge, the tree being in
 *            the edge order);
 *   test     an edge a root picked is marked (NEW) when shorter than that
 *            root's smallest low, gemst_parts_lower of its smallest gap (the
 *            least of the points' lows: the bound is non-decreasing); the
 *            picks and tests read only the round's starting state, as the
 *            host's reference does;
 *   join     each NEW edge joins its ends' components, the root of the
 *            larger point hooked under the other by compare-and-swap;
 *   least    each root hooked this round gives its smallest gap to its new
 *            root (an atomic minimum; a root that receives was not hooked);
 *   live     the edges still unmarked and between two components are
 *            listed again (a prefix count).
 *
 * A round that marks nothing ends them, as does one that leaves no live
 * edge: its state is the fixed point, and the marks are the reference's
 * (picks and tests do not depend on how the points are numbered).  There
 * are at most ceil(log2 n) + 2 rounds (docs/partitioned.md); a run past
 * them fails instead of looping.  A join hooks the root of the larger point
 * under the other, so that each root is its component's smallest point:
 * then every place's root, a prefix count (by point) of the roots' points
 * numbers the components in the order of their smallest points, as the
 * host does, each root's smallest gap becomes its component's, and a
 * prefix count of the uncertain edges lists them in order.
 */
#include <cub/cub.cuh>
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

/* Edges listed by their position in the tree and the places of their ends. */
typedef struct {
    uint32_t *pos, *lo, *hi; /* n entries each */
} edge_list;

/* The rounds' state on the device.  The rounds number the points by place:
 * place r holds point by_key[r], so that a tree edge's ends, neighbours in
 * space, lie near each other in the union-find's arrays; and they read only
 * the live edges (unmarked, between two components), listed by their lower
 * end's place, so that neighbouring threads read neighbouring entries. */
typedef struct {
    const gemst_parts_edge *tree; /* m */
    uint8_t *mark;                /* m, by position */
    const uint32_t *by_key;       /* n: the point at each place (NULL: place = point) */
    uint32_t *parent;             /* n, by place: the union-find, its paths halved as it is read */
    uint32_t *pick;               /* n, by place: at a root, its least incident live edge (GEMST_NONE: none) */
    uint64_t *least;              /* n, by place: at a root, its component's smallest gap (bits) */
    edge_list live, spare;        /* the live edges, and room for the next round's */
    int64_t n_live;
    uint32_t *end_lo, *end_hi;    /* per live edge: the roots of its ends at the round's start; between
                                     rounds, the flags and ranks that list the next round's live edges */
    int *marked;                  /* 1: the round marked an edge */
} rounds_state;

static __device__ double gap_of_bits(uint64_t bits)
{
    return __longlong_as_double((long long)bits);
}

/* The point at place r. */
static __device__ uint32_t point_at(const uint32_t *by_key, int64_t r)
{
    return by_key ? by_key[r] : (uint32_t)r;
}

/* Each point's place. */
static __global__ void k_places(const uint32_t *by_key, int64_t n, uint32_t *place)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n)
        place[point_at(by_key, r)] = (uint32_t)r;
}

/* Each edge's position, and its lower end's place (the sort's key). */
static __global__ void k_edge_lo(const gemst_parts_edge *tree, int64_t m, const uint32_t *place, uint32_t *lo,
                                 uint32_t *pos)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m) {
        lo[k] = place[tree[k].lo];
        pos[k] = (uint32_t)k;
    }
}

/* Each listed edge's higher end's place. */
static __global__ void k_edge_hi(const gemst_parts_edge *tree, const uint32_t *pos, int64_t m, const uint32_t *place,
                                 uint32_t *hi)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m)
        hi[j] = place[tree[pos[j]].hi];
}

static __global__ void k_init(const double *gap, const uint32_t *by_key, int64_t n, uint32_t *parent,
                              uint64_t *least)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) {
        parent[r] = (uint32_t)r;
        least[r] = (uint64_t)__double_as_longlong(gap[point_at(by_key, r)]);
    }
}

/* Each live edge's ends' roots, and its position offered to both. */
static __global__ void k_pick(edge_list live, int64_t count, uint32_t *parent, uint32_t *end_lo, uint32_t *end_hi,
                              uint32_t *pick)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live.pos[j];
    const uint32_t a = gemst_uf_find(parent, live.lo[j]), b = gemst_uf_find(parent, live.hi[j]);
    end_lo[j] = a;
    end_hi[j] = b;
    if (a == b) /* not in a forest */
        return;
    atomicMin((unsigned int *)&pick[a], (unsigned int)k);
    atomicMin((unsigned int *)&pick[b], (unsigned int)k);
}

/* A live edge that a root at its end picked is marked (NEW) when shorter
 * than that root's smallest low. */
static __global__ void k_test(const gemst_parts_edge *tree, edge_list live, int64_t count, const uint32_t *end_lo,
                              const uint32_t *end_hi, const uint32_t *pick, const uint64_t *least, uint8_t *mark,
                              int *marked)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live.pos[j], end[2] = {end_lo[j], end_hi[j]};
    for (int e = 0; e < 2; e++)
        if (pick[end[e]] == k && tree[k].d2 < gemst_parts_lower(gap_of_bits(least[end[e]]))) {
            mark[k] = NEW; /* both ends' roots may mark it: the same byte */
            *marked = 1;
        }
}

/* Joins the trees of places a and b: the root of the larger point hooked
 * under the other by compare-and-swap, retried from the roots found again
 * when another thread hooked it first.  Every root is then its component's
 * smallest point's place. */
static __device__ void unite_by_point(uint32_t *parent, const uint32_t *by_key, uint32_t a, uint32_t b)
{
    for (;;) {
        a = gemst_uf_find(parent, a);
        b = gemst_uf_find(parent, b);
        if (a == b)
            return;
        const int a_first = point_at(by_key, a) < point_at(by_key, b);
        const uint32_t later = a_first ? b : a, first = a_first ? a : b;
        if (gemst_atomic_cas_u32(&parent[later], later, first) == later)
            return;
    }
}

/* Each NEW edge joins its ends' components; every root's pick is cleared
 * for the next round (the tests have read them). */
static __global__ void k_join(edge_list live, int64_t count, const uint32_t *end_lo, const uint32_t *end_hi,
                              const uint32_t *by_key, uint32_t *parent, uint32_t *pick, const uint8_t *mark)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    pick[end_lo[j]] = GEMST_NONE;
    pick[end_hi[j]] = GEMST_NONE;
    if (mark[live.pos[j]] == NEW)
        unite_by_point(parent, by_key, live.lo[j], live.hi[j]);
}

/* Each NEW edge becomes SAFE, and each root at its ends that the join
 * hooked gives its smallest gap to its new root.  Every root the join
 * hooked is such an end: the roots it finds for a NEW edge's ends are the
 * round's starting roots of NEW edges' ends, or roots they were hooked
 * under. */
static __global__ void k_least(edge_list live, int64_t count, const uint32_t *end_lo, const uint32_t *end_hi,
                               uint32_t *parent, uint64_t *least, uint8_t *mark)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    const uint32_t k = live.pos[j];
    if (mark[k] != NEW)
        return;
    mark[k] = SAFE;
    const uint32_t end[2] = {end_lo[j], end_hi[j]};
    for (int e = 0; e < 2; e++)
        if (gemst_load_relaxed(&parent[end[e]]) != end[e]) /* no longer a root: nothing writes its least now */
            atomicMin((unsigned long long *)&least[gemst_uf_find(parent, end[e])], (unsigned long long)least[end[e]]);
}

/* 1 where a live edge stays live: unmarked, between two components. */
static __global__ void k_still_live(edge_list live, int64_t count, uint32_t *parent, const uint8_t *mark,
                                    uint32_t *flag)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count)
        flag[j] = mark[live.pos[j]] == UNMARKED &&
                  gemst_uf_find(parent, live.lo[j]) != gemst_uf_find(parent, live.hi[j]);
}

/* The live edges that stay, in order (rank: the flags' inclusive count). */
static __global__ void k_keep_live(edge_list live, int64_t count, const uint32_t *flag, const uint32_t *rank,
                                   edge_list out)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count && flag[j]) {
        const uint32_t to = rank[j] - 1;
        out.pos[to] = live.pos[j];
        out.lo[to] = live.lo[j];
        out.hi[to] = live.hi[j];
    }
}

/* Each place's root (into another array: a find that halves paths may
 * still write its ancestors into this one). */
static __global__ void k_flatten(uint32_t *parent, int64_t n, uint32_t *root)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n)
        root[r] = gemst_uf_find(parent, (uint32_t)r);
}

/* 1 at each component's smallest point, its root's (flag: 0 before). */
static __global__ void k_firsts(const uint32_t *root, const uint32_t *by_key, int64_t n, uint32_t *flag)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && root[r] == (uint32_t)r)
        flag[point_at(by_key, r)] = 1;
}

/* Each point's component, numbered in the order of the components'
 * smallest points (rank: the firsts' inclusive count, by point), and each
 * component's smallest gap. */
static __global__ void k_components(const uint32_t *root, const uint32_t *rank, const uint64_t *least,
                                    const uint32_t *by_key, int64_t n, uint32_t *comp, uint64_t *comp_gap)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    const uint32_t c = rank[point_at(by_key, root[r])] - 1;
    comp[point_at(by_key, r)] = c;
    if (root[r] == (uint32_t)r)
        comp_gap[c] = least[r];
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

/* The first round's list: every edge, by its lower end's place (a stable
 * radix sort over the bits a place needs), with its ends' places. */
static int list_edges(gemst_dmem *mem, rounds_state *r, int64_t n, int64_t m, gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    uint32_t *place = r->end_lo; /* free until the rounds */
    k_places<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(r->by_key, n, place);
    GEMST_LAUNCHED();
    k_edge_lo<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(r->tree, m, place, r->spare.lo, r->spare.pos);
    GEMST_LAUNCHED();
    int bits = 1;
    while (bits < 32 && ((int64_t)1 << bits) < n)
        bits++;
    cub::DoubleBuffer<uint32_t> keys(r->spare.lo, r->live.lo), values(r->spare.pos, r->live.pos);
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, keys, values, m, 0, bits, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "sorting a part's tree edges by place", err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, m, 0, bits, s));
    gemst_dfree(mem, temp);
    r->live = (edge_list){values.Current(), keys.Current(), r->live.hi};
    r->spare = (edge_list){values.Alternate(), keys.Alternate(), r->spare.hi};
    k_edge_hi<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(r->tree, r->live.pos, m, place, r->live.hi);
    GEMST_LAUNCHED();
    r->n_live = m;
    return GRIDEMST_OK;
}

/* The live edges that stay live after a round's join, listed into the
 * spare lists, which become the live ones (end_lo and end_hi are free then:
 * they hold the flags and their ranks). */
static int keep_live(gemst_dmem *mem, rounds_state *r, gridemst_error *err)
{
    const unsigned blocks = gemst_blocks((uint64_t)r->n_live);
    uint32_t *flag = r->end_lo, *rank = r->end_hi, total;
    k_still_live<<<blocks, GEMST_THREADS, 0, mem->s>>>(r->live, r->n_live, r->parent, r->mark, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, r->n_live, &total, err));
    k_keep_live<<<blocks, GEMST_THREADS, 0, mem->s>>>(r->live, r->n_live, flag, rank, r->spare);
    GEMST_LAUNCHED();
    const edge_list was = r->live;
    r->live = r->spare;
    r->spare = was;
    r->n_live = total;
    return GRIDEMST_OK;
}

/* One round; *any: whether it marked an edge (then joined). */
static int round_once(gemst_dmem *mem, rounds_state *r, int *any, gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    const unsigned blocks = gemst_blocks((uint64_t)r->n_live);
    GEMST_CU(cudaMemsetAsync(r->marked, 0, sizeof *r->marked, s));
    k_pick<<<blocks, GEMST_THREADS, 0, s>>>(r->live, r->n_live, r->parent, r->end_lo, r->end_hi, r->pick);
    GEMST_LAUNCHED();
    k_test<<<blocks, GEMST_THREADS, 0, s>>>(r->tree, r->live, r->n_live, r->end_lo, r->end_hi, r->pick, r->least,
                                            r->mark, r->marked);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(any, r->marked, sizeof *any, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    if (!*any)
        return GRIDEMST_OK;
    k_join<<<blocks, GEMST_THREADS, 0, s>>>(r->live, r->n_live, r->end_lo, r->end_hi, r->by_key, r->parent, r->pick,
                                            r->mark);
    GEMST_LAUNCHED();
    k_least<<<blocks, GEMST_THREADS, 0, s>>>(r->live, r->n_live, r->end_lo, r->end_hi, r->parent, r->least, r->mark);
    GEMST_LAUNCHED();
    return keep_live(mem, r, err);
}

/* The rounds, from the tree and the gaps on the device; the marks, and
 * each place's root in *root (n entries of device memory, allocated here). */
static int mark(gemst_dmem *mem, const gemst_contract_task *t, rounds_state *r, uint32_t **root,
                gemst_contract_times *times, gridemst_error *err)
{
    const int64_t n = t->n, m = t->m;
    const cudaStream_t s = mem->s;
    if (t->mark_on_device)
        r->mark = t->mark_on_device;
    else
        GEMST_DALLOC(mem, r->mark, m, "a part's safe edges");
    r->by_key = t->by_key;
    GEMST_DALLOC(mem, r->parent, n, "a part's safe components");
    GEMST_DALLOC(mem, r->pick, n, "a part's picked edges");
    GEMST_DALLOC(mem, r->least, n, "a part's components' gaps");
    uint32_t **const lists[] = {&r->live.pos, &r->live.lo, &r->live.hi, &r->spare.pos, &r->spare.lo, &r->spare.hi,
                                &r->end_lo, &r->end_hi};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) /* m < n; n: the places' arrays too */
        GEMST_DALLOC(mem, *lists[k], n, "a part's live edges");
    GEMST_DALLOC(mem, r->marked, 1, "a part's safe edges");
    GEMST_CU(cudaMemsetAsync(r->mark, UNMARKED, (size_t)(m > 0 ? m : 1), s));
    GEMST_CU(cudaMemsetAsync(r->pick, 0xff, sizeof *r->pick * (size_t)n, s)); /* GEMST_NONE */
    k_init<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(t->gap, r->by_key, n, r->parent, r->least);
    GEMST_LAUNCHED();
    r->n_live = 0;
    if (m > 0)
        GEMST_TRY(list_edges(mem, r, n, m, err));
    int most = 2; /* ceil(log2 n) + 2 rounds at most (docs/partitioned.md): more would be a fault */
    for (int64_t size = 1; size < n; size *= 2)
        most++;
    for (int any = 1; any && r->n_live > 0;) {
        if (times->rounds == most)
            return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the safe edges of %lld points unsettled after %d rounds",
                              (long long)n, most);
        GEMST_TRY(round_once(mem, r, &any, err));
        times->rounds++;
    }
    *root = r->spare.pos;
    k_flatten<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(r->parent, n, *root);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* The components' numbers and smallest gaps, and the uncertain edges'
 * list, on the device: *comp (n; t->comp_on_device where given),
 * *comp_gap (out->n_comp), *list (out->n_uncertain). */
static int number(gemst_dmem *mem, const gemst_contract_task *t, const rounds_state *r, const uint32_t *root,
                  uint32_t **comp, uint64_t **comp_gap, uint32_t **list, gemst_contract_out *out,
                  gridemst_error *err)
{
    const int64_t n = t->n, m = t->m;
    const cudaStream_t s = mem->s;
    const unsigned blocks = gemst_blocks((uint64_t)n);
    uint32_t *flag = r->end_lo, *rank = r->end_hi, total; /* the rounds are done with them */
    GEMST_CU(cudaMemsetAsync(flag, 0, sizeof *flag * (size_t)n, s));
    k_firsts<<<blocks, GEMST_THREADS, 0, s>>>(root, r->by_key, n, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, n, &total, err));
    out->n_comp = total;
    if (t->comp_on_device)
        *comp = t->comp_on_device;
    else
        GEMST_DALLOC(mem, *comp, n, "a part's safe components");
    GEMST_DALLOC(mem, *comp_gap, total, "a part's components' gaps");
    k_components<<<blocks, GEMST_THREADS, 0, s>>>(root, rank, r->least, r->by_key, n, *comp, *comp_gap);
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
    uint32_t *root;
    GEMST_TRY(mark(mem, t, &r, &root, times, err));
    GEMST_CU(cudaStreamSynchronize(mem->s));
    times->safe_ms += gemst_lap_ms(&t0);
    uint32_t *comp, *list;
    uint64_t *comp_gap;
    GEMST_TRY(number(mem, t, &r, root, &comp, &comp_gap, &list, out, err));
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
