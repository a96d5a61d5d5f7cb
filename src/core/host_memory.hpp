// Large host buffers pay for their first touch page by page: on the GPU host we measured
// 39 ms to fault in 64 MB with 4 KB pages and 10 ms with transparent huge pages
// (THP in "madvise" mode there). Streams and fields are touched once, right after they are
// allocated, so asking for huge pages before that first touch is worth it.
#pragma once
#include <cstddef>
#include <vector>

namespace sciz {

// Advises huge pages for the whole pages inside [p, p + bytes); a no-op below 4 MB or off Linux.
void advise_huge_pages(void* p, size_t bytes) noexcept;

template <class T>
void reserve_large(std::vector<T>& v, size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// Grows v to n bytes (zero-filled) keeping its first `keep` bytes. A new allocation gets the
// huge-page advice before its first touch, so the zero-fill faults 2 MiB pages instead of 4 KiB
// ones (page faults on fresh output buffers were ~15% of the szx CPU encode). The bytes are the
// same either way.
void grow_fresh(std::vector<unsigned char>& v, size_t n, size_t keep);

// Faults in the whole pages of [p, p + bytes) for writing, pieces of it on the host's threads
// (Linux's MADV_POPULATE_WRITE; elsewhere, or below 4 MB, a no-op): the first touch of a fresh
// buffer is otherwise a page fault a 4 KiB page, all taken by the one thread that writes it
// first (a std::vector's zero-fill). The bytes are unchanged.
void prefault(void* p, size_t bytes) noexcept;

// memcpy over the host's threads (OpenMP): one thread copies at a fraction of the memory's
// bandwidth. Lives in a .cpp file: nvcc ignores OpenMP pragmas in .cu files.
void parallel_copy(void* dst, const void* src, size_t bytes);

}  // namespace sciz
