#include "tools/pointset.h"

#include <stdlib.h>
#include <string.h>

void gemst_pointset_free(gemst_pointset *ps)
{
    if (!ps)
        return;
    free(ps->coords);
    free(ps->tsp.orig);
    memset(ps, 0, sizeof *ps);
}
