/*
 * Cancellation: a progress callback that answers nonzero stops the solve,
 * which returns GRIDEMST_ERR_CANCELLED with a message, leaves the result
 * empty and asks nothing more; the same solve run to its end gives the same
 * tree as one with no callback.  Every report of every kind of solve is
 * tried as the point to stop at: the first (the grid, before any Boruvka
 * iteration), one in the middle and the last.  Leaks of the stopped solves
 * fail the sanitizer build (LeakSanitizer) and tests/valgrind.sh.
 *
 * Built twice: tests/test_cancel on the CPU backend, and with
 * GEMST_TEST_CUDA tests/test_cuda_cancel on the CUDA backend, which is
 * skipped (exit 77) where no GPU is present.
 */
#include <stdio.h>

#include "testutil.h"

#ifdef GEMST_TEST_CUDA
#define BACKEND GRIDEMST_BACKEND_CUDA
#else
#define BACKEND GRIDEMST_BACKEND_CPU
#endif

/* The points of each solve: 20000, or the program's argument (fewer for
 * tests/valgrind.sh). */
static int64_t n_points = 20000;

/* Counts the reports and answers stop at report number stop_at (counted
 * from 1; 0: never). */
typedef struct stopper {
    int calls, stop_at;
    char last_phase[32];
} stopper;

static int stop_at_call(void *ctx, const char *phase, int iteration, int64_t components)
{
    stopper *s = ctx;
    (void)iteration;
    (void)components;
    s->calls++;
    snprintf(s->last_phase, sizeof s->last_phase, "%s", phase);
    return s->calls == s->stop_at;
}

/* One kind of solve: its options, and whether it is friends-of-friends. */
typedef struct job {
    const char *name;
    gridemst_options opt;
    int fof;
} job;

static gridemst_status run(const job *j, const double *xy, stopper *s, gridemst_result *res, gridemst_error *err)
{
    gridemst_options o = j->opt;
    if (s) {
        o.progress = stop_at_call;
        o.progress_ctx = s;
    }
    if (j->fof)
        return gridemst_fof(xy, GRIDEMST_FLOAT64, n_points, 2, 0.004, NULL, 1, &o, NULL, NULL, res, err);
    return gridemst_solve(xy, GRIDEMST_FLOAT64, n_points, 2, &o, res, err);
}

/* The reports of the whole solve, and its tree, equal to that of a solve
 * without a callback. */
static int count_reports(const job *j, const double *xy)
{
    gridemst_result plain = GRIDEMST_RESULT_INIT, reported = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    REQUIRE(run(j, xy, NULL, &plain, &err) == GRIDEMST_OK, "%s: %s", j->name, err.message);
    stopper s = {0, 0, ""};
    REQUIRE(run(j, xy, &s, &reported, &err) == GRIDEMST_OK, "%s with a callback: %s", j->name, err.message);
    REQUIRE(same_edges(&plain, &reported), "%s: the callback changed the tree", j->name);
    REQUIRE(plain.n_edges > 0, "%s: no edges", j->name);
    gridemst_result_free(&plain);
    gridemst_result_free(&reported);
    REQUIRE(s.calls >= 3, "%s: only %d progress reports", j->name, s.calls);
    return s.calls;
}

static void check_stops_at(const job *j, const double *xy, int stop_at)
{
    gridemst_result res = GRIDEMST_RESULT_INIT;
    memset(&res, 0x5a, sizeof res); /* the solve must empty it */
    res.struct_size = sizeof res;
    gridemst_error err = {GRIDEMST_OK, ""};
    stopper s = {0, stop_at, ""};
    gridemst_status rc = run(j, xy, &s, &res, &err);
    REQUIRE(rc == GRIDEMST_ERR_CANCELLED, "%s, stopped at report %d (%s): status %d (%s)", j->name, stop_at,
            s.last_phase, (int)rc, err.message);
    REQUIRE(err.code == GRIDEMST_ERR_CANCELLED && strstr(err.message, "cancelled") &&
                strstr(err.message, s.last_phase),
            "%s: error %d '%s' after a stop at '%s'", j->name, (int)err.code, err.message, s.last_phase);
    REQUIRE(s.calls == stop_at, "%s: %d reports after a stop at report %d", j->name, s.calls, stop_at);
    REQUIRE(res.n_edges == 0 && res.edges == NULL && res.device_edges.u == NULL,
            "%s: a cancelled solve left %lld edges", j->name, (long long)res.n_edges);
    gridemst_result_free(&res);
}

static void check_job(const job *j)
{
    double *xy = random_points(n_points, 2, 71);
    const int reports = count_reports(j, xy);
    const int stops[] = {1, 2, reports / 2 + 1, reports};
    for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++)
        check_stops_at(j, xy, stops[k]);
    free(xy);
}

static job base(const char *name)
{
    job j = {name, {0}, 0};
    gridemst_options_init(&j.opt);
    j.opt.backend = BACKEND;
    j.opt.threads = 2;
    return j;
}

START_TEST(test_grid_static)
{
    job j = base("grid, static");
    check_job(&j);
}
END_TEST

START_TEST(test_grid_none_double)
{
    job j = base("grid, prune none, double");
    j.opt.tuning.prune = GRIDEMST_PRUNE_NONE;
    j.opt.precision = GRIDEMST_PRECISION_DOUBLE;
    check_job(&j);
}
END_TEST

START_TEST(test_bvh)
{
    job j = base("bvh");
    j.opt.nns = GRIDEMST_NNS_BVH;
    check_job(&j);
}
END_TEST

#ifndef GEMST_TEST_CUDA
START_TEST(test_mutual_reachability)
{
    job j = base("min_samples 5");
    j.opt.min_samples = 5;
    check_job(&j);
}
END_TEST

START_TEST(test_partitioned)
{
    job j = base("4 partitions");
    j.opt.partitions = 4;
    check_job(&j);
}
END_TEST

START_TEST(test_friends_of_friends)
{
    job j = base("friends-of-friends");
    j.fof = 1;
    check_job(&j);
}
END_TEST
#endif

int main(int argc, char **argv)
{
    if (argc > 1)
        n_points = atoll(argv[1]);
#ifdef GEMST_TEST_CUDA
    if (gridemst_cuda_device_count() == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
#endif
    Suite *s = suite_create("cancel");
    TCase *tc = tcase_create("cancel");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_grid_static);
    tcase_add_test(tc, test_grid_none_double);
    tcase_add_test(tc, test_bvh);
#ifndef GEMST_TEST_CUDA
    tcase_add_test(tc, test_mutual_reachability);
    tcase_add_test(tc, test_partitioned);
    tcase_add_test(tc, test_friends_of_friends);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s);
}
