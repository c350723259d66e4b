/* Union-find over pixel indices, for building and cutting the tree. */
#ifndef SEG_UNIONFIND_H
#define SEG_UNIONFIND_H

#include <stdint.h>

/* Every element its own set of size 1. */
static inline void uf_reset(uint32_t *parent, uint32_t *size, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        size[i] = 1;
    }
}

static inline uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

/* Joins the sets of roots a and b (union by size). */
static inline void uf_join(uint32_t *parent, uint32_t *size, uint32_t a, uint32_t b)
{
    if (size[a] < size[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    parent[b] = a;
    size[a] += size[b];
}

#endif
