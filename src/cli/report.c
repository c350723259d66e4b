/* What the gridemst tool prints, and the --verify check. */
#include "cli/report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/io.h"
#include "tools/prim.h"
#include "tools/tree_check.h"

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ------------------------------------------------------------------ verify */

/*
 * The mutual-reachability tree against Prim under the same length
 * (tools/prim.h): in double precision the very edges; in float precision
 * the sorted lengths, each within the rounding of one evaluation (the
 * lengths are those of every minimum spanning tree of the graph).
 */
static int check_mr_tree(const gemst_pointset *ps, const gridemst_result *res, int64_t min_samples,
                         gemst_tree_check *check)
{
    memset(check, 0, sizeof *check);
    int64_t m = ps->n < 2 ? 0 : ps->n - 1;
    gridemst_edge *ref = malloc(sizeof *ref * (size_t)(m > 0 ? m : 1));
    if (!ref)
        return -1;
    check->reference_weight = gemst_prim_mr_reference(ps->coords, ps->dtype, ps->n, ps->dim, min_samples, ref);
    if (check->reference_weight < 0.0) {
        free(ref);
        return -1;
    }
    double scale = gemst_prim_scale(ps->coords, ps->dtype, ps->n, ps->dim, GRIDEMST_PRECISION_FLOAT, NULL);
    if (res->n_edges != m)
        snprintf(check->reason, sizeof check->reason, "%lld edges for %lld points, expected %lld",
                 (long long)res->n_edges, (long long)ps->n, (long long)m);
    for (int64_t k = 0; k < m && !check->reason[0]; k++) {
        const gridemst_edge *e = &res->edges[k], *r = &ref[k];
        double diff = fabs(e->w - r->w);
        double tol = gemst_tree_tolerance(ps->dim, res->stats.precision, scale, r->w);
        check->max_abs_diff = diff > check->max_abs_diff ? diff : check->max_abs_diff;
        check->tolerance = tol > check->tolerance ? tol : check->tolerance;
        if (diff > tol)
            snprintf(check->reason, sizeof check->reason, "length %lld is %.17g, reference %.17g", (long long)k, e->w,
                     r->w);
        else if (res->stats.precision == GRIDEMST_PRECISION_DOUBLE && (e->u != r->u || e->v != r->v))
            snprintf(check->reason, sizeof check->reason, "edge %lld is (%lld, %lld), reference (%lld, %lld)",
                     (long long)k, (long long)e->u, (long long)e->v, (long long)r->u, (long long)r->v);
    }
    free(ref);
    return check->reason[0] ? 0 : 1;
}

int cli_verify_tree(const gemst_pointset *ps, const gridemst_result *res, int64_t min_samples, cli_verify *v,
                    gridemst_error *err)
{
    memset(v, 0, sizeof *v);
    v->edges_only = ps->n > CLI_VERIFY_MAX_N;
    if (v->edges_only && min_samples >= 2) { /* a mutual-reachability edge is not as long as its ends lie apart */
        snprintf(v->reason, sizeof v->reason, "skipped: n > %d", CLI_VERIFY_MAX_N);
        return GRIDEMST_OK;
    }
    v->checked = 1;
    gemst_tree_check check;
    int rc = v->edges_only      ? gemst_check_edges(ps->coords, ps->dtype, ps->n, ps->dim, res->stats.precision,
                                                    res->edges, res->n_edges, &check)
             : min_samples >= 2 ? check_mr_tree(ps, res, min_samples, &check)
                                : gemst_check_tree(ps->coords, ps->dtype, ps->n, ps->dim, res->stats.precision,
                                                   res->edges, res->n_edges, &check);
    if (rc < 0) {
        err->code = GRIDEMST_ERR_NO_MEMORY;
        snprintf(err->message, sizeof err->message, "out of host memory for --verify of %lld points",
                 (long long)ps->n);
        return err->code;
    }
    v->ok = rc == 1;
    v->reference_weight = check.reference_weight;
    v->max_abs_diff = check.max_abs_diff;
    v->tolerance = check.tolerance;
    snprintf(v->reason, sizeof v->reason, "%s", check.reason);
    return GRIDEMST_OK;
}

