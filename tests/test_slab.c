/*
 * Slab classification (src/nns/slab.h) and the edge order
 * (src/graph/edge_order.h), double instance.
 *
 * Geometry is checked against hand-derived facts: a slab of the 2D
 * partition spans 45 degrees, a cone of the 3D partition spans
 * acos(1/sqrt(3)) = 54.7356 degrees (between (1,0,0) and (1,1,1)), and both
 * stay below the 60 degrees the uniqueness property needs (DESIGN.md, rule 3).
 */
#define GEMST_REAL_IS_DOUBLE 1

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "nns/slab.h"
#include "nns/search.h"
#include "graph/edge_order.h"
#include "graph/boruvka.h"

#define PI 3.14159265358979323846
#define DEG(rad) ((rad) * 180.0 / PI)
/* acos(1 / sqrt(3)) in degrees: the widest angle of a 3D cone. */
#define CONE_3D_DEG 54.735610317245346

/* ----------------------------------------------------------------- helpers */

/* Standard normal (Box-Muller). */
static double rng_normal(uint64_t *s)
{
    double u = 1.0 - rng_unit(s), v = rng_unit(s);
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

/* A random direction, uniform on the circle or sphere (z = 0 in 2D). */
static void random_direction(uint64_t *s, int dim, double v[3])
{
    double len;
    do {
        len = 0.0;
        for (int d = 0; d < 3; d++) {
            v[d] = d < dim ? rng_normal(s) : 0.0;
            len += v[d] * v[d];
        }
    } while (len == 0.0);
}

static int slab_of(int dim, const double v[3])
{
    return gemst_slab(dim, v[0], v[1], v[2]);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}

/* Angle between two non-zero directions, in degrees. */
static double angle_deg(const double a[3], const double b[3])
{
    double c = dot3(a, b) / (norm3(a) * norm3(b));
    return DEG(acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c));
}

/* A set of directions, grouped by slab afterwards. */
typedef struct {
    double (*v)[3];
    int *slab;
    int n, cap;
} dir_set;

static void dirs_add(dir_set *ds, int dim, const double v[3])
{
    if (ds->n == ds->cap) {
        ds->cap = ds->cap ? 2 * ds->cap : 1024;
        ds->v = realloc(ds->v, sizeof *ds->v * (size_t)ds->cap);
        ds->slab = realloc(ds->slab, sizeof *ds->slab * (size_t)ds->cap);
        ck_assert_ptr_nonnull(ds->v);
        ck_assert_ptr_nonnull(ds->slab);
    }
    memcpy(ds->v[ds->n], v, sizeof ds->v[0]);
    ds->slab[ds->n++] = slab_of(dim, v);
}

static void dirs_free(dir_set *ds)
{
    free(ds->v);
    free(ds->slab);
}

/* Every non-zero direction with components in {-m..m} (z = 0 in 2D): these
 * lie on the partition's boundaries (zero components, equal magnitudes). */
static void add_integer_directions(dir_set *ds, int dim, int m)
{
    int zr = dim == 3 ? m : 0;
    for (int x = -m; x <= m; x++)
        for (int y = -m; y <= m; y++)
            for (int z = -zr; z <= zr; z++) {
                double v[3] = {x, y, z};
                if (x || y || z)
                    dirs_add(ds, dim, v);
            }
}

static void add_random_directions(dir_set *ds, int dim, int count, uint64_t seed)
{
    for (int i = 0; i < count; i++) {
        double v[3];
        random_direction(&seed, dim, v);
        dirs_add(ds, dim, v);
    }
}

/* The widest angle between two directions of each slab, into widest[]. */
static void widest_angles(const dir_set *ds, int dim, double *widest)
{
    int *members = malloc(sizeof *members * (size_t)ds->n);
    ck_assert_ptr_nonnull(members);
    for (int s = 0; s < gemst_slab_count(dim); s++) {
        int m = 0;
        double w = 0.0;
        for (int i = 0; i < ds->n; i++)
            if (ds->slab[i] == s)
                members[m++] = i;
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++) {
                double a = angle_deg(ds->v[members[i]], ds->v[members[j]]);
                w = a > w ? a : w;
            }
        widest[s] = w;
    }
    free(members);
}

