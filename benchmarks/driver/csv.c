/* CSV rows of the benchmark driver. */
#include "csv.h"

#include <string.h>

#define KEY_COLUMNS "dataset,n,dim,backend,nns,prune,findmin2,precision,result,context"

/* A text field, quoted when it holds a comma, a quote or a line break. */
static void text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* ",x" with six significant digits; just "," when x is NaN. */
static void number(FILE *f, double x)
{
    if (isnan(x))
        fputc(',', f);
    else
        fprintf(f, ",%.6g", x);
}

static void key(FILE *f, const bench_config *c)
{
    text(f, c->dataset);
    fprintf(f, ",%lld,%d,%s,%s,%s,%s,%s,%s,%s", (long long)c->n, c->dim, gridemst_backend_name(c->backend),
            gridemst_nns_name(c->nns), gridemst_prune_name(c->prune), gridemst_findmin2_name(c->findmin2),
            gridemst_precision_name(c->precision), gridemst_result_place_name(c->result), bench_context_name(c));
}

void bench_csv_runs_header(FILE *f)
{
    fputs(KEY_COLUMNS ",threads,run,call_ms,phase_ms,dark_ms,time_ms,wall_ms,solve_ms,upload_ms,grid_ms,findmin1_ms,prepare_ms,findmin2_ms,"
                      "merge_ms,edges_ms,download_ms,floor_ms,iterations,fallback_searches,n_unique,cells,"
                      "cell_occupancy,crowded_cell,peak_device_bytes,total_weight,same_edges,device,late_bvh_iteration,cell_side,"
          "index,density_contrast\n",
          f);
}

void bench_csv_run(FILE *f, const bench_config *c, int run, const bench_times *t, const gridemst_result *r,
                   int same_edges)
{
    const gridemst_stats *s = &r->stats;
    const gridemst_times *p = &s->time_ms;
    key(f, c);
    fprintf(f, ",%d,%d", s->threads, run);
    const double phases = bench_phase_ms(r);
    const double times[] = {t->wall_ms,  phases,     t->wall_ms - phases,
                            t->ms,       t->wall_ms, p->total, p->upload, p->grid,     p->findmin1,
                            p->prepare,  p->findmin2, p->merge, p->edges,  p->download, bench_floor_ms(r)};
    for (size_t k = 0; k < sizeof times / sizeof times[0]; k++)
        number(f, times[k]);
    fprintf(f, ",%d,%lld,%lld,%lld,%.17g,%lld,%lld,%.17g,%d,", s->iterations, (long long)s->fallback_searches,
            (long long)s->n_unique, (long long)s->cells, s->cell_occupancy, (long long)s->crowded_cell,
            (long long)s->peak_device_bytes, r->total_weight, same_edges);
    text(f, s->device_name);
    fprintf(f, ",%d,%.17g,%s,%.4g\n", s->late_bvh_iteration, s->cell_side, gridemst_nns_name(s->nns),
            s->density_contrast);
}

void bench_csv_iterations_header(FILE *f)
{
    fputs(KEY_COLUMNS ",run,iteration,components,findmin1_ms,findmin2_ms,connect_ms,flatten_ms,fallback_searches,longest_edge\n", f);
}

void bench_csv_iterations(FILE *f, const bench_config *c, int run, const gridemst_result *r)
{
    for (int k = 0; k < r->stats.iterations; k++) {
        const gridemst_iteration_times *it = &r->stats.iteration_ms[k];
        key(f, c);
        fprintf(f, ",%d,%d,%lld", run, k, (long long)it->components);
        number(f, it->findmin1);
        number(f, it->findmin2);
        number(f, it->connect);
        number(f, it->flatten);
        fprintf(f, ",%lld,%.17g\n", (long long)it->fallback_searches, it->longest_edge);
    }
}