void cli_print_verify(FILE *f, const cli_verify *v)
{
    if (!v->checked)
        fprintf(f, "verify: skipped (n > %d: brute-force Prim would take too long)\n", CLI_VERIFY_MAX_N);
    else if (v->ok && v->edges_only)
        fprintf(f, "verify: ok (n > %d, the edges only: n - 1 pairs of point ids in (w, u, v) order, each as long "
                   "as its ends lie apart; no cycle search, no reference tree)\n",
                CLI_VERIFY_MAX_N);
    else if (v->ok)
        fprintf(f, "verify: ok (Prim reference total %.17g, max |diff| %.3g, tolerance %.3g)\n", v->reference_weight,
                v->max_abs_diff, v->tolerance);
    else
        fprintf(f, "verify: FAILED (%s)\n", v->reason);
}

/* -------------------------------------------------------------- shared */

/* The tree's length under the TSPLIB instance's own integer metric; 0 when
 * the instance has one, -1 for MAN and MAX (the Euclidean tree is not their
 * minimum spanning tree). */
static int tsplib_weight(const cli_run *r, int64_t *length)
{
    return gemst_tsplib_tree_length(r->ps, r->res->edges, r->res->n_edges, length);
}

/* Million coordinates solved per second (inf or nan for a zero time). */
static double mfeatures_per_s(const cli_run *r)
{
    return (double)r->ps->n * r->ps->dim / (r->res->stats.time_ms.total * 1e3);
}

/* ---------------------------------------------------------------- JSON */

typedef struct json {
    FILE *f;
    int fresh; /* the current object has no member yet */
} json;

/* Length of the valid UTF-8 sequence starting at s, or 0 if there is none. */
static int utf8_length(const unsigned char *s)
{
    int len;
    uint32_t cp, least;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0)
        len = 2, cp = s[0] & 0x1F, least = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        len = 3, cp = s[0] & 0x0F, least = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        len = 4, cp = s[0] & 0x07, least = 0x10000;
    else
        return 0;
    for (int k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = cp << 6 | (s[k] & 0x3F);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* A JSON string.  File names are bytes: invalid UTF-8 becomes U+FFFD, so
 * that the output stays valid JSON. */
static void json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        int len = utf8_length(s);
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else if (*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else if (len == 0)
            fputs("\\ufffd", f);
        else
            fwrite(s, 1, (size_t)len, f);
        s += len > 0 ? len : 1;
    }
    fputc('"', f);
}

static void json_key(json *j, const char *key)
{
    if (!j->fresh)
        fputs(", ", j->f);
    j->fresh = 0;
    json_string(j->f, key);
    fputs(": ", j->f);
}

/* Opens an object: the whole document when key is NULL, else a member. */
static void json_open(json *j, const char *key)
{
    if (key)
        json_key(j, key);
    fputc('{', j->f);
    j->fresh = 1;
}

static void json_close(json *j)
{
    fputc('}', j->f);
    j->fresh = 0;
}

static void json_str(json *j, const char *key, const char *value)
{
    json_key(j, key);
    json_string(j->f, value);
}

static void json_int(json *j, const char *key, int64_t value)
{
    json_key(j, key);
    fprintf(j->f, "%lld", (long long)value);
}

/* JSON has no NaN or infinity: those are null. */
static void json_num(json *j, const char *key, double value)
{
    json_key(j, key);
    if (isfinite(value))
        fprintf(j->f, "%.17g", value);
    else
        fputs("null", j->f);
}

static void json_bool(json *j, const char *key, int value)
{
    json_key(j, key);
    fputs(value ? "true" : "false", j->f);
}

static void json_null(json *j, const char *key)
{
    json_key(j, key);
    fputs("null", j->f);
}

double cli_device_ms(const gridemst_times *t)
{
    return t->grid + t->findmin1 + t->findmin2 + t->merge + t->edges;
}

static void json_times(json *j, const cli_run *r)
{
    const gridemst_times *t = &r->res->stats.time_ms;
    if (r->repeat > 0) {
        json_int(j, "repeat", r->repeat);
        json_num(j, "device_ms_min", r->device_ms[1]);
        json_num(j, "device_ms_max", r->device_ms[2]);
    }
    json_num(j, "device_ms", r->device_ms[0]);
    json_num(j, "device_mfeatures_per_s",
             r->device_ms[0] > 0 ? (double)r->ps->n * r->ps->dim / r->device_ms[0] / 1e3 : 0.0);
    json_open(j, "time_ms");
    json_num(j, "total", r->input_ms + t->total);
    json_num(j, "input", r->input_ms);
    json_num(j, "solve", t->total);
    json_num(j, "upload", t->upload);
    json_num(j, "grid", t->grid);
    json_num(j, "findmin1", t->findmin1);
    json_num(j, "prepare", t->prepare);
    json_num(j, "findmin2", t->findmin2);
    json_num(j, "merge", t->merge);
    json_num(j, "edges", t->edges);
    json_num(j, "download", t->download);
    json_close(j);
}