/* ----------------------------------------------------------------- slabs */

START_TEST(test_slab_counts_and_masks)
{
    REQUIRE_CMP(gemst_slab_count(2), ==, 8);
    REQUIRE_CMP(gemst_slab_count(3), ==, 48);
    REQUIRE_CMP(gemst_slab_full_mask(2), ==, 0xffu);
    REQUIRE_CMP(gemst_slab_full_mask(3), ==, 0xffffffffffffull);
    /* One bit per slab: the popcount is the count. */
    for (int dim = 2; dim <= 3; dim++)
        REQUIRE_CMP(__builtin_popcountll(gemst_slab_full_mask(dim)), ==, gemst_slab_count(dim));
}
END_TEST

/* Every direction lands in one slab in range, gemst_slab agrees with the
 * dimension's own function, and every slab is reached. */
START_TEST(test_slab_range_and_coverage)
{
    for (int dim = 2; dim <= 3; dim++) {
        dir_set ds = {0};
        add_integer_directions(&ds, dim, 2);
        add_random_directions(&ds, dim, 20000, 11u + (uint64_t)dim);
        uint64_t reached = 0;
        for (int i = 0; i < ds.n; i++) {
            const double *v = ds.v[i];
            int s = ds.slab[i];
            int own = dim == 2 ? gemst_slab_2d(v[0], v[1]) : gemst_slab_3d(v[0], v[1], v[2]);
            REQUIRE_CMP(s, ==, own);
            REQUIRE(s >= 0 && s < gemst_slab_count(dim), "%dD (%g, %g, %g) -> slab %d", dim, v[0], v[1],
                    v[2], s);
            reached |= (uint64_t)1 << s;
        }
        REQUIRE_CMP(reached, ==, gemst_slab_full_mask(dim));
        dirs_free(&ds);
    }
}
END_TEST

/* Boundary directions: a zero component counts as positive, so -0.0 and
 * +0.0 classify alike, and opposite directions never share a slab. */
START_TEST(test_slab_special_directions)
{
    static const double special[][3] = {
        {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 0}, {-1, 1, 0},
        {1, -1, 0}, {-1, -1, 0}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, -1},
        {2, 1, 1}, {1, 2, 2}, {1e-300, 1e-300, 0}, {1e300, -1e300, 1e300}, {5e-324, 0, 0},
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        for (int dim = 2; dim <= 3; dim++) {
            const double *v = special[i];
            double neg0[3], opp[3];
            if (dim == 2 && v[0] == 0 && v[1] == 0)
                continue;
            for (int d = 0; d < 3; d++) {
                neg0[d] = v[d] == 0.0 ? -0.0 : v[d];
                opp[d] = -v[d];
            }
            int s = slab_of(dim, v);
            /* A zero component counts as positive: replacing every zero by
             * the same tiny positive value (ties stay ties) keeps the slab. */
            double tiny[3];
            for (int d = 0; d < 3; d++)
                tiny[d] = v[d] == 0.0 ? 5e-324 : v[d];
            REQUIRE(slab_of(dim, tiny) == s, "%dD direction %zu: zero components do not count as positive", dim, i);
            REQUIRE_CMP(s, >=, 0);
            REQUIRE_CMP(s, <, gemst_slab_count(dim));
            REQUIRE(slab_of(dim, neg0) == s, "%dD direction %zu: -0.0 and +0.0 differ", dim, i);
            if (v[0] != 0.0 || v[1] != 0.0 || (dim == 3 && v[2] != 0.0))
                REQUIRE(slab_of(dim, opp) != s, "%dD direction %zu shares a slab with its opposite", dim,
                        i);
        }
    /* Hand-derived: ties in magnitude go to the earlier axis, so (1,1,0)
     * and (1,1,1) join (1,0,0), and (1,1) joins (1,0). */
    REQUIRE_CMP(gemst_slab_3d(1, 1, 0), ==, gemst_slab_3d(1, 0, 0));
    REQUIRE_CMP(gemst_slab_3d(1, 1, 1), ==, gemst_slab_3d(1, 0, 0));
    REQUIRE_CMP(gemst_slab_2d(1, 1), ==, gemst_slab_2d(1, 0));
    /* (1,0,1) and (1,1,0) are 60 degrees apart: they must not share a cone. */
    REQUIRE_CMP(gemst_slab_3d(1, 0, 1), !=, gemst_slab_3d(1, 1, 0));
}
END_TEST

