// Host/device annotations shared by the CPU and CUDA twins.
#pragma once
#if defined(__CUDACC__)
#define SCIZ_HD __host__ __device__ __forceinline__
#else
#define SCIZ_HD inline
#endif
