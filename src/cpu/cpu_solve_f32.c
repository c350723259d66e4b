/* The CPU backend in float32 working precision. */
#define GEMST_REAL_IS_DOUBLE 0
#include "cpu/cpu_grid.inc"
#include "cpu/cpu_bvh.inc"
#include "cpu/cpu_bvh_kd.inc"
#include "cpu/cpu_index_choice.inc"
#include "cpu/cpu_solve.inc"
#include "cpu/cpu_fof.inc"
