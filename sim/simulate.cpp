#include "sim/simulate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/progress.hpp"
#include "io/json_strict.hpp"

namespace sfr::sim {

RankLayout layout_for(const trace::Trace& t, const MachineModel& m) {
  const trace::Machine mt = (t.machine && !m.override_topology) ? *t.machine : m.topology;
  RankLayout l;
  l.nranks = t.nranks;
  l.ranks_per_node = std::max(1, mt.ranks_per_node);
  l.ranks_per_socket = std::max(1, std::min(mt.ranks_per_socket, l.ranks_per_node));
  l.gpus_per_node = mt.gpus_per_node;
  return l;
}

namespace {
// The hosts a captured trace's ranks ran on (meta.hosts, one per rank), counted; 0 where the
// trace records none.
std::size_t captured_hosts(const trace::Trace& t) {
  if (t.meta_json.empty()) return 0;
  const io::Json meta = io::Json::parse(t.meta_json, nullptr, false);
  if (!meta.is_object() || !meta.contains("hosts") || !meta["hosts"].is_array()) return 0;
  std::set<std::string> hosts;
  for (const auto& h : meta["hosts"])
    if (h.is_string()) hosts.insert(h.get<std::string>());
  return hosts.size();
}
}  // namespace

std::string placement_text(const trace::Trace& t, const MachineModel& m) {
  const RankLayout l = layout_for(t, m);
  const std::string from = !m.topology_from.empty()  ? m.topology_from
                           : m.override_topology     ? "machine " + m.name + "'s nodes (it overrides the trace's placement)"
                           : t.machine.has_value()   ? "the trace's placement"
                                                     : "machine " + m.name + "'s nodes (the trace records no placement)";
  std::string s = "placement: " + std::to_string(l.nranks) + " ranks on " + std::to_string(l.nnodes()) + " node(s) of " +
                  std::to_string(l.ranks_per_node) + " ranks, sockets of " + std::to_string(l.ranks_per_socket) + ", from " + from;
  const std::size_t hosts = captured_hosts(t);
  if (hosts > 1 && static_cast<std::size_t>(l.nnodes()) < hosts)
    s += "; the capture ran on " + std::to_string(hosts) + " hosts: this what-if puts its ranks on " + std::to_string(l.nnodes()) +
         " node(s)" + (l.nnodes() == 1 ? ", all on one" : "");
  return s;
}

void set_placement(MachineModel& m, const trace::Trace& t, int ranks_per_node, int ranks_per_socket) {
  if (ranks_per_node == 0 && ranks_per_socket == 0) return;
  const RankLayout now = layout_for(t, m);
  const int rpn = ranks_per_node > 0 ? ranks_per_node : now.ranks_per_node;
  const int rps = ranks_per_socket > 0 ? ranks_per_socket : std::min(now.ranks_per_socket, rpn);
  const int gpus = t.machine && !m.topology.gpus_per_node ? t.machine->gpus_per_node : m.topology.gpus_per_node;
  m.topology = trace::checked_placement(t.nranks, rpn, rps, gpus);
  m.override_topology = true;
  m.topology_from = ranks_per_node > 0 ? "--ranks-per-node" : "--ranks-per-socket";
}

bool uses_device(const trace::Trace& t) {
  return std::any_of(t.ops.begin(), t.ops.end(), core::op_uses_device);
}

std::vector<BackendVariant> select_backends(const std::vector<BackendVariant>& chosen, bool all, const trace::Trace& t) {
  if (chosen.empty()) return {BackendVariant{}};
  const bool aware = all && uses_device(t);
  std::vector<BackendVariant> v;
  for (const BackendVariant& b : chosen) {
    if (std::find(v.begin(), v.end(), b) == v.end()) v.push_back(b);
    if (aware && !core::backend(b.kind).host_buffers_only && !b.aware) {
      const BackendVariant dev{b.kind, true};
      if (std::find(v.begin(), v.end(), dev) == v.end()) v.push_back(dev);
    }
  }
  return v;
}

namespace {

// Per rank, what the executor's own work depends on: the runs of consecutive roots its leaves
// read on each peer (a one-sided transfer's datatype has a block per run), its peers (those it
// receives from plus those it sends to), the values it exchanges with them (received plus sent)
// and the values of each of its messages (received, then sent).
struct RankShape {
  std::int64_t peers = 0, values = 0;
  // Of `values`, those exchanged with ranks of its own core (MachineModel::CoreSharing::mates).
  std::int64_t mate_values = 0;
  std::vector<core::Index> message_values;
  // The values of each of its peer lists (roots it sends or receives for, leaves it receives or
  // sends for) that is not one contiguous block: packed or unpacked through the list.
  std::vector<core::Index> scattered_values;
  // Per peer it reads roots of: the values, and the runs of roots they are.
  std::vector<std::pair<core::Index, core::Index>> run_lists;
  // Per peer it reads roots of: those roots, sorted, each once (only where the backend has a cost
  // per cache line: rank_shapes' `root_lines`).
  std::vector<std::vector<core::Index>> root_targets;
  // The cache lines of its peers' roots its leaves touch beyond those their values would fill in
  // one block (MachineModel::CostTerms::line), at `vb` bytes per value: each peer's roots laid out
  // from the start of a line, as in its window.
  std::int64_t extra_lines(std::int64_t vb) const {
    std::int64_t n = 0;
    for (const auto& roots : root_targets) {
      std::int64_t lines = 0, last = -1;  // the lines counted, the last of them
      for (const core::Index i : roots) {
        const std::int64_t first = std::max(last + 1, i * vb / kLineBytes), end = (i * vb + vb - 1) / kLineBytes;
        if (end >= first) lines += end - first + 1, last = end;
      }
      const auto block = (static_cast<std::int64_t>(roots.size()) * vb + kLineBytes - 1) / kLineBytes;
      n += std::max<std::int64_t>(0, lines - block);
    }
    return n;
  }
  static constexpr std::int64_t kLineBytes = 64;
  // The runs of roots it reads; with `split`, less those of scattered lists (more than one run) in
  // messages of more than `beyond` bytes (their values are counted by `scattered`).
  std::int64_t runs(bool split, std::int64_t beyond, std::int64_t vb) const {
    std::int64_t n = 0;
    for (const auto& [values, r] : run_lists) n += split && r > 1 && values * vb > beyond ? 0 : r;
    return n;
  }
  // Those in messages of more than `beyond` bytes, at `vb` bytes per value.
  std::int64_t scattered(std::int64_t beyond, std::int64_t vb) const {
    std::int64_t n = 0;
    for (const core::Index v : scattered_values) n += v * vb > beyond ? v : 0;
    return n;
  }
  // Its large messages (MachineModel::large_share), at `vb` bytes per value.
  double large(const MachineModel& m, std::int64_t vb) const {
    double n = 0;
    for (const core::Index v : message_values) n += m.large_share(v * vb);
    return n;
  }
};
// `messages_off_node`: the backend's on-node peers are copies through shared memory, not MPI
// messages (shm, and the node-aware strategies, which exchange on a node through shm's
// transport): they count as values, not as peers or messages. `root_lines`: the backend has a cost
// per cache line, and the shapes keep each peer's roots for it (a sorted copy of every leaf list:
// no simulation pays for them that does not charge them).
std::vector<RankShape> rank_shapes(const std::vector<core::RankLists>& rank_lists, const RankLayout* messages_off_node,
                                   const MachineModel::CoreSharing& cores, bool root_lines) {
  std::vector<RankShape> v(rank_lists.size());
  for (std::size_t r = 0; r < rank_lists.size(); ++r) {
    const core::RankLists& pl = rank_lists[r];
    v[r].values = static_cast<std::int64_t>(pl.leaf_side.indices.size() + pl.root_side.indices.size());
    for (const core::PeerLists* side : {&pl.leaf_side, &pl.root_side})
      for (std::size_t p = 0; p < side->npeers(); ++p) {
        if (!messages_off_node || messages_off_node->node(side->peers[p]) != messages_off_node->node(static_cast<int>(r))) {
          ++v[r].peers;
          v[r].message_values.push_back(side->count(p));
        }
        if (side->shapes[p].kind != core::IndexShape::contiguous) v[r].scattered_values.push_back(side->count(p));
        if (cores.mates(static_cast<int>(r), side->peers[p])) v[r].mate_values += side->count(p);
      }
    for (std::size_t p = 0; p < pl.leaf_side.npeers(); ++p) {
      core::Index runs = 0;
      for (auto k = pl.leaf_side.offsets[p]; k < pl.leaf_side.offsets[p + 1]; ++k) {
        const auto kk = static_cast<std::size_t>(k);
        if (k == pl.leaf_side.offsets[p] || pl.leaf_remote[kk] != pl.leaf_remote[kk - 1] + 1) ++runs;
      }
      v[r].run_lists.push_back({pl.leaf_side.count(p), runs});
      if (!root_lines) continue;
      const auto from = pl.leaf_remote.begin() + pl.leaf_side.offsets[p], to = pl.leaf_remote.begin() + pl.leaf_side.offsets[p + 1];
      std::vector<core::Index> roots(from, to);
      std::sort(roots.begin(), roots.end());
      roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
      v[r].root_targets.push_back(std::move(roots));
    }
  }
  return v;
}

// Ranks on one core share its time (MachineModel::CoreSharing) for the whole of a call, not only
// its own work: one done with the call (or idle in it) waits for the others in a barrier or the
// next call, and gives its core up; one waiting for a message in the call polls MPI and does not.
// The costs were fitted with `fitted_ranks_per_core` busy on a core, each at that share of it; so
// a rank's time in the call, from its own start, runs at (its core's ranks not yet done with the
// call, itself included; one not started yet is busy before it) / fitted_ranks_per_core of real
// time (a rank alone on its core of 2 fitted: twice as fast), and it ends where that has reached
// its end in the model. Its waits for messages from another core are shortened alike (an
// approximation: exact where the other core's ranks leave as early, as in a halo's chain). The
// ranks sit round robin on the cores as on the one host calibrated (Open MPI's --map-by core).
// `start` and `end` are the ranks' (the first nranks of the vectors); helpers are not on the cores.
void share_cores(const MachineModel::CoreSharing& s, const std::vector<Time>& start, std::vector<Time>& end, std::size_t nranks) {
  if (s.cores <= 0) return;
  const auto cores = static_cast<std::size_t>(s.cores);
  std::vector<std::size_t> on;
  std::vector<Time> ends;
  for (std::size_t c = 0; c < cores && c < nranks; ++c) {
    on.clear();
    for (std::size_t r = c; r < nranks; r += cores) on.push_back(r);
    ends.clear();
    for (std::size_t r : on) ends.push_back(end[r]);
    std::sort(ends.begin(), ends.end());
    for (std::size_t r : on) {
      // From the rank's start to its end in the model (one of `ends`), between the ends of its
      // core's ranks: while k of them have ended, the others (n - k) share the core.
      double real = static_cast<double>(start[r]);
      Time at = start[r];
      for (std::size_t k = 0; k < ends.size() && at < end[r]; ++k) {
        const Time until = std::min(ends[k], end[r]);
        if (until <= at) continue;
        real += static_cast<double>(until - at) * static_cast<double>(ends.size() - k) / s.fitted_ranks_per_core;
        at = until;
      }
      end[r] = std::max(start[r], static_cast<Time>(std::llround(real)));
    }
  }
}

std::string op_label(const core::OpSpec& o) {
  std::string s = std::string(core::op_kind_name(o.op)) + " " + o.sf;
  if (core::op_traits(o.op).has_unit) s += " " + std::string(core::unit_name(o.unit)) + "x" + std::to_string(o.bs);
  if (core::op_uses_device(o))
    s += std::string(" [") + core::memtype_name(o.root_mem) + "->" + core::memtype_name(o.leaf_mem) + "]";
  return s;
}

}  // namespace

const char* Breakdown::term_name(int k) {
  static const char* n[] = {"latency", "bandwidth", "contention", "injection_wait", "overhead", "copies", "sync", "other"};
  return n[k];
}
double Breakdown::term(int k) const {
  const double v[] = {latency, bandwidth, contention, injection_wait, overhead, copies, sync, other};
  return v[k];
}
Breakdown& Breakdown::operator+=(const Breakdown& b) {
  latency += b.latency, bandwidth += b.bandwidth, contention += b.contention, injection_wait += b.injection_wait;
  overhead += b.overhead, copies += b.copies, sync += b.sync, other += b.other;
  return *this;
}
void Breakdown::fit(double total) {
  // The terms are the last rank's own time in the op; it may have started before the op's start
  // (the previous op's last rank finished later), so they can exceed the op's time: they are then
  // scaled to it (their proportions kept), and "other" (waiting) is what is left, never negative.
  other = 0;
  double named = 0;
  for (double* t : {&latency, &bandwidth, &contention, &injection_wait, &overhead, &copies, &sync}) {
    if (!(*t > 0)) *t = 0;
    named += *t;
  }
  if (!(total > 0)) {
    *this = Breakdown{};
    return;
  }
  if (named > total) {
    *this = scaled(total / named);
    return;
  }
  other = total - named;
  if (other <= 1e-9 * total) other = 0;  // rounding of the subtraction, not waiting
}
Breakdown Breakdown::scaled(double f) const {
  Breakdown b = *this;
  b.latency *= f, b.bandwidth *= f, b.contention *= f, b.injection_wait *= f, b.overhead *= f, b.copies *= f, b.sync *= f, b.other *= f;
  return b;
}

core::SizeEstimate memory_estimate(const trace::BuiltTrace& bt) {
  constexpr long double kBytesPerLeaf = 128;
  long double total = 0, largest = -1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < bt.trace().ops.size(); ++i) {
    const long double leaves = static_cast<long double>(bt.graph_for(bt.trace().ops[i]).total_leaves());
    total += kBytesPerLeaf * leaves;
    if (leaves > largest) largest = leaves, at = i;
  }
  return {"/ops/" + std::to_string(at), total, "the simulation rank_lists of " + std::to_string(bt.trace().ops.size()) + " ops"};
}

