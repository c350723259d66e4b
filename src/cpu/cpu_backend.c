#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend.h"

int gemst_cpu_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err)
{
    if (pb->opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cpu_solve_f64(pb, tree, stats, err);
    return gemst_cpu_solve_f32(pb, tree, stats, err);
}

int gemst_cpu_choose_index(const gemst_problem *pb, int threads, int *bvh, double *contrast, gridemst_error *err)
{
    if (pb->opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cpu_choose_index_f64(pb, threads, bvh, contrast, err);
    return gemst_cpu_choose_index_f32(pb, threads, bvh, contrast, err);
}

uint64_t gemst_cpu_host_bytes(const gemst_problem *pb)
{
    if (pb->opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cpu_host_bytes_f64(pb);
    return gemst_cpu_host_bytes_f32(pb);
}

int gemst_host_bbox(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int threads, double lo[3],
                    double hi[3], gridemst_error *err)
{
    int64_t bad = n; /* first point with a non-finite coordinate */
    for (int d = 0; d < 3; d++) {
        lo[d] = d < dim ? INFINITY : 0.0;
        hi[d] = d < dim ? -INFINITY : 0.0;
    }
    if (threads < 1)
        threads = 1;
#pragma omp parallel num_threads(threads)
    {
        double tlo[3] = {INFINITY, INFINITY, INFINITY}, thi[3] = {-INFINITY, -INFINITY, -INFINITY};
        int64_t tbad = n;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            for (int d = 0; d < dim; d++) {
                double v = dtype == GRIDEMST_FLOAT32 ? (double)((const float *)coords)[i * dim + d]
                                                     : ((const double *)coords)[i * dim + d];
                if (!isfinite(v)) {
                    if (i < tbad)
                        tbad = i;
                    continue;
                }
                tlo[d] = v < tlo[d] ? v : tlo[d];
                thi[d] = v > thi[d] ? v : thi[d];
            }
#pragma omp critical(gemst_bbox)
        {
            for (int d = 0; d < dim; d++) {
                lo[d] = tlo[d] < lo[d] ? tlo[d] : lo[d];
                hi[d] = thi[d] > hi[d] ? thi[d] : hi[d];
            }
            if (tbad < bad)
                bad = tbad;
        }
    }
    if (bad < n) {
        double v[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++)
            v[d] = dtype == GRIDEMST_FLOAT32 ? (double)((const float *)coords)[bad * dim + d]
                                             : ((const double *)coords)[bad * dim + d];
        if (dim == 2)
            return gemst_fail(err, GRIDEMST_ERR_INPUT, "point %lld has a non-finite coordinate (%g, %g)",
                              (long long)bad, v[0], v[1]);
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "point %lld has a non-finite coordinate (%g, %g, %g)",
                          (long long)bad, v[0], v[1], v[2]);
    }
    return GRIDEMST_OK;
}

uint64_t gemst_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

void gemst_tree_free(gemst_tree *t)
{
    free(t->lo);
    free(t->hi);
    free(t->d2);
    t->lo = t->hi = NULL;
    t->d2 = NULL;
    t->n_edges = 0;
}

int gemst_cpu_fof(const gemst_fof_problem *fp, gemst_tree *forest, gridemst_stats *stats, gridemst_error *err)
{
    if (fp->pb.opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cpu_fof_f64(fp, forest, stats, err);
    return gemst_cpu_fof_f32(fp, forest, stats, err);
}
