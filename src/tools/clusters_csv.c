/* Clustering outputs: SciPy's linkage matrix as CSV, and one label per line. */
#include "tools/io.h"

#include <inttypes.h>

#include "tools/io_internal.h"

static int print_merge(FILE *f, const void *rows, int64_t i)
{
    const gridemst_merge *r = (const gridemst_merge *)rows + i;
    return fprintf(f, "%" PRId64 ",%" PRId64 ",%.17g,%" PRId64 "\n", r->a, r->b, r->distance, r->size);
}

int gemst_write_linkage_csv(const char *path, const gridemst_merge *rows, int64_t m, gridemst_error *err)
{
    return gemst_write_lines(path, rows, m, "merges", print_merge, err);
}

static int print_label(FILE *f, const void *rows, int64_t i)
{
    return fprintf(f, "%" PRId64 "\n", ((const int64_t *)rows)[i]);
}

int gemst_write_labels(const char *path, const int64_t *labels, int64_t n, gridemst_error *err)
{
    return gemst_write_lines(path, labels, n, "labels", print_label, err);
}