namespace {
// One op's schedule on backend b: a round per direction of the op, from the rank lists of its graph.
Schedule op_schedule(const core::OpSpec& op, const std::vector<core::RankLists>& rank_lists, const RankLayout& lay, const MachineModel& m,
                     const BackendVariant& b) {
  Schedule sc = make_schedule(lay, m, b);
  const std::int64_t vb = core::op_vertex_bytes(op);
  for (const core::Direction d : core::op_traits(op.op).directions()) {
    const bool r2l = d == core::Direction::root_to_leaf;
    const bool root_dev = op.root_mem == core::MemType::device, leaf_dev = op.leaf_mem == core::MemType::device;
    Traffic tr = traffic_from_plans(rank_lists, r2l, vb, r2l ? root_dev : leaf_dev, r2l ? leaf_dev : root_dev, op.op != core::OpKind::fetch_and_op);
    // As the executor (exec/mpi/star_forest.cpp): contiguous blocks go to MPI unpacked on the
    // host, except for fetch-and-op; receives land in place in a bcast with replace.
    tr.motion = core::op_traits(op.op).motion;
    tr.send_direct = !root_dev && !leaf_dev && op.op != core::OpKind::fetch_and_op;
    tr.recv_direct = tr.send_direct && r2l && op.mpi_op == core::MpiOp::replace;
    add_round(sc, lay, m, b, tr);
  }
  return sc;
}

// The executor's own work per call on each of the `nranks` ranks (picoseconds), from the ranks'
// shapes and the backend's costs (MachineModel::ExecutorCosts::per_call).
std::vector<Time> executor_work(const std::vector<RankShape>& shapes, const MachineModel::ExecutorCosts& cost, const MachineModel& m,
                                core::BackendId b, std::int64_t vb, std::size_t nranks) {
  std::vector<Time> op_cpu(nranks, 0);
  // MPI's backends scatter past the machine's limit (the MPI's eager limit: past it a packed block
  // is written and read again value by value); shm at every size, since it copies every value of
  // a list one by one into or out of its segment (a reduce's unpack through 50 runs of
  // bcsstk13's roots cost per value, as calibrate's permuted rings do at 2 and 16 KiB alike).
  const std::int64_t beyond = core::backend(b).scatters_every_size ? 0 : m.scatter_beyond;
  for (std::size_t r = 0; r < nranks && r < shapes.size(); ++r) {
    const RankShape& rs = shapes[r];
    // A backend with a cost per scattered value pays it for the lists in messages past the
    // limit, and its cost per run for the others' runs only.
    const bool split = cost.scatter.has_value();
    const std::int64_t lines = cost.line > 0 ? rs.extra_lines(vb) : 0;
    auto call = [&](std::int64_t bytes) {
      return cost.per_call(rs.runs(split, beyond, vb), rs.peers, bytes, cost.large > 0 ? rs.large(m, vb) : 0, split ? rs.scattered(beyond, vb) : 0,
                           lines);
    };
    double work = call(rs.values * vb);
    // What its bytes with its core mates add to the call, at the mates' share (none where they
    // add nothing: a cost per small byte below 0).
    if (rs.mate_values > 0 && m.core_sharing.mate_factor != 1)
      work -= (1 - m.core_sharing.mate_factor) * std::max(0.0, work - call((rs.values - rs.mate_values) * vb));
    op_cpu[r] = to_ps(work);
  }
  return op_cpu;
}

// One op's result: its messages and bytes per call, its time (the latest rank's finish against
// the latest before it) and that rank's breakdown per call.
OpResult op_result(std::size_t oi, const core::OpSpec& op, const Schedule& sc, std::uint64_t messages, const std::vector<Time>& ready,
                   Time before_max, const Accum& acc, const Accum& before) {
  OpResult o;
  o.index = oi;
  o.label = op_label(op);
  o.repeat = op.repeat;
  o.messages = messages;
  for (const auto& st : sc.steps) {
    o.call_messages += st.msgs.size();
    for (const auto& msg : st.msgs) o.call_bytes += msg.bytes;
  }
  if (ready.empty()) return o;
  const auto crit = static_cast<std::size_t>(std::max_element(ready.begin(), ready.end()) - ready.begin());
  o.total_s = to_seconds(ready[crit] - before_max);
  o.per_call_s = o.total_s / static_cast<double>(op.repeat);
  const double rep = static_cast<double>(op.repeat);
  auto term = [&](const std::vector<Time>& now, const std::vector<Time>& was) { return to_seconds(now[crit] - was[crit]) / rep; };
  auto& bd = o.breakdown;
  bd.latency = term(acc.latency, before.latency);
  bd.bandwidth = term(acc.bandwidth, before.bandwidth);
  bd.contention = term(acc.contention, before.contention);
  bd.injection_wait = term(acc.injection, before.injection);
  bd.overhead = term(acc.overhead, before.overhead);
  bd.copies = term(acc.copies, before.copies);
  bd.sync = term(acc.sync, before.sync);
  bd.fit(o.per_call_s);
  return o;
}
}  // namespace

