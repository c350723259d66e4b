/*
 * gridemst_fof against references that never see its grid: every pair
 * within the linking length by brute force (minimum-image distances in a
 * periodic box), joined by union-find and by Kruskal's minimum spanning
 * forest; and against the whole tree cut by gridemst_clusters_cut.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "testutil.h"

/* n points in `blobs` clusters of random widths in the box [0, side)^dim
 * (duplicates every `dup`-th point when dup > 0). */
static double *clustered_points(int64_t n, int dim, int blobs, int dup, const double *side, uint64_t seed)
{
    double *p = xcalloc((size_t)(n * dim), sizeof *p);
    double centre[64][3], width[64];
    for (int c = 0; c < blobs; c++) {
        for (int d = 0; d < dim; d++)
            centre[c][d] = rng_unit(&seed) * side[d];
        width[c] = 0.002 + 0.05 * rng_unit(&seed);
    }
    for (int64_t i = 0; i < n; i++) {
        const int c = (int)rng_below(&seed, (uint64_t)blobs);
        for (int d = 0; d < dim; d++) {
            double v = centre[c][d] + width[c] * (rng_unit(&seed) - 0.5) * side[d];
            p[i * dim + d] = v - side[d] * floor(v / side[d]);
        }
        if (dup > 0 && i > 0 && i % dup == 0)
            memcpy(p + i * dim, p + (i - 1 - (int64_t)rng_below(&seed, (uint64_t)i)) * dim, sizeof *p * dim);
    }
    return p;
}

/* Minimum-image distance (box NULL: Euclidean). */
static double distance(const double *p, int dim, const double *box, int64_t i, int64_t j)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double t = fabs(p[i * dim + d] - p[j * dim + d]);
        if (box && box[d] - t < t)
            t = box[d] - t;
        s += t * t;
    }
    return sqrt(s);
}

static int64_t find(int64_t *parent, int64_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

typedef struct {
    double w;
    int64_t u, v;
} pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* The reference: labels numbered by each group's smallest point (groups
 * under min_size -1) and Kruskal's forest weight over all pairs <= b. */
static void brute_force(const double *p, int64_t n, int dim, double b, const double *box, int64_t min_size,
                        int64_t *labels, int64_t *groups, double *weight)
{
    pair *pairs = xcalloc((size_t)(n * (n - 1) / 2 + 1), sizeof *pairs);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) {
            double w = distance(p, dim, box, i, j);
            if (w <= b)
                pairs[m++] = (pair){w, i, j};
        }
    qsort(pairs, (size_t)m, sizeof *pairs, cmp_pair);
    int64_t *parent = xcalloc((size_t)n, sizeof *parent), *size = xcalloc((size_t)n, sizeof *size);
    for (int64_t i = 0; i < n; i++)
        parent[i] = i;
    *weight = 0.0;
    for (int64_t e = 0; e < m; e++) {
        int64_t ru = find(parent, pairs[e].u), rv = find(parent, pairs[e].v);
        if (ru != rv) {
            parent[ru] = rv;
            *weight += pairs[e].w;
        }
    }
    for (int64_t i = 0; i < n; i++)
        size[find(parent, i)]++;
    int64_t *number = xcalloc((size_t)n, sizeof *number);
    for (int64_t i = 0; i < n; i++)
        number[i] = -2;
    *groups = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = find(parent, i);
        if (number[r] == -2)
            number[r] = size[r] < min_size ? -1 : (*groups)++;
        labels[i] = number[r];
    }
    free(pairs);
    free(parent);
    free(size);
    free(number);
}

/* The forest joins exactly the labelled groups: n - groups edges (all
 * groups counted), each within b and in (w, u, v) order. */
