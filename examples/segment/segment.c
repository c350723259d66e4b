/* Segments from the spanning tree, and their picture. */
#include "segment.h"
#include "unionfind.h"

#include <stdlib.h>
#include <string.h>

int seg_segment(const seg_tree *tree, const seg_params *p, int32_t *labels, seg_summary *s, char *msg)
{
    int64_t n = tree->n, m = tree->n_edges;
    const gridemst_edge *e = tree->edges;
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    uint32_t *size = malloc((size_t)n * sizeof *size);
    unsigned char *cut = malloc((size_t)m + 1); /* +1: never malloc(0) */
    if (!parent || !size || !cut) {
        free(parent);
        free(size);
        free(cut);
        return seg_fail(msg, "out of memory");
    }
    /* Kruskal in the tree's order: the sets at an edge's ends just before it
     * joins them are the two parts it splits in the single-linkage hierarchy. */
    uf_reset(parent, size, n);
    s->splits = 0;
    for (int64_t i = 0; i < m; i++) {
        uint32_t a = uf_find(parent, (uint32_t)e[i].u), b = uf_find(parent, (uint32_t)e[i].v);
        cut[i] = size[a] >= p->min_size && size[b] >= p->min_size;
        s->splits += cut[i];
        uf_join(parent, size, a, b);
    }
    /* keep the cuts wanted among the edges that may be cut */
    if (p->k > 0) {
        int64_t left = p->k - 1;
        for (int64_t i = m - 1; i >= 0; i--) {
            if (cut[i] && left > 0)
                left--;
            else
                cut[i] = 0;
        }
    } else {
        for (int64_t i = 0; i < m; i++)
            cut[i] = cut[i] && e[i].w > p->cut;
    }
    uf_reset(parent, size, n);
    for (int64_t i = 0; i < m; i++)
        if (!cut[i])
            uf_join(parent, size, uf_find(parent, (uint32_t)e[i].u), uf_find(parent, (uint32_t)e[i].v));
    /* number the segments in the order of their first pixel; size[] becomes
     * each root's label, then each label's pixel count */
    memset(size, 0xff, (size_t)n * sizeof *size);
    int64_t segments = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t r = uf_find(parent, (uint32_t)i);
        if (size[r] == UINT32_MAX)
            size[r] = (uint32_t)segments++;
        labels[i] = (int32_t)size[r];
    }
    memset(size, 0, (size_t)segments * sizeof *size);
    for (int64_t i = 0; i < n; i++)
        size[labels[i]]++;
    s->segments = segments;
    s->smallest = n;
    s->largest = 0;
    for (int64_t l = 0; l < segments; l++) {
        if (size[l] < s->smallest)
            s->smallest = size[l];
        if (size[l] > s->largest)
            s->largest = size[l];
    }
    free(parent);
    free(size);
    free(cut);
    return 0;
}

/* SplitMix64's finaliser: neighbouring labels get unrelated colours. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

int seg_render(int64_t width, int64_t height, const int32_t *labels, seg_rgb *rgb, char *msg)
{
    size_t n = (size_t)(width * height);
    rgb->width = width;
    rgb->height = height;
    rgb->pix = malloc(n * 3);
    if (!rgb->pix)
        return seg_fail(msg, "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix((uint64_t)labels[i]);
        for (int c = 0; c < 3; c++) /* 48 .. 255: no near-black segments */
            rgb->pix[3 * i + c] = (uint8_t)(48 + ((h >> (8 * c)) & 0xff) * 208 / 256);
    }
    return 0;
}