SimResult simulate(const trace::BuiltTrace& bt, const MachineModel& m, const std::vector<BackendVariant>& backends, Timeline* timeline,
                   bool ops_apart) {
  const auto& t = bt.trace();
  SimResult res;
  res.trace = t.name;
  res.machine = m.name;
  res.model = model_name(m.model);
  const RankLayout lay = layout_for(t, m);
  res.layout = lay;
  res.placement = placement_text(t, m);
  std::map<const core::Graph*, std::vector<core::RankLists>> rank_lists;
  // rank_shapes per graph: all messages or off-node, with the roots for a cost per line or not.
  std::map<std::tuple<const core::Graph*, bool, bool>, std::vector<RankShape>> shapes;
  if (timeline) {
    timeline->nranks = t.nranks;
    timeline->backend_names.clear();
    timeline->op_labels.clear();
    for (const auto& b : backends) timeline->backend_names.push_back(b.name());
    for (const auto& op : t.ops) timeline->op_labels.push_back(op_label(op));
  }
  core::Progress progress("simulate " + t.name, backends.size() * t.ops.size());
  for (std::size_t bi = 0; bi < backends.size(); ++bi) {
    const BackendVariant b = backends[bi];
    BackendResult br;
    br.backend = b;
    // The executor's own costs on this backend: [0] ops whose first direction is root to leaf,
    // [1] leaf to root.
    // split-dd is split-md's transport on host buffers: it has split-md's costs.
    const core::BackendId costs_of = b.kind == core::BackendId::split_dd ? core::BackendId::split_md : b.kind;
    const std::array<MachineModel::ExecutorCosts, 2> costs{m.executor_costs(costs_of, false), m.executor_costs(costs_of, true)};
    std::vector<Time> ready(static_cast<std::size_t>(lay.nranks), 0), helper_ready, busy;
    Accum acc;
    acc.resize(static_cast<std::size_t>(lay.nranks));
    for (std::size_t oi = 0; oi < t.ops.size(); ++oi) {
      progress.step(progress.on() ? b.name() + ", op " + std::to_string(oi) : std::string());
      const auto& op = t.ops[oi];
      const core::Graph& g = bt.graph_for(op);
      auto it = rank_lists.find(&g);
      if (it == rank_lists.end()) it = rank_lists.emplace(&g, core::build_rank_lists(g)).first;
      const std::int64_t vb = core::op_vertex_bytes(op);
      const Schedule sc = op_schedule(op, it->second, lay, m, b);
      const auto& cost = costs[core::op_traits(op.op).directions().front() == core::Direction::leaf_to_root ? 1 : 0];
      Engine eng(m, sc.node, &busy, cost.wire);
      const auto ne = static_cast<std::size_t>(sc.endpoints);
      if (helper_ready.size() < ne - ready.size()) helper_ready.resize(ne - ready.size(), 0);
      if (ops_apart && !ready.empty()) {  // everyone starts when the last finished (links are idle by then)
        Time all = *std::max_element(ready.begin(), ready.end());
        for (Time h : helper_ready) all = std::max(all, h);
        std::fill(ready.begin(), ready.end(), all);
        std::fill(helper_ready.begin(), helper_ready.end(), all);
      }
      std::vector<Time> rd(ne);
      std::copy(ready.begin(), ready.end(), rd.begin());
      std::copy(helper_ready.begin(), helper_ready.begin() + static_cast<std::ptrdiff_t>(ne - ready.size()),
                rd.begin() + static_cast<std::ptrdiff_t>(ready.size()));
      Accum a;
      a.resize(ne);
      const Accum before = acc;
      const Time before_max = ready.empty() ? 0 : *std::max_element(ready.begin(), ready.end());
      const Time overlap = to_ps(op.overlap_us * 1e-6);
      if (timeline) timeline->backend = static_cast<std::int32_t>(bi), timeline->op = static_cast<std::int32_t>(oi);
      std::vector<Time> start;
      // The executor's own work per call (begin/end) on every rank: the backend's cost per op (of
      // the op's first direction), per run of roots the rank's leaves read (one-sided datatypes
      // walk a block per run), per byte it sends and receives (those with its core mates at their
      // share), per peer and per large message beyond a ring's one of each, and where the backend
      // has one, per value of its scattered lists in messages past MachineModel::scatter_beyond (at
      // every size where its row's scatters_every_size) in place of their runs, and per cache line of its
      // peers' roots its leaves touch beyond their values' (MachineModel::ExecutorCosts::per_call).
      const bool off_node = b.kind == core::BackendId::shm || core::backend(b.kind).node_aware;
      const bool root_lines = costs[0].line > 0 || costs[1].line > 0;
      auto shape_it = shapes.find({&g, off_node, root_lines});
      if (shape_it == shapes.end())
        shape_it = shapes.emplace(std::tuple{&g, off_node, root_lines}, rank_shapes(it->second, off_node ? &lay : nullptr, m.core_sharing, root_lines)).first;
      const std::vector<Time> op_cpu = executor_work(shape_it->second, cost, m, b.kind, vb, ready.size());
      for (core::Index rep = 0; rep < op.repeat; ++rep) {
        start.assign(rd.begin(), rd.begin() + lay.nranks);
        for (std::size_t r = 0; r < ready.size(); ++r)
          if (op_cpu[r] > 0) rd[r] += op_cpu[r], a.overhead[r] += op_cpu[r];
        for (const auto& st : sc.steps) eng.run(st, rd, a, timeline);
        share_cores(m.core_sharing, start, rd, start.size());
        for (std::size_t r = 0; r < ready.size(); ++r) rd[r] = std::max(rd[r], start[r] + overlap);
      }
      std::copy(rd.begin(), rd.begin() + lay.nranks, ready.begin());
      std::copy(rd.begin() + lay.nranks, rd.end(), helper_ready.begin());
      for (std::size_t r = 0; r < ready.size(); ++r) acc.add(a, r);
      OpResult o = op_result(oi, op, sc, eng.messages(), ready, before_max, acc, before);
      br.total_s += o.total_s;
      br.messages += o.messages;
      br.breakdown += o.breakdown.scaled(static_cast<double>(op.repeat));
      br.ops.push_back(std::move(o));
    }
    res.backends.push_back(std::move(br));
  }
  return res;
}

}  // namespace sfr::sim
