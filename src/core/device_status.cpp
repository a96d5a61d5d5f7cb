#include "core/device_status.hpp"

#include <sciz/error.hpp>

namespace sciz {

std::string device_status_message(const DeviceStatus& st) {
  const std::string a = std::to_string(st.a), b = std::to_string(st.b), w = std::to_string(st.where);
  switch (st.code) {
    case kStatusOk: return "";
    case kStatusChecksum: return "chunk " + w + ": section " + a + " checksum mismatch: stream is corrupted";
    case kStatusRunsHeader: return "exact values: " + a + " entries in " + b + " runs do not fit the field";
    case kStatusRunsOverrun: return "exact values: run " + a + " leaves the field or the entry count";
    case kStatusRunsPalette: return "exact values: run " + a + " names palette index " + b;
    case kStatusRunsTotals: return "exact values: runs hold " + a + " entries, header says " + b;
    case kStatusRunsTruncated: return "exact values: section ends inside a run at byte " + a;
    default: return "device check " + std::to_string(st.code) + " failed (where " + w + ", " + a + ", " + b + ")";
  }
}

void throw_if_failed(const DeviceStatus& st, const std::string& what) {
  if (st.code != 0) fail(Status::corrupt_stream, what + ": " + device_status_message(st));
}

}  // namespace sciz
