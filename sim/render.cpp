#include "sim/render.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <utility>
#include <vector>

#include "core/format.hpp"

namespace sfr::sim {

namespace {
using core::format_number;
std::string us(double s) { return format_number("%.3f", s * 1e6); }
}  // namespace

std::string dominant_terms(const Breakdown& b, double total) {
  if (total <= 0) return "no communication";
  std::vector<std::pair<double, int>> v;
  for (int k = 0; k < Breakdown::kTerms; ++k)
    if (b.term(k) > 0.05 * total) v.push_back({b.term(k), k});
  std::sort(v.begin(), v.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
  std::string out;
  for (const auto& [val, k] : v) {
    if (!out.empty()) out += ", ";
    out += std::string(Breakdown::term_name(k)) + " " + format_number("%.0f", 100 * val / total) + "%";
  }
  return out.empty() ? "spread over many small terms" : out;
}

std::string why_faster(const std::string& win_name, const Breakdown& win, double win_time, std::uint64_t win_msgs,
                       const std::string& other_name, const Breakdown& other, double other_time, std::uint64_t other_msgs) {
  // A difference that shows as x1.00 is a tie, and is called one.
  if (other_time <= win_time || (win_time > 0 && format_number("%.2f", other_time / win_time) == "1.00")) {
    std::string out = win_name + " and " + other_name + " tie" +
                      (other_time <= win_time ? std::string(": the same predicted time") : ": within 0.5% (x1.00)");
    if (win_msgs != other_msgs) out += " (" + std::to_string(win_msgs) + " vs " + std::to_string(other_msgs) + " messages)";
    return out;
  }
  std::string out = win_name + " beats " + other_name;
  if (win_time > 0) out += " by x" + format_number("%.2f", other_time / win_time);
  std::vector<std::pair<double, int>> d;
  for (int k = 0; k < Breakdown::kTerms; ++k) d.push_back({other.term(k) - win.term(k), k});
  std::sort(d.begin(), d.end(), [](auto& x, auto& y) {
    return std::abs(x.first) != std::abs(y.first) ? std::abs(x.first) > std::abs(y.first) : x.second < y.second;
  });
  std::string terms;
  for (const auto& [diff, k] : d) {
    if (std::abs(diff) < 0.1 * std::max(1e-15, other_time - win_time) || std::abs(diff) < 1e-12) continue;
    if (!terms.empty()) terms += ", ";
    terms += std::string(Breakdown::term_name(k)) + (diff > 0 ? " -" : " +") + us(std::abs(diff)) + " us";
    if (terms.size() > 120) break;
  }
  out += ": " + (terms.empty() ? std::string("the same terms, shorter waits") : terms);
  if (win_msgs != other_msgs) out += " (" + std::to_string(win_msgs) + " vs " + std::to_string(other_msgs) + " messages)";
  return out;
}

std::string render_table(const SimResult& r) {
  std::ostringstream os;
  os << "trace " << r.trace << ", machine " << r.machine << " (" << r.model << "), times per call in microseconds\n";
  os << "breakdown on the rank that finishes last: lat = latency, bw = bandwidth, cont = link sharing, inj = NIC injection, ovh = "
        "per-message CPU overhead, copy = pack and host<->device copies, sync = fences and collective start-up, other = waiting for "
        "peers\n";
  for (const auto& b : r.backends) {
    os << "\nbackend " << b.backend.name() << "  (total " << us(b.total_s) << " us, " << b.messages << " messages; "
       << dominant_terms(b.breakdown, b.total_s) << ")\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-3s %-40s %7s %11s %9s %9s %9s %9s %9s %9s %9s %9s\n", "#", "op", "repeat", "per call", "lat",
                  "bw", "cont", "inj", "ovh", "copy", "sync", "other");
    os << line;
    for (const auto& o : b.ops) {
      const auto& d = o.breakdown;
      std::snprintf(line, sizeof line, "  %-3zu %-40s %7lld %11.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", o.index,
                    o.label.c_str(), static_cast<long long>(o.repeat), o.per_call_s * 1e6, d.latency * 1e6, d.bandwidth * 1e6,
                    d.contention * 1e6, d.injection_wait * 1e6, d.overhead * 1e6, d.copies * 1e6, d.sync * 1e6, d.other * 1e6);
      os << line;
    }
  }
  return os.str();
}

namespace {
template <class TimeOf>
std::vector<std::size_t> rank_by(std::size_t n, TimeOf time_of) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return time_of(a) < time_of(b); });
  return idx;
}
}  // namespace

