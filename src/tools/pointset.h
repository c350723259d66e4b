/* A point set as the command-line tools hold it (not part of the library). */
#ifndef GEMST_POINTSET_H
#define GEMST_POINTSET_H

#include <stdint.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a TSPLIB file said beyond its points. */
typedef struct gemst_tsplib_info {
    char name[128];
    char edge_weight_type[32]; /* as written: EUC_2D, CEIL_2D, ATT, GEO, EUC_3D, MAN_2D, ... */
    int orig_dim;              /* coordinates per node in the file (2 or 3) */
    double *orig;              /* n * orig_dim coordinates as written (GEO: DDD.MM) */
} gemst_tsplib_info;

/* Room for a text file's header line, kept for the message that quotes it. */
#define GEMST_HEADER_TEXT 72

typedef struct gemst_pointset {
    int64_t n;
    int dim;                   /* 2 or 3: what the solver sees (GEO becomes 3D) */
    gridemst_dtype dtype;      /* FLOAT64 for text and TSPLIB, FLOAT32 for binary and generated */
    void *coords;              /* n * dim interleaved, owned: malloc'd, or inside mapping */
    void *mapping;             /* binary files: the file's private mapping (NULL: none) ... */
    size_t mapping_bytes;      /* ... of this many bytes */
    int is_tsplib;
    gemst_tsplib_info tsp;     /* valid when is_tsplib */
    int64_t header_line;       /* text: the line read as a column header, 0 if none */
    char header[GEMST_HEADER_TEXT]; /* its text, shortened with "..." when longer */
} gemst_pointset;

/* Frees what the point set owns and zeroes it; safe on a zeroed set. */
void gemst_pointset_free(gemst_pointset *ps);

/* Coordinate i of axis d as double. */
static inline double gemst_pointset_coord(const gemst_pointset *ps, int64_t i, int d)
{
    if (ps->dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)ps->coords)[i * ps->dim + d];
    return ((const double *)ps->coords)[i * ps->dim + d];
}

#ifdef __cplusplus
}
#endif

#endif