static void check_forest(const gridemst_result *f, int64_t n, double b, double weight, const char *what)
{
    REQUIRE(f->n == n, "%s: forest of %lld points", what, (long long)f->n);
    int64_t *parent = xcalloc((size_t)n, sizeof *parent);
    for (int64_t i = 0; i < n; i++)
        parent[i] = i;
    int64_t groups = n;
    for (int64_t e = 0; e < f->n_edges; e++) {
        const gridemst_edge *ed = &f->edges[e];
        REQUIRE(ed->u < ed->v && ed->w <= b, "%s: edge %lld (%lld, %lld, %g)", what, (long long)e, (long long)ed->u,
                (long long)ed->v, ed->w);
        REQUIRE(e == 0 || ed[-1].w <= ed->w, "%s: edges not sorted at %lld", what, (long long)e);
        int64_t ru = find(parent, ed->u), rv = find(parent, ed->v);
        REQUIRE(ru != rv, "%s: edge %lld closes a cycle", what, (long long)e);
        parent[ru] = rv;
        groups--;
    }
    REQUIRE(fabs(f->total_weight - weight) <= 1e-9 * (1.0 + weight), "%s: forest weight %.17g, Kruskal %.17g", what,
            f->total_weight, weight);
    check_iteration_stats(&f->stats, what);
    free(parent);
}

static void check_against_brute_force(int64_t n, int dim, int blobs, int dup, double b, const double *box,
                                      int64_t min_size, int threads, uint64_t seed)
{
    const double unit[3] = {1.0, 1.0, 1.0};
    double *p = clustered_points(n, dim, blobs, dup, box ? box : unit, seed);
    int64_t *want = xcalloc((size_t)n, sizeof *want), *got = xcalloc((size_t)n, sizeof *got), want_groups, groups;
    double weight;
    brute_force(p, n, dim, b, box, min_size, want, &want_groups, &weight);
    gridemst_options opt;
    gridemst_options_init(&opt);
    opt.precision = GRIDEMST_PRECISION_DOUBLE;
    opt.threads = threads;
    gridemst_result f = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    int rc = gridemst_fof(p, GRIDEMST_FLOAT64, n, dim, b, box, min_size, &opt, got, &groups, &f, &err);
    REQUIRE(rc == GRIDEMST_OK, "fof failed: %s", err.message);
    char what[160];
    snprintf(what, sizeof what, "n %lld dim %d b %g %s min %lld threads %d seed %llu", (long long)n, dim, b,
             box ? "periodic" : "open", (long long)min_size, threads, (unsigned long long)seed);
    REQUIRE(groups == want_groups, "%s: %lld groups, brute force %lld", what, (long long)groups,
            (long long)want_groups);
    for (int64_t i = 0; i < n; i++)
        REQUIRE(got[i] == want[i], "%s: point %lld labelled %lld, brute force %lld", what, (long long)i,
                (long long)got[i], (long long)want[i]);
    check_forest(&f, n, b, weight, what);
    gridemst_result_free(&f);
    free(p);
    free(want);
    free(got);
}

START_TEST(test_open_space)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int dim = 2; dim <= 3; dim++) {
            check_against_brute_force(1500, dim, 12, 0, 0.01, NULL, 1, 0, seed);
            check_against_brute_force(1500, dim, 5, 7, 0.004, NULL, 3, 2, seed);
            check_against_brute_force(800, dim, 3, 0, 0.2, NULL, 1, 1, seed);
        }
}
END_TEST

START_TEST(test_periodic_box)
{
    const double box[3] = {1.0, 0.75, 1.25}, small[3] = {0.06, 0.05, 0.07};
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int dim = 2; dim <= 3; dim++) {
            check_against_brute_force(1500, dim, 12, 0, 0.01, box, 1, 0, seed);
            check_against_brute_force(1500, dim, 40, 5, 0.03, box, 2, 2, seed);
            /* a box of one or two cells per axis: every cell a neighbour */
            check_against_brute_force(300, dim, 4, 0, 0.024, small, 1, 1, seed);
        }
}
END_TEST

