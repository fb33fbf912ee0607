#pragma once
// ERMAK_HD marks physics code that both backends compile: one definition, two loops
// (DESIGN.md §3). Under nvcc it becomes __host__ __device__; elsewhere plain inline.
#if defined(__CUDACC__)
#define ERMAK_HD __host__ __device__ __forceinline__
#else
#define ERMAK_HD inline
#endif
