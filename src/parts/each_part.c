/*
 * A step that is independent from part to part, run for every part at
 * once: the parts share the threads (a part's own loops then use its
 * share, in a nested parallel region), and a part's serial stretches
 * overlap with the others' work.  The parts on devices each have a host
 * thread of their own, which drives the device.
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "parts/parts.h"

/* fn for every part on `outer` threads, the part's share of c's threads
 * (at least one) its own. */
static int each(const gemst_parts_ctx *c, int outer, gemst_part_fn fn, void *arg, gridemst_error *err)
{
    const int P = c->parts;
    int rc[GEMST_MAX_PARTS];
    gridemst_error *errs = calloc((size_t)P, sizeof *errs);
    if (!errs)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
#pragma omp parallel for num_threads(outer) schedule(dynamic, 1)
    for (int p = 0; p < P; p++) {
#ifdef _OPENMP
        omp_set_max_active_levels(2); /* this task's: the part's own loops get its share of the threads */
#endif
        gemst_parts_ctx mine = *c;
        const int slot = p % outer; /* threads / outer each, the remainder to the first ones */
        mine.threads = c->threads / outer + (slot < c->threads % outer);
        mine.threads = mine.threads > 0 ? mine.threads : 1;
        rc[p] = fn(&mine, p, arg, &errs[p]);
    }
    int status = GRIDEMST_OK;
    for (int p = 0; p < P && status == GRIDEMST_OK; p++)
        if (rc[p] != GRIDEMST_OK) {
            status = rc[p];
            if (err)
                *err = errs[p];
        }
    free(errs);
    return status;
}

int gemst_parts_each(const gemst_parts_ctx *c, gemst_part_fn fn, void *arg, gridemst_error *err)
{
    return each(c, c->parts < c->threads ? c->parts : c->threads, fn, arg, err);
}

int gemst_parts_each_device(const gemst_parts_ctx *c, gemst_part_fn fn, void *arg, gridemst_error *err)
{
    return each(c, c->parts, fn, arg, err);
}
