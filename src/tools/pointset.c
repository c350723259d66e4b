#include "tools/pointset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void gemst_pointset_free(gemst_pointset *ps)
{
    if (!ps)
        return;
    if (ps->mapping)
        munmap(ps->mapping, ps->mapping_bytes);
    else
        free(ps->coords);
    free(ps->tsp.orig);
    memset(ps, 0, sizeof *ps);
}
