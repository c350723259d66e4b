/*
 * The integer distances of TSPLIB95 (Reinelt 1995, "TSPLIB 95", section 2)
 * and the tree's length under them.
 *
 * The formulas are TSPLIB's, including its constants (PI = 3.141592 and the
 * earth radius 6378.388 for GEO), because the published optima depend on
 * them.  Integer parts are taken in double (floor of a non-negative value is
 * C's (int) cast) so that a huge distance cannot overflow an int.
 */
#include "tools/io.h"

#include <math.h>
#include <string.h>

#include "tools/io_internal.h"

#define TSP_PI 3.141592
#define TSP_EARTH_RADIUS 6378.388

/* Largest distance summed: every integer up to 2^53 is exact in a double. */
#define TSP_MAX_DISTANCE 9007199254740992.0

static const gemst_tsp_metric_info metrics[] = {
    {"EUC_2D", GEMST_TSP_EUC_2D, 2},    {"CEIL_2D", GEMST_TSP_CEIL_2D, 2},  {"ATT", GEMST_TSP_ATT, 2},
    {"GEO", GEMST_TSP_GEO, 2},          {"EUC_3D", GEMST_TSP_EUC_3D, 3},    {"MAN_2D", GEMST_TSP_MANHATTAN, 2},
    {"MAN_3D", GEMST_TSP_MANHATTAN, 3}, {"MAX_2D", GEMST_TSP_MAXIMUM, 2},   {"MAX_3D", GEMST_TSP_MAXIMUM, 3},
};

const gemst_tsp_metric_info *gemst_tsp_metric_find(const char *name)
{
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
        if (strcmp(name, metrics[i].name) == 0)
            return &metrics[i];
    return NULL;
}

/* DDD.MM: the integer part is degrees, the fraction minutes (.30 = 30'). */
double gemst_tsp_geo_radians(double ddd_mm)
{
    double deg = trunc(ddd_mm);
    double min = ddd_mm - deg;
    return TSP_PI * (deg + 5.0 * min / 3.0) / 180.0;
}

static double squared_distance(const double *a, const double *b, int dim)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++)
        s += (a[d] - b[d]) * (a[d] - b[d]);
    return s;
}

/* TSPLIB's nint(x) = (int)(x + 0.5), for x >= 0. */
static double nint(double x)
{
    return floor(x + 0.5);
}

/* Pseudo-Euclidean distance of the ATT instances. */
static double att_distance(const double *a, const double *b)
{
    double r = sqrt(squared_distance(a, b, 2) / 10.0);
    double t = nint(r);
    return t < r ? t + 1.0 : t;
}

/* Great-circle distance on TSPLIB's idealized sphere, in kilometres. */
static double geo_distance(const double *a, const double *b)
{
    double lat_a = gemst_tsp_geo_radians(a[0]), lon_a = gemst_tsp_geo_radians(a[1]);
    double lat_b = gemst_tsp_geo_radians(b[0]), lon_b = gemst_tsp_geo_radians(b[1]);
    double q1 = cos(lon_a - lon_b), q2 = cos(lat_a - lat_b), q3 = cos(lat_a + lat_b);
    double c = 0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3);
    /* Rounding can push the cosine just past 1 for very close points, where
     * acos would give NaN; clamping gives the distance TSPLIB means (1). */
    c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    return floor(TSP_EARTH_RADIUS * acos(c) + 1.0);
}

static double tsp_distance(gemst_tsp_metric metric, const double *a, const double *b, int dim)
{
    switch (metric) {
    case GEMST_TSP_EUC_2D:
    case GEMST_TSP_EUC_3D:
        return nint(sqrt(squared_distance(a, b, dim)));
    case GEMST_TSP_CEIL_2D:
        return ceil(sqrt(squared_distance(a, b, dim)));
    case GEMST_TSP_ATT:
        return att_distance(a, b);
    case GEMST_TSP_GEO:
        return geo_distance(a, b);
    default:
        return NAN;
    }
}

int gemst_tsplib_tree_length(const gemst_pointset *ps, const gridemst_edge *edges, int64_t m, int64_t *length)
{
    const gemst_tsp_metric_info *mi = ps->is_tsplib ? gemst_tsp_metric_find(ps->tsp.edge_weight_type) : NULL;
    if (!mi || mi->metric == GEMST_TSP_MANHATTAN || mi->metric == GEMST_TSP_MAXIMUM || !ps->tsp.orig)
        return -1;
    const int dim = ps->tsp.orig_dim;
    int64_t sum = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t u = edges[i].u, v = edges[i].v;
        if (u < 0 || u >= ps->n || v < 0 || v >= ps->n)
            return -1;
        double d = tsp_distance(mi->metric, ps->tsp.orig + u * dim, ps->tsp.orig + v * dim, dim);
        if (!(d <= TSP_MAX_DISTANCE) || (int64_t)d > INT64_MAX - sum)
            return -1;
        sum += (int64_t)d;
    }
    *length = sum;
    return 0;
}
