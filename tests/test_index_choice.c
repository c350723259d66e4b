/*
 * nns auto's measure (src/nns/index_choice.h): the pair counts of the hash
 * tables (the GPU's) and of sorted distinct codes (the CPU's) against a
 * count over every pair of distinct codes, and the choice on shapes
 * whose dimension is known from their construction: uniform and normal
 * points fill the space (the grid), circles and curves are 1-dimensional,
 * shells 2-dimensional in 3D, and blobs close to 0 at the cell size (the
 * BVH on the GPU); at the scale of neighbouring points (the CPU's measure)
 * blobs fill the space, and only curves get the BVH.  The sample and its
 * codes are made here as the backends make them (cuda_index_choice.cuh,
 * cpu_index_choice.inc); tests/test_cuda checks the GPU's choice there.
 */
#include <stdlib.h>

#include "testutil.h"
#include "bvh/morton.h"
#include "nns/index_choice.h"
#include "tools/generate.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts code[0, m) and keeps each value once; returns how many remain. */
static uint32_t sort_distinct(uint64_t *code, uint32_t m)
{
    qsort(code, m, sizeof *code, cmp_u64);
    uint32_t u = 0;
    for (uint32_t k = 0; k < m; k++)
        if (u == 0 || code[k] != code[u - 1])
            code[u++] = code[k];
    return u;
}

/* Tables for one count, their slots free. */
static gemst_index_tables tables_new(void)
{
    uint64_t *keys = malloc(sizeof *keys * 3 * GEMST_INDEX_SLOTS);
    uint32_t *counts = calloc(2 * (size_t)GEMST_INDEX_SLOTS, sizeof *counts);
    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(counts);
    for (size_t k = 0; k < 3 * (size_t)GEMST_INDEX_SLOTS; k++)
        keys[k] = GEMST_INDEX_FREE;
    const gemst_index_tables t = {
        keys, {keys + GEMST_INDEX_SLOTS, keys + 2 * GEMST_INDEX_SLOTS}, {counts, counts + GEMST_INDEX_SLOTS}};
    return t;
}

static void tables_free(gemst_index_tables *t)
{
    free(t->code);
    free(t->count[0]);
}

/* The pairs of m codes at the two shifts, added to the tables in turn. */
static void count_pairs(const uint64_t *code, uint32_t m, const int shift[2], uint64_t pairs[2])
{
    gemst_index_tables t = tables_new();
    pairs[0] = pairs[1] = 0;
    for (uint32_t k = 0; k < m; k++)
        gemst_index_add(&t, code[k], shift, pairs);
    tables_free(&t);
}

/* Codes with many repeats and crowded cells; the tables' count, in two
 * orders of adding, and the sorted runs' against every pair of distinct
 * codes. */
START_TEST(test_pairs_count_every_pair)
{
    enum { M = 3000 };
    uint64_t *code = malloc(sizeof *code * M), seed = 12345;
    ck_assert_ptr_nonnull(code);
    for (uint32_t k = 0; k < M; k++) /* clustered values, so that cells hold many */
        code[k] = (rng_below(&seed, 40) << 58) | rng_below(&seed, (uint64_t)1 << 9);
    static int first[M]; /* whether code[k] is its value's first copy */
    for (uint32_t k = 0; k < M; k++) {
        first[k] = 1;
        for (uint32_t j = 0; j < k; j++)
            first[k] &= code[j] != code[k];
    }
    static uint64_t back[M], distinct[M]; /* the codes in reverse order; sorted and distinct */
    for (uint32_t k = 0; k < M; k++)
        back[k] = distinct[k] = code[M - 1 - k];
    const uint32_t u = sort_distinct(distinct, M);
    const int shifts[][2] = {{0, 3}, {12, 19}, {30, 58}, {5, 62}};
    for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
        uint64_t every[2] = {0, 0}, pairs[2], reversed[2];
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < M; j++)
                for (int z = 0; z < 2 && first[i] && first[j] && i != j; z++)
                    every[z] += code[i] >> shifts[s][z] == code[j] >> shifts[s][z];
        count_pairs(code, M, shifts[s], pairs);
        count_pairs(back, M, shifts[s], reversed);
        for (int z = 0; z < 2; z++) {
            ck_assert_msg(pairs[z] == every[z] && reversed[z] == every[z],
                          "shift %d: %llu and %llu pairs by the tables, %llu by every pair", shifts[s][z],
                          (unsigned long long)pairs[z], (unsigned long long)reversed[z],
                          (unsigned long long)every[z]);
            const uint64_t sorted = gemst_index_sorted_pairs(distinct, u, shifts[s][z]);
            ck_assert_msg(sorted == every[z], "shift %d: %llu pairs by sorted runs, %llu by every pair",
                          shifts[s][z], (unsigned long long)sorted, (unsigned long long)every[z]);
        }
    }
    free(code);
}
END_TEST