static void json_tsplib(json *j, const cli_run *r)
{
    int64_t length;
    json_str(j, "tsplib_name", r->ps->tsp.name);
    json_str(j, "edge_weight_type", r->ps->tsp.edge_weight_type);
    if (tsplib_weight(r, &length) == 0)
        json_int(j, "tsplib_weight", length);
    else
        json_null(j, "tsplib_weight");
}

/* null when nothing was rounded to float */
static void json_rounding(json *j, const cli_rounding *r)
{
    if (!r) {
        json_null(j, "float_rounding");
        return;
    }
    json_open(j, "float_rounding");
    json_int(j, "rounded_points", r->rounded_points);
    json_int(j, "merged_points", r->merged_points);
    json_close(j);
}

/* Unknown values of a skipped check are null. */
static void json_verify(json *j, const cli_verify *v)
{
    json_open(j, "verify");
    json_bool(j, "checked", v->checked);
    json_str(j, "against", v->edges_only ? "edges" : "prim");
    if (v->checked) {
        json_bool(j, "ok", v->ok);
        if (v->edges_only)
            json_null(j, "reference_weight");
        else
            json_num(j, "reference_weight", v->reference_weight);
        json_num(j, "max_abs_diff", v->max_abs_diff);
        json_num(j, "tolerance", v->tolerance);
    } else {
        json_null(j, "ok");
        json_null(j, "reference_weight");
        json_null(j, "max_abs_diff");
        json_null(j, "tolerance");
    }
    if (v->reason[0])
        json_str(j, "reason", v->reason);
    else
        json_null(j, "reason");
    json_close(j);
}

/* A partitioned solve's work (gridemst_partition_stats, and the searches
 * its points' kept answers spared). */
static void json_partitions(json *j, const gridemst_stats *st)
{
    const gridemst_partition_stats *ps = &st->partitions;
    json_open(j, "partitions");
    json_int(j, "parts", ps->parts);
    json_int(j, "largest_part", ps->largest_part);
    json_int(j, "smallest_part", ps->smallest_part);
    json_int(j, "safe_edges", ps->safe_edges);
    json_int(j, "components", ps->components);
    json_int(j, "uncertain_edges", ps->uncertain_edges);
    json_int(j, "iterations", ps->iterations);
    json_int(j, "halo_rounds", ps->halo_rounds);
    json_int(j, "halo_points", ps->halo_points);
    json_int(j, "searches", ps->searches);
    json_int(j, "kept_answers", st->partition_kept_answers);
    json_int(j, "border_points", st->partition_border_points);
    json_int(j, "border_edges", st->partition_border_edges);
    json_int(j, "border_rounds", st->partition_border_rounds);
    json_int(j, "exchanged_bytes", ps->exchanged_bytes);
    json_open(j, "time_ms");
    json_num(j, "partition", ps->partition_ms);
    json_num(j, "local_trees", ps->local_ms);
    json_num(j, "contract", ps->contract_ms);
    json_num(j, "search", ps->search_ms);
    json_num(j, "halo", ps->halo_ms);
    json_num(j, "merge", ps->merge_ms);
    json_num(j, "devices", st->partition_devices_ms);
    json_num(j, "border", st->partition_border_ms);
    json_open(j, "partition_steps");
    json_num(j, "frame", ps->frame_ms);
    json_num(j, "keys", ps->keys_ms);
    json_num(j, "splitters", ps->splitters_ms);
    json_num(j, "pack", ps->pack_ms);
    json_num(j, "send", ps->send_ms);
    json_num(j, "part_copy", ps->part_copy_ms);
    json_close(j);
    json_num(j, "tree_edges", ps->tree_edges_ms);
    json_open(j, "contract_steps");
    json_num(j, "gaps", ps->gaps_ms);
    json_num(j, "safe", ps->safe_ms);
    json_num(j, "components", ps->components_ms);
    json_num(j, "gaps_alloc", ps->gaps_alloc_ms);
    json_num(j, "gaps_device", ps->gaps_device_ms);
    json_num(j, "gaps_copy", ps->gaps_copy_ms);
    json_num(j, "copy", ps->contract_copy_ms);
    json_close(j);
    json_num(j, "free", ps->free_ms);
    json_close(j);
    json_close(j);
}