/* The 3D slab by the rule of slab.h's header, written out per axis: the
 * dominant axis is the first of largest magnitude, then whether the later
 * of the two others (in axis order) is strictly larger, then the signs
 * with zero counted positive. */
static int slab_3d_by_rule(const double v[3])
{
    int dominant = 0;
    for (int d = 1; d < 3; d++)
        if (fabs(v[d]) > fabs(v[dominant]))
            dominant = d;
    const int first = dominant == 0 ? 1 : 0, second = dominant == 2 ? 1 : 2;
    const int second_larger = fabs(v[second]) > fabs(v[first]);
    return dominant * 16 + second_larger * 8 + (v[0] < 0) * 4 + (v[1] < 0) * 2 + (v[2] < 0);
}

/* Every direction with components in {-2, ..., 2} (ties of magnitude in
 * every combination, and -0.0 for each zero) gets the rule's slab. */
START_TEST(test_slab_3d_ties_by_rule)
{
    for (int a = -2; a <= 2; a++)
        for (int b = -2; b <= 2; b++)
            for (int c = -2; c <= 2; c++)
                for (int neg0 = 0; neg0 < 2; neg0++) {
                    const int w[3] = {a, b, c};
                    double v[3];
                    for (int d = 0; d < 3; d++)
                        v[d] = w[d] == 0 && neg0 ? -0.0 : (double)w[d];
                    REQUIRE(gemst_slab_3d(v[0], v[1], v[2]) == slab_3d_by_rule(v), "(%g, %g, %g): slab %d, rule %d",
                            v[0], v[1], v[2], gemst_slab_3d(v[0], v[1], v[2]), slab_3d_by_rule(v));
                }
}
END_TEST

/* The widest angle inside each slab stays below 60 degrees, and the
 * partition is no finer than claimed: 45 degrees in 2D, 54.74 in 3D. */
START_TEST(test_slab_angular_diameter)
{
    static const struct {
        int dim, random;
        double claimed;
    } cases[] = {{2, 4000, 45.0}, {3, 40000, CONE_3D_DEG}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int dim = cases[c].dim;
        dir_set ds = {0};
        double widest[GEMST_SLABS_3D], overall = 0.0;
        add_integer_directions(&ds, dim, 2);
        add_random_directions(&ds, dim, cases[c].random, 97u + (uint64_t)dim);
        widest_angles(&ds, dim, widest);
        for (int s = 0; s < gemst_slab_count(dim); s++) {
            REQUIRE(widest[s] < 60.0, "%dD slab %d spans %.6f degrees", dim, s, widest[s]);
            REQUIRE(widest[s] <= cases[c].claimed + 1e-9, "%dD slab %d spans %.6f > %.6f degrees", dim, s,
                    widest[s], cases[c].claimed);
            /* Every slab is about as wide as claimed (random sampling only
             * approaches the corners a cone's open faces cut off). */
            REQUIRE(widest[s] > cases[c].claimed - 10.0, "%dD slab %d spans only %.6f degrees", dim, s,
                    widest[s]);
            overall = widest[s] > overall ? widest[s] : overall;
        }
        REQUIRE(fabs(overall - cases[c].claimed) < 1e-6, "%dD widest slab %.9f, claimed %.9f", dim, overall,
                cases[c].claimed);
        dirs_free(&ds);
    }
}
END_TEST

/* |pw| < |qw| for p, w in one slab of q with |qp| <= |qw| (p != q). */
static void check_uniqueness(int dim, const double q[3], const double p[3], const double w[3])
{
    double qp[3], qw[3], pw[3];
    for (int d = 0; d < 3; d++) {
        qp[d] = p[d] - q[d];
        qw[d] = w[d] - q[d];
        pw[d] = w[d] - p[d];
    }
    if (dot3(qp, qp) == 0.0 || slab_of(dim, qp) != slab_of(dim, qw) || dot3(qp, qp) > dot3(qw, qw))
        return;
    REQUIRE(dot3(pw, pw) < dot3(qw, qw), "%dD q=(%g,%g,%g) p=(%g,%g,%g) w=(%g,%g,%g)", dim, q[0], q[1], q[2],
            p[0], p[1], p[2], w[0], w[1], w[2]);
}

