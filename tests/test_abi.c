/*
 * Structs that grow (gridemst.h): callers compiled against an older,
 * shorter layout of gridemst_options, gridemst_result and
 * gridemst_hdbscan_options (declared here as prefixes of today's) and
 * against a newer, longer one work; the library writes nothing past a
 * caller's struct_size; sizes no version has, and unknown members set, are
 * refused with a message naming the struct, leaving the caller's memory as
 * it was.
 */
#include <stdio.h>

#include "testutil.h"

#define N 3000
#define CANARY 0xA5

/* gridemst_options as a caller compiled before tuning and partitions were
 * added would declare it. */
typedef struct older_options {
    size_t struct_size;
    gridemst_backend backend;
    gridemst_nns nns;
    gridemst_precision precision;
    int threads;
    int device;
    int64_t max_device_bytes;
    int64_t max_host_bytes;
    gridemst_progress_fn progress;
    void *progress_ctx;
    void *cuda_stream;
    gridemst_result_place result;
    gridemst_context *context;
    int64_t min_samples;
} older_options;
#define SAME_OFFSET(older, newer, member) _Static_assert(offsetof(older, member) == offsetof(newer, member), #member)
SAME_OFFSET(older_options, gridemst_options, backend);
SAME_OFFSET(older_options, gridemst_options, precision);
SAME_OFFSET(older_options, gridemst_options, threads);
SAME_OFFSET(older_options, gridemst_options, progress);
SAME_OFFSET(older_options, gridemst_options, min_samples);

/* gridemst_result as a caller that wants no statistics declares it. */
typedef struct older_result {
    size_t struct_size;
    int64_t n;
    int dim;
    int64_t n_edges;
    gridemst_edge *edges;
    gridemst_device_edges device_edges;
    double total_weight;
    struct gemst_result_owner *owner;
} older_result;
SAME_OFFSET(older_result, gridemst_result, n_edges);
SAME_OFFSET(older_result, gridemst_result, edges);
SAME_OFFSET(older_result, gridemst_result, total_weight);
SAME_OFFSET(older_result, gridemst_result, owner);
_Static_assert(sizeof(older_result) == offsetof(gridemst_result, stats), "the result's head");

/* gridemst_hdbscan_options before anything but min_cluster_size. */
typedef struct older_hdbscan_options {
    size_t struct_size;
    int64_t min_cluster_size;
} older_hdbscan_options;
SAME_OFFSET(older_hdbscan_options, gridemst_hdbscan_options, min_cluster_size);

/* The structs as a newer gridemst.h, with one member more, declares them. */
typedef struct newer_options {
    gridemst_options known;
    int64_t added;
} newer_options;
typedef struct newer_result {
    gridemst_result known;
    int64_t added;
} newer_result;

/* A struct followed by guard bytes the library must not touch. */
#define GUARDED(type)                                                                                             \
    struct {                                                                                                      \
        type s;                                                                                                   \
        unsigned char guard[64];                                                                                  \
    }

static int untouched(const unsigned char *bytes, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (bytes[k] != CANARY)
            return 0;
    return 1;
}

/* The reference: today's layout, the CPU backend in double precision. */
static gridemst_result reference(const double *p)
{
    gridemst_options o = cpu_defaults(2);
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    return solve_with(p, GRIDEMST_FLOAT64, N, 2, &o);
}

START_TEST(test_older_options)
{
    double *p = random_points(N, 2, 91);
    gridemst_result ref = reference(p);
    GUARDED(older_options) g;
    memset(&g, CANARY, sizeof g);
    REQUIRE(gridemst_options_init_size((gridemst_options *)&g.s, sizeof g.s) == GRIDEMST_OK, "init refused");
    REQUIRE(g.s.struct_size == sizeof g.s && untouched(g.guard, sizeof g.guard),
            "init wrote past the older struct");
    REQUIRE(g.s.backend == GRIDEMST_BACKEND_AUTO && g.s.threads == 0 && g.s.min_samples == 0 && !g.s.progress,
            "init did not set the older struct's defaults");
    g.s.backend = GRIDEMST_BACKEND_CPU;
    g.s.threads = 2;
    g.s.precision = GRIDEMST_PRECISION_DOUBLE;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    /* the guard bytes stand where newer members are: the library must not read them */
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, (gridemst_options *)&g.s, &r, &err) == GRIDEMST_OK, "%s",
            err.message);
    REQUIRE(same_edges(&r, &ref) && r.stats.prune == GRIDEMST_PRUNE_STATIC && r.stats.partitions.parts == 0,
            "the older options did not give the defaults' tree");
    gridemst_options same = cpu_defaults(2);
    same.precision = GRIDEMST_PRECISION_DOUBLE;
    REQUIRE_CMP(gridemst_host_bytes(N, 2, (gridemst_options *)&g.s), ==, gridemst_host_bytes(N, 2, &same));
    gridemst_result_free(&r);
    gridemst_result_free(&ref);
    free(p);
}
END_TEST

