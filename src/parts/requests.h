/*
 * How far a part's halo reaches, cell by cell, and how it grows.
 *
 * A part's points are grouped into cells (gaps.c: runs of its points
 * in Morton order at one level), and each cell has its points' box and a
 * reach rho: the halo holds every other part's point whose squared
 * distance to the box is below rho, so that a search from any point of the
 * cell finds every edge shorter than gemst_parts_lower(rho).  When a
 * component's bound lies beyond the reach of a cell with a point that
 * could still beat it, the cell asks for more: a request (its box and the
 * new reach) goes to every other part, and each answers with its points
 * within that reach which it has not sent to the asking part before.  A
 * part finds them among its own cells near the request's box (every part's
 * cells are dyadic cells of the same level, looked up by their keys), in
 * its store (store.h), first extended to the request's gap limit, and
 * each cell remembers to which parts all its points in the store have
 * gone.
 */
#ifndef GEMST_PARTS_REQUESTS_H
#define GEMST_PARTS_REQUESTS_H

#include "parts/parts.h"

/* A cell's request: its box and the reach it asks for. */
typedef struct gemst_request {
    gemst_box box;
    double rho;
} gemst_request;

/* The edges shorter than this are all within reach of searches from a
 * cell of reach rho. */
double gemst_reach_covers(double rho);

/* The least reach that covers edges of squared length d2. */
double gemst_reach_for(double d2);

/*
 * A squared gap that no point of another part within the reach of part
 * asking's request exceeds (parts/gap.h: a point's gap is its squared
 * distance to the regions of the parts other than its own).  The request's
 * box holds points of the asking part in one dyadic cell of `level`; when
 * that cell lies in the asking part's region, so does the box, and a point
 * within the reach of the box is within it of that region; else it is
 * within the reach and the farthest distance from a point of the box to
 * that region (bounded over pieces of the box: each piece's distance to
 * the region and its diagonal).  Margins as gemst_reach_for's.
 */
double gemst_request_gap_limit(const gemst_region_space *sp, int level, gemst_key_range asking,
                               const gemst_request *req);

/*
 * Part s's answer to m requests of part p: the records (halo.h) of its
 * points within reach of any of them that p has not had yet, appended to
 * *out (capacity *cap records, grown with realloc) from position *count.
 * The requests are shared among c's threads: the records come in no fixed
 * order, each point once.
 */
int gemst_part_answer(const gemst_parts_ctx *c, gemst_part *s, int p, const gemst_request *req, int64_t m,
                      char **out, int64_t *count, int64_t *cap, gridemst_error *err);

#endif
