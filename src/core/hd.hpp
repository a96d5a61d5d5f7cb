// Host/device annotations shared by the CPU and CUDA twins.
#pragma once
#if defined(__CUDACC__)
#define SCIZ_HD __host__ __device__ __forceinline__
#else
#define SCIZ_HD inline
#endif

// Unrolls the next loop in device code (fixed trip counts the compiler keeps in registers);
// the host compilers unroll such loops themselves and warn about the pragma.
#if defined(__CUDA_ARCH__)
#define SCIZ_UNROLL _Pragma("unroll")
#else
#define SCIZ_UNROLL
#endif
