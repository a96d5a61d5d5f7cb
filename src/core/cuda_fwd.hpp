// Lets host-only headers name cudaStream_t without including the CUDA runtime.
#pragma once
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
