/* What --precision float's rounding did to the input's points. */
#ifndef GEMST_CLI_ROUNDING_H
#define GEMST_CLI_ROUNDING_H

#include <stdint.h>

#include "gridemst.h"
#include "tools/pointset.h"

typedef struct cli_rounding {
    int64_t rounded_points; /* points with a working coordinate that float32 rounds */
    int64_t merged_points;  /* points joined by a zero-length edge to a point of other coordinates */
} cli_rounding;

/*
 * Float precision solves on the points translated to the bounding-box
 * minimum, scaled by a power of two and rounded to float32 (gridemst.h).
 * Counts the points whose working coordinates that rounding changed, and
 * the points it merged with others: a zero-length edge of the tree joins
 * two points of different coordinates only when their rounded coordinates
 * are equal (or so close that the float squared distance is 0), which
 * changes the tree's topology, not just its lengths.  The rounded points
 * are counted only when count_rounded asks (-1 otherwise): that takes two
 * passes over the points, while the merged points need only the tree's
 * zero-length edges, which a solve without duplicates has none of.
 */
void cli_rounding_check(const gemst_pointset *ps, const gridemst_result *res, int count_rounded, cli_rounding *r);

#endif
