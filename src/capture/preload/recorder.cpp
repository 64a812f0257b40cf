#include "capture/preload/recorder.hpp"

#include <nlohmann/json.hpp>

namespace sfr::capture {

void Recorder::op(const OpRecord& r, bool via_vecscatter) {
  auto& c = counts_[{r.sf, r.op}];
  ++c.first;
  if (via_vecscatter) ++c.second;
  if (!ops_.empty() && ops_.back().same_op(r) && dropped_ == 0) {
    ++ops_.back().repeat;
    return;
  }
  if (ops_.size() >= max_ops_) {
    ++dropped_;
    return;
  }
  ops_.push_back(r);
  ops_.back().repeat = 1;
  last_count_ = &c;  // (map nodes stay put)
}

std::int64_t Recorder::count(int sf, const std::string& op) const {
  auto it = counts_.find({sf, op});
  return it == counts_.end() ? 0 : it->second.first;
}

std::string Recorder::to_json(int rank, int size, const std::string& petsc_version, const std::string& refused, const RankPlace& where) const {
  using nlohmann::json;
  json doc = {{"format", "sf-capture-rank"}, {"version", 1}, {"rank", rank}, {"size", size}, {"petsc", petsc_version}};
  if (!where.host.empty()) doc["host"] = where.host;
  if (where.socket >= 0) doc["socket"] = where.socket;
  if (!refused.empty()) doc["refused"] = refused;
  json sfs = json::array();
  for (const auto& s : sfs_) {
    json j = {{"petsc_type", s.petsc_type}, {"nroots", s.nroots}, {"remote_rank", s.remote_rank}, {"remote_index", s.remote_index},
              {"first_via", s.first_via}};
    j["ilocal"] = s.has_ilocal ? json(s.ilocal) : json(nullptr);
    if (!s.pattern.empty()) j["pattern"] = s.pattern;
    if (!s.built_by.empty()) j["built_by"] = json::parse(s.built_by);
    if (!s.derive.empty()) {
      j["derive"] = s.derive;
      j["of"] = s.of;
      if (s.has_selected) j["selected"] = s.selected;
    }
    sfs.push_back(std::move(j));
  }
  doc["sfs"] = std::move(sfs);
  json ops = json::array();
  for (const auto& o : ops_) {
    json j = {{"sf", o.sf}, {"op", o.op}, {"repeat", o.repeat}};
    if (!o.unit.empty()) j["unit"] = o.unit;
    if (o.bs != 1) j["bs"] = o.bs;
    if (!o.mpi_op.empty()) j["mpi_op"] = o.mpi_op;
    if (o.root_device || o.leaf_device)
      j["memtype"] = {{"root", o.root_device ? "device" : "host"}, {"leaf", o.leaf_device ? "device" : "host"}};
    ops.push_back(std::move(j));
  }
  doc["ops"] = std::move(ops);
  doc["dropped_ops"] = dropped_;
  json counts = json::array();
  for (const auto& [k, v] : counts_) counts.push_back({{"sf", k.first}, {"op", k.second}, {"count", v.first}, {"vecscatter", v.second}});
  doc["op_counts"] = std::move(counts);
  json skipped = json::array();
  for (const auto& [k, v] : skipped_) skipped.push_back({{"op", k.first}, {"reason", k.second}, {"count", v}});
  doc["not_recorded"] = std::move(skipped);
  json internal = json::array();
  for (const auto& [k, v] : internal_) internal.push_back({{"op", k.first}, {"within", k.second}, {"count", v}});
  doc["internal"] = std::move(internal);
  doc["events"] = events_;
  return doc.dump();
}

}  // namespace sfr::capture
