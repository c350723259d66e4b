/* The tree as CSV, in mlpack's emst layout: "lesser,greater,distance", no header. */
#include "tools/io.h"

#include <inttypes.h>

#include "tools/io_internal.h"

/* %.17g: 17 significant digits read back as the same double. */
static int print_edge(FILE *f, const void *rows, int64_t i)
{
    const gridemst_edge *e = (const gridemst_edge *)rows + i;
    return fprintf(f, "%" PRId64 ",%" PRId64 ",%.17g\n", e->u, e->v, e->w);
}

int gemst_write_edges_csv(const char *path, const gridemst_edge *edges, int64_t m, gridemst_error *err)
{
    return gemst_write_lines(path, edges, m, "edges", print_edge, err);
}
