#include <cmath>
#include "sim/simulate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>

#include "core/error.hpp"
#include "trace/json_strict.hpp"

namespace sfr::sim {

Layout layout_for(const trace::Trace& t, const MachineModel& m) {
  const trace::Machine mt = (t.machine && !m.override_topology) ? *t.machine : m.topology;
  Layout l;
  l.nranks = t.nranks;
  l.ranks_per_node = std::max(1, mt.ranks_per_node);
  l.ranks_per_socket = std::max(1, std::min(mt.ranks_per_socket, l.ranks_per_node));
  l.gpus_per_node = mt.gpus_per_node;
  return l;
}

bool uses_device(const trace::Trace& t) {
  return std::any_of(t.ops.begin(), t.ops.end(), [](const trace::OpSpec& o) {
    return o.root_mem == trace::MemType::device || o.leaf_mem == trace::MemType::device;
  });
}

std::vector<Backend> select_backends(const std::vector<std::string>& names, bool all, const trace::Trace& t, bool default_all) {
  if (all && !names.empty()) throw InputError("--backend", "give either --backend or --all-backends, not both");
  if (all || (default_all && names.empty())) return all_backends(uses_device(t));
  if (names.empty()) return {Backend{}};
  std::vector<Backend> v;
  for (const auto& s : names) v.push_back(parse_backend(s, "--backend"));
  return v;
}

namespace {

std::string op_label(const trace::OpSpec& o) {
  std::string s = std::string(trace::op_kind_name(o.op)) + " " + o.sf;
  if (o.op != trace::OpKind::degree) s += " " + std::string(core::unit_name(o.unit)) + "x" + std::to_string(o.bs);
  if (o.root_mem == trace::MemType::device || o.leaf_mem == trace::MemType::device)
    s += std::string(" [") + trace::memtype_name(o.root_mem) + "->" + trace::memtype_name(o.leaf_mem) + "]";
  return s;
}

// The rounds of one op: (root_to_leaf?) in order.
std::vector<bool> rounds_of(trace::OpKind k) {
  switch (k) {
    case trace::OpKind::bcast:
    case trace::OpKind::scatter: return {true};
    case trace::OpKind::reduce:
    case trace::OpKind::gather:
    case trace::OpKind::degree: return {false};
    case trace::OpKind::fetch_and_op: return {false, true};
  }
  return {};
}

}  // namespace

SimResult simulate(const trace::BuiltTrace& bt, const MachineModel& m, const std::vector<Backend>& backends, Timeline* timeline) {
  const auto& t = bt.trace();
  SimResult res;
  res.trace = t.name;
  res.machine = m.name;
  res.model = model_name(m.model);
  const Layout lay = layout_for(t, m);
  std::map<const core::Graph*, std::vector<core::RankPlan>> plans;
  for (std::size_t bi = 0; bi < backends.size(); ++bi) {
    const Backend b = backends[bi];
    BackendResult br;
    br.backend = b;
    std::vector<Time> ready(static_cast<std::size_t>(lay.nranks), 0), helper_ready;
    Accum acc;
    acc.resize(static_cast<std::size_t>(lay.nranks));
    for (std::size_t oi = 0; oi < t.ops.size(); ++oi) {
      const auto& op = t.ops[oi];
      const core::Graph& g = bt.graph_for(op);
      auto it = plans.find(&g);
      if (it == plans.end()) it = plans.emplace(&g, core::build_plans(g)).first;
      const std::int64_t vb = op.op == trace::OpKind::degree ? 4 : static_cast<std::int64_t>(core::unit_size(op.unit)) * op.bs;
      Schedule sc = make_schedule(lay, m, b);
      for (bool r2l : rounds_of(op.op)) {
        const bool root_dev = op.root_mem == trace::MemType::device, leaf_dev = op.leaf_mem == trace::MemType::device;
        const Traffic tr = traffic_from_plans(it->second, r2l, vb, r2l ? root_dev : leaf_dev, r2l ? leaf_dev : root_dev);
        add_round(sc, lay, m, b, tr);
      }
      Engine eng(m, sc.node, sc.socket);
      const auto ne = static_cast<std::size_t>(sc.endpoints);
      if (helper_ready.size() < ne - ready.size()) helper_ready.resize(ne - ready.size(), 0);
      std::vector<Time> rd(ne);
      std::copy(ready.begin(), ready.end(), rd.begin());
      std::copy(helper_ready.begin(), helper_ready.begin() + static_cast<std::ptrdiff_t>(ne - ready.size()), rd.begin() + static_cast<std::ptrdiff_t>(ready.size()));
      Accum a;
      a.resize(ne);
      const Accum before = acc;
      const Time before_max = ready.empty() ? 0 : *std::max_element(ready.begin(), ready.end());
      const Time overlap = to_ps(op.overlap_us * 1e-6);
      std::vector<Time> start;
      for (core::Index rep = 0; rep < op.repeat; ++rep) {
        start.assign(rd.begin(), rd.begin() + lay.nranks);
        for (const auto& st : sc.steps) eng.run(st, rd, a, bi == 0 ? timeline : nullptr);
        for (std::size_t r = 0; r < ready.size(); ++r) rd[r] = std::max(rd[r], start[r] + overlap);
      }
      std::copy(rd.begin(), rd.begin() + lay.nranks, ready.begin());
      std::copy(rd.begin() + lay.nranks, rd.end(), helper_ready.begin());
      for (std::size_t r = 0; r < ready.size(); ++r) {
        acc.latency[r] += a.latency[r], acc.bandwidth[r] += a.bandwidth[r];
        acc.injection[r] += a.injection[r], acc.copies[r] += a.copies[r];
      }
      OpResult o;
      o.index = oi;
      o.label = op_label(op);
      o.repeat = op.repeat;
      o.messages = eng.messages();
      if (!ready.empty()) {
        const auto crit = static_cast<std::size_t>(std::max_element(ready.begin(), ready.end()) - ready.begin());
        const Time after_max = ready[crit];
        o.total_s = to_seconds(after_max - before_max);
        o.per_call_s = o.total_s / static_cast<double>(op.repeat);
        const double rep = static_cast<double>(op.repeat);
        auto& bd = o.breakdown;
        bd.latency = to_seconds(acc.latency[crit] - before.latency[crit]) / rep;
        bd.bandwidth = to_seconds(acc.bandwidth[crit] - before.bandwidth[crit]) / rep;
        bd.injection_wait = to_seconds(acc.injection[crit] - before.injection[crit]) / rep;
        bd.copies = to_seconds(acc.copies[crit] - before.copies[crit]) / rep;
        bd.other = o.per_call_s - bd.latency - bd.bandwidth - bd.injection_wait - bd.copies;
        if (std::abs(bd.other) <= 1e-9 * o.per_call_s) bd.other = 0;  // rounding of the subtraction, not waiting
      }
      br.total_s += o.total_s;
      br.messages += o.messages;
      br.ops.push_back(std::move(o));
    }
    res.backends.push_back(std::move(br));
  }
  return res;
}

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string us(double s) { return fmt("%.3f", s * 1e6); }
}  // namespace

