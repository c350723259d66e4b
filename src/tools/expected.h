/*
 * What a solve must return, by the contract of gridemst.h ("Squared
 * distances are evaluated ... on working points"), from the independent
 * reference alone (tools/prim.h): exactly the reference's tree, or a
 * refusal the reference explains.  The solver fuzzer and the precision
 * tests check every solve against it.
 */
#ifndef GEMST_EXPECTED_H
#define GEMST_EXPECTED_H

#include <stddef.h>
#include <stdint.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GEMST_EXPECT_TREE,      /* the reference's tree, edge for edge, bit for bit */
    GEMST_EXPECT_TOO_CLOSE, /* a tree edge joins distinct points whose squared distance is subnormal or 0 (double:
                               points as given), or 0 (float: working points) */
    GEMST_EXPECT_TOO_FAR    /* an edge longer than the largest double (float: a side of the box wider) */
} gemst_expect_kind;

typedef struct gemst_expected {
    const void *coords;
    gridemst_dtype dtype;
    int64_t n;
    int dim;
    gridemst_precision precision;
    gemst_expect_kind kind;
    gridemst_edge *edges;   /* the reference tree, n - 1 edges sorted by (w, u, v) */
    double *d2;             /* their squared lengths in working units */
    double lo[3], scale;    /* the working frame (gemst_prim_scale) */
} gemst_expected;

/* The expectation for n points in the precision; GRIDEMST_ERR_NO_MEMORY
 * when memory runs out.  The coordinates must outlive it. */
int gemst_expect(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                 gemst_expected *e);
void gemst_expected_free(gemst_expected *e);

/* Whether a solve's outcome (its status, error and, when it succeeded,
 * result) is the expected one; 0 with a one-line reason otherwise.  A
 * refusal for points too close together must name two distinct points
 * whose squared distance is that small. */
int gemst_outcome_ok(const gemst_expected *e, int rc, const gridemst_error *err, const gridemst_result *result,
                     char *reason, size_t size);

#ifdef __cplusplus
}
#endif

#endif
