/*
 * TSPLIB .tsp files with a NODE_COORD_SECTION.
 *
 * The header is "KEY : value" lines (the value starts after the first
 * colon, so COMMENTs may hold colons); unknown keys are ignored.  Node ids
 * need not start at 1 nor come in order: a node's point index is the rank
 * of its id.  Reading stops at EOF, at the end of the file or at the next
 * section.  GEO nodes become unit vectors, on which Euclidean distance
 * orders pairs as TSPLIB's great-circle distance does.
 */
#include "tools/io.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/io_internal.h"

/* A node as read: its id, its line and its position in the file. */
typedef struct tsp_node {
    int64_t id;
    int64_t line;
    int64_t pos;
} tsp_node;

typedef struct tsp_reader {
    gemst_lines *ln;                   /* the file (the body's lines may come from readers of its ranges) */
    gemst_pointset *out;               /* name and edge_weight_type go straight here */
    const gemst_tsp_metric_info *metric;
    int64_t dimension;                 /* DIMENSION, or -1 until read */
    int64_t dimension_line;            /* the line that gave it */
    double *xyz;                       /* coordinates in file order */
    size_t xyz_cap;
    tsp_node *nodes;
    size_t nodes_cap;
    int64_t n;
} tsp_reader;

/* Length of the key of a trimmed line: up to the first colon, trailing blanks dropped. */
static size_t key_length(const char *p)
{
    size_t len = strcspn(p, ":");
    while (len > 0 && gemst_is_blank(p[len - 1]))
        len--;
    return len;
}

static int key_is(const char *p, const char *name)
{
    size_t len = key_length(p);
    return len == strlen(name) && memcmp(p, name, len) == 0;
}

static int key_is_section(const char *p)
{
    static const char suffix[] = "_SECTION";
    size_t len = key_length(p), k = sizeof suffix - 1;
    return len >= k && memcmp(p + len - k, suffix, k) == 0;
}