START_TEST(test_older_result)
{
    double *p = random_points(N, 2, 92);
    gridemst_result ref = reference(p);
    gridemst_options o = cpu_defaults(2);
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    GUARDED(older_result) g;
    memset(&g, CANARY, sizeof g);
    g.s.struct_size = sizeof g.s;
    gridemst_error err;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, &o, (gridemst_result *)&g.s, &err) == GRIDEMST_OK, "%s",
            err.message);
    REQUIRE(untouched(g.guard, sizeof g.guard), "the solve wrote past the older result");
    REQUIRE(g.s.n == N && g.s.dim == 2 && g.s.n_edges == ref.n_edges && g.s.total_weight == ref.total_weight &&
                memcmp(g.s.edges, ref.edges, sizeof *ref.edges * (size_t)ref.n_edges) == 0,
            "the older result does not hold the tree");
    /* the functions that read a result take it too */
    gridemst_merge *rows = xcalloc((size_t)N, sizeof *rows), *ref_rows = xcalloc((size_t)N, sizeof *rows);
    REQUIRE(gridemst_linkage((gridemst_result *)&g.s, rows, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(gridemst_linkage(&ref, ref_rows, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(memcmp(rows, ref_rows, sizeof *rows * (N - 1)) == 0, "linkage differs");
    int64_t *labels = xcalloc(N, sizeof *labels), k = 0;
    REQUIRE(gridemst_clusters_k((gridemst_result *)&g.s, 5, 1, labels, &k, &err) == GRIDEMST_OK && k == 5, "%s",
            err.message);
    gridemst_result_free((gridemst_result *)&g.s);
    REQUIRE(g.s.struct_size == sizeof g.s && g.s.edges == NULL && g.s.n_edges == 0 &&
                untouched(g.guard, sizeof g.guard),
            "freeing the older result");
    free(labels);
    free(rows);
    free(ref_rows);
    gridemst_result_free(&ref);
    free(p);
}
END_TEST

/* A result cut inside its stats gets the stats' first bytes. */
START_TEST(test_result_cut_in_stats)
{
    double *p = random_points(N, 2, 93);
    gridemst_result ref = reference(p);
    gridemst_options o = cpu_defaults(2);
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    const size_t size = offsetof(gridemst_result, stats) + offsetof(gridemst_stats, n_unique);
    gridemst_result *r = malloc(sizeof *r);
    memset(r, CANARY, sizeof *r);
    r->struct_size = size;
    gridemst_error err;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, &o, r, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(untouched((const unsigned char *)r + size, sizeof *r - size), "the solve wrote past struct_size");
    REQUIRE(same_edges(r, &ref) && r->stats.backend == GRIDEMST_BACKEND_CPU && r->stats.iterations > 0,
            "the cut result");
    gridemst_result_free(r);
    free(r);
    gridemst_result_free(&ref);
    free(p);
}
END_TEST

START_TEST(test_newer_structs)
{
    double *p = random_points(N, 2, 94);
    gridemst_result ref = reference(p);
    newer_options o;
    memset(&o, CANARY, sizeof o);
    REQUIRE(gridemst_options_init_size(&o.known, sizeof o) == GRIDEMST_OK && o.added == 0,
            "init of a newer struct: its unknown member is not zeroed");
    o.known.backend = GRIDEMST_BACKEND_CPU;
    o.known.threads = 2;
    o.known.precision = GRIDEMST_PRECISION_DOUBLE;
    newer_result r;
    memset(&r, 0, sizeof r);
    r.known.struct_size = sizeof r;
    gridemst_error err;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, &o.known, &r.known, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(same_edges(&r.known, &ref) && r.added == 0, "the newer structs");
    gridemst_result_free(&r.known);

    /* a member this library does not know, set: refused, the result untouched */
    o.added = 7;
    memset(&r, CANARY, sizeof r);
    r.known.struct_size = sizeof r;
    r.added = 0;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, &o.known, &r.known, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "gridemst_options") && strstr(err.message, "not zero"),
            "an unknown option set: %s", err.message);
    o.added = 0;
    r.added = 1;
    newer_result before;
    memcpy(&before, &r, sizeof r);
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, N, 2, &o.known, &r.known, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "gridemst_result"),
            "an unknown result member set: %s", err.message);
    REQUIRE(memcmp(&r, &before, sizeof r) == 0, "a refused result was written");
    gridemst_result_free(&ref);
    free(p);
}
END_TEST

/* Sizes no version of a struct has. */
static const size_t garbage[] = {0, 3, sizeof(size_t) + 1, (size_t)1 << 20, SIZE_MAX};
#define N_GARBAGE (sizeof garbage / sizeof garbage[0])

