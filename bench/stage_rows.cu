#include "stage_rows.hpp"

#include <cstdio>

#include "core/device.hpp"
#include "core/geometry.hpp"
#include "lossless/stages/registry.hpp"
#include "lossless/stages/stages.hpp"
#include "lossless/stages/stages_cuda.hpp"
#include "predict/lorenzo/lorenzo.hpp"

namespace sciz::bench {
namespace {

// Codes of radius 128 are below 256: one byte each, as interp writes them.
__global__ void narrow_codes(const uint16_t* __restrict__ in, uint64_t n, uint8_t* __restrict__ out) {
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<uint8_t>(in[i]);
}

std::vector<uint8_t> to_host(const uint8_t* d, uint64_t n) {
  std::vector<uint8_t> h(n);
  dev::copy_to_host(h.data(), d, n, nullptr);
  dev::sync(nullptr);
  return h;
}

}  // namespace

StageRows stage_rows(const float* d_x, const Shape& shape, double eb_abs, int warmups, int runs, std::vector<Row>& rows) {
  using namespace sciz::stages;
  const Extent e = effective_extent(shape);
  const TileShape c = lorenzo::default_tile(e.ndim);
  const uint64_t n = e.count();
  StageRows r;
  r.codes = n;
  dev::Buffer<uint8_t> d_codes(n, nullptr), d_back(n, nullptr);
  {
    dev::Buffer<uint16_t> wide(n, nullptr);
    lorenzo::Sparse<float> sp;
    lorenzo::compress_cuda<float>(d_x, e, c, lorenzo::make_params<float>(eb_abs, 128), wide.get(), sp, nullptr);
    narrow_codes<<<1024, 256>>>(wide.get(), n, d_codes.get());
    dev::sync(nullptr);
  }
  const Context ctx{1, 256, 128};
  const std::vector<uint8_t> host_codes = to_host(d_codes.get(), n);
  dev::Buffer<DeviceStatus> st(1, nullptr);
  auto ok = [&](const char* what) {
    DeviceStatus hs;
    dev::copy_to_host(&hs, st.get(), sizeof hs, nullptr);
    dev::sync(nullptr);
    const bool same = hs.code == 0 && to_host(d_back.get(), n) == host_codes;
    if (!same) std::printf("ERROR: %s did not return the codes (%s)\n", what, device_status_message(hs).c_str());
    r.round_trip = r.round_trip && same;
  };
  for (StageId id : all_stages()) {
    if (family_of(id) == Family::codes) continue;
    const std::string name = stage_name(id);
    const uint64_t cap = max_encoded_bytes(id, n, ctx);
    dev::Buffer<uint8_t> blob(cap, nullptr);
    uint64_t size = 0;
    rows.push_back({"stage " + name + " encode",
                    time_gpu(warmups, runs, [&] { size = encode_stage_cuda(id, d_codes.get(), n, blob.get(), cap, ctx, nullptr); }),
                    n, "codes8"});
    dev::zero(st.get(), sizeof(DeviceStatus), nullptr);
    dev::zero(d_back.get(), n, nullptr);
    rows.push_back({"stage " + name + " decode",
                    time_gpu(warmups, runs, [&] { decode_stage_cuda(id, blob.get(), size, d_back.get(), n, ctx, st.get(), nullptr); }),
                    n, "codes8"});
    ok(name.c_str());
    r.ratio.push_back({name, static_cast<double>(n) / static_cast<double>(size)});
  }
  for (const char* list : {"interp-cr", "interp-tp"}) {
    const Chain chain = parse_chain(list);
    DeviceBlob b;
    rows.push_back({std::string("chain ") + list + " encode",
                    time_gpu(warmups, runs, [&] { b = encode_cuda(chain, d_codes.get(), n, ctx, nullptr); }), n, "codes8"});
    dev::zero(d_back.get(), n, nullptr);
    dev::zero(st.get(), sizeof(DeviceStatus), nullptr);
    rows.push_back({std::string("chain ") + list + " decode",
                    time_gpu(warmups, runs, [&] { decode_cuda(chain, b.bytes.get(), b.size, d_back.get(), n, ctx, nullptr); }),
                    n, "codes8"});
    ok(list);
    r.ratio.push_back({list, static_cast<double>(n) / static_cast<double>(b.size)});
    const bool same = encode_cpu(chain, host_codes, ctx) == to_host(b.bytes.get(), b.size);
    if (!same) std::printf("ERROR: %s: the GPU blob differs from the CPU twin's\n", list);
    r.same_as_cpu = r.same_as_cpu && same;
  }
  return r;
}

}  // namespace sciz::bench