std::string render_ranking(const SimResult& r) {
  std::ostringstream os;
  os << "trace " << r.trace << ", machine " << r.machine << " (" << r.model << ")\n";
  os << "\nwhole trace (total simulated time; what dominates on the rank that finishes last):\n";
  const auto all = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].total_s; });
  const double best = all.empty() ? 0 : r.backends[all[0]].total_s;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto& b = r.backends[all[k]];
    os << "  " << k + 1 << ". " << b.backend.name() << "  " << us(b.total_s) << " us"
       << (best > 0 ? "  x" + format_number("%.2f", b.total_s / best) : std::string()) << "  " << b.messages << " msgs  ["
       << dominant_terms(b.breakdown, b.total_s) << "]\n";
  }
  if (all.size() >= 2) {
    const auto& w = r.backends[all[0]];
    const auto& s = r.backends[all[1]];
    os << "  why: "
       << why_faster(w.backend.name(), w.breakdown, w.total_s, w.messages, s.backend.name(), s.breakdown, s.total_s, s.messages) << "\n";
  }
  if (r.backends.empty()) return os.str();
  for (std::size_t oi = 0; oi < r.backends[0].ops.size(); ++oi) {
    os << "\nop " << oi << " " << r.backends[0].ops[oi].label << " (per call):\n";
    const auto order = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].ops[oi].per_call_s; });
    for (std::size_t k = 0; k < order.size(); ++k) {
      const auto& o = r.backends[order[k]].ops[oi];
      os << "  " << k + 1 << ". " << r.backends[order[k]].backend.name() << "  " << us(o.per_call_s) << " us  ["
         << dominant_terms(o.breakdown, o.per_call_s) << "]\n";
    }
    if (order.size() >= 2) {
      const auto& w = r.backends[order[0]];
      const auto& s = r.backends[order[1]];
      const auto &wo = w.ops[oi], &so = s.ops[oi];
      const auto rep = static_cast<std::uint64_t>(std::max<core::Index>(1, wo.repeat));
      os << "  why: "
         << why_faster(w.backend.name(), wo.breakdown, wo.per_call_s, wo.messages / rep, s.backend.name(), so.breakdown, so.per_call_s,
                       so.messages / rep)
         << "\n";
    }
  }
  return os.str();
}

namespace {
trace::SimBreakdown breakdown_doc(const Breakdown& b) {
  return {b.latency, b.bandwidth, b.contention, b.injection_wait, b.overhead, b.copies, b.sync, b.other};
}
}  // namespace