/* Random points around random queries. */
START_TEST(test_uniqueness_property_random)
{
    enum { QUERIES = 400, POINTS = 48 };
    uint64_t seed = 4242;
    for (int dim = 2; dim <= 3; dim++)
        for (int k = 0; k < QUERIES; k++) {
            double q[3] = {0, 0, 0}, pts[POINTS][3];
            for (int d = 0; d < dim; d++)
                q[d] = rng_unit(&seed);
            for (int i = 0; i < POINTS; i++)
                for (int d = 0; d < 3; d++)
                    pts[i][d] = d < dim ? q[d] + rng_unit(&seed) - 0.5 : 0.0;
            for (int i = 0; i < POINTS; i++)
                for (int j = 0; j < POINTS; j++)
                    check_uniqueness(dim, q, pts[i], pts[j]);
        }
}
END_TEST

/* Every pair of integer offsets in {-2..2}^dim from the origin: exact
 * arithmetic, many equal lengths.  With the paper's 24 regions, (1,1,0) and
 * (1,0,1) would give |pw| = |qw| here. */
START_TEST(test_uniqueness_property_lattice)
{
    for (int dim = 2; dim <= 3; dim++) {
        dir_set ds = {0};
        const double q[3] = {0, 0, 0};
        add_integer_directions(&ds, dim, 2);
        for (int i = 0; i < ds.n; i++)
            for (int j = 0; j < ds.n; j++)
                check_uniqueness(dim, q, ds.v[i], ds.v[j]);
        dirs_free(&ds);
    }
}
END_TEST

/* The solver's squared distance: ((dx dx + dy dy) + dz dz), rounded at
 * every step. */
static double computed_d2(const double *a, const double *b, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double t = b[d] - a[d], t2 = t * t;
        s = d == 0 ? t2 : s + t2;
    }
    return s;
}

static int computed_slab(const double *a, const double *b, int dim)
{
    return gemst_slab(dim, b[0] - a[0], b[1] - a[1], dim == 3 ? b[2] - a[2] : 0.0);
}

/*
 * The uniqueness property in computed arithmetic (slab.h): for q, p, w in
 * the unit cube with p, w in one slab of q and GEMST_SLAB_MIN_D2 <=
 * d2(q, p) <= d2(q, w), the computed d2(p, w) is below d2(q, w).  The
 * worst case is built on purpose: p just beyond the threshold along one
 * extreme ray of the slab, w as far as the cube allows near the other, so
 * that the angle approaches the slab's widest (45 or 54.7 degrees).
 */
START_TEST(test_uniqueness_property_computed)
{
    uint64_t seed = 33;
    const double amin = sqrt((double)GEMST_SLAB_MIN_D2);
    int qualifying = 0;
    for (int k = 0; k < 200000; k++) {
        const int dim = 2 + k % 2;
        double q[3] = {0, 0, 0}, p[3] = {0, 0, 0}, w[3] = {0, 0, 0};
        double tilt = 1e-3 * rng_unit(&seed), near[3] = {1, 1e-3 * rng_unit(&seed), 0};
        double far[3] = {1, 1 - tilt, dim == 3 ? 1 - 2 * tilt : 0};
        if (dim == 3)
            near[2] = 1e-3 * rng_unit(&seed);
        double a = amin * (1 + 0.2 * rng_unit(&seed)), b = INFINITY;
        for (int d = 0; d < dim; d++)
            q[d] = 0.2 * rng_unit(&seed);
        for (int d = 0; d < dim; d++)
            b = fmin(b, (1 - q[d]) * norm3(far) / far[d]);
        b *= 1 - 1e-3 * rng_unit(&seed);
        for (int d = 0; d < dim; d++) {
            p[d] = q[d] + a * near[d] / norm3(near);
            w[d] = q[d] + b * far[d] / norm3(far);
        }
        double qp = computed_d2(q, p, dim), qw = computed_d2(q, w, dim);
        if (computed_slab(q, p, dim) != computed_slab(q, w, dim) || qp < GEMST_SLAB_MIN_D2 || qp > qw)
            continue;
        qualifying++;
        REQUIRE(computed_d2(p, w, dim) < qw, "%dD q (%a, %a, %a), |qp| %a, |qw| %a: d2(p, w) %a >= d2(q, w) %a", dim,
                q[0], q[1], q[2], sqrt(qp), sqrt(qw), computed_d2(p, w, dim), qw);
    }
    REQUIRE(qualifying > 100000, "only %d configurations qualified", qualifying);
}
END_TEST

