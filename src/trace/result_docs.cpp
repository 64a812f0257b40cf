#include "trace/result_docs.hpp"

#include <utility>

#include "core/backends.hpp"
#include "core/error.hpp"
#include "io/strict_reader.hpp"

namespace sfr::trace {

namespace {

using Json = io::Json;
using Kind = io::StrictReader::Kind;

// The version every document kind has today; a newer one is refused rather than half-read.
constexpr int kVersion = 1;

std::string at(const std::string& ptr, const char* key) { return ptr + "/" + key; }
std::string at(const std::string& ptr, std::size_t i) { return ptr + "/" + std::to_string(i); }

// Reads the members of one object; every accessor checks presence (required ones) and kind, so a
// wrong document fails on its first bad member with that member's pointer.
class Obj {
public:
  Obj(const io::StrictReader& r, const Json& j, std::string ptr) : r_(r), j_(j), ptr_(std::move(ptr)) { r_.expect_object(j_, ptr_, "an object"); }
  const std::string& ptr() const { return ptr_; }

  const Json& need(const char* key, Kind k) const {
    r_.require(j_, ptr_, {{key, k}});
    return j_[key];
  }
  // nullptr when absent; the kind is checked when present.
  const Json* opt(const char* key, Kind k) const {
    if (!j_.contains(key)) return nullptr;
    return &need(key, k);
  }
  std::string str(const char* key) const { return need(key, Kind::string).get<std::string>(); }
  double num(const char* key) const { return need(key, Kind::number).get<double>(); }
  std::int64_t i64(const char* key) const { return need(key, Kind::integer).get<std::int64_t>(); }
  std::uint64_t u64(const char* key) const {
    const Json& v = need(key, Kind::integer);
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) r_.fail(at(ptr_, key), "expected an integer >= 0, got " + v.dump());
    return v.get<std::uint64_t>();
  }
  std::size_t index(const char* key) const { return static_cast<std::size_t>(u64(key)); }
  // Optional members: `dflt` when absent.
  std::string str_or(const char* key, std::string dflt) const { return j_.contains(key) ? str(key) : std::move(dflt); }
  double num_or(const char* key, double dflt) const { return j_.contains(key) ? num(key) : dflt; }
  std::int64_t i64_or(const char* key, std::int64_t dflt) const { return j_.contains(key) ? i64(key) : dflt; }
  std::uint64_t u64_or(const char* key, std::uint64_t dflt) const { return j_.contains(key) ? u64(key) : dflt; }
  bool has(const char* key) const { return j_.contains(key); }
  // (StrictReader has no boolean kind: checked here.)
  bool boolean_or(const char* key, bool dflt) const {
    if (!j_.contains(key)) return dflt;
    if (!j_[key].is_boolean()) r_.fail(at(ptr_, key), "expected true or false, got " + io::StrictReader::describe(j_[key]));
    return j_[key].get<bool>();
  }
  std::vector<std::string> strings(const char* key) const {
    const Json& a = need(key, Kind::array);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) r_.fail(at(at(ptr_, key), i), "expected a string, got " + io::StrictReader::describe(a[i]));
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }
  // Each element of array member `key` as an Obj.
  template <class F>
  void each(const char* key, F&& f) const {
    const Json& a = need(key, Kind::array);
    for (std::size_t i = 0; i < a.size(); ++i) f(Obj(r_, a[i], at(at(ptr_, key), i)));
  }
  Obj sub(const char* key) const { return Obj(r_, need(key, Kind::object), at(ptr_, key)); }
  const io::StrictReader& reader() const { return r_; }

private:
  const io::StrictReader& r_;
  const Json& j_;
  std::string ptr_;
};

// A version member, when present, must be one this build reads.
void check_version(const Obj& o) {
  if (!o.has("version")) return;
  const std::int64_t v = o.i64("version");
  if (v < 1 || v > kVersion)
    o.reader().fail(at(o.ptr(), "version"), "version " + std::to_string(v) + " is not one this build reads (1)");
}

Json breakdown_json(const SimBreakdown& b) {
  return {{"latency", b.latency},   {"bandwidth", b.bandwidth}, {"contention", b.contention}, {"injection_wait", b.injection_wait},
          {"overhead", b.overhead}, {"copies", b.copies},       {"sync", b.sync},             {"other", b.other}};
}