static void copy_truncated(char *dst, size_t size, const char *src)
{
    size_t len = strlen(src);
    if (len >= size)
        len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static int set_dimension(tsp_reader *r, const char *value, gridemst_error *err)
{
    char *end;
    errno = 0;
    long long d = strtoll(value, &end, 10);
    if (end == value || *end != '\0' || errno == ERANGE || d < 0)
        return gemst_lines_bad_token(r->ln, err, "DIMENSION is not a non-negative integer", value,
                                     value + strlen(value));
    r->dimension = d;
    r->dimension_line = r->ln->lineno;
    return GRIDEMST_OK;
}

static int set_edge_weight_type(tsp_reader *r, const char *value, gridemst_error *err)
{
    if (strcmp(value, "EXPLICIT") == 0)
        return gemst_lines_fail(r->ln, err, "explicit distance matrices are not supported");
    r->metric = gemst_tsp_metric_find(value);
    if (!r->metric)
        return gemst_lines_fail(r->ln, err, "unsupported EDGE_WEIGHT_TYPE %.40s", value);
    copy_truncated(r->out->tsp.edge_weight_type, sizeof r->out->tsp.edge_weight_type, value);
    return GRIDEMST_OK;
}

static int header_entry(tsp_reader *r, const char *key, const char *value, gridemst_error *err)
{
    if (strcmp(key, "NAME") == 0)
        copy_truncated(r->out->tsp.name, sizeof r->out->tsp.name, value);
    else if (strcmp(key, "TYPE") == 0 && strcmp(value, "TSP") != 0)
        return gemst_lines_fail(r->ln, err, "only TYPE TSP is supported, not %.40s", value);
    else if (strcmp(key, "DIMENSION") == 0)
        return set_dimension(r, value, err);
    else if (strcmp(key, "EDGE_WEIGHT_TYPE") == 0)
        return set_edge_weight_type(r, value, err);
    return GRIDEMST_OK;
}

static int start_nodes(const tsp_reader *r, gridemst_error *err)
{
    if (r->dimension < 0)
        return gemst_lines_fail(r->ln, err, "NODE_COORD_SECTION before DIMENSION");
    if (!r->metric)
        return gemst_lines_fail(r->ln, err, "NODE_COORD_SECTION before EDGE_WEIGHT_TYPE");
    return GRIDEMST_OK;
}

/* Reads the header up to and including the NODE_COORD_SECTION line.  The
 * data of another section before it is skipped: its lines are numbers, and
 * the next line starting with a letter is a keyword again. */
static int read_header(tsp_reader *r, gridemst_error *err)
{
    int skipping = 0;
    for (;;) {
        char *line;
        int rc = gemst_lines_next(r->ln, &line, err);
        if (rc != GRIDEMST_OK)
            return rc;
        if (line)
            line = gemst_trim_end(gemst_skip_blanks(line));
        if (!line || key_is(line, "EOF"))
            return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s: no NODE_COORD_SECTION", r->ln->path);
        if (*line == '\0' || (skipping && !isalpha((unsigned char)*line)))
            continue;
        skipping = 0;
        if (key_is(line, "NODE_COORD_SECTION"))
            return start_nodes(r, err);
        if (key_is(line, "EDGE_WEIGHT_SECTION"))
            return gemst_lines_fail(r->ln, err, "explicit distance matrices are not supported");
        if (key_is_section(line)) {
            skipping = 1;
            continue;
        }
        char *colon = strchr(line, ':');
        if (!colon)
            return gemst_lines_bad_token(r->ln, err, "not a 'KEY : value' line", line, line + strlen(line));
        *colon = '\0';
        rc = header_entry(r, gemst_trim_end(line), gemst_skip_blanks(colon + 1), err);
        if (rc != GRIDEMST_OK)
            return rc;
    }
}

static int parse_id(const gemst_lines *ln, const char *s, const char *e, int64_t *id, gridemst_error *err)
{
    char *stop;
    errno = 0;
    long long v = strtoll(s, &stop, 10);
    if (stop != e || errno == ERANGE)
        return gemst_lines_bad_token(ln, err, "node id is not an integer", s, e);
    *id = v;
    return GRIDEMST_OK;
}

/* A coordinate, field number `field` of its line.  GEO ones are angles in
 * DDD.MM: beyond about 5.7e307 their radians overflow to infinity, and the
 * unit vector would be NaN. */
static int read_coordinate(const tsp_reader *r, const gemst_lines *ln, int64_t field, const char *s, const char *e,
                           double *out, gridemst_error *err)
{
    int rc = gemst_lines_number(ln, field, s, e, out, err);
    if (rc == GRIDEMST_OK && r->metric->metric == GEMST_TSP_GEO && !isfinite(gemst_tsp_geo_radians(*out)))
        return gemst_lines_bad_token(ln, err, "GEO coordinate out of range", s, e);
    return rc;
}

/* "id x y" or "id x y z". */
static int read_node(const tsp_reader *r, const gemst_lines *ln, char *line, int64_t *id, double *p,
                     gridemst_error *err)
{
    const int want = r->metric->dim + 1;
    int64_t count = 0;
    char *cursor = line, *s, *e;
    while (gemst_next_field(&cursor, 0, count == 0, &s, &e) > 0) {
        int rc = GRIDEMST_OK;
        if (count == 0)
            rc = parse_id(ln, s, e, id, err);
        else if (count < want)
            rc = read_coordinate(r, ln, count + 1, s, e, &p[count - 1], err);
        if (rc != GRIDEMST_OK)
            return rc;
        count++;
    }
    if (count != want)
        return gemst_lines_fail(ln, err, "expected a node id and %d coordinates, found %lld fields", want - 1,
                                (long long)count);
    return GRIDEMST_OK;
}

/* The node section ends at EOF, at the next section or at the end of the file. */
static gemst_line_kind node_line_kind(char **line)
{
    *line = gemst_trim_end(gemst_skip_blanks(*line));
    if (key_is(*line, "EOF") || key_is_section(*line))
        return GEMST_LINE_END;
    return **line == '\0' ? GEMST_LINE_SKIP : GEMST_LINE_ITEM;
}

/* Room for count nodes: their coordinates and their ids. */
static int make_room(void *reader, int64_t count, int exact)
{
    tsp_reader *r = reader;
    const size_t dim = (size_t)r->metric->dim;
    if ((uint64_t)count > SIZE_MAX / 3 / sizeof *r->nodes)
        return -1;
    double *xyz = gemst_room(r->xyz, &r->xyz_cap, (size_t)count * dim, sizeof *xyz, exact);
    if (!xyz)
        return -1;
    r->xyz = xyz;
    tsp_node *nodes = gemst_room(r->nodes, &r->nodes_cap, (size_t)count, sizeof *nodes, exact);
    if (!nodes)
        return -1;
    r->nodes = nodes;
    return 0;
}

/* Node index: its coordinates, and its id and line for the ranking. */
static int read_node_into(void *reader, const gemst_lines *ln, char *line, int64_t index, gridemst_error *err)
{
    const tsp_reader *r = reader;
    const int dim = r->metric->dim;
    int64_t id = 0;
    double p[3];
    int rc = read_node(r, ln, line, &id, p, err);
    if (rc == GRIDEMST_OK) {
        memcpy(r->xyz + (size_t)index * dim, p, (size_t)dim * sizeof *p);
        r->nodes[index] = (tsp_node){id, ln->lineno, index};
    }
    return rc;
}

static int by_id_then_line(const void *pa, const void *pb)
{
    const tsp_node *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Whether the nodes come in strictly ascending ids, as most files list them. */
static int ids_ascending(const tsp_node *nodes, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (nodes[i].id <= nodes[i - 1].id)
            return 0;
    return 1;
}

/* Orders the nodes by id (point index = rank of the id); refuses a repeated id. */
static int rank_nodes(tsp_reader *r, gridemst_error *err)
{
    if (r->n != r->dimension)
        return gemst_fail(err, GRIDEMST_ERR_INPUT,
                          "%s:%lld: DIMENSION says %lld but NODE_COORD_SECTION has %lld nodes", r->ln->path,
                          (long long)r->dimension_line, (long long)r->dimension, (long long)r->n);
    if (r->n > 1 && !ids_ascending(r->nodes, r->n)) /* nodes is NULL when there are none */
        qsort(r->nodes, (size_t)r->n, sizeof *r->nodes, by_id_then_line);
    for (int64_t i = 1; i < r->n; i++)
        if (r->nodes[i].id == r->nodes[i - 1].id)
            return gemst_fail(err, GRIDEMST_ERR_INPUT, "%s:%lld: duplicate node id %lld (first on line %lld)",
                              r->ln->path, (long long)r->nodes[i].line, (long long)r->nodes[i].id,
                              (long long)r->nodes[i - 1].line);
    return GRIDEMST_OK;
}

/* Latitude and longitude in TSPLIB's DDD.MM to a point on the unit sphere. */
static void geo_to_unit(const double *latlon, double *xyz)
{
    double lat = gemst_tsp_geo_radians(latlon[0]), lon = gemst_tsp_geo_radians(latlon[1]);
    xyz[0] = cos(lat) * cos(lon);
    xyz[1] = cos(lat) * sin(lon);
    xyz[2] = sin(lat);
}

/* Fills the point set from the ranked nodes. */
static int build_points(tsp_reader *r, gridemst_error *err)
{
    gemst_pointset *out = r->out;
    const int odim = r->metric->dim;
    const int geo = r->metric->metric == GEMST_TSP_GEO;
    const size_t n = (size_t)r->n;
    out->n = r->n;
    out->dim = geo ? 3 : odim;
    out->dtype = GRIDEMST_FLOAT64;
    out->is_tsplib = 1;
    out->tsp.orig_dim = odim;
    out->tsp.orig = malloc((n ? n : 1) * odim * sizeof(double));
    out->coords = malloc((n ? n : 1) * out->dim * sizeof(double));
    if (!out->tsp.orig || !out->coords)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "%s: out of memory for %lld nodes", r->ln->path,
                          (long long)r->n);
    double *orig = out->tsp.orig, *coords = out->coords;
    for (size_t i = 0; i < n; i++)
        memcpy(orig + i * odim, r->xyz + r->nodes[i].pos * odim, odim * sizeof(double));
    if (!geo)
        memcpy(coords, orig, n * odim * sizeof(double));
    for (size_t i = 0; geo && i < n; i++)
        geo_to_unit(orig + 2 * i, coords + 3 * i);
    return GRIDEMST_OK;
}

static void warn_if_not_euclidean(const tsp_reader *r, gemst_warn_fn warn, void *warn_ctx)
{
    gemst_tsp_metric m = r->metric->metric;
    if (!warn || (m != GEMST_TSP_MANHATTAN && m != GEMST_TSP_MAXIMUM))
        return;
    char message[600];
    snprintf(message, sizeof message, "%s: EDGE_WEIGHT_TYPE %s: the tree is Euclidean; tsplib_weight is not reported",
             r->ln->path, r->metric->name);
    warn(warn_ctx, message);
}

int gemst_read_tsplib_lines(gemst_lines *ln, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                            gridemst_error *err)
{
    memset(out, 0, sizeof *out);
    tsp_reader r = {.ln = ln, .out = out, .dimension = -1};
    const gemst_body body = {&r, "nodes", node_line_kind, make_room, read_node_into};
    int rc = read_header(&r, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_read_body(ln, &body, &r.n, err);
    if (rc == GRIDEMST_OK)
        rc = rank_nodes(&r, err);
    if (rc == GRIDEMST_OK)
        rc = build_points(&r, err);
    if (rc == GRIDEMST_OK)
        warn_if_not_euclidean(&r, warn, warn_ctx);
    free(r.xyz);
    free(r.nodes);
    if (rc != GRIDEMST_OK)
        gemst_pointset_free(out);
    return rc;
}

int gemst_read_tsplib(const char *path, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                      gridemst_error *err)
{
    gemst_lines ln;
    int rc = gemst_lines_open(&ln, path, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_read_tsplib_lines(&ln, out, warn, warn_ctx, err);
    else
        memset(out, 0, sizeof *out);
    gemst_lines_close(&ln);
    return rc;
}

/* The keywords of the specification part of a TSPLIB file. */
static const char *const keywords[] = {"NAME",     "TYPE",             "COMMENT",            "DIMENSION",
                                       "CAPACITY", "EDGE_WEIGHT_TYPE", "EDGE_WEIGHT_FORMAT", "EDGE_DATA_FORMAT",
                                       "NODE_COORD_TYPE", "DISPLAY_DATA_TYPE"};

int gemst_tsplib_keyword_line(const char *line)
{
    while (gemst_is_blank(*line))
        line++;
    if (!strchr(line, ':'))
        return 0;
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
        if (key_is(line, keywords[k]))
            return 1;
    return 0;
}
