/* Generated point sets with many duplicates, for the tests of the
 * mutual-reachability tree. */
#ifndef GEMST_DUP_SETS_H
#define GEMST_DUP_SETS_H

#include "testutil.h"
#include "tools/generate.h"

/* A generated set; with `dups`, a third of its points replaced by copies of
 * others (every seventh a copy of point 0), so that duplicates abound. */
static inline gemst_pointset make_set(gemst_gen_kind kind, int64_t n, int dim, int dups, uint64_t seed)
{
    gemst_pointset ps;
    gridemst_error err;
    REQUIRE(gemst_generate(kind, n, dim, seed, &ps, &err) == GRIDEMST_OK, "%s", err.message);
    float *p = ps.coords;
    for (int64_t i = 0; dups && i < n / 3; i++) {
        int64_t to = (int64_t)rng_below(&seed, (uint64_t)n);
        int64_t from = i % 7 == 0 ? 0 : (int64_t)rng_below(&seed, (uint64_t)n);
        memcpy(p + to * dim, p + from * dim, sizeof *p * (size_t)dim);
    }
    return ps;
}

#endif