void cli_print_json(FILE *f, const cli_run *r)
{
    const gridemst_result *res = r->res;
    const gridemst_stats *st = &res->stats;
    json j = {f, 1};
    json_open(&j, NULL);
    json_str(&j, "input", r->input);
    json_str(&j, "format", r->format);
    json_int(&j, "n", r->ps->n);
    json_int(&j, "dim", r->ps->dim);
    json_int(&j, "edges", res->n_edges);
    json_num(&j, "total_weight", res->total_weight);
    json_str(&j, "backend", gridemst_backend_name(st->backend));
    json_str(&j, "nns", gridemst_nns_name(st->nns));
    json_str(&j, "prune", gridemst_prune_name(st->prune));
    json_str(&j, "findmin2", gridemst_findmin2_name(st->findmin2));
    json_str(&j, "precision", gridemst_precision_name(st->precision));
    json_int(&j, "threads", st->threads);
    json_str(&j, "device", st->device_name);
    json_int(&j, "iterations", st->iterations);
    json_int(&j, "n_unique", st->n_unique);
    json_int(&j, "n_duplicates", st->n_duplicates);
    json_int(&j, "cells", st->cells);
    json_num(&j, "cell_occupancy", st->cell_occupancy);
    json_num(&j, "cell_side", st->cell_side);
    json_int(&j, "crowded_cell", st->crowded_cell);
    json_int(&j, "crowded_cells", st->crowded_cells);
    json_int(&j, "nested_cells", st->nested_cells);
    json_int(&j, "block_points", st->block_points);
    json_int(&j, "lone_points", st->lone_points);
    json_int(&j, "fallback_searches", st->fallback_searches);
    json_int(&j, "late_bvh_iteration", st->late_bvh_iteration);
    json_num(&j, "density_contrast", st->density_contrast);
    json_int(&j, "peak_device_bytes", st->peak_device_bytes);
    if (st->note[0])
        json_str(&j, "note", st->note);
    json_rounding(&j, r->rounding);
    json_times(&j, r);
    if (st->partitions.parts > 1)
        json_partitions(&j, st);
    json_num(&j, "mfeatures_per_s", mfeatures_per_s(r));
    if (r->ps->is_tsplib)
        json_tsplib(&j, r);
    if (r->verify)
        json_verify(&j, r->verify);
    if (r->clusters) {
        json_int(&j, "clusters", r->clusters->count);
        json_int(&j, "noise_points", r->clusters->noise_points);
        json_num(&j, "clusters_ms", r->clusters->ms);
    }
    if (r->fof) {
        json_num(&j, "linking_length", r->fof->linking_length);
        if (r->fof->box > 0.0)
            json_num(&j, "box", r->fof->box);
        else
            json_null(&j, "box");
        json_int(&j, "groups", r->fof->groups);
        json_int(&j, "noise_points", r->fof->noise_points);
    }
    json_close(&j);
    fputc('\n', f);
}

/* --------------------------------------------------------------- summary */

static const char *plural(int64_t count)
{
    return count == 1 ? "" : "s";
}

static void print_backend_line(FILE *f, const gridemst_stats *st)
{
    fprintf(f, "backend %s", gridemst_backend_name(st->backend));
    if (st->backend == GRIDEMST_BACKEND_CUDA)
        fprintf(f, " (%s)", st->device_name);
    else if (st->threads > 0) /* 0 when there was nothing to solve */
        fprintf(f, " (%d thread%s)", st->threads, plural(st->threads));
    fprintf(f, ", %s nns, %s pruning, %s findmin2, %s precision, %d iteration%s\n", gridemst_nns_name(st->nns),
            gridemst_prune_name(st->prune), gridemst_findmin2_name(st->findmin2),
            gridemst_precision_name(st->precision), st->iterations, plural(st->iterations));
}

static void print_time_line(FILE *f, const cli_run *r)
{
    const gridemst_times *t = &r->res->stats.time_ms;
    fprintf(f, "time %.1f ms: input %.1f, ", r->input_ms + t->total, r->input_ms);
    if (r->res->stats.backend == GRIDEMST_BACKEND_CUDA)
        fprintf(f, "upload %.1f, ", t->upload);
    fprintf(f, "grid %.1f, findmin1 %.1f, findmin2 %.1f, merge %.1f, edges %.1f", t->grid, t->findmin1, t->findmin2,
            t->merge, t->edges);
    double rate = mfeatures_per_s(r);
    if (isfinite(rate))
        fprintf(f, " (%.3g MFeatures/s)", rate);
    fputc('\n', f);
}