trace::SimulationDoc simulation_doc(const SimResult& r, const io::Json& provenance) {
  trace::SimulationDoc d;
  d.provenance = provenance;
  d.trace = r.trace;
  d.machine = r.machine;
  d.model = r.model;
  d.placement = {{"ranks_per_node", r.layout.ranks_per_node},
                 {"ranks_per_socket", r.layout.ranks_per_socket},
                 {"nodes", r.layout.nnodes()},
                 {"text", r.placement}};
  for (const auto& b : r.backends) {
    trace::SimBackend sb;
    sb.backend = b.backend.name();
    sb.total = b.total_s;
    sb.messages = b.messages;
    sb.breakdown = breakdown_doc(b.breakdown);
    sb.dominant = dominant_terms(b.breakdown, b.total_s);
    for (const auto& o : b.ops) {
      trace::SimOp so;
      so.index = o.index;
      so.op = o.label;
      so.repeat = o.repeat;
      so.total = o.total_s;
      so.per_call = o.per_call_s;
      so.messages = o.messages;
      so.messages_per_call = o.call_messages;
      so.bytes_per_call = o.call_bytes;
      so.breakdown = breakdown_doc(o.breakdown);
      so.dominant = dominant_terms(o.breakdown, o.per_call_s);
      sb.ops.push_back(std::move(so));
    }
    d.backends.push_back(std::move(sb));
  }
  // Ranking with reasons: whole trace and per op (none without backends).
  if (!r.backends.empty()) {
    trace::SimRanking rk;
    const auto all = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].total_s; });
    for (auto i : all) rk.order.push_back(r.backends[i].backend.name());
    if (all.size() >= 2) {
      const auto &w = r.backends[all[0]], &s = r.backends[all[1]];
      rk.why = why_faster(w.backend.name(), w.breakdown, w.total_s, w.messages, s.backend.name(), s.breakdown, s.total_s, s.messages);
    }
    for (std::size_t oi = 0; oi < r.backends[0].ops.size(); ++oi) {
      const auto order = rank_by(r.backends.size(), [&](std::size_t i) { return r.backends[i].ops[oi].per_call_s; });
      trace::SimRankedOp ro;
      ro.index = oi;
      for (auto i : order) ro.order.push_back(r.backends[i].backend.name());
      if (order.size() >= 2) {
        const auto &w = r.backends[order[0]].ops[oi], &s = r.backends[order[1]].ops[oi];
        const auto rep = static_cast<std::uint64_t>(std::max<core::Index>(1, w.repeat));
        ro.why = why_faster(r.backends[order[0]].backend.name(), w.breakdown, w.per_call_s, w.messages / rep,
                            r.backends[order[1]].backend.name(), s.breakdown, s.per_call_s, s.messages / rep);
      }
      rk.ops.push_back(std::move(ro));
    }
    d.ranking = std::move(rk);
  }
  return d;
}

std::string render_json(const SimResult& r, const io::Json& provenance) { return trace::to_json(simulation_doc(r, provenance)).dump(1) + "\n"; }

std::string render_timeline(const Timeline& tl) {
  static const char* names[] = {"send", "recv", "pack/copy", "unpack/copy", "fence"};
  io::Json ev = io::Json::array();
  std::int32_t tracks = tl.nranks;
  for (const auto& s : tl.slices) tracks = std::max(tracks, s.track + 1);
  for (std::size_t b = 0; b < tl.backend_names.size(); ++b) {
    ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", b}, {"args", {{"name", "backend " + tl.backend_names[b]}}}});
    for (std::int32_t k = 0; k < tracks; ++k)
      ev.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", b},
                    {"tid", k},
                    {"args", {{"name", (k < tl.nranks ? "rank " + std::to_string(k) : "helper " + std::to_string(k - tl.nranks))}}}});
  }
  // Chrome traces count microseconds; picoseconds keep 6 decimals. Messages overlap on a track
  // in the flow engine, so they are async slices (one id each); CPU work is a complete slice.
  std::uint64_t id = 0;
  for (const auto& s : tl.slices) {
    io::Json args = {{"op", s.op}};
    if (s.op >= 0 && static_cast<std::size_t>(s.op) < tl.op_labels.size()) args["op_label"] = tl.op_labels[static_cast<std::size_t>(s.op)];
    if (s.peer >= 0) args["peer"] = s.peer, args["bytes"] = s.bytes;
    const double ts = static_cast<double>(s.begin) * 1e-6, dur = static_cast<double>(s.end - s.begin) * 1e-6;
    std::string name = names[s.kind];
    if (s.peer >= 0) name += (s.kind == Timeline::send ? " to " : " from ") + std::to_string(s.peer);
    if (s.kind == Timeline::send || s.kind == Timeline::recv) {
      ++id;
      ev.push_back({{"name", name},
                    {"cat", names[s.kind]},
                    {"ph", "b"},
                    {"id", id},
                    {"pid", s.backend},
                    {"tid", s.track},
                    {"ts", ts},
                    {"args", args}});
      ev.push_back(
          {{"name", name}, {"cat", names[s.kind]}, {"ph", "e"}, {"id", id}, {"pid", s.backend}, {"tid", s.track}, {"ts", ts + dur}});
    } else {
      ev.push_back({{"name", name}, {"ph", "X"}, {"pid", s.backend}, {"tid", s.track}, {"ts", ts}, {"dur", dur}, {"args", args}});
    }
  }
  io::Json j = {{"displayTimeUnit", "ns"}, {"traceEvents", ev}};
  return j.dump() + "\n";
}
}  // namespace sfr::sim
