/*
 * nns auto's measures (src/nns/index_choice.h).  The GPU's: the hash
 * tables' counts against a count over every pair of distinct codes; the
 * density contrast of points spread evenly over a part of their box, known
 * from the construction (the box over the part's volume); the choice on
 * generated shapes (uniform points and lattices fill their box evenly: the
 * grid; normal, clustered, surface and curve sets do not: the BVH).  The
 * CPU's: sorted runs against every pair, and its choice by the dimension
 * the points fill around their neighbours (curves: the BVH).  The sample
 * and its codes are made here as the backends make them
 * (cuda_index_choice.cuh, cpu_index_choice.inc); tests/test_cuda checks
 * the GPU's choice there.
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

/* Tables with their slots free, for a sample of m codes. */
static gemst_index_tables tables_new(uint32_t m)
{
    const int bits = gemst_hash_bits(m);
    const size_t slots = (size_t)1 << bits;
    uint64_t *keys = malloc(sizeof *keys * 2 * slots);
    uint32_t *counts = calloc(slots, sizeof *counts);
    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(counts);
    for (size_t k = 0; k < 2 * slots; k++)
        keys[k] = GEMST_HASH_FREE;
    const gemst_index_tables t = {keys, keys + slots, counts, bits};
    return t;
}

static void tables_free(gemst_index_tables *t)
{
    free(t->code);
    free(t->count);
}

/* The counts of m codes at shift, added to the tables in turn. */
static gemst_index_counts count_pairs(const uint64_t *code, uint32_t m, int shift)
{
    gemst_index_tables t = tables_new(m);
    gemst_index_counts counts = {0, 0};
    for (uint32_t k = 0; k < m; k++)
        gemst_index_add(&t, code[k], shift, &counts);
    tables_free(&t);
    return counts;
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
    const int shifts[] = {0, 3, 12, 19, 30, 58, 62};
    for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
        uint64_t every = 0;
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < M; j++)
                every += first[i] && first[j] && i != j && code[i] >> shifts[s] == code[j] >> shifts[s];
        const gemst_index_counts counts = count_pairs(code, M, shifts[s]);
        const gemst_index_counts reversed = count_pairs(back, M, shifts[s]);
        ck_assert_msg(counts.pairs == every && reversed.pairs == every,
                      "shift %d: %llu and %llu pairs by the tables, %llu by every pair", shifts[s],
                      (unsigned long long)counts.pairs, (unsigned long long)reversed.pairs,
                      (unsigned long long)every);
        ck_assert_msg(counts.distinct == u && reversed.distinct == u, "%llu and %llu distinct codes, not %u",
                      (unsigned long long)counts.distinct, (unsigned long long)reversed.distinct, u);
        const uint64_t sorted = gemst_index_sorted_pairs(distinct, u, shifts[s]);
        ck_assert_msg(sorted == every, "shift %d: %llu pairs by sorted runs, %llu by every pair", shifts[s],
                      (unsigned long long)sorted, (unsigned long long)every);
    }
    free(code);
}
END_TEST

/* The sample's sorted distinct codes (*u of them) of n points p, with
 * their frame, as the backends make them. */
static uint64_t *codes_of_points(const float *p, int64_t n, int dim, uint32_t *u, gemst_frame *f)
{
    gridemst_error err;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++) {
        lo[d] = hi[d] = p[d];
        for (int64_t i = 1; i < n; i++) {
            const double v = p[i * dim + d];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    }
    ck_assert_int_eq(gemst_frame_make(dim, lo, hi, 0, f, &err), GRIDEMST_OK);
    const uint32_t m = gemst_index_sample_size(f, n);
    uint64_t *code = malloc(sizeof *code * m);
    ck_assert_ptr_nonnull(code);
    for (uint32_t k = 0; k < m; k++) {
        const int64_t i = (int64_t)gemst_index_sample_point((uint64_t)n, m, k);
        double w[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++)
            w[d] = (float)gemst_frame_working(f, p[i * dim + d], d);
        code[k] = gemst_morton_in(dim, w, f->lo, f->unit);
    }
    *u = sort_distinct(code, m);
    return code;
}

/* The GPU's measure of n points p. */
static double contrast_of(const float *p, int64_t n, int dim)
{
    gemst_frame f;
    uint32_t u;
    uint64_t *code = codes_of_points(p, n, dim, &u, &f);
    const int shift = gemst_index_shift(&f, n);
    const double contrast = gemst_index_contrast(&f, shift, count_pairs(code, u, shift));
    free(code);
    return contrast;
}

/* Points spread evenly over a share of their box: a box 1 wide (1 x 1/4
 * in 2D, 1 x 1 x 1 in 3D, so that not every axis is a power of two wide),
 * its first corner and its last held by two points, and the others
 * uniform over the part [0, x) of the first axis.  Their contrast is the
 * box's volume over that part's, 1 / x, the grid's for x = 1 and the
 * BVH's for half the box or less. */
