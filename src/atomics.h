/* Atomic operations with one spelling for host (GCC builtins) and device. */
#ifndef GEMST_ATOMICS_H
#define GEMST_ATOMICS_H

#include "common.h"

/* Compare-and-swap: returns the value found at *p. */
static inline GEMST_HD uint32_t gemst_atomic_cas_u32(uint32_t *p, uint32_t expected, uint32_t desired)
{
#ifdef __CUDA_ARCH__
    return atomicCAS((unsigned int *)p, expected, desired);
#else
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return expected;
#endif
}

static inline GEMST_HD uint64_t gemst_atomic_cas_u64(uint64_t *p, uint64_t expected, uint64_t desired)
{
#ifdef __CUDA_ARCH__
    return atomicCAS((unsigned long long *)p, (unsigned long long)expected, (unsigned long long)desired);
#else
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return expected;
#endif
}

/* Returns *p and adds v to it, atomically. */
static inline GEMST_HD uint32_t gemst_atomic_add_u32(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    return atomicAdd((unsigned int *)p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

/* *p = min(*p, v), atomically. */
static inline GEMST_HD void gemst_atomic_min_u32(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    atomicMin((unsigned int *)p, (unsigned int)v);
#else
    uint32_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

static inline GEMST_HD void gemst_atomic_min_u64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    atomicMin((unsigned long long *)p, (unsigned long long)v);
#else
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

/* *p = max(*p, v), atomically. */
static inline GEMST_HD void gemst_atomic_max_u64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    atomicMax((unsigned long long *)p, (unsigned long long)v);
#else
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

/* Returns *p and sets the bits of v in it, atomically. */
static inline GEMST_HD uint64_t gemst_atomic_or_u64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    return atomicOr((unsigned long long *)p, (unsigned long long)v);
#else
    return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
#endif
}

/* A full memory fence: this thread's writes before it are seen by any
 * thread that sees its writes after it (bottom-up passes over a tree). */
static inline GEMST_HD void gemst_fence(void)
{
#ifdef __CUDA_ARCH__
    __threadfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Plain loads and stores of words other threads may write at the same time
 * (pointer jumping, where any value read is a valid ancestor). */
static inline GEMST_HD uint32_t gemst_load_relaxed(const uint32_t *p)
{
#ifdef __CUDA_ARCH__
    return *(const volatile uint32_t *)p;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

static inline GEMST_HD uint64_t gemst_load_relaxed_u64(const uint64_t *p)
{
#ifdef __CUDA_ARCH__
    return *(const volatile uint64_t *)p;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

static inline GEMST_HD void gemst_store_relaxed(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    *(volatile uint32_t *)p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

static inline GEMST_HD void gemst_store_relaxed_u64(uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    *(volatile uint64_t *)p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

static inline GEMST_HD void gemst_store_relaxed_u8(uint8_t *p, uint8_t v)
{
#ifdef __CUDA_ARCH__
    *(volatile uint8_t *)p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

#endif
