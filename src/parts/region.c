/* Distances to Morton key ranges: a descent of the implicit tree of dyadic
 * cells, into the cells the range's ends cut, nearest cells first. */
#include "parts/region.h"

#include <math.h>

/* A cell of the descent: depth t, side span 2^-t, its integer coordinates at
 * that depth, its keys' common prefix, and its squared distance to the box. */
typedef struct {
    int t;
    double side;
    uint32_t c[3];
    uint64_t prefix;
    double d2;
} cell;

static double cell_dist2(const gemst_region_space *sp, const gemst_box *b, const cell *k)
{
    double s = 0.0;
    for (int d = 0; d < sp->dim; d++) {
        double lo = sp->base + (double)k->c[d] * k->side, hi = lo + k->side;
        double gap = b->hi[d] < lo ? lo - b->hi[d] : b->lo[d] > hi ? b->lo[d] - hi : 0.0;
        s += gap * gap;
    }
    return s;
}

/* The keys of cell k: [*first, *last]. */
static void cell_keys(int dim, const cell *k, uint64_t *first, uint64_t *last)
{
    const int free_bits = dim * (gemst_region_axis_bits(dim) - k->t);
    if (free_bits >= 64) {
        *first = 0;
        *last = UINT64_MAX;
        return;
    }
    *first = k->prefix << free_bits;
    *last = *first | (((uint64_t)1 << free_bits) - 1);
}

double gemst_region_dist2(const gemst_region_space *sp, const gemst_box *b, gemst_key_range r, double cap)
{
    const int dim = sp->dim;
    if (gemst_key_range_empty(r))
        return INFINITY;
    enum { MAX_STACK = 2 * 32 * 8 + 1 }; /* at most 2 cut cells per depth push their children */
    cell stack[MAX_STACK];
    int top = 0;
    double best = cap;
    cell root = {0, sp->span, {0, 0, 0}, 0, 0.0};
    root.d2 = cell_dist2(sp, b, &root);
    stack[top++] = root;
    const int children = 1 << dim, leaf = gemst_region_axis_bits(dim);
    while (top > 0) {
        const cell k = stack[--top];
        if (k.d2 >= best)
            continue;
        uint64_t first, last;
        cell_keys(dim, &k, &first, &last);
        if (last < r.first || first > r.last)
            continue;
        if (r.first <= first && last <= r.last) {
            best = k.d2;
            continue;
        }
        /* The range's end cuts this cell (never a leaf cell, which has one key): its children,
         * pushed farthest first so that the nearest is looked at first. */
        cell kids[8];
        for (int i = 0; i < children; i++) {
            cell *q = &kids[i];
            q->t = k.t + 1;
            q->side = 0.5 * k.side;
            q->prefix = (k.prefix << dim) | (uint64_t)i;
            for (int d = 0; d < 3; d++)
                q->c[d] = d < dim ? 2 * k.c[d] + ((uint32_t)i >> d & 1) : 0;
            q->d2 = cell_dist2(sp, b, q);
        }
        for (int i = 1; i < children; i++) /* by distance, descending */
            for (int j = i; j > 0 && kids[j].d2 > kids[j - 1].d2; j--) {
                cell tmp = kids[j];
                kids[j] = kids[j - 1];
                kids[j - 1] = tmp;
            }
        for (int i = 0; i < children && k.t < leaf; i++)
            if (kids[i].d2 < best)
                stack[top++] = kids[i];
    }
    return best;
}

double gemst_region_outside_dist2(const gemst_region_space *sp, const gemst_box *b, gemst_key_range r)
{
    double best = INFINITY;
    if (r.first > 0)
        best = gemst_region_dist2(sp, b, (gemst_key_range){0, r.first - 1}, best);
    if (r.last < UINT64_MAX) {
        double above = gemst_region_dist2(sp, b, (gemst_key_range){r.last + 1, UINT64_MAX}, best);
        best = above < best ? above : best;
    }
    return best;
}

void gemst_region_cell_box(const gemst_region_space *sp, uint64_t key, int level, gemst_box *b)
{
    const int dim = sp->dim, bits = gemst_region_axis_bits(dim), shift = bits - level;
    const double side = ldexp(sp->span, -level);
    for (int d = 0; d < 3; d++) {
        uint64_t c = 0; /* the axis's bits of the key, from the top */
        for (int j = bits - 1; d < dim && j >= shift; j--)
            c = c << 1 | (key >> (dim * j + d) & 1);
        b->lo[d] = d < dim ? sp->base + (double)c * side : 0.0;
        b->hi[d] = d < dim ? b->lo[d] + side : 0.0;
    }
}

int gemst_region_level(int dim, int64_t n, int64_t points)
{
    int level = 0;
    while (level < gemst_region_axis_bits(dim) && ((int64_t)1 << (dim * (level + 1))) * points <= n)
        level++;
    return level;
}
