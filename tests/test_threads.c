/*
 * Concurrent solves (gridemst.h: "concurrent calls from several threads are
 * safe"): 8 threads, started together, each solve their own generated point
 * set a few times, and every tree must have the edges of the same set
 * solved alone beforehand.  The sets differ in kind, dimension, index and
 * precision, so that different code runs side by side.  The CPU backend
 * always; the CUDA backend too where the build has it and a device is
 * present.
 *
 * Check's assertions may only run on the test's own thread: the solving
 * threads record what they saw, and the test checks it after joining them.
 */
#include <pthread.h>
#include <stdio.h>

#include "gridemst.h"
#include "testutil.h"
#include "tools/generate.h"

enum {
    N_THREADS = 8,
    ROUNDS = 3,        /* concurrent solves per thread */
    N_POINTS = 30000,
    CPU_THREADS = 2    /* OpenMP threads in each solve: a team per solving thread */
};

typedef struct set_spec {
    gemst_gen_kind kind;
    int dim;
    gridemst_nns nns;
    gridemst_precision precision;
} set_spec;

static const set_spec specs[N_THREADS] = {
    {GEMST_GEN_UNIFORM, 2, GRIDEMST_NNS_GRID, GRIDEMST_PRECISION_FLOAT},
    {GEMST_GEN_UNIFORM, 3, GRIDEMST_NNS_BVH, GRIDEMST_PRECISION_DOUBLE},
    {GEMST_GEN_NORMAL, 2, GRIDEMST_NNS_BVH, GRIDEMST_PRECISION_FLOAT},
    {GEMST_GEN_NORMAL, 3, GRIDEMST_NNS_GRID, GRIDEMST_PRECISION_DOUBLE},
    {GEMST_GEN_CLUSTERED, 2, GRIDEMST_NNS_GRID, GRIDEMST_PRECISION_DOUBLE},
    {GEMST_GEN_CLUSTERED, 3, GRIDEMST_NNS_BVH, GRIDEMST_PRECISION_FLOAT},
    {GEMST_GEN_LATTICE, 2, GRIDEMST_NNS_BVH, GRIDEMST_PRECISION_DOUBLE},
    {GEMST_GEN_BLOBS, 3, GRIDEMST_NNS_GRID, GRIDEMST_PRECISION_FLOAT},
};

/* The backends tested: the first always, the second with a CUDA device. */
static const gridemst_backend backends[] = {GRIDEMST_BACKEND_CPU, GRIDEMST_BACKEND_CUDA};

/* One solving thread's work and what it saw. */
typedef struct thread_job {
    char what[96];             /* the set and options, for messages */
    gemst_pointset points;
    gridemst_options opt;
    gridemst_result alone;     /* the tree solved with no other solve running */
    pthread_barrier_t *start;  /* released when every thread is ready */
    int status;                /* of the first failed concurrent solve, else GRIDEMST_OK */
    gridemst_error err;        /* its message */
    int differing;             /* concurrent trees whose edges differ from alone's */
} thread_job;

/* Generates thread i's set and solves it alone. */
static void prepare_job(thread_job *job, int i, gridemst_backend backend, pthread_barrier_t *start)
{
    const set_spec *spec = &specs[i];
    gridemst_error err;
    memset(job, 0, sizeof *job);
    snprintf(job->what, sizeof job->what, "thread %d (%s %dD, nns %s, %s, %s)", i, gemst_gen_kind_name(spec->kind),
             spec->dim, gridemst_nns_name(spec->nns), gridemst_precision_name(spec->precision),
             gridemst_backend_name(backend));
    REQUIRE(gemst_generate(spec->kind, N_POINTS, spec->dim, 100 + (uint64_t)i, &job->points, &err) == GRIDEMST_OK,
            "%s: generate: %s", job->what, err.message);
    gridemst_options_init(&job->opt);
    job->opt.backend = backend;
    job->opt.nns = spec->nns;
    job->opt.precision = spec->precision;
    job->opt.threads = CPU_THREADS;
    gridemst_result_init(&job->alone);
    int rc = gridemst_solve(job->points.coords, job->points.dtype, job->points.n, job->points.dim, &job->opt,
                            &job->alone, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: solved alone: %s", job->what, err.message);
    REQUIRE_CMP(job->alone.n_edges, ==, N_POINTS - 1);
    job->start = start;
}

/* The solving thread: ROUNDS solves, each compared with the tree solved alone. */
static void *solve_rounds(void *arg)
{
    thread_job *job = arg;
    pthread_barrier_wait(job->start);
    for (int round = 0; round < ROUNDS && job->status == GRIDEMST_OK; round++) {
        gridemst_result res = GRIDEMST_RESULT_INIT;
        job->status = gridemst_solve(job->points.coords, job->points.dtype, job->points.n, job->points.dim,
                                     &job->opt, &res, &job->err);
        if (job->status == GRIDEMST_OK) {
            job->differing += !same_edges(&res, &job->alone);
            gridemst_result_free(&res);
        }
    }
    return NULL;
}

START_TEST(test_concurrent_solves)
{
    thread_job jobs[N_THREADS];
    pthread_t threads[N_THREADS];
    pthread_barrier_t start;
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, N_THREADS), 0);
    for (int i = 0; i < N_THREADS; i++)
        prepare_job(&jobs[i], i, backends[_i], &start);
    for (int i = 0; i < N_THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, solve_rounds, &jobs[i]), 0);
    for (int i = 0; i < N_THREADS; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < N_THREADS; i++) {
        thread_job *job = &jobs[i];
        REQUIRE(job->status == GRIDEMST_OK, "%s: a concurrent solve failed: %s", job->what, job->err.message);
        REQUIRE(job->differing == 0, "%s: %d of %d concurrent trees differ from the tree solved alone", job->what,
                job->differing, ROUNDS);
        gridemst_result_free(&job->alone);
        gemst_pointset_free(&job->points);
    }
}
END_TEST

int main(void)
{
    int n_backends = gridemst_cuda_device_count() > 0 ? 2 : 1;
    if (n_backends == 1)
        printf("no CUDA device (or no CUDA in the build): the CUDA backend's part is skipped\n");
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("concurrent_solves");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_concurrent_solves, 0, n_backends);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
