/* The cells' level (region.h); the distances to key ranges are
 * parts/region_dist.h's, shared with the devices. */
#include "parts/region.h"

int gemst_region_level(int dim, int64_t n, int64_t points)
{
    int level = 0;
    while (level < gemst_region_axis_bits(dim) && ((int64_t)1 << (dim * (level + 1))) * points <= n)
        level++;
    return level;
}
