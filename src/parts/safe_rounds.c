/*
 * The safe edges of a part's tree by Boruvka rounds (safe_edges.h), the
 * serial reference of the rounds a device runs (device_contract.h).
 *
 * Each round, from the state at its start:
 *
 *   1. pick  each component of the edges marked so far picks its least
 *            incident unmarked tree edge (the tree is in the edge order:
 *            the least position);
 *   2. test  a picked edge is marked when it is shorter than the smallest
 *            low of a component that picked it (equal is uncertain);
 *   3. join  the marked edges join their components.
 *
 * until a round marks none.  Every component picks and tests against the
 * state at the round's start, whatever the order in which the components
 * are visited, so the marking is a function of the tree and the lows alone:
 * the device's rounds, whose picks are atomic minima, mark the same edges.
 *
 * The rounds mark exactly Kruskal's safe edges (docs/partitioned.md, "The
 * contraction on the devices", has the proof).  A marked edge e is the
 * least tree edge leaving its component C, and Kruskal's component at e
 * on C's side lies within C (the edges before e that leave C would
 * undercut e): Kruskal's test marks e too.  Conversely, a Kruskal-safe
 * edge e with side S (every edge inside S earlier, and Kruskal-safe too)
 * ends in a component that holds S and only such other points as joined
 * it through their own picks, each after e and shorter than their lows:
 * its least incident edge is e, shorter than its lows, marked.
 */
#include <stdlib.h>

#include "host_array.h"
#include "parts/safe_edges.h"

/* Marks the picks of the round: each root's least incident unmarked edge
 * (pick[] of the roots), tested against the root's smallest low; the
 * newly marked edges into fresh[] (their count returned). */
static int64_t test_picks(const gemst_parts_edge *tree, int64_t n, const uint32_t *parent, const uint32_t *pick,
                          const double *least, uint8_t *safe, uint32_t *fresh)
{
    int64_t count = 0;
    for (int64_t r = 0; r < n; r++) {
        const uint32_t k = pick[r];
        if (parent[r] != (uint32_t)r || k == GEMST_NONE || !(tree[k].d2 < least[r]) || safe[k])
            continue;
        safe[k] = 1;
        fresh[count++] = k;
    }
    return count;
}

static void rounds(const gemst_parts_edge *tree, int64_t m, int64_t n, uint32_t *parent, uint32_t *pick,
                   double *least, uint32_t *fresh, uint8_t *safe)
{
    for (;;) {
        for (int64_t i = 0; i < n; i++)
            pick[i] = GEMST_NONE;
        for (int64_t k = 0; k < m; k++) {
            if (safe[k])
                continue;
            const uint32_t a = gemst_parts_find(parent, tree[k].lo), b = gemst_parts_find(parent, tree[k].hi);
            if (a == b) /* not in a forest */
                continue;
            pick[a] = (uint32_t)k < pick[a] ? (uint32_t)k : pick[a];
            pick[b] = (uint32_t)k < pick[b] ? (uint32_t)k : pick[b];
        }
        const int64_t marked = test_picks(tree, n, parent, pick, least, safe, fresh);
        if (marked == 0)
            return;
        for (int64_t j = 0; j < marked; j++) {
            const uint32_t a = gemst_parts_find(parent, tree[fresh[j]].lo),
                           b = gemst_parts_find(parent, tree[fresh[j]].hi);
            const uint32_t big = a > b ? a : b, small = a > b ? b : a;
            parent[big] = small;
            least[small] = least[big] < least[small] ? least[big] : least[small];
        }
    }
}

int gemst_safe_edges_rounds(const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, uint8_t *safe,
                            gridemst_error *err)
{
    const size_t points = (size_t)(n > 0 ? n : 1), edges = (size_t)(m > 0 ? m : 1);
    uint32_t *parent = gemst_host_array(sizeof *parent * points), *pick = gemst_host_array(sizeof *pick * points);
    uint32_t *fresh = gemst_host_array(sizeof *fresh * edges);
    double *least = gemst_host_array(sizeof *least * points);
    const int ok = parent && pick && fresh && least;
    if (ok) {
        for (int64_t i = 0; i < n; i++) {
            parent[i] = (uint32_t)i;
            least[i] = low[i];
        }
        for (int64_t k = 0; k < m; k++)
            safe[k] = 0;
        rounds(tree, m, n, parent, pick, least, fresh, safe);
    }
    free(parent);
    free(pick);
    free(fresh);
    free(least);
    return ok ? GRIDEMST_OK
              : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the safe edges of %lld points",
                           (long long)n);
}