// Terms a document lacks read as 0 (documents from before a term existed); present ones must be numbers.
SimBreakdown read_breakdown(const Obj& o) {
  SimBreakdown b;
  b.latency = o.num_or("latency", 0);
  b.bandwidth = o.num_or("bandwidth", 0);
  b.contention = o.num_or("contention", 0);
  b.injection_wait = o.num_or("injection_wait", 0);
  b.overhead = o.num_or("overhead", 0);
  b.copies = o.num_or("copies", 0);
  b.sync = o.num_or("sync", 0);
  b.other = o.num_or("other", 0);
  return b;
}

}  // namespace

void check_provenance(const Json& p, const std::string& source) {
  if (p.is_null()) return;
  io::StrictReader r(source);
  r.require(p, "/provenance", {{"commit", Kind::string}, {"date", Kind::string}, {"host", Kind::string}});
  const auto sha = p.find("trace_sha256");
  if (sha != p.end() && !sha->is_null() && !sha->is_string()) r.fail("/provenance/trace_sha256", "expected a string or null");
}

// ---- sf-timing ----

namespace {
// The device counters' keys, once for the writer and the reader.
constexpr std::pair<const char*, double DeviceWork::*> kDeviceWork[] = {
    {"launches", &DeviceWork::launches}, {"stream_syncs", &DeviceWork::stream_syncs}, {"event_syncs", &DeviceWork::event_syncs},
    {"device_syncs", &DeviceWork::device_syncs}, {"memsets", &DeviceWork::memsets}, {"h2d", &DeviceWork::h2d},
    {"h2d_bytes", &DeviceWork::h2d_bytes}, {"d2h", &DeviceWork::d2h}, {"d2h_bytes", &DeviceWork::d2h_bytes},
    {"d2d", &DeviceWork::d2d}, {"d2d_bytes", &DeviceWork::d2d_bytes}};
}  // namespace

Json to_json(const DeviceWork& w) {
  Json j = Json::object();
  for (const auto& [key, field] : kDeviceWork) j[key] = w.*field;
  return j;
}

Json to_json(const TimingDoc& d) {
  Json results = Json::array();
  for (const auto& r : d.results) {
    results.push_back({{"index", r.index},
                       {"op", r.op},
                       {"sf", r.sf},
                       {"backend", r.backend},
                       {"unit", r.unit},
                       {"bs", r.bs},
                       {"mpi_op", r.mpi_op},
                       {"repeat", r.repeat},
                       {"bytes", r.bytes},
                       {"messages", r.messages},
                       {"min_us", r.min_us},
                       {"median_us", r.median_us},
                       {"max_us", r.max_us},
                       {"samples_us", r.samples_us},
                       {"samples_exact", r.samples_exact}});
    results.back()["per_call_us"] = r.per_call_us();  // additive: the median per call, named as such
    if (r.mean_us) results.back()["mean_us"] = *r.mean_us;
    if (r.device) results.back()["device"] = to_json(*r.device);
  }
  Json j = {{"format", kTimingFormat}, {"version", kVersion}, {"trace", d.trace},           {"nranks", d.nranks},
            {"warmup", d.warmup},    {"iters", d.iters},      {"provenance", d.provenance}, {"results", std::move(results)}};
  if (d.split_cap > 0) j["split_cap"] = d.split_cap;
  if (d.ranks_per_node > 0) j["ranks_per_node"] = d.ranks_per_node;
  return j;
}