std::string render_table(const SimResult& r) {
  std::ostringstream os;
  os << "trace " << r.trace << ", machine " << r.machine << " (" << r.model << "), times per call in microseconds\n";
  os << "breakdown on the rank that finishes last: lat = latency, bw = bandwidth, inj = injection wait, copy = pack and host<->device copies, other = waiting/serialisation\n";
  for (const auto& b : r.backends) {
    os << "\nbackend " << b.backend.name() << "  (total " << us(b.total_s) << " us, " << b.messages << " messages)\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-3s %-40s %7s %12s %10s %10s %10s %10s %10s\n", "#", "op", "repeat", "per call", "lat", "bw",
                  "inj", "copy", "other");
    os << line;
    for (const auto& o : b.ops) {
      std::snprintf(line, sizeof line, "  %-3zu %-40s %7lld %12.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", o.index, o.label.c_str(),
                    static_cast<long long>(o.repeat), o.per_call_s * 1e6, o.breakdown.latency * 1e6, o.breakdown.bandwidth * 1e6,
                    o.breakdown.injection_wait * 1e6, o.breakdown.copies * 1e6, o.breakdown.other * 1e6);
      os << line;
    }
  }
  return os.str();
}

std::string render_ranking(const SimResult& r) {
  std::ostringstream os;
  os << "trace " << r.trace << ", machine " << r.machine << " (" << r.model << ")\n";
  auto rank = [&](auto time_of) {
    std::vector<std::size_t> idx(r.backends.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return time_of(a) < time_of(b); });
    return idx;
  };
  os << "\nwhole trace (total simulated time):\n";
  const auto all = rank([&](std::size_t i) { return r.backends[i].total_s; });
  const double best = all.empty() ? 0 : r.backends[all[0]].total_s;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto& b = r.backends[all[k]];
    os << "  " << k + 1 << ". " << b.backend.name() << "  " << us(b.total_s) << " us"
       << (best > 0 ? "  x" + fmt("%.2f", b.total_s / best) : std::string()) << "\n";
  }
  if (r.backends.empty()) return os.str();
  for (std::size_t oi = 0; oi < r.backends[0].ops.size(); ++oi) {
    os << "\nop " << oi << " " << r.backends[0].ops[oi].label << " (per call):\n";
    const auto order = rank([&](std::size_t i) { return r.backends[i].ops[oi].per_call_s; });
    for (std::size_t k = 0; k < order.size(); ++k)
      os << "  " << k + 1 << ". " << r.backends[order[k]].backend.name() << "  " << us(r.backends[order[k]].ops[oi].per_call_s) << " us\n";
  }
  return os.str();
}