typedef struct {
    gemst_gen_kind kind;
    int dim, bvh;
} shape_case;

static const shape_case shapes[] = {
    {GEMST_GEN_UNIFORM, 2, 0},   {GEMST_GEN_UNIFORM, 3, 0}, {GEMST_GEN_NORMAL, 3, 0},
    {GEMST_GEN_SHELLS, 2, 1},    {GEMST_GEN_SHELLS, 3, 1},  {GEMST_GEN_FILAMENTS, 3, 1},
    {GEMST_GEN_BLOBS, 3, 1},
};

/* The sample's sorted distinct codes (*u of them) of n generated points of
 * the case's shape, with their frame, as the backends make them. */
static uint64_t *sample_codes(const shape_case *sc, int64_t n, uint32_t *u, gemst_frame *f)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(sc->kind, n, sc->dim, 3, &ps, &err), GRIDEMST_OK);
    const float *p = ps.coords;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < sc->dim; d++) {
        lo[d] = hi[d] = p[d];
        for (int64_t i = 1; i < n; i++) {
            const double v = p[i * sc->dim + d];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    }
    ck_assert_int_eq(gemst_frame_make(sc->dim, lo, hi, 0, f, &err), GRIDEMST_OK);
    const uint32_t m = GEMST_INDEX_SAMPLE;
    uint64_t *code = malloc(sizeof *code * m);
    ck_assert_ptr_nonnull(code);
    for (uint32_t k = 0; k < m; k++) {
        const int64_t i = gemst_index_sample_point((uint32_t)n, m, k);
        double w[3] = {0, 0, 0};
        for (int d = 0; d < sc->dim; d++)
            w[d] = (float)gemst_frame_working(f, p[i * sc->dim + d], d);
        code[k] = gemst_morton_in(sc->dim, w, f->lo, f->unit);
    }
    *u = sort_distinct(code, m);
    gemst_pointset_free(&ps);
    return code;
}

START_TEST(test_choice_follows_the_dimension)
{
    const shape_case *sc = &shapes[_i];
    const int64_t n = 300000;
    gemst_frame f;
    uint32_t u;
    uint64_t *code = sample_codes(sc, n, &u, &f);
    int shift[2];
    gemst_index_shifts(&f, n, shift);
    uint64_t pairs[2];
    count_pairs(code, u, shift, pairs);
    ck_assert_msg(gemst_index_prefers_bvh(sc->dim, pairs) == sc->bvh,
                  "%s %dD: pairs %llu at the cell size, %llu at twice it: the %s was chosen",
                  gemst_gen_kind_name(sc->kind), sc->dim, (unsigned long long)pairs[0],
                  (unsigned long long)pairs[1], sc->bvh ? "grid" : "BVH");
    free(code);
}
END_TEST

