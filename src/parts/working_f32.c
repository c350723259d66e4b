/* The partitioned solve's arithmetic in float32. */
#define GEMST_REAL_IS_DOUBLE 0
#include "parts/working.inc"