std::string render_json(const SimResult& r) {
  trace::Json j;
  j["trace"] = r.trace;
  j["machine"] = r.machine;
  j["model"] = r.model;
  j["unit"] = "seconds";
  j["backends"] = trace::Json::array();
  for (const auto& b : r.backends) {
    trace::Json jb;
    jb["backend"] = b.backend.name();
    jb["total"] = b.total_s;
    jb["messages"] = b.messages;
    jb["ops"] = trace::Json::array();
    for (const auto& o : b.ops)
      jb["ops"].push_back({{"index", o.index}, {"op", o.label}, {"repeat", o.repeat}, {"total", o.total_s}, {"per_call", o.per_call_s},
                           {"messages", o.messages},
                           {"breakdown", {{"latency", o.breakdown.latency}, {"bandwidth", o.breakdown.bandwidth},
                                          {"injection_wait", o.breakdown.injection_wait}, {"copies", o.breakdown.copies},
                                          {"other", o.breakdown.other}}}});
    j["backends"].push_back(std::move(jb));
  }
  return j.dump(1) + "\n";
}

std::string render_timeline(const Timeline& tl, int nranks) {
  static const char* names[] = {"send", "recv", "pack/copy", "unpack/copy", "fence"};
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  std::int32_t tracks = 0;
  for (const auto& s : tl.slices) tracks = std::max(tracks, s.track + 1);
  tracks = std::max(tracks, nranks);
  char buf[256];
  bool first = true;
  for (std::int32_t k = 0; k < tracks; ++k) {
    std::snprintf(buf, sizeof buf, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"%s %d\"}}",
                  first ? "" : ",\n", k, k < nranks ? "rank" : "helper", k < nranks ? k : k - nranks);
    out += buf;
    first = false;
  }
  for (const auto& s : tl.slices) {
    // Chrome traces count microseconds; keep picosecond resolution with 6 decimals.
    std::snprintf(buf, sizeof buf, ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f}", names[s.kind], s.track,
                  static_cast<double>(s.begin) * 1e-6, static_cast<double>(s.end - s.begin) * 1e-6);
    out += buf;
  }
  out += "\n]}\n";
  return out;
}

}  // namespace sfr::sim