/* The 2D slab's extreme rays: the multiples of 45 degrees whose direction,
 * turned slightly either way, falls in slab s (found by classifying, not
 * from the slab's formula).  Returns how many (2 expected). */
static int slab_rays_2d(int s, double rays[][3])
{
    int m = 0;
    for (int k = 0; k < 8; k++) {
        double a = k * PI / 4, in = 0;
        for (int side = -1; side <= 1; side += 2)
            in += gemst_slab_2d(cos(a + side * 1e-6), sin(a + side * 1e-6)) == s;
        if (in > 0 && m < 8) {
            rays[m][0] = cos(a);
            rays[m][1] = sin(a);
            rays[m++][2] = 0.0;
        }
    }
    return m;
}

/* gemst_slab_min_dot_2d is the smaller u.d of the slab's two extreme rays,
 * and, when positive, a lower bound of u.d over all unit directions u of
 * the slab. */
START_TEST(test_slab_min_dot_2d)
{
    uint64_t seed = 31;
    for (int s = 0; s < GEMST_SLABS_2D; s++) {
        double rays[8][3];
        REQUIRE_CMP(slab_rays_2d(s, rays), ==, 2);
        REQUIRE(angle_deg(rays[0], rays[1]) > 44.999 && angle_deg(rays[0], rays[1]) < 45.001, "slab %d", s);
        for (int k = 0; k < 2000; k++) {
            double d[3], u[3];
            random_direction(&seed, 2, d);
            for (int c = 0; c < 2; c++)
                d[c] *= 0.5 + rng_unit(&seed);
            double m = gemst_slab_min_dot_2d(s, d[0], d[1]), ray_min = fmin(dot3(rays[0], d), dot3(rays[1], d));
            REQUIRE(fabs(m - ray_min) <= 1e-12 * (1 + norm3(d)), "slab %d d (%g, %g): %.17g, rays give %.17g", s,
                    d[0], d[1], m, ray_min);
            do
                random_direction(&seed, 2, u);
            while (gemst_slab_2d(u[0], u[1]) != s);
            /* A lower bound over the slab only where it is positive (where
             * the shadow test uses it): a d pointing away from the slab has
             * its smallest dot product inside the arc, not at a ray. */
            if (m > 0)
                REQUIRE(dot3(u, d) / norm3(u) >= m - 1e-12, "slab %d: a direction below the minimum", s);
        }
    }
}
END_TEST

/* gemst_shadows_slab_2d(s, dx, dy, |d|^2, r): every point w of slab s with
 * r^2 <= |w|^2 <= 2 (the unit square) is nearer to d than to the origin. */
