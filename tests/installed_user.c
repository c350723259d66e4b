/*
 * A program of a user of the installed library (built and run by
 * tests/installcheck.sh for `make installcheck`): it includes the installed
 * gridemst.h only, solves one point set given as float64 and as float32,
 * and checks each tree against a minimum spanning tree found here by brute
 * force.  Exit status 0 when every check holds.
 */
#include <gridemst.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { N = 300, DIM = 3 };

/* Integer coordinates below 1024: exact in float32, with squared distances
 * exact in float32 too, so both inputs and both precisions have one tree. */
static void make_points(double p64[N * DIM], float p32[N * DIM])
{
    uint32_t state = 12345;
    for (int i = 0; i < N * DIM; i++) {
        state = (state * 1103515245u + 12345u) & 0x7fffffffu;
        p64[i] = (double)(state >> 21);
        p32[i] = (float)p64[i];
    }
}

static double distance(const double *p, int a, int b)
{
    double s = 0.0;
    for (int k = 0; k < DIM; k++)
        s += (p[a * DIM + k] - p[b * DIM + k]) * (p[a * DIM + k] - p[b * DIM + k]);
    return sqrt(s);
}

/* The minimum spanning tree's length by Prim's algorithm on all pairs. */
static double brute_force_weight(const double *p)
{
    double nearest[N]; /* distance from the tree to each point outside it */
    int in_tree[N] = {0};
    double total = 0.0;
    in_tree[0] = 1;
    for (int i = 1; i < N; i++)
        nearest[i] = distance(p, 0, i);
    for (int added = 1; added < N; added++) {
        int next = -1;
        for (int i = 0; i < N; i++)
            if (!in_tree[i] && (next < 0 || nearest[i] < nearest[next]))
                next = i;
        in_tree[next] = 1;
        total += nearest[next];
        for (int i = 0; i < N; i++)
            if (!in_tree[i] && distance(p, next, i) < nearest[i])
                nearest[i] = distance(p, next, i);
    }
    return total;
}

static int find_root(int parent[N], int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* 0 when res is a spanning tree of p with the edge lengths of p and the
 * brute-force total length; otherwise says what is wrong and returns 1. */
static int check_tree(const char *what, const gridemst_result *res, const double *p, double want_weight)
{
    if (res->n_edges != N - 1) {
        fprintf(stderr, "%s: %lld edges, expected %d\n", what, (long long)res->n_edges, N - 1);
        return 1;
    }
    int parent[N];
    for (int i = 0; i < N; i++)
        parent[i] = i;
    for (int64_t e = 0; e < res->n_edges; e++) {
        gridemst_edge edge = res->edges[e];
        if (edge.u < 0 || edge.u >= edge.v || edge.v >= N) {
            fprintf(stderr, "%s: edge %lld is (%lld, %lld)\n", what, (long long)e, (long long)edge.u,
                    (long long)edge.v);
            return 1;
        }
        int ru = find_root(parent, (int)edge.u), rv = find_root(parent, (int)edge.v);
        if (ru == rv) {
            fprintf(stderr, "%s: edge %lld closes a cycle\n", what, (long long)e);
            return 1;
        }
        parent[ru] = rv;
        double d = distance(p, (int)edge.u, (int)edge.v);
        if (fabs(edge.w - d) > 1e-6 * d) {
            fprintf(stderr, "%s: edge %lld has length %.17g, its points are %.17g apart\n", what, (long long)e,
                    edge.w, d);
            return 1;
        }
    }
    if (fabs(res->total_weight - want_weight) > 1e-6 * want_weight) {
        fprintf(stderr, "%s: total weight %.17g, brute force gives %.17g\n", what, res->total_weight, want_weight);
        return 1;
    }
    return 0;
}

/* Solves the points with the default options and checks the tree. */
static int solve_and_check(const char *what, const void *coords, gridemst_dtype dtype, const double *p,
                           double want_weight)
{
    gridemst_options opt;
    gridemst_result res = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options_init(&opt);
    if (gridemst_solve(coords, dtype, N, DIM, &opt, &res, &err) != GRIDEMST_OK) {
        fprintf(stderr, "%s: gridemst_solve failed: %s\n", what, err.message);
        return 1;
    }
    int failed = check_tree(what, &res, p, want_weight);
    if (!failed)
        printf("%s: %d points, a spanning tree of length %.6f as brute force finds (backend %s)\n", what, N,
               res.total_weight, gridemst_backend_name(res.stats.backend));
    gridemst_result_free(&res);
    return failed;
}

int main(void)
{
    static double p64[N * DIM];
    static float p32[N * DIM];
    make_points(p64, p32);
    double want = brute_force_weight(p64);
    int failed = 0;
    if (strcmp(gridemst_version(), GRIDEMST_VERSION_STRING) != 0) {
        fprintf(stderr, "the library is version %s, its header %s\n", gridemst_version(), GRIDEMST_VERSION_STRING);
        failed = 1;
    }
    failed |= solve_and_check("float64 points", p64, GRIDEMST_FLOAT64, p64, want);
    failed |= solve_and_check("float32 points", p32, GRIDEMST_FLOAT32, p64, want);
    return failed;
}
