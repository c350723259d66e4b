/*
 * A BVH traversal's stack of pending nodes (precision-generic, see real.h),
 * for the depth-first searches that enter the nearer child first
 * (bvh_query.h, bvh_knn.h, bvh_core.h, cpu/cpu_bvh_search.h).
 *
 * Each entry is a node's word (what entering it needs) and its squared
 * distance from the query when it was found within the radius, so that a
 * search can drop it once its radius has shrunk below it.  Of the
 * children a visit finds within the search's radius, the search enters
 * the nearer next, held in registers, and pushes only
 * the farther, so that a thread's stack moves only for the siblings it
 * leaves pending.  (A loop that visits one node per turn keeps the threads
 * of a warp in step: a loop descending within a loop over the entries
 * made the first search of 1e7 points 40% slower.)
 * On the GPU the stack lies in local memory, where the threads of a warp,
 * each at a depth of its own, reach as many cache lines as they have
 * depths: the first search of 1e7 points moved as many sectors through
 * its stacks as it read of the tree.
 *
 *     gemst_bvh_stack stack;
 *     uint32_t word = the root's;
 *     gemst_real d2 = 0;
 *     int entering = 1;
 *     gemst_bvh_stack_start(&stack);
 *     while (gemst_bvh_next(&stack, &entering, &word, &d2)) {
 *         if (d2 is beyond the radius)
 *             continue;
 *         the children of word within the radius into push, push_d2, np;
 *         entering = gemst_bvh_descend(&stack, push, push_d2, np, &word, &d2);
 *     }
 */
#ifndef GEMST_BVH_STACK_H
#define GEMST_BVH_STACK_H

#include "bvh/bvh_build.h"

/* Entries a traversal may hold: each internal node on the current path
 * (at most GEMST_BVH_MAX_DEPTH, bvh_build.h) leaves at most one child
 * pending, and one more is being entered. */
#define GEMST_BVH_STACK (GEMST_BVH_MAX_DEPTH + 1)

/* An entry, one store and one load on the GPU. */
#define gemst_bvh_entry GEMST_FN(gemst_bvh_entry)
typedef struct __attribute__((aligned(2 * sizeof(gemst_real)))) {
    uint32_t word;
    gemst_real d2;
} gemst_bvh_entry;

#define gemst_bvh_stack GEMST_FN(gemst_bvh_stack)
typedef struct {
    int top; /* entries held */
    gemst_bvh_entry entry[GEMST_BVH_STACK];
} gemst_bvh_stack;

/* An empty stack. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_stack_start)(gemst_bvh_stack *s)
{
    s->top = 0;
}

/* The next node to visit into *word and *d2: the one the last visit chose
 * to enter (when *entering), else the last pending entry.  Returns 0 when
 * there is none left. */
static inline GEMST_HD int GEMST_FN(gemst_bvh_next)(gemst_bvh_stack *s, int *entering, uint32_t *word, gemst_real *d2)
{
    if (*entering) {
        *entering = 0;
        return 1;
    }
    if (s->top == 0)
        return 0;
    const gemst_bvh_entry e = s->entry[--s->top];
    *word = e.word;
    *d2 = e.d2;
    return 1;
}

/* Of the np (0 to 2) nodes a visit found within the search's radius, at
 * squared distances push_d2, the nearer (the second on a tie) into *word
 * and *d2, to enter next; the other, if any, pushed.  Returns whether
 * there is one to enter. */
static inline GEMST_HD int GEMST_FN(gemst_bvh_descend)(gemst_bvh_stack *s, const uint32_t push[2],
                                                     const gemst_real push_d2[2], int np, uint32_t *word,
                                                     gemst_real *d2)
{
    if (np == 0)
        return 0;
    /* (constant indices: the GPU keeps push in registers) */
    const int second = np == 2 && !(push_d2[0] < push_d2[1]);
    *word = second ? push[1] : push[0];
    *d2 = second ? push_d2[1] : push_d2[0];
    if (np == 2) {
        gemst_bvh_entry e;
        e.word = second ? push[0] : push[1];
        e.d2 = second ? push_d2[0] : push_d2[1];
        s->entry[s->top++] = e;
    }
    return 1;
}

#endif