START_TEST(test_garbage_sizes)
{
    const double p[6] = {0, 0, 1, 0, 0, 2};
    gridemst_error err;
    for (size_t k = 0; k < N_GARBAGE; k++) {
        const size_t size = garbage[k];
        gridemst_options o;
        memset(&o, CANARY, sizeof o);
        REQUIRE(gridemst_options_init_size(&o, size) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                    untouched((const unsigned char *)&o, sizeof o),
                "init_size accepted %zu", size);
        gridemst_options_init(&o);
        o.struct_size = size;
        gridemst_result r = GRIDEMST_RESULT_INIT;
        REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                    strstr(err.message, "gridemst_options.struct_size"),
                "options of size %zu: %s", size, err.message);
        REQUIRE(gridemst_host_bytes(3, 2, &o) == -1, "host_bytes took options of size %zu", size);
        gridemst_result_free(&r);

        memset(&r, CANARY, sizeof r);
        r.struct_size = size;
        gridemst_result before;
        memcpy(&before, &r, sizeof r);
        REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, NULL, &r, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                    strstr(err.message, "gridemst_result.struct_size"),
                "a result of size %zu: %s", size, err.message);
        gridemst_result_free(&r);
        REQUIRE(memcmp(&r, &before, sizeof r) == 0, "a result of size %zu was written", size);
        int64_t labels[3];
        REQUIRE(gridemst_clusters_k(&r, 1, 1, labels, NULL, &err) == GRIDEMST_ERR_INVALID_ARGUMENT,
                "clusters_k took a result of size %zu", size);

        gridemst_hdbscan_options ho;
        REQUIRE(gridemst_hdbscan_options_init_size(&ho, size) == GRIDEMST_ERR_INVALID_ARGUMENT,
                "hdbscan init_size accepted %zu", size);
    }
    /* a clustering result must be whole: every array it is given must reach the caller */
    gridemst_result tree = solve_cpu(p, GRIDEMST_FLOAT64, 3, 2, 1, GRIDEMST_PRECISION_DOUBLE);
    gridemst_hdbscan_options ho;
    gridemst_hdbscan_options_init(&ho);
    ho.min_cluster_size = 2;
    gridemst_hdbscan_result h;
    gridemst_hdbscan_result_init(&h);
    h.struct_size = offsetof(gridemst_hdbscan_result, stability);
    REQUIRE(gridemst_hdbscan(&tree, &ho, &h, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "gridemst_hdbscan_result.struct_size"),
            "a cut clustering result: %s", err.message);
    gridemst_result_free(&tree);
}
END_TEST

START_TEST(test_older_hdbscan_options)
{
    double *p = random_points(N, 2, 95);
    gridemst_options o = cpu_defaults(2);
    o.min_samples = 7;
    gridemst_result tree = solve_with(p, GRIDEMST_FLOAT64, N, 2, &o);
    gridemst_hdbscan_options full;
    gridemst_hdbscan_options_init(&full);
    GUARDED(older_hdbscan_options) g;
    memset(&g, CANARY, sizeof g);
    REQUIRE(gridemst_hdbscan_options_init_size((gridemst_hdbscan_options *)&g.s, sizeof g.s) == GRIDEMST_OK &&
                g.s.min_cluster_size == full.min_cluster_size && untouched(g.guard, sizeof g.guard),
            "init of the older hdbscan options");
    full.min_cluster_size = 7;
    g.s.min_cluster_size = 7;
    gridemst_hdbscan_result a, b;
    gridemst_hdbscan_result_init(&a);
    gridemst_hdbscan_result_init(&b);
    gridemst_error err;
    REQUIRE(gridemst_hdbscan(&tree, &full, &a, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(gridemst_hdbscan(&tree, (gridemst_hdbscan_options *)&g.s, &b, &err) == GRIDEMST_OK, "%s", err.message);
    REQUIRE(a.n_clusters == b.n_clusters && memcmp(a.labels, b.labels, sizeof *a.labels * N) == 0,
            "the older options cluster otherwise");
    gridemst_hdbscan_free(&a);
    gridemst_hdbscan_free(&b);
    REQUIRE(b.struct_size == sizeof b && b.labels == NULL, "freeing keeps struct_size and empties the rest");
    gridemst_result_free(&tree);
    free(p);
}
END_TEST

START_TEST(test_tuning_reserved)
{
    const double p[6] = {0, 0, 1, 0, 0, 2};
    gridemst_options o;
    gridemst_options_init(&o);
    o.tuning.reserved[3] = 1;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    REQUIRE(gridemst_solve(p, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err) == GRIDEMST_ERR_INVALID_ARGUMENT &&
                strstr(err.message, "tuning.reserved[3]"),
            "a reserved tuning int set: %s", err.message);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("struct sizes");
    tcase_add_test(tc, test_older_options);
    tcase_add_test(tc, test_older_result);
    tcase_add_test(tc, test_result_cut_in_stats);
    tcase_add_test(tc, test_newer_structs);
    tcase_add_test(tc, test_garbage_sizes);
    tcase_add_test(tc, test_older_hdbscan_options);
    tcase_add_test(tc, test_tuning_reserved);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
