/*
 * The border step of a partitioned solve (step 5, before the boundary
 * Boruvka): the whole set's tree edges among the points near the parts'
 * borders, found by one solve of those points.
 *
 * Every crossing edge from a point is at least as long as the point's gap
 * (its squared distance to the other parts' regions).  So with B the
 * points of every part whose gap is up to a limit L, and f a crossing
 * edge with an end outside B, f is no shorter than gemst_parts_lower(L),
 * the *cover*.  B is solved as one set, by the parts' solver (on the
 * first part's device where the parts lie on devices), in the whole set's
 * frame and in the order of the ids, so that its tree T_B is the minimum
 * spanning tree of B under the whole set's edge order.  Kruskal then runs
 * over the safe components on the candidates, T_B's edges and the parts'
 * uncertain edges, in the edge order, and stops at the first shorter than
 * the cover no longer:
 *
 *   every edge it adds is in the whole set's tree.  An edge g shorter than
 *   the cover is left out of that tree only by a path between its ends of
 *   edges before g in the order.  Each of those is shorter than the cover:
 *   a crossing one has both ends in B, and T_B joins them by edges no later
 *   in the order; one within a part, its tree's path (its safe edges lie
 *   within components, its uncertain ones are candidates).  So the
 *   candidates hold such a path too, and Kruskal leaves g out as well.
 *
 * In particular, once Kruskal has read every candidate shorter than the
 * cover, no edge of the whole set shorter than the cover joins two of the
 * components it leaves.
 *
 * So a round need not solve every point within its limit: those whose
 * neighbourhood holds points of their own component only (as the rounds
 * before left the components; at the first, their safe component:
 * inner.h) cannot end an edge it still needs, and B leaves them out.  (A crossing edge shorter than the cover from such a point joins
 * two points of one component, which edges before it join already; the
 * argument above goes through.)
 *
 * The first limit is twice the length of a middling local tree edge (the
 * parts' store's typical_d2, four times in squares).  Where more than one
 * component is left, the limit doubles in length and the step runs again
 * (the edges added stay), while B (less its inner points) stays within a
 * quarter of the largest part, so that a round's solve costs less than a
 * local tree's.  Where components are left after that, or the device
 * cannot hold B's solve, the step's edges are dropped and the boundary Boruvka
 * (boundary.c) starts from the safe components, with the last B's tree's
 * edges between them among its candidates: edges of the whole set, which
 * bound the components' least edges from the start.  (Continuing from the
 * step's components instead costs more: they are few and large, and their
 * bounds are long, so that every point near the borders searches far.)
 *
 * Each part tests its own points for inner ones, against the cells of
 * every part's points within the limit (border_cells.h), so that only the
 * cells and the points kept travel.  By default the step runs where the
 * parts lie on devices, where B is gathered and solved on the first
 * part's device (device_border.h); on
 * the CPU's virtual parts the boundary Boruvka's searches cost less than
 * solving B again.  GRIDEMST_PARTS_BORDER in the environment overrides
 * it: off (skipped), on (as on devices), once (one round at the first
 * limit, whatever B's size) or all (rounds until one component is left,
 * whatever B's size).  The step on the CPU's parts leaves out the same
 * inner points as on the devices, and solves the same B.
 */
#ifndef GEMST_PARTS_BORDER_H
#define GEMST_PARTS_BORDER_H

#include "parts/parts.h"

/* The border step over n_comp safe components: the edges it proves into
 * edges[*n_edges ...] (room for n_comp - 1), their joins into the
 * union-find parent (a forest over the safe components), with the parts'
 * stores created (store.h); or, where it leaves components, nothing, and
 * B's tree's edges between safe components added to the first part's
 * store's edges.  Its counts and time go to *st. */
int gemst_parts_border(gemst_parts_ctx *c, gemst_part *parts, uint32_t n_comp, uint32_t *parent,
                       gemst_gid_edge *edges, int64_t *n_edges, gridemst_stats *st, gridemst_error *err);

/* The whole set's frame made the identity on working coordinates
 * (translated by nothing, scaled by 1), so that a solver given them as
 * its points computes every distance from the same values; and the
 * problem that solves points near the borders in it (frame: that frame),
 * on the first part's device where the parts lie on devices, whose points
 * (coords, n) the caller sets (local_tree.c). */
gemst_frame gemst_parts_working_frame(const gemst_parts_ctx *c);
void gemst_parts_border_problem(const gemst_parts_ctx *c, const gemst_frame *frame, gemst_problem *lp);

/* The tree of n points given by their working coordinates (w: 3 a point,
 * the third 0 in 2D), numbered in the order of their ids, in the edge
 * order: by the parts' solver (local_tree.c), on the host or on the first
 * part's device. */
int gemst_parts_solve_working(const gemst_parts_ctx *c, const double *w, int64_t n, gemst_parts_edge **tree,
                              int64_t *n_tree, gridemst_error *err);

#endif