START_TEST(test_contrast_of_even_fills)
{
    const int64_t n = 400000;
    const double parts[] = {1.0, 0.5, 0.25};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
            float *p = malloc(sizeof *p * (size_t)n * dim);
            ck_assert_ptr_nonnull(p);
            uint64_t seed = 99 + k;
            const double side[3] = {1.0, dim == 2 ? 0.25 : 1.0, 1.0};
            for (int64_t i = 0; i < n; i++)
                for (int d = 0; d < dim; d++)
                    p[i * dim + d] = (float)(i == 0         ? 0.0
                                             : i == n - 1   ? side[d]
                                             : d == 0       ? parts[k] * rng_unit(&seed)
                                                            : side[d] * rng_unit(&seed));
            const double contrast = contrast_of(p, n, dim), want = 1.0 / parts[k];
            ck_assert_msg(contrast > 0.9 * want && contrast < 1.1 * want,
                          "%dD, points over %g of the box: contrast %g, not about %g", dim, parts[k], contrast, want);
            ck_assert_int_eq(gemst_index_prefers_bvh(contrast), parts[k] <= 0.5);
            free(p);
        }
}
END_TEST

/* The contrast of uniform sets of 10^6 to 4 10^9 points in the unit box,
 * from their sample alone (the sample of a uniform set is uniform: its
 * points are drawn here, as many as the measure takes at that size): about
 * 1 at every size and seed.  A sample of a fixed size meets a few pairs
 * sharing a cell among the cells of 10^9 points, and measures anywhere
 * from 0 to 2 there. */
START_TEST(test_uniform_contrast_at_every_size)
{
    const double sizes[] = {1e6, 1e8, 1e9, 4e9};
    gridemst_error err;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (int dim = 2; dim <= 3; dim++) {
        gemst_frame f;
        ck_assert_int_eq(gemst_frame_make(dim, lo, hi, 0, &f, &err), GRIDEMST_OK);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                const int64_t n = (int64_t)sizes[s];
                const uint32_t m = gemst_index_sample_size(&f, n);
                uint64_t *code = malloc(sizeof *code * m), rng = seed * 7919 + s;
                ck_assert_ptr_nonnull(code);
                for (uint32_t k = 0; k < m; k++) {
                    double w[3] = {0, 0, 0};
                    for (int d = 0; d < dim; d++)
                        w[d] = gemst_frame_working(&f, rng_unit(&rng), d);
                    code[k] = gemst_morton_in(dim, w, f.lo, f.unit);
                }
                const uint32_t u = sort_distinct(code, m);
                const int shift = gemst_index_shift(&f, n);
                const double contrast = gemst_index_contrast(&f, shift, count_pairs(code, u, shift));
                ck_assert_msg(contrast > 0.85 && contrast < 1.15, "%dD, %g uniform points, seed %llu: contrast %g",
                              dim, sizes[s], (unsigned long long)seed, contrast);
                free(code);
            }
    }
}
END_TEST

typedef struct {
    gemst_gen_kind kind;
    int dim, bvh;
} shape_case;

static const shape_case shapes[] = {
    {GEMST_GEN_UNIFORM, 2, 0},   {GEMST_GEN_UNIFORM, 3, 0}, {GEMST_GEN_LATTICE, 3, 0},
    {GEMST_GEN_NORMAL, 2, 1},    {GEMST_GEN_NORMAL, 3, 1},  {GEMST_GEN_CLUSTERED, 2, 1},
    {GEMST_GEN_SHELLS, 2, 1},    {GEMST_GEN_SHELLS, 3, 1},  {GEMST_GEN_PLANES, 3, 1},
    {GEMST_GEN_FILAMENTS, 3, 1}, {GEMST_GEN_BLOBS, 3, 1},
};

/* The sample's sorted distinct codes (*u of them) of n generated points of
 * the case's shape, with their frame. */
static uint64_t *sample_codes(const shape_case *sc, int64_t n, uint32_t *u, gemst_frame *f)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(sc->kind, n, sc->dim, 3, &ps, &err), GRIDEMST_OK);
    uint64_t *code = codes_of_points(ps.coords, n, sc->dim, u, f);
    gemst_pointset_free(&ps);
    return code;
}

START_TEST(test_choice_follows_the_contrast)
{
    const shape_case *sc = &shapes[_i];
    const int64_t n = 300000;
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(sc->kind, n, sc->dim, 3, &ps, &err), GRIDEMST_OK);
    const double contrast = contrast_of(ps.coords, n, sc->dim);
    gemst_pointset_free(&ps);
    ck_assert_msg(gemst_index_prefers_bvh(contrast) == sc->bvh, "%s %dD: contrast %g: the %s was chosen",
                  gemst_gen_kind_name(sc->kind), sc->dim, contrast, sc->bvh ? "grid" : "BVH");
}
END_TEST

/* The CPU's measures: the BVH for points along curves (circles,
 * filaments), on surfaces in space (spheres, planes) and for sets in the
 * plane that do not fill it evenly (normal, blobs), whose points fill at
 * most a plane around their neighbours; the grid for volumes (blobs in
 * space included) and for uniform points in the plane, which fill their
 * box evenly. */
