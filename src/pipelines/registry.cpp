#include <sciz/error.hpp>

#include "pipelines/pipeline.hpp"

namespace sciz {
namespace {
const std::vector<std::unique_ptr<Pipeline>>& registry() {
  static const std::vector<std::unique_ptr<Pipeline>> all = [] {
    std::vector<std::unique_ptr<Pipeline>> v;
    v.push_back(make_lorenzo_pipeline());
    v.push_back(make_szx_pipeline());
    v.push_back(make_delta_pipeline());
    v.push_back(make_interp_pipeline("interp"));
    v.push_back(make_interp_pipeline("interp-cr"));
    v.push_back(make_interp_pipeline("interp-tp"));
    v.push_back(make_raw_pipeline());
    return v;
  }();
  return all;
}
}  // namespace

void Pipeline::check_options(const CompressOptions& opt) const {
  SCIZ_REQUIRE(opt.stages.empty(), Status::invalid_argument,
               std::string("pipeline ") + name() + " codes no quant codes, so it takes no stage list (got '" +
                   opt.stages + "')");
}

const Pipeline& find_pipeline(const std::string& name) {
  for (const auto& p : registry())
    if (name == p->name()) return *p;
  std::string known;
  for (const auto& p : registry()) known += std::string(known.empty() ? "" : ", ") + p->name();
  fail(Status::invalid_argument, "unknown pipeline '" + name + "' (known: " + known + ")");
}

std::vector<std::string> pipeline_names() {
  std::vector<std::string> v;
  for (const auto& p : registry()) v.push_back(p->name());
  return v;
}

}  // namespace sciz
