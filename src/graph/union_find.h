/*
 * A union-find over point numbers that many threads search and join at
 * once, on the host and on a device alike (a partitioned solve's safe
 * components: parts/safe_edges.c, cuda/cuda_parts_contract.cu; the GPU's
 * friends-of-friends groups: cuda/cuda_fof_kernels.cuh).  Roots are hooked
 * the larger under the smaller, so that every root is its tree's smallest
 * point and every parent is no larger than its child: no cycle can form.
 */
#ifndef GEMST_GRAPH_UNION_FIND_H
#define GEMST_GRAPH_UNION_FIND_H

#include "atomics.h"

/* The root of x, halving the path: other threads may halve the same paths
 * or hook roots at the same time; every value read is an ancestor of x,
 * and a halving writes only at a point that is no longer a root. */
static inline GEMST_HD uint32_t gemst_uf_find(uint32_t *parent, uint32_t x)
{
    for (;;) {
        const uint32_t p = gemst_load_relaxed(&parent[x]);
        if (p == x)
            return x;
        const uint32_t g = gemst_load_relaxed(&parent[p]);
        if (g != p)
            gemst_store_relaxed(&parent[x], g);
        x = g;
    }
}

/* Joins the trees of a and b: the larger root hooked under the smaller by
 * compare-and-swap, retried from the roots found again when another
 * thread hooked it first. */
static inline GEMST_HD void gemst_uf_unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        a = gemst_uf_find(parent, a);
        b = gemst_uf_find(parent, b);
        if (a == b)
            return;
        const uint32_t big = a > b ? a : b, small = a > b ? b : a;
        if (gemst_atomic_cas_u32(&parent[big], big, small) == big)
            return;
    }
}

#endif
