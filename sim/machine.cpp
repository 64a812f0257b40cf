#include "sim/machine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backends.hpp"
#include "core/error.hpp"
#include "core/names.hpp"
#include "io/strict_reader.hpp"

namespace sfr::sim {

using io::Json;

namespace {
constexpr std::array<core::Named<ModelKind>, 5> kModelNames{{{ModelKind::postal, "postal"},
                                                             {ModelKind::max_rate, "max-rate"},
                                                             {ModelKind::loggp, "loggp"},
                                                             {ModelKind::study_postal, "study-postal"},
                                                             {ModelKind::study_max_rate, "study-max-rate"}}};
constexpr std::array<core::Named<Proto>, 3> kProtoLabels{
    {{Proto::short_, "short"}, {Proto::eager, "eager"}, {Proto::rendezvous, "rendezvous"}}};
}  // namespace

const char* model_name(ModelKind k) { return core::name_of(k, kModelNames); }
const char* model_names() {
  static const std::string list = [] {
    std::string s;
    for (const auto& e : kModelNames) s += (s.empty() ? "" : ", ") + std::string(e.name);
    return s;
  }();
  return list.c_str();
}
ModelKind parse_model(const std::string& name, const std::string& where) {
  ModelKind k = ModelKind::postal;
  if (!core::parse_name(name, kModelNames, k))
    throw InputError(where, "unknown model '" + name + "' (expected one of: " + model_names() + ")");
  return k;
}
const char* proto_label(Proto p) { return core::name_of(p, kProtoLabels); }

namespace {

using Table = std::array<std::array<AlphaBeta, 3>, 3>;  // [tier][proto]

// Rows are protocols, columns tiers (on-socket, on-node, off-node), as printed in the paper.
Table table(const double (&a)[3][3], const double (&b)[3][3]) {
  Table t{};
  for (int p = 0; p < 3; ++p)
    for (int k = 0; k < 3; ++k) t[k][p] = {a[p][k], b[p][k]};
  return t;
}

MachineModel lassen() {
  MachineModel m;
  m.name = "lassen";
  m.model = ModelKind::max_rate;  // overlapping latency; study-max-rate reproduces the study's form
  m.topology = {4, 2, 4};         // one rank per V100 GPU: 4 per node, 2 per socket
  // Table 2, inter-CPU (short, eager, rendezvous).
  const double ca[3][3] = {{3.67e-07, 9.25e-07, 1.89e-06}, {4.61e-07, 1.17e-06, 2.44e-06}, {3.15e-06, 6.77e-06, 7.76e-06}};
  const double cb[3][3] = {{1.32e-10, 1.19e-09, 6.88e-10}, {7.12e-11, 2.18e-10, 3.79e-10}, {3.40e-11, 1.49e-10, 7.97e-11}};
  // Table 2, inter-GPU (no short protocol on device: short uses the eager row).
  const double ga[3][3] = {{1.87e-06, 2.02e-05, 8.95e-06}, {1.87e-06, 2.02e-05, 8.95e-06}, {1.82e-05, 1.93e-05, 1.10e-05}};
  const double gb[3][3] = {{5.79e-11, 2.15e-10, 1.72e-10}, {5.79e-11, 2.15e-10, 1.72e-10}, {1.46e-11, 2.39e-11, 1.72e-10}};
  m.p2p[0] = table(ca, cb);
  m.p2p[1] = table(ga, gb);
  // Protocol switch points are not printed in the study; these are Spectrum MPI's usual ones.
  m.short_max = 512;
  m.eager_max = 8192;
  m.handshake_legs = 0;         // the measured rendezvous alpha already contains the RTS/CTS round trip
  m.injection_beta = 4.19e-11;  // Table 4
  // Table 3: cudaMemcpyAsync, 1 process and 4 processes (H2D, D2H).
  m.h2d = {AlphaBeta{1.30e-05, 1.85e-11}, AlphaBeta{1.52e-05, 5.52e-10}};
  m.d2h = {AlphaBeta{1.27e-05, 1.96e-11}, AlphaBeta{1.47e-05, 1.50e-10}};
  m.pack = {0, 0};  // not part of the study's models
  m.o_send = m.o_recv = m.gap = 0;
  m.collective_overhead = 0;
  m.procs_per_node = 40;
  m.message_cap = 8192;  // the rendezvous switch point, as in the study
  m.self_overlap = true;  // InfiniBand: the NIC moves the messages
  return m;
}

// A documented commodity cluster: 2 sockets x 16 cores, 100 Gb/s network, 4 GPUs per node.
MachineModel generic() {
  MachineModel m;
  m.name = "generic";
  m.model = ModelKind::loggp;
  m.topology = {32, 16, 4};
  const double ca[3][3] = {{2.0e-07, 5.0e-07, 1.5e-06}, {3.0e-07, 7.0e-07, 2.0e-06}, {2.0e-06, 4.0e-06, 6.0e-06}};
  const double cb[3][3] = {{1.0e-10, 2.0e-10, 2.0e-10}, {8.0e-11, 1.5e-10, 1.0e-10}, {5.0e-11, 1.0e-10, 8.0e-11}};
  const double ga[3][3] = {{2.0e-06, 1.0e-05, 8.0e-06}, {2.0e-06, 1.0e-05, 8.0e-06}, {1.0e-05, 1.5e-05, 1.0e-05}};
  const double gb[3][3] = {{5.0e-11, 1.0e-10, 1.0e-10}, {5.0e-11, 1.0e-10, 1.0e-10}, {2.0e-11, 3.0e-11, 8.0e-11}};
  m.p2p[0] = table(ca, cb);
  m.p2p[1] = table(ga, gb);
  m.short_max = 256;
  m.eager_max = 16384;
  m.handshake_legs = 2;
  m.injection_beta = 8.0e-11;  // 12.5 GB/s per NIC
  m.h2d = {AlphaBeta{1.0e-05, 4.0e-11}, AlphaBeta{1.2e-05, 1.6e-10}};
  m.d2h = {AlphaBeta{1.0e-05, 4.0e-11}, AlphaBeta{1.2e-05, 1.6e-10}};
  m.pack = {5.0e-08, 1.0e-10};
  m.o_send = 3.0e-07;
  m.o_recv = 3.0e-07;
  m.gap = 5.0e-07;
  m.collective_overhead = 1.0e-06;
  m.procs_per_node = 32;
  m.message_cap = 16384;
  return m;
}

// ---- strict reading with pointed errors -----------------------------------------------------
struct Reader : io::StrictReader {
  using io::StrictReader::StrictReader;
  void object(const Json& j, const std::string& ptr, std::initializer_list<std::string_view> keys) const {
    io::StrictReader::object(j, ptr, "an object", keys);
  }
  void object(const Json& j, const std::string& ptr, std::span<const std::string_view> keys) const {
    io::StrictReader::object(j, ptr, "an object", keys);
  }
  // A finite number of either sign.
  double signed_number(const Json& j, const std::string& ptr) const {
    if (!j.is_number()) fail(ptr, "expected a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(ptr, "expected a finite number");
    return v;
  }
  double number(const Json& j, const std::string& ptr, bool positive_only = false) const {
    if (!j.is_number()) fail(ptr, "expected a number");
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < 0) fail(ptr, "expected a finite number >= 0");
    if (positive_only && v <= 0) fail(ptr, "expected a number > 0");
    return v;
  }
  // An integer in [lo, hi] (hi: 2^24 by default, beyond any rank or GPU count of a node).
  std::int64_t integer(const Json& j, const std::string& ptr, std::int64_t lo, std::int64_t hi = std::int64_t{1} << 24) const {
    if (!j.is_number_integer()) fail(ptr, "expected an integer");
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      fail(ptr, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    const auto v = j.get<std::int64_t>();
    if (v < lo || v > hi) fail(ptr, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return v;
  }
  // One backend's value of a cost term, within the term's bounds.
  double term(const CostTerm& t, const Json& v, const std::string& ptr) const {
    const double x = t.least < 0 ? signed_number(v, ptr) : number(v, ptr);
    if (x > t.most || x < t.least) fail(ptr, "expected " + std::string(t.expected) + ", got " + v.dump());
    return x;
  }
  AlphaBeta ab(const Json& j, const std::string& ptr) const {
    if (!j.is_array() || j.size() != 2) fail(ptr, "expected [alpha seconds, beta seconds per byte]");
    return {number(j[0], io::pointer_join(ptr, std::size_t{0})), number(j[1], io::pointer_join(ptr, std::size_t{1}))};
  }
  // {"short": {"socket": [a,b], "node": [a,b], "network": [a,b]}, "eager": ..., "rendezvous": ...}
  void p2p(const Json& j, const std::string& ptr, std::array<std::array<AlphaBeta, 3>, 3>& t) const {
    object(j, ptr, {"short", "eager", "rendezvous"});
    for (int p = 0; p < 3; ++p) {
      const char* pn = proto_label(static_cast<Proto>(p));
      if (!j.contains(pn)) continue;
      const auto pp = io::pointer_join(ptr, pn);
      object(j[pn], pp, {"socket", "node", "network"});
      for (int k = 0; k < 3; ++k) {
        const char* kn = core::tier_name(static_cast<Tier>(k));
        if (j[pn].contains(kn)) t[k][p] = ab(j[pn][kn], io::pointer_join(pp, kn));
      }
    }
  }
};

// The machine file's keys of the cost terms: each term's object and the keys that say where terms
// apply.
constexpr auto kCostTermKeys = [] {
  std::array<std::string_view, 2 * kCostTerms.size()> v{};
  std::size_t n = 0;
  for (const CostTerm& t : kCostTerms) {
    v[n++] = t.key;
    if (!t.applies.empty()) v[n++] = t.applies;
  }
  return std::pair{v, n};
}();
// A leaf_to_root_by_backend record's keys: the terms fitted apart.
constexpr auto kLeafKeys = [] {
  std::array<std::string_view, kCostTerms.size()> v{};
  std::size_t n = 0;
  for (const CostTerm& t : kCostTerms)
    if (!t.leaf_key.empty()) v[n++] = t.leaf_key;
  return std::pair{v, n};
}();
std::span<const std::string_view> keys_of(const auto& table) { return {table.first.data(), table.second}; }

// The per-backend keys: the backends calibrate measures (core::kCalibratedBackends).
std::span<const std::string_view> calibrated_keys() {
  static const auto keys = [] {
    std::array<std::string_view, core::kCalibratedBackends.size()> v{};
    std::copy(core::kCalibratedBackends.begin(), core::kCalibratedBackends.end(), v.begin());
    return v;
  }();
  return keys;
}

// Whether any backend has the term, in either direction.
bool any_has(const MachineModel& m, const CostTerm& t) {
  return std::any_of(m.backend_costs.begin(), m.backend_costs.end(), [&](const auto& b) {
    return (b.second.*t.term).has_value() || (b.second.leaf_to_root && ((*b.second.leaf_to_root).*t.term).has_value());
  });
}

// A term given at `at` needs the key that says where it applies.
void check_applies(const Reader& r, const Json& j, const CostTerm& t, const std::string& at) {
  if (!t.applies.empty() && !j.contains(std::string(t.applies)))
    r.fail(at, "needs " + std::string(t.applies) + " (" + std::string(t.applies_what) + ")");
}

// The keys that say where terms apply, read (bounds checked) where present.
void read_where_terms_apply(const Reader& r, const Json& j, MachineModel& m) {
  if (j.contains("small_byte_until")) m.small_byte_until = r.integer(j["small_byte_until"], "/small_byte_until", 1);
  if (j.contains("wire_factor_beyond")) m.wire_factor_beyond = r.integer(j["wire_factor_beyond"], "/wire_factor_beyond", 0);
  if (j.contains("scatter_beyond")) m.scatter_beyond = r.integer(j["scatter_beyond"], "/scatter_beyond", 0);
  if (j.contains("large_message_bytes")) {
    const auto& b = j["large_message_bytes"];
    if (!b.is_array() || b.size() != 2) r.fail("/large_message_bytes", "expected [from, to]: two sizes in bytes, from < to");
    m.large_message_bytes = {r.integer(b[0], "/large_message_bytes/0", 0), r.integer(b[1], "/large_message_bytes/1", 1)};
    if (m.large_message_bytes[0] >= m.large_message_bytes[1]) r.fail("/large_message_bytes", "expected from < to, got " + b.dump());
  }
}

// A leaf_to_root_by_backend record: the terms fitted apart, each needing what says where it
// applies as the bcast's does.
MachineModel::CostTerms read_leaf_to_root(const Reader& r, const Json& j, const Json& v, const std::string& at) {
  r.object(v, at, keys_of(kLeafKeys));
  MachineModel::CostTerms l;
  for (const CostTerm& t : kCostTerms) {
    const std::string key(t.leaf_key);
    if (key.empty() || !v.contains(key)) continue;
    l.*t.term = r.term(t, v[key], at + "/" + key);
    check_applies(r, j, t, at + "/" + key);
  }
  return l;
}

// LogGP's three keys of the object at `at` (checked by the caller) over `o`: those it names.
MachineModel::LogGP read_loggp(const Reader& r, const Json& j, const std::string& at, MachineModel::LogGP o) {
  if (j.contains("o_send")) o.o_send = r.number(j["o_send"], io::pointer_join(at, "o_send"));
  if (j.contains("o_recv")) o.o_recv = r.number(j["o_recv"], io::pointer_join(at, "o_recv"));
  if (j.contains("gap")) o.gap = r.number(j["gap"], io::pointer_join(at, "gap"));
  return o;
}

Json loggp_json(const MachineModel::LogGP& o) { return {{"o_send", o.o_send}, {"o_recv", o.o_recv}, {"gap", o.gap}}; }

// "/loggp/tiers": a tier's own overheads and gap, by tier name; a key left out takes the
// model's (those of "/loggp", read first).
void read_loggp_tiers(const Reader& r, const Json& j, MachineModel& m) {
  static constexpr auto names = [] {
    std::array<std::string_view, 3> a{};
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = core::kTierNames[k].name;
    return a;
  }();
  static constexpr std::array<std::string_view, 3> keys{"o_send", "o_recv", "gap"};
  r.object(j, "/loggp/tiers", std::span<const std::string_view>(names));
  if (j.empty()) r.fail("/loggp/tiers", "names no tier: it would do nothing");
  for (const auto& [tier, name] : core::kTierNames) {
    if (!j.contains(name)) continue;
    const auto at = io::pointer_join("/loggp/tiers", name);
    r.object(j[name], at, std::span<const std::string_view>(keys));
    if (j[name].empty()) r.fail(at, "names none of o_send, o_recv, gap: it would do nothing");
    m.loggp_tier[static_cast<std::size_t>(tier)] = read_loggp(r, j[name], at, m.loggp());
  }
}

// The record of backend `name`, a key the reader has checked (calibrated_keys): the file names the
// backends, the model keeps them by id.
MachineModel::BackendCosts& costs_of(MachineModel& m, const std::string& name) { return m.backend_costs[core::find_backend(name)->id]; }

// Every cost term of kCostTerms, one number per calibrated backend, and the leaf-to-root records;
// a term that applies somewhere needs the key saying where, and that key needs a backend with
// the term (else it would do nothing).
void read_cost_terms(const Reader& r, const Json& j, MachineModel& m) {
  for (const CostTerm& t : kCostTerms) {
    const std::string key(t.key), at = "/" + key;
    if (!j.contains(key)) continue;
    r.object(j[key], at, calibrated_keys());
    for (const auto& [b, v] : j[key].items()) costs_of(m, b).*t.term = r.term(t, v, at + "/" + b);
    check_applies(r, j, t, at);
  }
  if (j.contains("leaf_to_root_by_backend")) {
    const auto& o = j["leaf_to_root_by_backend"];
    r.object(o, "/leaf_to_root_by_backend", calibrated_keys());
    for (const auto& [b, v] : o.items()) costs_of(m, b).leaf_to_root = read_leaf_to_root(r, j, v, "/leaf_to_root_by_backend/" + b);
  }
  read_where_terms_apply(r, j, m);
  for (const CostTerm& t : kCostTerms)
    if (!t.applies.empty() && j.contains(std::string(t.applies)) && !any_has(m, t))
      r.fail("/" + std::string(t.applies), "no backend has " + std::string(t.noun) + ": it would do nothing");
}

}  // namespace

const char* preset_names() { return "lassen, generic"; }

std::optional<MachineModel> preset(const std::string& name) {
  if (name == "lassen") return lassen();
  if (name == "generic") return generic();
  return std::nullopt;
}

MachineModel parse_machine(const Json& j, const std::string& source) {
  const Reader r{source};
  if (j.is_object()) io::check_format(j, source, "sf-machine", false);  // first: another kind of file is named as such
  // The file's keys: the model's own, then the cost terms' (kCostTerms).
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> v{"format", "name", "base", "model", "topology", "host", "device", "thresholds", "injection_beta",
                                    "copy", "pack", "kernels", "loggp", "collective_overhead", "fence_overhead", "op_overhead", "self_overlap",
                                    "leaf_to_root_by_backend", "core_sharing", "split", "calibration"};
    for (const std::string_view k : keys_of(kCostTermKeys)) v.push_back(k);
    return v;
  }();
  r.object(j, "", std::span<const std::string_view>(keys));
  std::string base = "generic";
  if (j.contains("base")) {
    if (!j["base"].is_string() || !preset(j["base"].get<std::string>()))
      r.fail("/base", std::string("expected a preset name (") + preset_names() + ")");
    base = j["base"].get<std::string>();
  }
  MachineModel m = *preset(base);
  m.name = "custom";
  if (j.contains("name")) {
    if (!j["name"].is_string()) r.fail("/name", "expected a string");
    m.name = j["name"].get<std::string>();
  }
  if (j.contains("model")) {
    const auto& v = j["model"];
    if (!v.is_string() || !core::parse_name(v.get<std::string>(), kModelNames, m.model))
      r.fail("/model", std::string("expected one of: ") + model_names());
  }
  if (j.contains("topology")) {
    const auto& t = j["topology"];
    r.object(t, "/topology", {"ranks_per_node", "ranks_per_socket", "gpus_per_node", "override"});
    if (t.contains("ranks_per_node"))
      m.topology.ranks_per_node = static_cast<int>(r.integer(t["ranks_per_node"], "/topology/ranks_per_node", 1));
    if (t.contains("ranks_per_socket"))
      m.topology.ranks_per_socket = static_cast<int>(r.integer(t["ranks_per_socket"], "/topology/ranks_per_socket", 1));
    if (t.contains("gpus_per_node"))
      m.topology.gpus_per_node = static_cast<int>(r.integer(t["gpus_per_node"], "/topology/gpus_per_node", 0));
    if (t.contains("override")) {
      if (!t["override"].is_boolean()) r.fail("/topology/override", "expected true or false");
      m.override_topology = t["override"].get<bool>();
    }
    if (m.topology.ranks_per_node % m.topology.ranks_per_socket != 0) r.fail("/topology/ranks_per_socket", "must divide ranks_per_node");
  }
  if (j.contains("host")) r.p2p(j["host"], "/host", m.p2p[0]);
  if (j.contains("device")) r.p2p(j["device"], "/device", m.p2p[1]);
  if (j.contains("thresholds")) {
    const auto& t = j["thresholds"];
    r.object(t, "/thresholds", {"short_max", "eager_max", "handshake_legs", "eager_waits_for_receive"});
    if (t.contains("eager_waits_for_receive")) {
      if (!t["eager_waits_for_receive"].is_boolean()) r.fail("/thresholds/eager_waits_for_receive", "expected true or false");
      m.eager_waits_for_receive = t["eager_waits_for_receive"].get<bool>();
    }
    if (t.contains("short_max")) m.short_max = r.integer(t["short_max"], "/thresholds/short_max", 0, INT64_MAX);
    if (t.contains("eager_max")) m.eager_max = r.integer(t["eager_max"], "/thresholds/eager_max", 0, INT64_MAX);
    if (t.contains("handshake_legs")) m.handshake_legs = static_cast<int>(r.integer(t["handshake_legs"], "/thresholds/handshake_legs", 0));
    if (m.eager_max < m.short_max) r.fail("/thresholds/eager_max", "must be >= short_max");
  }
  if (j.contains("injection_beta")) m.injection_beta = r.number(j["injection_beta"], "/injection_beta");
  if (j.contains("copy")) {
    const auto& c = j["copy"];
    r.object(c, "/copy", {"h2d", "d2h"});
    for (const char* dir : {"h2d", "d2h"}) {
      if (!c.contains(dir)) continue;
      const auto dp = io::pointer_join("/copy", dir);
      r.object(c[dir], dp, {"1", "4"});
      auto& arr = std::string(dir) == "h2d" ? m.h2d : m.d2h;
      if (c[dir].contains("1")) arr[0] = r.ab(c[dir]["1"], io::pointer_join(dp, "1"));
      if (c[dir].contains("4")) arr[1] = r.ab(c[dir]["4"], io::pointer_join(dp, "4"));
    }
  }
  if (j.contains("pack")) m.pack = r.ab(j["pack"], "/pack");
  if (j.contains("kernels")) {
    const auto& k = j["kernels"];
    r.object(k, "/kernels", {"launch", "bandwidth"});
    if (k.contains("launch")) m.kernels.launch = r.number(k["launch"], "/kernels/launch");
    if (k.contains("bandwidth")) m.kernels.bandwidth = r.number(k["bandwidth"], "/kernels/bandwidth");
  }
  if (j.contains("loggp")) {
    const auto& l = j["loggp"];
    r.object(l, "/loggp", {"o_send", "o_recv", "gap", "tiers"});
    const auto o = read_loggp(r, l, "/loggp", m.loggp());
    m.o_send = o.o_send, m.o_recv = o.o_recv, m.gap = o.gap;
    if (l.contains("tiers")) read_loggp_tiers(r, l["tiers"], m);
  }
  if (j.contains("collective_overhead")) m.collective_overhead = r.number(j["collective_overhead"], "/collective_overhead");
  if (j.contains("fence_overhead")) m.fence_overhead = r.number(j["fence_overhead"], "/fence_overhead");
  if (j.contains("op_overhead")) m.op_overhead = r.number(j["op_overhead"], "/op_overhead");
  if (j.contains("self_overlap")) {
    if (!j["self_overlap"].is_boolean()) r.fail("/self_overlap", "expected true or false");
    m.self_overlap = j["self_overlap"].get<bool>();
  }
  read_cost_terms(r, j, m);
  if (j.contains("calibration") && !j["calibration"].is_object()) r.fail("/calibration", "expected an object (what calibrate measured)");
  if (j.contains("core_sharing")) {
    const auto& s = j["core_sharing"];
    r.object(s, "/core_sharing", {"cores", "fitted_ranks_per_core", "mate_factor"});
    if (!s.contains("cores") || !s.contains("fitted_ranks_per_core"))
      r.fail("/core_sharing", "expected {\"cores\": N, \"fitted_ranks_per_core\": K}: both");
    m.core_sharing.cores = static_cast<int>(r.integer(s["cores"], "/core_sharing/cores", 1, 1 << 24));
    m.core_sharing.fitted_ranks_per_core = r.number(s["fitted_ranks_per_core"], "/core_sharing/fitted_ranks_per_core");
    if (m.core_sharing.fitted_ranks_per_core < 1 || m.core_sharing.fitted_ranks_per_core > 1024)
      r.fail("/core_sharing/fitted_ranks_per_core", "expected ranks per core from 1 to 1024, got " + s["fitted_ranks_per_core"].dump());
    if (s.contains("mate_factor")) {
      m.core_sharing.mate_factor = r.number(s["mate_factor"], "/core_sharing/mate_factor");
      if (!(m.core_sharing.mate_factor >= 0 && m.core_sharing.mate_factor <= 1))
        r.fail("/core_sharing/mate_factor", "expected a factor from 0 to 1, got " + s["mate_factor"].dump());
    }
  }
  if (j.contains("split")) {
    const auto& s = j["split"];
    r.object(s, "/split", {"procs_per_node", "message_cap"});
    if (s.contains("procs_per_node")) m.procs_per_node = static_cast<int>(r.integer(s["procs_per_node"], "/split/procs_per_node", 1));
    if (s.contains("message_cap")) m.message_cap = r.integer(s["message_cap"], "/split/message_cap", 1, INT64_MAX);
  }
  return m;
}

MachineModel uniform_machine(double latency, double bandwidth) {
  MachineModel m = *preset("generic");
  m.name = "uniform";
  m.model = ModelKind::postal;
  m.p2p = {};
  for (auto& mem : m.p2p)
    for (auto& tier : mem)
      for (auto& p : tier) p = {latency, 1.0 / bandwidth};
  m.short_max = 0;
  m.eager_max = 65535;  // SMPI's default smpi/send-is-detached-thresh: smaller sends are detached
  m.handshake_legs = 0;
  m.eager_waits_for_receive = true;
  m.injection_beta = 0;
  m.h2d = m.d2h = {AlphaBeta{}, AlphaBeta{}};
  m.pack = {};
  m.o_send = m.o_recv = m.gap = 0;
  m.collective_overhead = 0;
  m.topology = {1, 1, 0};
  return m;
}

namespace {
// "uniform:latency=1e-6,bandwidth=1e10" (keys in any order, both required).
MachineModel parse_uniform(const std::string& spec) {
  const std::string body = spec.substr(std::string("uniform:").size());
  double lat = -1, bw = -1;
  std::size_t at = 0;
  while (at <= body.size()) {
    const auto comma = body.find(',', at);
    const std::string item = body.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq), val = eq == std::string::npos ? "" : item.substr(eq + 1);
    double* dst = key == "latency" ? &lat : key == "bandwidth" ? &bw : nullptr;
    if (!dst || eq == std::string::npos)
      throw InputError("--machine", "'" + item + "': expected uniform:latency=SECONDS,bandwidth=BYTES_PER_SECOND");
    if (*dst >= 0) throw InputError("--machine", "'" + key + "' given twice in '" + spec + "'");
    char* end = nullptr;
    const double v = std::strtod(val.c_str(), &end);
    if (val.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || (dst == &bw && v <= 0))
      throw InputError("--machine", "'" + item + "': expected a finite number" + (dst == &bw ? " > 0" : " >= 0"));
    *dst = v;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (lat < 0 || bw < 0) throw InputError("--machine", "'" + spec + "': expected uniform:latency=SECONDS,bandwidth=BYTES_PER_SECOND");
  return uniform_machine(lat, bw);
}
}  // namespace

MachineModel load_machine(const std::string& name_or_path) {
  if (auto p = preset(name_or_path)) return *p;
  if (name_or_path.rfind("uniform:", 0) == 0) return parse_uniform(name_or_path);
  if (name_or_path.find('/') == std::string::npos && name_or_path.find('.') == std::string::npos)
    throw InputError("--machine", "unknown preset '" + name_or_path + "' (presets: " + preset_names() +
                                      "; uniform:latency=S,bandwidth=B/s; or a machine file path)");
  const std::string text = io::read_text_file(name_or_path);
  return parse_machine(io::parse_json_strict(text, name_or_path), name_or_path);
}

namespace {
// What says where a term applies, as the machine file has it.
Json where_it_applies(const MachineModel& m, std::string_view key) {
  if (key == "small_byte_until") return m.small_byte_until;
  if (key == "wire_factor_beyond") return m.wire_factor_beyond;
  if (key == "scatter_beyond") return m.scatter_beyond;
  return m.large_message_bytes;
}

// Each cost term where a backend has it (op_overhead_by_backend always), the leaf-to-root records,
// and what says where a term applies where one has it. Costs per small byte apply up to
// small_byte_until bytes: with none (a model made in code) they do nothing and are not written.
void write_cost_terms(const MachineModel& m, Json& j) {
  const auto written = [&](const CostTerm& t) { return t.term != &MachineModel::CostTerms::small_byte || m.small_byte_until >= 1; };
  // The backends by name, in the order of their names: a file's bytes do not depend on the
  // catalogue's order of the backends.
  std::vector<std::pair<std::string_view, const MachineModel::BackendCosts*>> by_name;
  for (const auto& [b, costs] : m.backend_costs) by_name.emplace_back(core::backend_name(b), &costs);
  std::sort(by_name.begin(), by_name.end());
  j["op_overhead_by_backend"] = Json::object();
  for (const CostTerm& t : kCostTerms) {
    if (!written(t)) continue;
    for (const auto& [b, costs] : by_name)
      if (const auto& v = (*costs).*t.term) j[std::string(t.key)][std::string(b)] = *v;
    if (!t.applies.empty() && any_has(m, t)) j[std::string(t.applies)] = where_it_applies(m, t.applies);
  }
  for (const auto& [b, costs] : by_name) {
    if (!costs->leaf_to_root) continue;
    Json& l = j["leaf_to_root_by_backend"][std::string(b)] = Json::object();
    for (const CostTerm& t : kCostTerms)
      if (const auto& v = (*costs->leaf_to_root).*t.term; v && !t.leaf_key.empty() && written(t)) l[std::string(t.leaf_key)] = *v;
  }
}
}  // namespace

Json machine_to_json(const MachineModel& m) {
  Json j;
  j["format"] = "sf-machine";
  j["name"] = m.name;
  j["model"] = model_name(m.model);
  j["topology"] = {{"ranks_per_node", m.topology.ranks_per_node},
                   {"ranks_per_socket", m.topology.ranks_per_socket},
                   {"gpus_per_node", m.topology.gpus_per_node},
                   {"override", m.override_topology}};
  for (int d = 0; d < 2; ++d) {
    Json mem;
    for (int p = 0; p < 3; ++p)
      for (int k = 0; k < 3; ++k)
        mem[proto_label(static_cast<Proto>(p))][core::tier_name(static_cast<Tier>(k))] = {m.p2p[d][k][p].alpha, m.p2p[d][k][p].beta};
    j[d ? "device" : "host"] = mem;
  }
  j["thresholds"] = {{"short_max", m.short_max},
                     {"eager_max", m.eager_max},
                     {"handshake_legs", m.handshake_legs},
                     {"eager_waits_for_receive", m.eager_waits_for_receive}};
  j["injection_beta"] = m.injection_beta;
  j["copy"] = {{"h2d", {{"1", {m.h2d[0].alpha, m.h2d[0].beta}}, {"4", {m.h2d[1].alpha, m.h2d[1].beta}}}},
               {"d2h", {{"1", {m.d2h[0].alpha, m.d2h[0].beta}}, {"4", {m.d2h[1].alpha, m.d2h[1].beta}}}}};
  j["pack"] = {m.pack.alpha, m.pack.beta};
  j["kernels"] = {{"launch", m.kernels.launch}, {"bandwidth", m.kernels.bandwidth}};
  j["loggp"] = loggp_json(m.loggp());
  for (const auto& [tier, name] : core::kTierNames)
    if (const auto& t = m.loggp_tier[static_cast<std::size_t>(tier)]) j["loggp"]["tiers"][name] = loggp_json(*t);
  j["collective_overhead"] = m.collective_overhead;
  j["fence_overhead"] = m.fence_overhead;
  j["op_overhead"] = m.op_overhead;
  j["self_overlap"] = m.self_overlap;
  write_cost_terms(m, j);
  if (m.core_sharing.cores > 0) {
    j["core_sharing"] = {{"cores", m.core_sharing.cores}, {"fitted_ranks_per_core", m.core_sharing.fitted_ranks_per_core}};
    if (m.core_sharing.mate_factor != 1) j["core_sharing"]["mate_factor"] = m.core_sharing.mate_factor;
  }
  j["split"] = {{"procs_per_node", m.procs_per_node}, {"message_cap", m.message_cap}};
  return j;
}

MachineModel uniform_postal(MachineModel m, AlphaBeta ab) {
  m.model = ModelKind::postal;
  for (auto& mem : m.p2p)
    for (auto& tier : mem)
      for (auto& p : tier) p = ab;
  m.handshake_legs = 0;
  return m;
}

}  // namespace sfr::sim