TimingDoc timing_doc_from_json(const Json& j, const std::string& source) {
  io::check_format(j, source, kTimingFormat, true);
  const io::StrictReader r(source);
  const Obj o(r, j, "");
  check_version(o);
  // The required members first, in one check, so the first missing one is named.
  r.require(j, "", {{"trace", Kind::string}, {"nranks", Kind::integer}, {"iters", Kind::integer}, {"results", Kind::array}});
  TimingDoc d;
  d.trace = o.str("trace");
  d.nranks = o.i64("nranks");
  d.iters = o.i64("iters");
  d.warmup = o.i64_or("warmup", 0);
  d.split_cap = o.i64_or("split_cap", 0);
  d.ranks_per_node = o.i64_or("ranks_per_node", 0);
  o.each("results", [&](const Obj& e) {
    TimingResult t;
    t.index = e.index("index");
    t.op = e.str("op");
    t.sf = e.str("sf");
    t.backend = e.str("backend");
    t.unit = e.str("unit");
    t.bs = e.i64("bs");
    t.bytes = e.i64("bytes");
    t.messages = e.i64("messages");
    t.min_us = e.num("min_us");
    t.median_us = e.num("median_us");
    t.max_us = e.num("max_us");
    // Older documents lack these (and mean_us, samples_exact).
    t.mpi_op = e.str_or("mpi_op", "");
    t.repeat = e.i64_or("repeat", 1);
    if (e.has("mean_us")) t.mean_us = e.num("mean_us");
    if (e.has("device")) {
      const Obj w = e.sub("device");
      DeviceWork dw;
      for (const auto& [key, field] : kDeviceWork) dw.*field = w.num(key);
      t.device = dw;
    }
    t.samples_exact = e.boolean_or("samples_exact", true);
    if (const Json* s = e.opt("samples_us", Kind::array))
      for (std::size_t k = 0; k < s->size(); ++k) {
        if (!(*s)[k].is_number() || !((*s)[k].get<double>() >= 0)) r.fail(at(at(e.ptr(), "samples_us"), k), "expected a number >= 0");
        t.samples_us.push_back((*s)[k].get<double>());
      }
    d.results.push_back(std::move(t));
  });
  d.provenance = j.contains("provenance") ? j["provenance"] : Json();
  check_provenance(d.provenance, source);
  return d;
}

std::string auto_label(const std::string& chose) { return std::string(core::kAuto.name) + ":" + chose; }
std::string auto_choice(const std::string& label) {
  const std::string prefix = std::string(core::kAuto.name) + ":";
  return label.rfind(prefix, 0) == 0 ? label.substr(prefix.size()) : "";
}

TimingResult per_call(TimingResult r) {
  const double n = r.calls();
  r.min_us /= n;
  r.median_us /= n;
  r.max_us /= n;
  if (r.mean_us) *r.mean_us /= n;
  for (double& s : r.samples_us) s /= n;
  return r;
}

// ---- sf-simulation ----

double SimOp::per_call_us() const {
  if (per_call) return 1e6 * *per_call;
  const double rep = repeat && *repeat > 0 ? static_cast<double>(*repeat) : 1.0;
  return 1e6 * total / rep;
}

Json to_json(const SimulationDoc& d) {
  Json j;
  j["format"] = kSimulationFormat;
  j["version"] = kVersion;
  j["provenance"] = d.provenance;
  j["trace"] = d.trace;
  j["machine"] = d.machine;
  j["model"] = d.model;
  j["unit"] = d.unit;
  if (!d.placement.is_null()) j["placement"] = d.placement;
  j["backends"] = Json::array();
  for (const auto& b : d.backends) {
    Json jb;
    jb["backend"] = b.backend;
    jb["total"] = b.total;
    jb["messages"] = b.messages;
    if (b.breakdown) jb["breakdown"] = breakdown_json(*b.breakdown);
    jb["dominant"] = b.dominant;
    jb["ops"] = Json::array();
    for (const auto& o : b.ops) {
      Json jo;
      jo["index"] = o.index;
      jo["op"] = o.op;
      if (o.repeat) jo["repeat"] = *o.repeat;
      jo["total"] = o.total;
      if (o.per_call) jo["per_call"] = *o.per_call;
      jo["messages"] = o.messages;
      jo["messages_per_call"] = o.messages_per_call;
      jo["bytes_per_call"] = o.bytes_per_call;
      if (o.breakdown) jo["breakdown"] = breakdown_json(*o.breakdown);
      jo["dominant"] = o.dominant;
      jb["ops"].push_back(std::move(jo));
    }
    j["backends"].push_back(std::move(jb));
  }
  Json rk;  // null without a ranking (no backends)
  if (d.ranking) {
    rk["order"] = d.ranking->order;
    if (d.ranking->why) rk["why"] = *d.ranking->why;
    rk["ops"] = Json::array();
    for (const auto& ro : d.ranking->ops) {
      Json jo;
      jo["index"] = ro.index;
      jo["order"] = ro.order;
      if (ro.why) jo["why"] = *ro.why;
      rk["ops"].push_back(std::move(jo));
    }
  }
  j["ranking"] = std::move(rk);
  return j;
}

