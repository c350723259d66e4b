/* Clustering outputs: SciPy's linkage matrix and HDBSCAN*'s condensed tree as
 * CSV, one label or number per point and line, and the friends-of-friends
 * group catalogue. */
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

static int print_value(FILE *f, const void *rows, int64_t i)
{
    return fprintf(f, "%.17g\n", ((const double *)rows)[i]);
}

int gemst_write_values(const char *path, const double *values, int64_t n, const char *what, gridemst_error *err)
{
    return gemst_write_lines(path, values, n, what, print_value, err);
}

static int print_condensed(FILE *f, const void *rows, int64_t i)
{
    const gridemst_condensed_row *r = (const gridemst_condensed_row *)rows + i;
    return fprintf(f, "%" PRId64 ",%" PRId64 ",%.17g,%" PRId64 "\n", r->parent, r->child, r->lambda, r->child_size);
}

int gemst_write_condensed_csv(const char *path, const gridemst_condensed_row *rows, int64_t m, gridemst_error *err)
{
    return gemst_write_lines(path, rows, m, "condensed tree rows", print_condensed, err);
}

typedef struct group_rows {
    const gemst_group *groups;
    int dim;
} group_rows;

/* Line 0 is the header, line i > 0 group i - 1. */
static int print_group(FILE *f, const void *rows, int64_t i)
{
    const group_rows *r = rows;
    static const char *const axes[3] = {"x", "y", "z"};
    int rc = 0;
    if (i == 0) {
        rc = fprintf(f, "group,size");
        for (int d = 0; d < r->dim && rc >= 0; d++)
            rc = fprintf(f, ",%s", axes[d]);
        for (int d = 0; d < r->dim && rc >= 0; d++)
            rc = fprintf(f, ",extent_%s", axes[d]);
        return rc < 0 ? rc : fprintf(f, "\n");
    }
    const gemst_group *g = &r->groups[i - 1];
    rc = fprintf(f, "%" PRId64 ",%" PRId64, g->id, g->size);
    for (int d = 0; d < r->dim && rc >= 0; d++)
        rc = fprintf(f, ",%.17g", g->centre[d]);
    for (int d = 0; d < r->dim && rc >= 0; d++)
        rc = fprintf(f, ",%.17g", g->extent[d]);
    return rc < 0 ? rc : fprintf(f, "\n");
}

int gemst_write_groups_csv(const char *path, const gemst_group *groups, int64_t m, int dim, gridemst_error *err)
{
    const group_rows rows = {groups, dim};
    return gemst_write_lines(path, &rows, m + 1, "groups", print_group, err);
}
