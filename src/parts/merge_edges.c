/*
 * The merge of sorted edge lists (merge_edges.h).  The output is cut into
 * one range of the edge order per thread: splitters drawn from a sample of
 * every list and sorted; each list's first edge not below a splitter found
 * by bisection; the kept edges of each list's share counted, so that a
 * thread knows where its share of each list starts and where its output
 * goes.  Each thread then merges its shares through a binary heap of the
 * lists' next kept edges (a part per list: up to 65 lists).
 */
#include "parts/merge_edges.h"

#include <stdlib.h>

/* Samples per list per thread: enough that no thread's share exceeds its
 * fair one by much when lists differ in size. */
#define SAMPLES_PER_THREAD 32

static int edge_cmp(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    return gemst_parts_edge_less(x, y) ? -1 : gemst_parts_edge_less(y, x) ? 1 : 0;
}

void gemst_parts_sort_edges(gemst_parts_edge *edges, int64_t m)
{
    if (m > 1)
        qsort(edges, (size_t)m, sizeof *edges, edge_cmp);
}

void gemst_parts_edges_in_ids(gemst_parts_edge *edges, int64_t count, const gemst_gid *id, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < count; k++) {
        edges[k].lo = (uint32_t)id[edges[k].lo];
        edges[k].hi = (uint32_t)id[edges[k].hi];
    }
}

/* The number of l's edges that come before `key` in the edge order. */
static int64_t edges_before(const gemst_edge_list *l, const gemst_parts_edge *key)
{
    int64_t lo = 0, hi = l->count;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (gemst_parts_edge_less(&l->edge[mid], key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The kept edges among l's [from, to). */
static int64_t kept(const gemst_edge_list *l, int64_t from, int64_t to)
{
    if (!l->keep)
        return to - from;
    int64_t n = 0;
    for (int64_t k = from; k < to; k++)
        n += l->keep[k] != 0;
    return n;
}

/* One list's place in a share's merge: its next kept edge. */
typedef struct {
    gemst_parts_edge head;
    int64_t next, end;
    int list;
} share_cursor;

/* Moves c to its list's next kept edge at or after c->next; 0 when none. */
static int advance(const gemst_edge_list *list, share_cursor *c)
{
    const gemst_edge_list *l = &list[c->list];
    while (c->next < c->end && l->keep && !l->keep[c->next])
        c->next++;
    if (c->next == c->end)
        return 0;
    c->head = l->edge[c->next++];
    return 1;
}

static void sift_down(share_cursor *heap, int size, int at)
{
    for (;;) {
        int least = at;
        const int l = 2 * at + 1, r = l + 1;
        if (l < size && gemst_parts_edge_less(&heap[l].head, &heap[least].head))
            least = l;
        if (r < size && gemst_parts_edge_less(&heap[r].head, &heap[least].head))
            least = r;
        if (least == at)
            return;
        const share_cursor t = heap[at];
        heap[at] = heap[least];
        heap[least] = t;
        at = least;
    }
}

/* Merges list j's kept edges among from[j] .. to[j] - 1, for every j, into
 * the output from position out. */
static void merge_share(const gemst_edge_list *list, int k, const int64_t *from, const int64_t *to, int64_t out,
                        uint32_t *lo, uint32_t *hi, double *d2, share_cursor *heap)
{
    int size = 0;
    for (int j = 0; j < k; j++) {
        heap[size] = (share_cursor){{0, 0, 0}, from[j], to[j], j};
        size += advance(list, &heap[size]);
    }
    for (int at = size / 2 - 1; at >= 0; at--)
        sift_down(heap, size, at);
    while (size > 0) {
        lo[out] = heap[0].head.lo;
        hi[out] = heap[0].head.hi;
        d2[out++] = heap[0].head.d2;
        if (!advance(list, &heap[0]))
            heap[0] = heap[--size];
        sift_down(heap, size, 0);
    }
}

int gemst_parts_merge_edges(const gemst_edge_list *list, int k, int threads, uint32_t *lo, uint32_t *hi, double *d2,
                            int64_t *merged)
{
    int64_t total = 0;
    for (int j = 0; j < k; j++)
        total += list[j].count;
    const int shares = threads > 1 && total >= 2 * (int64_t)threads ? threads : 1;
    /* The samples; cut[t * k + j], where share t starts in list j;
       n_kept[t * k + j], list j's kept edges in share t; start[t], where
       share t's output starts. */
    const int64_t per_list = (int64_t)SAMPLES_PER_THREAD * shares;
    gemst_parts_edge *sample = malloc(sizeof *sample * (size_t)(per_list * k + 1));
    int64_t *cut = malloc(sizeof *cut * (size_t)(shares + 1) * (size_t)k);
    int64_t *n_kept = malloc(sizeof *n_kept * (size_t)shares * (size_t)k), *start = malloc(sizeof *start * (size_t)shares);
    share_cursor *heap = malloc(sizeof *heap * (size_t)shares * (size_t)k);
    if (!sample || !cut || !n_kept || !start || !heap) {
        free(sample);
        free(cut);
        free(n_kept);
        free(start);
        free(heap);
        return -1;
    }
    int64_t n_sample = 0;
    for (int j = 0; j < k; j++) {
        const int64_t s = list[j].count < per_list ? list[j].count : per_list;
        for (int64_t i = 0; i < s; i++)
            sample[n_sample++] = list[j].edge[(i * list[j].count) / s];
    }
    gemst_parts_sort_edges(sample, n_sample);
    for (int j = 0; j < k; j++) {
        cut[j] = 0;
        cut[(size_t)shares * k + j] = list[j].count;
    }
#pragma omp parallel for num_threads(shares) schedule(static)
    for (int t = 1; t < shares; t++)
        for (int j = 0; j < k; j++)
            cut[(size_t)t * k + j] = edges_before(&list[j], &sample[(n_sample * t) / shares]);
#pragma omp parallel for num_threads(shares) schedule(static)
    for (int t = 0; t < shares; t++)
        for (int j = 0; j < k; j++)
            n_kept[(size_t)t * k + j] = kept(&list[j], cut[(size_t)t * k + j], cut[(size_t)(t + 1) * k + j]);
    int64_t out = 0;
    for (int t = 0; t < shares; t++) {
        start[t] = out;
        for (int j = 0; j < k; j++)
            out += n_kept[(size_t)t * k + j];
    }
#pragma omp parallel for num_threads(shares) schedule(static, 1)
    for (int t = 0; t < shares; t++)
        merge_share(list, k, &cut[(size_t)t * k], &cut[(size_t)(t + 1) * k], start[t], lo, hi, d2,
                    &heap[(size_t)t * k]);
    *merged = out;
    free(sample);
    free(cut);
    free(n_kept);
    free(start);
    free(heap);
    return 0;
}