/* Float32 input in both working precisions: the labels of the tree cut at
 * b, the numbering included, and the tree's edges of length <= b. */
START_TEST(test_equals_cut)
{
    const double unit[3] = {1.0, 1.0, 1.0};
    for (int precision = 0; precision <= 1; precision++)
        for (int dim = 2; dim <= 3; dim++) {
            const int64_t n = 4000;
            double *p = clustered_points(n, dim, 20, 9, unit, 7 + dim);
            float *pf = xcalloc((size_t)(n * dim), sizeof *pf);
            for (int64_t i = 0; i < n * dim; i++)
                pf[i] = (float)p[i];
            gridemst_result tree = solve_cpu(pf, GRIDEMST_FLOAT32, n, dim, 0, (gridemst_precision)precision);
            for (double b = 0.0; b <= 0.02; b += 0.005) {
                const double d = b == 0.005 ? tree.edges[n / 2].w : b; /* a length the tree has */
                int64_t *cut = xcalloc((size_t)n, sizeof *cut), *fof = xcalloc((size_t)n, sizeof *fof), nc, ng;
                gridemst_error err;
                REQUIRE(gridemst_clusters_cut(&tree, d, 2, cut, &nc, &err) == GRIDEMST_OK, "%s", err.message);
                gridemst_options opt;
                gridemst_options_init(&opt);
                opt.precision = (gridemst_precision)precision;
                gridemst_result f = GRIDEMST_RESULT_INIT;
                REQUIRE(gridemst_fof(pf, GRIDEMST_FLOAT32, n, dim, d, NULL, 2, &opt, fof, &ng, &f, &err) == GRIDEMST_OK,
                        "%s", err.message);
                int64_t at = 0;
                while (at < n - 1 && cut[at] == fof[at])
                    at++;
                REQUIRE(ng == nc && cut[at] == fof[at],
                        "precision %d dim %d d %.17g: labels differ from the cut's (%lld and %lld groups; point %lld: "
                        "%lld and %lld)",
                        precision, dim, d, (long long)nc, (long long)ng, (long long)at, (long long)cut[at],
                        (long long)fof[at]);
                int64_t keep = 0;
                while (keep < tree.n_edges && tree.edges[keep].w <= d)
                    keep++;
                REQUIRE(f.n_edges == keep && memcmp(f.edges, tree.edges, sizeof *f.edges * (size_t)keep) == 0,
                        "precision %d dim %d d %.17g: the forest is not the tree's %lld edges <= d", precision, dim, d,
                        (long long)keep);
                gridemst_result_free(&f);
                free(cut);
                free(fof);
            }
            gridemst_result_free(&tree);
            free(p);
            free(pf);
        }
}
END_TEST

START_TEST(test_same_across_threads)
{
    const double box[3] = {1.0, 1.0, 1.0};
    double *p = clustered_points(30000, 3, 30, 11, box, 5);
    gridemst_result first = GRIDEMST_RESULT_INIT;
    int64_t *labels0 = xcalloc(30000, sizeof *labels0), *labels = xcalloc(30000, sizeof *labels);
    for (int run = 0; run < 4; run++) {
        gridemst_options opt;
        gridemst_options_init(&opt);
        opt.threads = run == 0 ? 1 : 1 + run;
        gridemst_result f = GRIDEMST_RESULT_INIT;
        gridemst_error err;
        REQUIRE(gridemst_fof(p, GRIDEMST_FLOAT64, 30000, 3, 0.004, run % 2 ? box : NULL, 0, &opt,
                             run == 0 ? labels0 : labels, NULL, &f, &err) == GRIDEMST_OK,
                "%s", err.message);
        if (run == 0) {
            first = f;
            continue;
        }
        if (run % 2 == 0)
            REQUIRE(same_edges(&first, &f) && memcmp(labels0, labels, sizeof *labels * 30000) == 0,
                    "%d threads: a different forest or labels", opt.threads);
        gridemst_result_free(&f);
    }
    gridemst_result_free(&first);
    free(p);
    free(labels0);
    free(labels);
}
END_TEST

