/* The tree as CSV, in mlpack's emst layout: "lesser,greater,distance", no header. */
#include "tools/io.h"

#include <inttypes.h>

#include "tools/io_internal.h"

int gemst_write_edges_csv(const char *path, const gridemst_edge *edges, int64_t m, gridemst_error *err)
{
    if (!path)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "no output file named");
    if (m < 0 || (m > 0 && !edges))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: no edges to write", path);
    gemst_output o;
    int rc = gemst_output_open(&o, path, err);
    if (rc != GRIDEMST_OK)
        return rc;
    /* %.17g: 17 significant digits read back as the same double. */
    for (int64_t i = 0; i < m && !o.error; i++) {
        int written = fprintf(o.f, "%" PRId64 ",%" PRId64 ",%.17g\n", edges[i].u, edges[i].v, edges[i].w);
        gemst_output_check(&o, written >= 0);
    }
    return gemst_output_close(&o, err);
}
