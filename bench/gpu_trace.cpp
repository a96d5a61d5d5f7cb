#include "gpu_trace.hpp"

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gputrace {
namespace {

struct Act {
  uint64_t start, end;
  uint32_t stream;
  std::string name;
  bool gpu;  // false: a runtime API call on a host thread
  uint32_t thread = 0;
  uint64_t bytes = 0;
};

std::mutex mu;
std::vector<Act> acts;
bool enabled = false;

#define CUPTI_OK(call)                                                                      \
  do {                                                                                      \
    const CUptiResult r_ = (call);                                                          \
    if (r_ != CUPTI_SUCCESS) {                                                              \
      const char* e_ = nullptr;                                                             \
      cuptiGetResultString(r_, &e_);                                                        \
      std::fprintf(stderr, "gpu_trace: %s failed: %s\n", #call, e_ ? e_ : "?");             \
      return;                                                                               \
    }                                                                                       \
  } while (0)

// Kernel names without their template arguments and parameter lists: enough to tell them apart.
std::string short_name(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : mangled;
  std::free(d);
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<' || c == '(') ++depth;
    if (depth == 0) out += c;
    if ((c == '>' || c == ')') && depth > 0) --depth;
  }
  if (const auto sp = out.rfind(' '); sp != std::string::npos) out = out.substr(sp + 1);  // return type
  return out.size() > 48 ? out.substr(out.size() - 48) : out;
}

const char* copy_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
    default: return "memcpy other";
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = size_t(8) << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  std::vector<Act> got;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        got.push_back({k->start, k->end, k->streamId, short_name(k->name), true});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        got.push_back({m->start, m->end, m->streamId, copy_kind(m->copyKind), true, 0, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        got.push_back({m->start, m->end, m->streamId, "memset", true, 0, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
        const char* nm = nullptr;
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &nm);
        got.push_back({a->start, a->end, 0, nm ? nm : "runtime?", false, a->threadId});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> l(mu);
  acts.insert(acts.end(), got.begin(), got.end());
}

void enable() {
  CUPTI_OK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
  CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
  enabled = true;
}

void disable() {
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  enabled = false;
}

}  // namespace

bool available() { return true; }

void begin() {
  {
    std::lock_guard<std::mutex> l(mu);
    acts.clear();
  }
  enable();
}

void end_and_print(const char* title, std::FILE* out, int timeline) {
  if (!enabled) return;
  cuptiActivityFlushAll(1);
  disable();
  std::vector<Act> a;
  {
    std::lock_guard<std::mutex> l(mu);
    a.swap(acts);
  }
  std::vector<Act> gpu, api;
  for (auto& x : a) (x.gpu ? gpu : api).push_back(x);
  std::sort(gpu.begin(), gpu.end(), [](const Act& p, const Act& q) { return p.start < q.start; });
  std::fprintf(out, "---- trace: %s ----\n", title);
  if (gpu.empty()) {
    std::fprintf(out, "no GPU activity recorded\n");
    return;
  }
  uint64_t t0 = gpu.front().start, t1 = 0;
  for (const auto& x : api) t0 = std::min(t0, x.start);
  for (const auto& x : gpu) t1 = std::max(t1, x.end);
  for (const auto& x : api) t1 = std::max(t1, x.end);
  // Busy: the union of every GPU activity's interval; idle gaps between them listed when long.
  uint64_t busy = 0, cur_s = gpu.front().start, cur_e = gpu.front().end, summed = 0;
  std::vector<std::pair<uint64_t, uint64_t>> gaps;
  for (const auto& x : gpu) {
    summed += x.end - x.start;
    if (x.start > cur_e) {
      busy += cur_e - cur_s;
      gaps.push_back({cur_e, x.start - cur_e});
      cur_s = x.start;
      cur_e = x.end;
    } else {
      cur_e = std::max(cur_e, x.end);
    }
  }
  busy += cur_e - cur_s;
  const double us = 1e-3;
  std::fprintf(out, "span %.1f us (first API call to last GPU/API end), GPU busy %.1f us, activity sum %.1f us, "
               "GPU idle gaps %zu\n", (t1 - t0) * us, busy * us, summed * us, gaps.size());
  std::map<std::string, std::pair<int, uint64_t>> per;
  std::map<std::string, uint64_t> per_bytes;
  for (const auto& x : gpu) {
    auto& p = per[x.name];
    ++p.first;
    p.second += x.end - x.start;
    per_bytes[x.name] += x.bytes;
  }
  std::vector<std::pair<std::string, std::pair<int, uint64_t>>> rows(per.begin(), per.end());
  std::sort(rows.begin(), rows.end(), [](const auto& p, const auto& q) { return p.second.second > q.second.second; });
  std::fprintf(out, "%-50s %6s %10s %9s %10s\n", "GPU activity", "count", "total us", "avg us", "MB");
  for (const auto& [name, p] : rows)
    std::fprintf(out, "%-50s %6d %10.1f %9.1f %10.1f\n", name.c_str(), p.first, p.second * us,
                 p.second * us / p.first, per_bytes[name] / 1e6);
  std::map<std::string, std::pair<int, uint64_t>> per_api;
  for (const auto& x : api) {
    auto& p = per_api[x.name];
    ++p.first;
    p.second += x.end - x.start;
  }
  std::vector<std::pair<std::string, std::pair<int, uint64_t>>> arows(per_api.begin(), per_api.end());
  std::sort(arows.begin(), arows.end(), [](const auto& p, const auto& q) { return p.second.second > q.second.second; });
  std::fprintf(out, "%-50s %6s %10s %9s   (host threads, summed)\n", "runtime API", "count", "total us", "avg us");
  for (size_t i = 0; i < arows.size() && i < 12; ++i)
    std::fprintf(out, "%-50s %6d %10.1f %9.1f\n", arows[i].first.c_str(), arows[i].second.first,
                 arows[i].second.second * us, arows[i].second.second * us / arows[i].second.first);
  std::fprintf(out, "timeline (us from the first API call; stream; duration):\n");
  for (int i = 0; i < timeline && i < static_cast<int>(gpu.size()); ++i) {
    const Act& x = gpu[i];
    std::fprintf(out, "  %9.1f  s%-4u %8.1f  %s%s\n", (x.start - t0) * us, x.stream, (x.end - x.start) * us,
                 x.name.c_str(), x.bytes ? (" " + std::to_string(x.bytes >> 10) + " KiB").c_str() : "");
  }
  if (static_cast<int>(gpu.size()) > timeline) std::fprintf(out, "  ... %zu more\n", gpu.size() - timeline);
}

}  // namespace gputrace