static int fof_status(const double *p, int64_t n, int dim, double b, const double *box, int64_t min_size,
                      gridemst_backend backend, gridemst_error *err)
{
    gridemst_options opt;
    gridemst_options_init(&opt);
    opt.backend = backend;
    int64_t labels[8];
    gridemst_result f = GRIDEMST_RESULT_INIT;
    int rc = gridemst_fof(p, GRIDEMST_FLOAT64, n, dim, b, box, min_size, &opt, labels, NULL, &f, err);
    REQUIRE(rc != GRIDEMST_OK || f.n == n, "a forest of %lld points", (long long)f.n);
    REQUIRE(rc == GRIDEMST_OK || (f.edges == NULL && f.n_edges == 0), "a failure left a forest");
    gridemst_result_free(&f);
    return rc;
}

START_TEST(test_bad_arguments)
{
    const double p[8] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, box[2] = {1.0, 1.0};
    double bad[8];
    memcpy(bad, p, sizeof bad);
    bad[5] = NAN;
    gridemst_error err;
    REQUIRE_CMP(fof_status(p, 4, 2, NAN, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(fof_status(p, 4, 2, -1.0, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(fof_status(p, 4, 2, INFINITY, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(fof_status(p, 2, 4, 0.1, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INPUT);
    REQUIRE_CMP(fof_status(p, 4, 2, 0.1, NULL, -1, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(fof_status(p, 4, 2, 0.5, box, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "half the periodic box") != NULL, "message: %s", err.message);
    const double flat[2] = {1.0, 0.0};
    REQUIRE_CMP(fof_status(p, 4, 2, 0.1, flat, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "axis 1") != NULL, "message: %s", err.message);
    REQUIRE_CMP(fof_status(bad, 4, 2, 0.1, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "point 2") != NULL, "message: %s", err.message);
    REQUIRE_CMP(fof_status(p, 4, 2, 0.1, NULL, 0, GRIDEMST_BACKEND_CUDA, &err), ==, GRIDEMST_ERR_UNSUPPORTED);
    REQUIRE_CMP(fof_status(NULL, 4, 2, 0.1, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_options tight;
    gridemst_options_init(&tight);
    tight.max_host_bytes = 1000;
    gridemst_result f = GRIDEMST_RESULT_INIT;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &tight, NULL, NULL, &f, &err), ==,
                GRIDEMST_ERR_NO_MEMORY);
    /* none, one, and labels or forest alone */
    REQUIRE_CMP(fof_status(p, 0, 2, 0.1, NULL, 0, GRIDEMST_BACKEND_AUTO, &err), ==, GRIDEMST_OK);
    REQUIRE_CMP(fof_status(p, 1, 3, 0.1, NULL, 0, GRIDEMST_BACKEND_CPU, &err), ==, GRIDEMST_OK);
    int64_t labels[4] = {9, 9, 9, 9}, groups = -1;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.3, NULL, 0, NULL, labels, &groups, NULL, &err), ==,
                GRIDEMST_OK);
    REQUIRE(groups == 1 && labels[0] == 0 && labels[3] == 0, "4 points 0.28 apart at 0.3: %lld groups",
            (long long)groups);
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.2, NULL, 0, NULL, NULL, &groups, NULL, &err), ==,
                GRIDEMST_OK);
    REQUIRE_CMP(groups, ==, 4);
}
END_TEST

static Suite *fof_suite(void)
{
    Suite *s = suite_create("fof");
    TCase *tc = tcase_create("fof");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_open_space);
    tcase_add_test(tc, test_periodic_box);
    tcase_add_test(tc, test_equals_cut);
    tcase_add_test(tc, test_same_across_threads);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(fof_suite());
}
