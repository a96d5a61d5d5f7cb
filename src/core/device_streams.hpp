// CUDA streams and events behind a host-only interface, for the chunk workers that order work
// across streams (core/device.hpp covers memory and copies).
#pragma once
#include "core/cuda_fwd.hpp"

struct CUevent_st;

namespace sciz::dev {

using Event = CUevent_st*;

cudaStream_t make_stream(int device);  // non-blocking, never destroyed (one per worker and device)
Event make_event();                    // timing off; destroy with destroy_event
void destroy_event(Event e) noexcept;
void record(Event e, cudaStream_t s);
void wait(cudaStream_t s, Event e);    // s waits for e (no host synchronization)

}  // namespace sciz::dev