SimulationDoc simulation_doc_from_json(const Json& j, const std::string& source) {
  if (j.is_object()) io::check_format(j, source, kSimulationFormat, false);  // first: another kind of file is named as such
  if (!j.is_object() || !j.contains("backends") || !j.contains("machine"))
    throw InputError(source, "(top level): not a simulation result (sf-replay simulate --json)");
  const io::StrictReader r(source);
  const Obj o(r, j, "");
  check_version(o);
  r.require(j, "", {{"trace", Kind::string}, {"machine", Kind::string}, {"model", Kind::string}, {"backends", Kind::array}});
  SimulationDoc d;
  d.provenance = j.contains("provenance") ? j["provenance"] : Json();
  check_provenance(d.provenance, source);
  d.trace = o.str("trace");
  d.machine = o.str("machine");
  d.model = o.str("model");
  d.unit = o.str_or("unit", "seconds");
  if (o.has("placement")) {
    const Obj p = o.sub("placement");
    p.i64("ranks_per_node"), p.i64("ranks_per_socket"), p.i64("nodes"), p.str("text");  // checked: each named where wrong
    d.placement = j["placement"];
  }
  o.each("backends", [&](const Obj& b) {
    SimBackend sb;
    sb.backend = b.str("backend");
    sb.total = b.num("total");
    sb.messages = b.u64("messages");
    b.need("ops", Kind::array);
    if (b.has("breakdown")) sb.breakdown = read_breakdown(b.sub("breakdown"));
    sb.dominant = b.str_or("dominant", "");
    b.each("ops", [&](const Obj& e) {
      SimOp op;
      op.index = e.index("index");
      op.total = e.num("total");
      op.op = e.str_or("op", "");
      if (e.has("repeat")) op.repeat = e.i64("repeat");
      if (e.has("per_call")) op.per_call = e.num("per_call");
      op.messages = e.u64_or("messages", 0);
      op.messages_per_call = e.u64_or("messages_per_call", 0);
      op.bytes_per_call = e.i64_or("bytes_per_call", 0);
      if (e.has("breakdown")) op.breakdown = read_breakdown(e.sub("breakdown"));
      op.dominant = e.str_or("dominant", "");
      sb.ops.push_back(std::move(op));
    });
    d.backends.push_back(std::move(sb));
  });
  if (j.contains("ranking") && !j["ranking"].is_null()) {
    const Obj rk = o.sub("ranking");
    SimRanking k;
    if (rk.has("order")) k.order = rk.strings("order");
    if (rk.has("why")) k.why = rk.str("why");
    if (rk.has("ops"))
      rk.each("ops", [&](const Obj& e) {
        SimRankedOp ro;
        ro.index = e.index("index");
        ro.order = e.strings("order");
        if (e.has("why")) ro.why = e.str("why");
        k.ops.push_back(std::move(ro));
      });
    d.ranking = std::move(k);
  }
  return d;
}

// ---- sf-model-check ----