static void print_tsplib_line(FILE *f, const cli_run *r)
{
    int64_t length;
    fprintf(f, "tsplib weight (%s): ", r->ps->tsp.edge_weight_type);
    if (tsplib_weight(r, &length) == 0)
        fprintf(f, "%lld\n", (long long)length);
    else
        fputs("n/a (the Euclidean tree is not this metric's minimum spanning tree)\n", f);
}

/* A partitioned solve's parts, halos and the time of its steps. */
static void print_partitions_line(FILE *f, const cli_run *r)
{
    const gridemst_partition_stats *ps = &r->res->stats.partitions;
    fprintf(f,
            "partitions %d (%lld to %lld points): %lld boundary component%s, %d iteration%s, halos %lld point%s "
            "(%.3g%%) in %d round%s; time partition %.1f, local trees %.1f, contract %.1f, search %.1f, halo %.1f, "
            "merge %.1f ms\n",
            ps->parts, (long long)ps->smallest_part, (long long)ps->largest_part, (long long)ps->components,
            plural(ps->components), ps->iterations, plural(ps->iterations), (long long)ps->halo_points,
            plural(ps->halo_points), r->ps->n > 0 ? 100.0 * (double)ps->halo_points / (double)r->ps->n : 0.0,
            ps->halo_rounds, plural(ps->halo_rounds), ps->partition_ms, ps->local_ms, ps->contract_ms, ps->search_ms,
            ps->halo_ms, ps->merge_ms);
}

void cli_print_summary(FILE *f, const cli_run *r)
{
    const gridemst_result *res = r->res;
    fprintf(f, "gridemst: %lld point%s (%dD, %lld duplicate%s) -> %lld edge%s, total weight %.10g\n",
            (long long)r->ps->n, plural(r->ps->n), r->ps->dim, (long long)res->stats.n_duplicates,
            plural(res->stats.n_duplicates), (long long)res->n_edges, plural(res->n_edges), res->total_weight);
    print_backend_line(f, &res->stats);
    print_time_line(f, r);
    if (res->stats.partitions.parts > 1)
        print_partitions_line(f, r);
    if (r->ps->is_tsplib)
        print_tsplib_line(f, r);
    if (r->clusters)
        fprintf(f, "clusters: %lld (%lld noise point%s) in %.1f ms\n", (long long)r->clusters->count,
                (long long)r->clusters->noise_points, plural(r->clusters->noise_points), r->clusters->ms);
    if (r->fof)
        fprintf(f, "friends-of-friends at linking length %.9g%s: %lld group%s (%lld noise point%s)\n",
                r->fof->linking_length, r->fof->box > 0.0 ? " in a periodic box" : "", (long long)r->fof->groups,
                plural(r->fof->groups), (long long)r->fof->noise_points, plural(r->fof->noise_points));
}

/* -------------------------------------------------------------- progress */

static int show_progress(void *ctx, const char *phase, int iteration, int64_t components)
{
    cli_progress *p = ctx;
    char line[160];
    if (cli_now_ms() - p->start_ms <= 1000.0)
        return 0;
    if (strcmp(phase, "iteration") == 0)
        snprintf(line, sizeof line, "gridemst: iteration %d, %lld component%s left", iteration,
                 (long long)components, components == 1 ? "" : "s");
    else if (strcmp(phase, "grid") == 0)
        snprintf(line, sizeof line, "gridemst: grid built");
    else if (strcmp(phase, "edges") == 0)
        snprintf(line, sizeof line, "gridemst: sorting the tree's edges");
    else if (strcmp(phase, "partition") == 0)
        snprintf(line, sizeof line, "gridemst: points split into %lld parts", (long long)components);
    else if (strcmp(phase, "local tree") == 0)
        snprintf(line, sizeof line, "gridemst: part %d's tree solved", iteration);
    else if (strcmp(phase, "boundary") == 0)
        snprintf(line, sizeof line, "gridemst: boundary iteration %d, %lld component%s left", iteration,
                 (long long)components, components == 1 ? "" : "s");
    else
        snprintf(line, sizeof line, "gridemst: %s", phase);
    /* blanks overwrite the rest of a longer line shown before */
    int len = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
    fflush(stderr);
    p->width = len > p->width ? len : p->width;
    return 0;
}

void cli_progress_start(cli_progress *p, gridemst_options *opt)
{
    p->start_ms = cli_now_ms();
    p->width = 0;
    if (!isatty(STDERR_FILENO))
        return;
    opt->progress = show_progress;
    opt->progress_ctx = p;
}

void cli_progress_end(cli_progress *p)
{
    if (p->width > 0)
        fputc('\n', stderr);
    p->width = 0;
}