START_TEST(test_shadows_slab_2d)
{
    uint64_t seed = 32;
    int shadowing = 0, trials = 20000;
    for (int k = 0; k < trials; k++) {
        double d[3], u[3];
        int s = (int)(rng_next(&seed) % GEMST_SLABS_2D);
        random_direction(&seed, 2, d);
        double len = pow(10.0, -4.0 + 3.7 * rng_unit(&seed)) / norm3(d);
        d[0] *= len;
        d[1] *= len;
        double r2 = dot3(d, d) + rng_unit(&seed) * (2.0 - dot3(d, d));
        /* Half the trials near the threshold radius dp2 / (2 m), where the
         * nearest ray point is as far from d as from the origin. */
        double m = gemst_slab_min_dot_2d(s, d[0], d[1]), edge = dot3(d, d) / (2.0 * m);
        if (k % 2 && m > 0 && edge * edge < 2.0)
            r2 = edge * edge * (1.0 + (rng_unit(&seed) - 0.5) * 1e-4);
        if (!gemst_shadows_slab_2d(s, d[0], d[1], dot3(d, d), sqrt(r2)))
            continue;
        shadowing++;
        double rays[8][3];
        slab_rays_2d(s, rays);
        for (int j = 0; j < 40; j++) {
            /* Both rays at both ends of the range, then random points. */
            if (j < 4) {
                memcpy(u, rays[j % 2], sizeof u);
            } else {
                do
                    random_direction(&seed, 2, u);
                while (gemst_slab_2d(u[0], u[1]) != s);
            }
            double t = j < 2 ? sqrt(r2) : j < 4 ? sqrt(2.0) : sqrt(r2 + rng_unit(&seed) * (2.0 - r2));
            double w[3] = {t * u[0] / norm3(u), t * u[1] / norm3(u), 0.0}, wd[3] = {w[0] - d[0], w[1] - d[1], 0.0};
            REQUIRE(dot3(wd, wd) < t * t, "slab %d, d (%a, %a), r2 %a: w at %g not nearer to d", s, d[0], d[1], r2, t);
        }
    }
    /* Both outcomes occur. */
    REQUIRE(shadowing > trials / 50 && shadowing < trials, "%d of %d shadow", shadowing, trials);
}
END_TEST

/* ----------------------------------------------------------------- edge order */

/* Edges with many ties: d2 from a small pool (0 and +inf included), ids
 * from a small pool (0 and near UINT32_MAX included). */
#define EDGE_POOL 160
static void edge_pool(gemst_edge_key *e, uint64_t seed)
{
    static const double d2s[] = {0.0, 5e-324, 1e-300, 0.25, 1.0, 1.0 + 0x1p-52, 3.0, 1e300, INFINITY};
    static const uint32_t ids[] = {0, 1, 2, 7, 1000, 0x7fffffffu, 0x80000000u, UINT32_MAX - 2, UINT32_MAX - 1};
    const int nd = sizeof d2s / sizeof d2s[0], ni = sizeof ids / sizeof ids[0];
    for (int i = 0; i < EDGE_POOL; i++) {
        uint32_t a = ids[rng_next(&seed) % ni], b = ids[rng_next(&seed) % ni];
        e[i] = gemst_edge_make(d2s[rng_next(&seed) % nd], a, b);
    }
}

static int edge_same(gemst_edge_key a, gemst_edge_key b)
{
    return a.d2 == b.d2 && a.lo == b.lo && a.hi == b.hi;
}

/* The order as written in DESIGN.md, rule 1, computed independently. */
static int edge_cmp_ref(gemst_edge_key a, gemst_edge_key b)
{
    if (a.d2 != b.d2)
        return a.d2 < b.d2 ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return (a.hi > b.hi) - (a.hi < b.hi);
}

static int words_cmp(gemst_edge_key a, gemst_edge_key b)
{
    uint64_t a1 = gemst_edge_word1(a.d2), b1 = gemst_edge_word1(b.d2);
    uint64_t a2 = gemst_edge_word2(a), b2 = gemst_edge_word2(b);
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    return (a2 > b2) - (a2 < b2);
}

START_TEST(test_edge_make_normalises)
{
    static const uint32_t pairs[][2] = {{3, 5}, {5, 3}, {0, UINT32_MAX - 1}, {UINT32_MAX - 1, 0}, {4, 4}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        gemst_edge_key e = gemst_edge_make(2.5, pairs[i][0], pairs[i][1]);
        uint32_t lo = pairs[i][0] < pairs[i][1] ? pairs[i][0] : pairs[i][1];
        uint32_t hi = pairs[i][0] < pairs[i][1] ? pairs[i][1] : pairs[i][0];
        REQUIRE_CMP(e.lo, ==, lo);
        REQUIRE_CMP(e.hi, ==, hi);
        REQUIRE_TRUE(e.d2 == 2.5);
    }
}
END_TEST

