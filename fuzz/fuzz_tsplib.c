/*
 * libFuzzer harness of the TSPLIB reader (see fuzz_common.h), which also
 * runs the instance's integer metric (gemst_tsplib_tree_length) over a
 * chain through every node.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The path 0-1, 1-2, ..., (n-2)-(n-1) and its length; the length is
 * refused (-1) only for MAN_* and MAX_* or a sum beyond 2^53. */
static void fuzz_chain_length(const gemst_pointset *ps)
{
    int64_t m = ps->n > 1 ? ps->n - 1 : 0;
    gridemst_edge *edges = malloc((size_t)(m ? m : 1) * sizeof *edges);
    if (!edges)
        abort();
    for (int64_t i = 0; i < m; i++)
        edges[i] = (gridemst_edge){i, i + 1, 0.0};
    int64_t length = -1;
    if (gemst_tsplib_tree_length(ps, edges, m, &length) == 0 && length < 0)
        abort();
    free(edges);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_read_tsplib(path, &ps, fuzz_check_warning, NULL, &err);
    fuzz_check_result(rc, &err, &ps, GRIDEMST_FLOAT64);
    if (rc == GRIDEMST_OK) {
        if (!ps.is_tsplib || !ps.tsp.orig || (ps.tsp.orig_dim != 2 && ps.tsp.orig_dim != 3))
            abort();
        fuzz_chain_length(&ps);
    }
    gemst_pointset_free(&ps);
    return 0;
}