Json to_json(const ModelCheckDoc& d) {
  Json j;
  j["format"] = kModelCheckFormat;
  j["version"] = kVersion;
  j["machine"] = d.machine;
  j["pairs"] = Json::array();
  for (const auto& p : d.pairs)
    j["pairs"].push_back({{"trace", p.trace},
                          {"op", p.op},
                          {"label", p.label},
                          {"backend", p.backend},
                          {"measured_us", p.measured_us},
                          {"predicted_us", p.predicted_us},
                          {"error", p.error},
                          {"spread", p.spread},
                          {"within_spread", p.within_spread}});
  j["ops"] = Json::array();
  for (const auto& r : d.ops)
    j["ops"].push_back(
        {{"trace", r.trace}, {"op", r.op}, {"measured_best", r.measured_best}, {"predicted_best", r.predicted_best}, {"right", r.right},
         {"within_spread", r.within_spread}});
  j["summary"] = {{"pairs", d.summary_pairs},
                  {"median_abs_error", d.median_abs_error},
                  {"ops_ranked", d.summary_ops_ranked},
                  {"ranking_right", d.ranking_right},
                  {"median_spread", d.median_spread},
                  {"within_spread", d.summary_within_spread},
                  {"ranking_within_spread", d.ranking_within_spread}};
  if (!d.by_backend.empty()) {
    Json& b = j["summary"]["by_backend"] = Json::array();
    for (const auto& a : d.by_backend)
      b.push_back({{"backend", a.backend},
                   {"pairs", a.pairs},
                   {"median_abs_error", a.median_abs_error},
                   {"worst_error", a.worst_error},
                   {"worst_trace", a.worst_trace},
                   {"worst_op", a.worst_op}});
  }
  if (d.ring_calibrated_us > 0 && d.ring_now_us > 0)
    j["summary"]["calibration_ring"] = {{"calibrated_us", d.ring_calibrated_us}, {"now_us", d.ring_now_us}};
  // validate-model adds the provenance after the comparison: it stays the last member.
  if (!d.provenance.is_null()) j["provenance"] = d.provenance;
  return j;
}

ModelCheckDoc model_check_doc_from_json(const Json& j, const std::string& source) {
  io::check_format(j, source, kModelCheckFormat, true);
  const io::StrictReader r(source);
  const Obj o(r, j, "");
  check_version(o);
  r.require(j, "", {{"machine", Kind::string}, {"pairs", Kind::array}, {"summary", Kind::object}});
  ModelCheckDoc d;
  d.machine = o.str("machine");
  const Obj s = o.sub("summary");
  d.median_abs_error = s.num("median_abs_error");
  d.summary_pairs = s.u64_or("pairs", 0);
  d.summary_ops_ranked = s.u64_or("ops_ranked", 0);
  d.ranking_right = s.num_or("ranking_right", 0);
  d.median_spread = s.num_or("median_spread", 0);
  d.summary_within_spread = s.u64_or("within_spread", 0);
  d.ranking_within_spread = s.num_or("ranking_within_spread", d.ranking_right);  // older documents: as right
  if (s.has("calibration_ring")) {
    const Obj ring = s.sub("calibration_ring");
    d.ring_calibrated_us = ring.num("calibrated_us");
    d.ring_now_us = ring.num("now_us");
  }
  if (s.has("by_backend"))
    s.each("by_backend", [&](const Obj& e) {
      ModelCheckBackend a;
      a.backend = e.str("backend");
      a.pairs = e.u64("pairs");
      a.median_abs_error = e.num("median_abs_error");
      a.worst_error = e.num("worst_error");
      a.worst_trace = e.str("worst_trace");
      a.worst_op = e.index("worst_op");
      d.by_backend.push_back(std::move(a));
    });
  d.provenance = j.contains("provenance") ? j["provenance"] : Json();
  check_provenance(d.provenance, source);
  o.each("pairs", [&](const Obj& e) {
    ModelCheckPair p;
    p.trace = e.str("trace");
    p.op = e.index("op");
    p.label = e.str("label");
    p.backend = e.str("backend");
    p.measured_us = e.num("measured_us");
    p.predicted_us = e.num("predicted_us");
    p.error = e.has("error") ? e.num("error") : (p.predicted_us - p.measured_us) / p.measured_us;
    p.spread = e.num_or("spread", 0);
    p.within_spread = e.boolean_or("within_spread", false);
    d.pairs.push_back(std::move(p));
  });
  if (o.has("ops"))
    o.each("ops", [&](const Obj& e) {
      ModelCheckOp m;
      m.trace = e.str("trace");
      m.op = e.index("op");
      m.measured_best = e.str("measured_best");
      m.predicted_best = e.str("predicted_best");
      m.right = e.boolean_or("right", false);
      m.within_spread = e.boolean_or("within_spread", m.right);
      d.ops.push_back(std::move(m));
    });
  return d;
}

}  // namespace sfr::trace