/* The CPU's measure, at the scale of neighbouring points: the BVH for
 * points along curves (circles, filaments) in the plane and in space; the
 * grid for volumes, surfaces in space (spheres), and blobs, whose points
 * fill the space within each blob. */
static const shape_case cpu_shapes[] = {
    {GEMST_GEN_UNIFORM, 2, 0},   {GEMST_GEN_UNIFORM, 3, 0},   {GEMST_GEN_NORMAL, 3, 0},
    {GEMST_GEN_SHELLS, 2, 1},    {GEMST_GEN_SHELLS, 3, 0},    {GEMST_GEN_FILAMENTS, 2, 1},
    {GEMST_GEN_FILAMENTS, 3, 1}, {GEMST_GEN_BLOBS, 2, 0},     {GEMST_GEN_BLOBS, 3, 0},
};

START_TEST(test_cpu_choice_follows_the_local_dimension)
{
    const shape_case *sc = &cpu_shapes[_i];
    gemst_frame f;
    uint32_t u;
    uint64_t *code = sample_codes(sc, 300000, &u, &f);
    ck_assert_msg(gemst_index_cpu_prefers_bvh(sc->dim, code, u) == sc->bvh, "%s %dD: the %s was chosen",
                  gemst_gen_kind_name(sc->kind), sc->dim, sc->bvh ? "grid" : "BVH");
    free(code);
}
END_TEST

/* The CPU's measure on codes built to a dimension: points on a line and
 * on a plane of a 3D lattice, 2^k per axis, and too few points to measure
 * (the grid). */
START_TEST(test_cpu_choice_on_lattices)
{
    enum { SIDE = 256 };
    uint64_t *code = malloc(sizeof *code * SIDE * SIDE);
    ck_assert_ptr_nonnull(code);
    for (int plane = 0; plane < 2; plane++) {
        uint32_t m = 0;
        for (uint32_t a = 0; a < SIDE; a++)
            for (uint32_t b = 0; b < (plane ? SIDE : 1); b++)
                code[m++] = gemst_morton(3, (a + 0.5) / SIDE, (b + 0.5) / SIDE, 0.5);
        const uint32_t u = sort_distinct(code, m);
        ck_assert_int_eq(u, m);
        ck_assert_msg(gemst_index_cpu_prefers_bvh(3, code, u) == !plane, "a %s: the %s was chosen",
                      plane ? "plane" : "line", plane ? "BVH" : "grid");
    }
    ck_assert_int_eq(gemst_index_cpu_prefers_bvh(3, code, 32), 0); /* 32 points: 992 ordered pairs at most */
    free(code);
}
END_TEST

/* Too few pairs to measure: the grid. */
START_TEST(test_few_pairs_keep_the_grid)
{
    const uint64_t few[2] = {GEMST_INDEX_MIN_PAIRS - 1, 10 * GEMST_INDEX_MIN_PAIRS};
    const uint64_t flat[2] = {1000, 2000}; /* dimension 1 */
    ck_assert_int_eq(gemst_index_prefers_bvh(3, few), 0);
    ck_assert_int_eq(gemst_index_prefers_bvh(3, flat), 1);
    ck_assert_int_eq(gemst_index_prefers_bvh(2, flat), 1);
    const uint64_t plane[2] = {1000, 4000}; /* dimension 2 */
    ck_assert_int_eq(gemst_index_prefers_bvh(2, plane), 0);
    ck_assert_int_eq(gemst_index_prefers_bvh(3, plane), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("index_choice");
    TCase *tc = tcase_create("index_choice");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pairs_count_every_pair);
    tcase_add_loop_test(tc, test_choice_follows_the_dimension, 0, (int)(sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_few_pairs_keep_the_grid);
    tcase_add_loop_test(tc, test_cpu_choice_follows_the_local_dimension, 0,
                        (int)(sizeof cpu_shapes / sizeof cpu_shapes[0]));
    tcase_add_test(tc, test_cpu_choice_on_lattices);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
