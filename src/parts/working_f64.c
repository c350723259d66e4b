/* The partitioned solve's arithmetic in float64. */
#define GEMST_REAL_IS_DOUBLE 1
#include "parts/working.inc"