/* gemst_edge_less is the strict total order of rule 1. */
START_TEST(test_edge_less_total_order)
{
    gemst_edge_key e[EDGE_POOL];
    edge_pool(e, 77);
    for (int i = 0; i < EDGE_POOL; i++) {
        REQUIRE_TRUE(!gemst_edge_less(e[i], e[i]));
        for (int j = 0; j < EDGE_POOL; j++) {
            int ab = gemst_edge_less(e[i], e[j]), ba = gemst_edge_less(e[j], e[i]);
            int ref = edge_cmp_ref(e[i], e[j]);
            REQUIRE_CMP(ab, ==, ref < 0);
            REQUIRE_CMP(ba, ==, ref > 0);
            /* Trichotomy: exactly one of a < b, b < a, a = b. */
            REQUIRE_CMP(ab + ba + edge_same(e[i], e[j]), ==, 1);
            for (int k = 0; k < EDGE_POOL; k++)
                if (ab && gemst_edge_less(e[j], e[k]))
                    REQUIRE_TRUE(gemst_edge_less(e[i], e[k]));
        }
    }
}
END_TEST

/* The two atomic words order edges exactly like gemst_edge_less, and
 * gemst_edge_from_words inverts them. */
START_TEST(test_edge_words)
{
    gemst_edge_key e[EDGE_POOL];
    edge_pool(e, 78);
    for (int i = 0; i < EDGE_POOL; i++) {
        gemst_edge_key back = gemst_edge_from_words(gemst_edge_word1(e[i].d2), gemst_edge_word2(e[i]));
        REQUIRE_TRUE(edge_same(back, e[i]));
        REQUIRE_TRUE(gemst_edge_word1_value(gemst_edge_word1(e[i].d2)) == e[i].d2);
        for (int j = 0; j < EDGE_POOL; j++)
            REQUIRE_CMP(words_cmp(e[i], e[j]), ==, edge_cmp_ref(e[i], e[j]));
    }
}
END_TEST

/* The empty edge, and the root's reset words, come after every edge. */
START_TEST(test_edge_none)
{
    gemst_edge_key e[EDGE_POOL], none = gemst_edge_none();
    edge_pool(e, 79);
    for (int i = 0; i < EDGE_POOL; i++) {
        REQUIRE_TRUE(gemst_edge_less(e[i], none));
        REQUIRE_TRUE(!gemst_edge_less(none, e[i]));
        REQUIRE_CMP(words_cmp(e[i], none), <, 0);
    }
    REQUIRE_TRUE(!gemst_edge_less(none, none));
    /* Largest real ids with an infinite length still precede it. */
    REQUIRE_TRUE(gemst_edge_less(gemst_edge_make(INFINITY, UINT32_MAX - 1, UINT32_MAX - 1), none));
    uint64_t w1, w2;
    uint32_t win = 0;
    gemst_root_reset_f64(&w1, &w2, &win, 0);
    REQUIRE_TRUE(edge_same(gemst_root_edge_f64(&w1, &w2, 0), none));
    REQUIRE_CMP(win, ==, GEMST_NONE);
}
END_TEST

static Suite *slab_suite(void)
{
    Suite *s = suite_create("slab");
    TCase *tc = tcase_create("slab");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_slab_counts_and_masks);
    tcase_add_test(tc, test_slab_range_and_coverage);
    tcase_add_test(tc, test_slab_special_directions);
    tcase_add_test(tc, test_slab_3d_ties_by_rule);
    tcase_add_test(tc, test_slab_angular_diameter);
    tcase_add_test(tc, test_uniqueness_property_random);
    tcase_add_test(tc, test_uniqueness_property_lattice);
    tcase_add_test(tc, test_uniqueness_property_computed);
    tcase_add_test(tc, test_slab_min_dot_2d);
    tcase_add_test(tc, test_shadows_slab_2d);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("edge_order");
    tcase_add_test(te, test_edge_make_normalises);
    tcase_add_test(te, test_edge_less_total_order);
    tcase_add_test(te, test_edge_words);
    tcase_add_test(te, test_edge_none);
    suite_add_tcase(s, te);
    return s;
}

int main(void)
{
    return run_suite(slab_suite());
}