static const shape_case cpu_shapes[] = {
    {GEMST_GEN_UNIFORM, 2, 0},   {GEMST_GEN_UNIFORM, 3, 0},   {GEMST_GEN_NORMAL, 2, 1},
    {GEMST_GEN_NORMAL, 3, 0},    {GEMST_GEN_SHELLS, 2, 1},    {GEMST_GEN_SHELLS, 3, 1},
    {GEMST_GEN_PLANES, 3, 1},    {GEMST_GEN_FILAMENTS, 2, 1}, {GEMST_GEN_FILAMENTS, 3, 1},
    {GEMST_GEN_BLOBS, 2, 1},     {GEMST_GEN_BLOBS, 3, 0},     {GEMST_GEN_LATTICE, 3, 0},
};

START_TEST(test_cpu_choice_follows_the_local_dimension)
{
    const shape_case *sc = &cpu_shapes[_i];
    const int64_t n = 300000;
    gemst_frame f;
    uint32_t u;
    uint64_t *code = sample_codes(sc, n, &u, &f);
    const int shift = gemst_index_shift(&f, n);
    const double contrast = gemst_index_contrast(&f, shift, count_pairs(code, u, shift));
    ck_assert_msg(gemst_index_cpu_prefers_bvh(sc->dim, code, u, contrast) == sc->bvh,
                  "%s %dD: contrast %g: the %s was chosen", gemst_gen_kind_name(sc->kind), sc->dim, contrast,
                  sc->bvh ? "grid" : "BVH");
    free(code);
}
END_TEST

/* The CPU's measures on codes built to a dimension, 2^k points per axis
 * of the unit box: a line and a plane of a 3D lattice (the BVH), a whole
 * lattice (the grid), the plane's points as a 2D set that fills its box
 * evenly (the grid), and too few points to measure (the grid). */
START_TEST(test_cpu_choice_on_lattices)
{
    enum { M = 65536 };
    uint64_t *code = malloc(sizeof *code * M);
    ck_assert_ptr_nonnull(code);
    gridemst_error err;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (int dim = 2; dim <= 3; dim++) {
        gemst_frame f;
        ck_assert_int_eq(gemst_frame_make(dim, lo, hi, 0, &f, &err), GRIDEMST_OK);
        for (int filled = 1; filled <= dim; filled++) {
            if (dim == 2 && filled < 2)
                continue;
            const uint32_t side = filled == 3 ? 32 : 256; /* at most M points */
            uint32_t m = 0;
            for (uint32_t a = 0; a < side; a++)
                for (uint32_t b = 0; b < (filled >= 2 ? side : 1); b++)
                    for (uint32_t c = 0; c < (filled == 3 ? side : 1); c++)
                        code[m++] = gemst_morton(dim, (a + 0.5) / side, (b + 0.5) / side, (c + 0.5) / side);
            const uint32_t u = sort_distinct(code, m);
            ck_assert_int_eq(u, m);
            const int shift = gemst_index_shift(&f, m);
            const double contrast = gemst_index_contrast(&f, shift, count_pairs(code, u, shift));
            const int bvh = dim == 3 && filled < 3;
            ck_assert_msg(gemst_index_cpu_prefers_bvh(dim, code, u, contrast) == bvh,
                          "%dD lattice filling %d dimensions (contrast %g): the %s was chosen", dim, filled, contrast,
                          bvh ? "grid" : "BVH");
        }
    }
    ck_assert_int_eq(gemst_index_cpu_prefers_bvh(3, code, 32, 1e6), 0); /* 32 points: 992 ordered pairs at most */
    free(code);
}
END_TEST

/* Fewer than two distinct codes measure nothing: the grid. */
START_TEST(test_one_code_keeps_the_grid)
{
    gemst_frame f;
    gridemst_error err;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
    ck_assert_int_eq(gemst_frame_make(2, lo, hi, 0, &f, &err), GRIDEMST_OK);
    const gemst_index_counts one = {0, 1};
    ck_assert(gemst_index_contrast(&f, gemst_index_shift(&f, 4), one) == 0.0);
    ck_assert_int_eq(gemst_index_prefers_bvh(0.0), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("index_choice");
    TCase *tc = tcase_create("index_choice");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pairs_count_every_pair);
    tcase_add_test(tc, test_contrast_of_even_fills);
    tcase_add_test(tc, test_uniform_contrast_at_every_size);
    tcase_add_loop_test(tc, test_choice_follows_the_contrast, 0, (int)(sizeof shapes / sizeof shapes[0]));
    tcase_add_test(tc, test_one_code_keeps_the_grid);
    tcase_add_loop_test(tc, test_cpu_choice_follows_the_local_dimension, 0,
                        (int)(sizeof cpu_shapes / sizeof cpu_shapes[0]));
    tcase_add_test(tc, test_cpu_choice_on_lattices);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
