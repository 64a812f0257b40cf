#include "exec/mpi/runner.hpp"

#include "plan/rounds.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "core/backends.hpp"
#include "core/error.hpp"
#include "core/failpoint.hpp"
#include "core/statistic.hpp"
#include "exec/conformance.hpp"
#include "exec/cuda/device_sf.hpp"
#include "exec/dump.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/launch.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/stall.hpp"
#include "exec/mpi/star_forest.hpp"
#include "exec/sf.hpp"
#include "io/json_out.hpp"
#include "io/json_strict.hpp"
#include "trace/result_docs.hpp"

namespace sfr::exec::mpi {

using core::OpKind;

namespace {

// The petsc* backends' module, loaded at their first use (never unloaded: PETSc finalises as MPI
// does); an empty executor where there is none.
std::string& petsc_module() {
  static std::string path;
  return path;
}
const PetscExecutor& petsc_executor() {
  static const PetscExecutor e = [] {
    if (petsc_module().empty()) return PetscExecutor{};
    void* h = dlopen(petsc_module().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw InputError("--backend", std::string("cannot load the PETSc module: ") + dlerror());
    auto entry = reinterpret_cast<const PetscExecutor* (*)()>(dlsym(h, "sfr_petsc_executor_v1"));
    if (!entry) throw InputError("--backend", petsc_module() + " is not sf-replay's PETSc module (no sfr_petsc_executor_v1)");
    return *entry();
  }();
  return e;
}

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}

// SFs built once per (name, backend) and reused by every op on them.
class SFCache {
public:
  SFCache(MPI_Comm comm, const trace::BuiltTrace& t, core::BackendChoice backend, const AutoChoice* choice, int ranks_per_node,
          std::int64_t split_cap)
      : comm_(comm),
        t_(t),
        backend_(backend),
        choice_(choice),
        rpn_(ranks_per_node > 0  ? ranks_per_node
             : t.trace().machine ? t.trace().machine->ranks_per_node
                                 : 0),
        split_cap_(split_cap) {}
  // The placement the SFs run on: the (emulated) nodes, else the ranks that share memory.
  core::RankLayout placement() const {
    int size = 0;
    MPI_Comm_size(comm_, &size);
    return {size, std::max(1, rpn_ > 0 ? rpn_ : ranks_sharing_memory(comm_))};
  }
  std::int64_t split_cap() const { return split_cap_; }
  // The backend an op runs on: the named one, or for "auto" the choice made for its SF and motion.
  core::BackendId backend_of(const core::OpSpec& op) const {
    if (!backend_.automatic) return backend_.id;
    if (choice_)
      if (const auto it = choice_->find({op.sf, core::op_traits(op.op).motion}); it != choice_->end()) return it->second;
    return core::kAuto.without_choice;
  }
  // The SF an op runs on (one per SF and backend): the host backends' star forest, or for the
  // cuda-* backends the CUDA executor's (its own transports); both the one interface of exec/sf.hpp.
  Sf& get(const core::OpSpec& op) {
    const core::BackendId backend = backend_of(op);
    auto it = sfs_.find({op.sf, backend});
    if (it != sfs_.end()) return *it->second;
    std::unique_ptr<Sf> sf;
    const core::BackendInfo& info = core::backend(backend);
    if (info.petsc) {
      sf = petsc_executor().make(comm_, t_.graph(op.sf), info.petsc_type);
    } else if (info.gpu) {
      select_gpu();
      sf = std::make_unique<cuda::DeviceStarForest>(comm_, t_.graph(op.sf), backend);
    } else {
      sf = std::make_unique<StarForest>(comm_, t_.graph(op.sf), backend, rpn_, split_cap_);
    }
    return *sfs_.emplace(std::pair{op.sf, backend}, std::move(sf)).first->second;
  }
  // Whether the ops' device buffers live in device memory: where this process has a device (a
  // GPU, or the emulated one); without, they run in host memory (device_memory_note says so).
  bool device_memory() {
    if (device_ < 0) {
      device_ = cuda::no_gpu_reason().empty() ? 1 : 0;
      if (device_) select_gpu();
    }
    return device_ == 1;
  }

private:
  // This rank's GPU (rank on its node % GPUs), chosen at the first use of a device. Collective.
  void select_gpu() {
    if (!gpu_selected_) cuda::select_node_device(comm_);
    gpu_selected_ = true;
  }
  MPI_Comm comm_;
  const trace::BuiltTrace& t_;
  core::BackendChoice backend_;
  const AutoChoice* choice_;
  int rpn_;
  std::int64_t split_cap_;
  std::map<std::pair<std::string, core::BackendId>, std::unique_ptr<Sf>> sfs_;  // (SF name, backend)
  bool gpu_selected_ = false;
  int device_ = -1;
};

// This rank's buffers of one op, filled with conformance data.
struct OpBuffers {
  Buffer root, leaf, update;
  // The buffer behind one of the op's named arrays (core::OpTraits::writes).
  Buffer& array(std::string_view name) {
    if (name == "leafdata") return leaf;
    if (name == "leafupdate") return update;
    return root;  // rootdata, multirootdata, degree
  }
};

OpBuffers make_buffers(const trace::BuiltTrace& t, const core::OpSpec& op, int me) {
  const core::Graph& g = t.graph_for(op);
  Index root_off = 0, leaf_off = 0;
  for (int r = 0; r < me; ++r) {
    root_off += g[r].nroots;
    leaf_off += g[r].leafspace();
  }
  const auto mop = core::op_named_mpi_op(op);
  OpBuffers b;
  const core::Unit u = core::op_wire_unit(op);
  const int bs = core::op_wire_bs(op);
  const core::OpTraits& tr = core::op_traits(op.op);
  // Arrays the op reads hold conformance data; the others start zero.
  b.root = tr.reads_array("rootdata") || tr.reads_array("multirootdata")
               ? conformance_input(Side::root, u, bs, mop, me, g[me].nroots, root_off)
               : Buffer(u, bs, g[me].nroots);
  b.leaf = tr.reads_array("leafdata") ? conformance_input(Side::leaf, u, bs, mop, me, g[me].leafspace(), leaf_off)
                                      : Buffer(u, bs, g[me].leafspace());
  if (tr.writes_array("leafupdate")) b.update = Buffer(u, bs, g[me].leafspace());
  return b;
}

// The op switch, once for every executor and memory type.
Sf::Handle begin(Sf& sf, const core::OpSpec& op, Data root, Data leaf, Data update) {
  switch (op.op) {
    case OpKind::bcast: return sf.bcast_begin(op.unit, op.bs, op.mpi_op, root, leaf);
    case OpKind::reduce: return sf.reduce_begin(op.unit, op.bs, op.mpi_op, leaf, root);
    case OpKind::fetch_and_op: return sf.fetch_and_op_begin(op.unit, op.bs, op.mpi_op, root, leaf, update);
    case OpKind::gather: return sf.gather_begin(op.unit, op.bs, leaf, root);
    case OpKind::scatter: return sf.scatter_begin(op.unit, op.bs, root, leaf);
    case OpKind::degree:  // a SUM reduce of ones (what PetscSFComputeDegree does); OpRun filled the buffers
      return sf.reduce_begin(core::Unit::int64, 1, core::MpiOp::sum, leaf, root);
  }
  throw std::logic_error("unknown op");
}

// Busy compute of `us` microseconds (the overlap window between begin and end).
void compute_for(double us) {
  if (us <= 0) return;
  const double until = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < until) {}
}

// The ranks this rank waits for in an op of `g` (what the stall watch names): the owners of its
// leaves' roots where the op moves roots to leaves, the ranks with leaves on its roots where it
// moves leaves to roots.
std::vector<int> senders_to(const core::Graph& g, int me, core::Motion m) {
  std::set<int> s;
  if (m != core::Motion::reduce)
    for (const int r : g[me].remote_rank)
      if (r != me) s.insert(r);
  if (m != core::Motion::bcast)
    for (int r = 0; r < g.nranks; ++r)
      if (r != me && std::find(g[r].remote_rank.begin(), g[r].remote_rank.end(), me) != g[r].remote_rank.end()) s.insert(r);
  return {s.begin(), s.end()};
}

// Where an op's calls begin and end, for profiling tools: MPI_Pcontrol, which MPI itself ignores,
// at a level of our own. The test suite's PMPI counter (tests/support/pmpi_counts.cpp) attributes
// the messages between the marks to the op. Once per op, outside the timed calls.
constexpr int kOpMarker = 7319;
void mark_op(bool begins, std::size_t i) { MPI_Pcontrol(kOpMarker, begins ? 1 : 0, static_cast<int>(i)); }

// What `calls` calls asked of the device, per call, the most over the ranks.
trace::DeviceWork device_work(MPI_Comm comm, const cuda::DeviceCounts& d, double calls) {
  double mine[11] = {double(d.launches), double(d.stream_syncs), double(d.event_syncs), double(d.device_syncs), double(d.memsets),
                     double(d.h2d),      double(d.h2d_bytes),    double(d.d2h),         double(d.d2h_bytes),    double(d.d2d),
                     double(d.d2d_bytes)};
  double most[11];
  SFR_MPI(MPI_Allreduce, mine, most, 11, MPI_DOUBLE, MPI_MAX, comm);
  for (double& x : most) x /= calls;
  return {most[0], most[1], most[2], most[3], most[4], most[5], most[6], most[7], most[8], most[9], most[10]};
}

// Tells the stall watch that this rank now runs op `i`.
void watch_op(const trace::BuiltTrace& t, std::size_t i, core::BackendId backend, int me) {
  const auto& op = t.trace().ops[i];
  stall::doing("op " + std::to_string(i) + " (" + core::op_kind_name(op.op) + " " + op.sf + ") on " + core::backend_name(backend),
               senders_to(t.graph_for(op), me, core::op_traits(op.op).motion));
}

// One op on this rank: the arrays the trace puts in device memory live there (copied in from the
// conformance data, and the written ones back out for a dump), whatever the backend.
class OpRun {
public:
  // The op's SF is made here (collective: every rank constructs its ops' runs in trace order), not
  // looked up in the timed calls.
  OpRun(SFCache& cache, const core::OpSpec& op, OpBuffers& b) : sf_(cache.get(op)), op_(op), b_(b) {
    if (op.op == OpKind::degree) {  // ones at the leaves, zeros at the roots, once per op
      std::fill(b.leaf.as<std::int64_t>(), b.leaf.as<std::int64_t>() + b.leaf.count, 1);
      std::fill(b.root.as<std::int64_t>(), b.root.as<std::int64_t>() + b.root.count, 0);
    }
    const bool dev = core::op_uses_device(op) && cache.device_memory();
    root_ = side(dev && op.root_mem == core::MemType::device, b.root, droot_);
    leaf_ = side(dev && op.leaf_mem == core::MemType::device, b.leaf, dleaf_);
    update_ = side(dev && op.leaf_mem == core::MemType::device, b.update, dupdate_);
  }
  void run_begin() {
    core::fail_point(core::FailPoint::begin);
    core::fail_point(core::FailPoint::stall_begin);
    if (core::fail_point(core::FailPoint::mpi_error)) send_to_no_rank();
    handle_ = begin(sf_, op_, root_, leaf_, update_);
  }
  // (fail point mpi-error) MPI refuses it: MPI_ERR_RANK.
  static void send_to_no_rank() {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    SFR_MPI(MPI_Send, nullptr, 0, MPI_BYTE, size, 0, MPI_COMM_WORLD);
  }
  void run_end() {
    core::fail_point(core::FailPoint::end);
    sf_.end(handle_);
  }
  // The written arrays back in the host buffers (after the op ran).
  void fetch_results() {
    for (auto [d, h] : {std::pair{root_, &b_.root}, std::pair{leaf_, &b_.leaf}, std::pair{update_, &b_.update}})
      if (d.on_device() && !h->bytes.empty()) cuda::copy(h->bytes.data(), d.p, h->bytes.size());
  }

private:
  static Data side(bool device, Buffer& host, cuda::DeviceMemory& mem) {
    if (!device) return host_data(host.bytes.data());
    mem = cuda::DeviceMemory(host.bytes.size());
    if (!host.bytes.empty()) cuda::copy(mem.data(), host.bytes.data(), host.bytes.size());
    return {mem.data(), core::MemType::device};
  }
  cuda::DeviceMemory droot_, dleaf_, dupdate_;
  Data root_, leaf_, update_;
  Sf& sf_;
  const core::OpSpec& op_;
  OpBuffers& b_;
  Sf::Handle handle_ = 0;
};

}  // namespace

io::Json GpuPlacement::json() const {
  return {{"device", device}, {"gpus", gpus}, {"ranks_per_gpu", ranks_per_gpu}, {"mps", mps}, {"emulated", emulated}};
}

GpuPlacement gpu_placement(MPI_Comm comm) {
  cuda::select_node_device(comm);
  GpuPlacement p;
  p.emulated = cuda::emulated_device();
  p.device = cuda::device_name();
  // One GPU is (host, PCI bus id); the emulated device is one per node.
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  const std::string key = std::string(host, static_cast<std::size_t>(len)) + "/" + cuda::device_id();
  const auto keys = gather_strings(comm, key);
  int counts[2] = {0, 0};  // ranks_per_gpu, gpus (rank 0)
  if (!keys.empty()) {
    std::map<std::string, int> per;
    for (const auto& k : keys) ++per[k];
    for (const auto& [k, n] : per) counts[0] = std::max(counts[0], n);
    counts[1] = static_cast<int>(per.size());
  }
  SFR_MPI(MPI_Bcast, counts, 2, MPI_INT, 0, comm);
  p.ranks_per_gpu = counts[0];
  p.gpus = counts[1];
  // MPS serves real GPUs: an emulated device's work never reaches it, whatever runs on the node.
  int mine = !p.emulated && cuda::mps_running() ? 1 : 0, all = 0;
  SFR_MPI(MPI_Allreduce, &mine, &all, 1, MPI_INT, MPI_MIN, comm);
  p.mps = all == 1;
  bcast_string(comm, p.device);
  return p;
}

std::string gpu_sharing_warning(const GpuPlacement& p) {
  if (p.emulated || p.mps || p.ranks_per_gpu <= 1) return "";
  return std::to_string(p.ranks_per_gpu) + " ranks share one GPU (" + p.device +
         ") and the CUDA MPS daemon is not running: their contexts time-slice the GPU, so every device op costs milliseconds (1-2.4 ms "
         "per op measured on an H100 with 4-8 ranks, against 40-96 us with MPS). Start it with 'nvidia-cuda-mps-control -d' (stop it "
         "with 'echo quit | nvidia-cuda-mps-control'), or run one rank per GPU";
}

void bcast_string(MPI_Comm comm, std::string& s) {
  int len = static_cast<int>(s.size());
  SFR_MPI(MPI_Bcast, &len, 1, MPI_INT, 0, comm);
  s.resize(static_cast<std::size_t>(len));
  SFR_MPI(MPI_Bcast, s.data(), len, MPI_CHAR, 0, comm);
}

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int me = rank_of(comm);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  SFR_MPI(MPI_Gather, &len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += lens[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(me == 0 ? total : 0), '\0');
  SFR_MPI(MPI_Gatherv, mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (me == 0)
    for (int r = 0; r < size; ++r)
      out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  return out;
}

LaunchFacts launch_facts(MPI_Comm comm, const std::vector<core::BackendChoice>& backends) {
  LaunchFacts f;
  // Only the backends whose transport is one-sided make windows across the ranks.
  const auto one_sided = [](core::BackendChoice b) { return b.row() && b.row()->transport == core::Transport::one_sided; };
  if (std::any_of(backends.begin(), backends.end(), one_sided)) f.window_refusal = window_refusal(comm);
  return f;
}

void set_petsc_module(const std::string& path) { petsc_module() = path; }

void check_backend(const trace::BuiltTrace& t, core::BackendChoice choice, const LaunchFacts& facts) {
  // auto runs each op on a candidate the choice made sure of, or on core::kAuto.without_choice.
  const core::BackendInfo& info = core::backend(choice.automatic ? core::kAuto.without_choice : choice.id);
  const std::string name = info.name;
  if (info.gpu) {
    if (const std::string why = cuda::no_gpu_reason(); !why.empty()) throw InputError("--backend", name + ": " + why);
    if (info.aware_mpi)
      if (const std::string why = cuda::cuda_aware_refusal(); !why.empty()) throw InputError("--backend", name + ": " + why);
    return;
  }
  if (info.petsc) {
    if (!petsc_executor().make)
      throw InputError("--backend", name + ": this sf-replay was built without PETSc (petsc-dev was not found when it was configured)");
    for (std::size_t i = 0; i < t.trace().ops.size(); ++i)
      if (const std::string why = petsc_executor().refuses(t.trace().ops[i], info.petsc_type); !why.empty())
        throw InputError("/ops/" + std::to_string(i), "PETSc (" + name + ") cannot run it: " + why);
    return;
  }
  if (info.transport == core::Transport::one_sided && !facts.window_refusal.empty()) throw InputError("--backend", name + ": " + facts.window_refusal);
  if (!info.pattern_only) return;
  for (std::size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto& op = t.trace().ops[i];
    const std::string why = collective_refuses(t.graph_for(op), core::op_traits(op.op).motion, core::op_applied_mpi_op(op));
    if (!why.empty()) throw InputError("/ops/" + std::to_string(i), why);
  }
}

std::string conformance_dump(MPI_Comm comm, const trace::BuiltTrace& t, core::BackendChoice backend, const AutoChoice* auto_choice,
                             int ranks_per_node, std::int64_t split_cap) {
  SFCache cache(comm, t, backend, auto_choice, ranks_per_node, split_cap);
  const int me = rank_of(comm);
  std::vector<exec::DumpEntry> entries;  // rank 0: every op's arrays of every rank
  for (std::size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto& op = t.trace().ops[i];
    OpBuffers b = make_buffers(t, op, me);
    watch_op(t, i, cache.backend_of(op), me);
    OpRun run(cache, op, b);
    mark_op(true, i);
    run.run_begin();
    run.run_end();
    mark_op(false, i);
    stall::tick();
    run.fetch_results();
    // The arrays the op wrote (sf-dump v1), in dump order.
    exec::RankArrays wrote;
    for (const char* name : core::op_traits(op.op).written()) wrote.push_back({name, std::move(b.array(name))});
    exec::OpArrays res = gather_result(comm, wrote);
    if (me == 0) entries.push_back({i, &op, std::move(res)});
  }
  stall::idle();
  return me == 0 ? exec::write_dump(t.trace().name, entries) : "";
}

exec::OpArrays gather_result(MPI_Comm comm, const exec::RankArrays& mine) {
  // Each array as raw bytes: a vertex count, then the data.
  std::string blob;
  for (const auto& a : mine) {
    const std::int64_t n = a.buffer.count;
    blob.append(reinterpret_cast<const char*>(&n), sizeof n);
    if (!a.buffer.bytes.empty()) blob.append(reinterpret_cast<const char*>(a.buffer.bytes.data()), a.buffer.bytes.size());
  }
  exec::OpArrays res;
  for (const auto& got : gather_strings(comm, blob)) {
    exec::RankArrays arrays;
    std::size_t pos = 0;
    for (const auto& a : mine) {
      std::int64_t n = 0;
      std::memcpy(&n, got.data() + pos, sizeof n);
      pos += sizeof n;
      Buffer b(a.buffer.unit, a.buffer.bs, static_cast<Index>(n));
      if (!b.bytes.empty()) std::memcpy(b.bytes.data(), got.data() + pos, b.bytes.size());  // (an empty vector's data() may be null)
      pos += b.bytes.size();
      arrays.push_back({a.name, std::move(b)});
    }
    res.ranks.push_back(std::move(arrays));
  }
  return res;
}

std::vector<OpTiming> time_ops(MPI_Comm comm, const trace::BuiltTrace& t, core::BackendChoice backend, int warmup, int iters,
                               const AutoChoice* auto_choice, int ranks_per_node, std::int64_t split_cap) {
  SFCache cache(comm, t, backend, auto_choice, ranks_per_node, split_cap);
  const int me = rank_of(comm);
  const core::RankLayout place = cache.placement();
  std::map<const core::Graph*, std::vector<core::RankLists>> plans_of;
  std::vector<OpTiming> out;
  for (std::size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto& op = t.trace().ops[i];
    OpBuffers b = make_buffers(t, op, me);
    watch_op(t, i, cache.backend_of(op), me);
    OpRun run(cache, op, b);
    // What one execution sends, summed over ranks: the plan of the backend the SF runs on (the
    // same rounds the simulator times and inspect --backend prints); the CUDA transports' messages
    // are the direct plan's.
    const core::Graph& g = t.graph_for(op);
    auto rank_lists = plans_of.find(&g);
    if (rank_lists == plans_of.end()) rank_lists = plans_of.emplace(&g, core::build_rank_lists(g)).first;
    const auto transport = plan::transport_of(cache.backend_of(op));
    const auto sent = plan::totals(plan::op_rounds(rank_lists->second, op, place, transport, {cache.split_cap()}));
    core::SampleReservoir iterations;  // bounded: a soak of 10^8 iterations keeps kSampleCap
    const std::int64_t posted_before = cache.get(op).messages_posted();
    const bool on_device = core::backend(cache.backend_of(op)).gpu || (core::op_uses_device(op) && cache.device_memory());
    cuda::DeviceCounts device_before;
    mark_op(true, i);
    for (int it = 0; it < warmup + iters; ++it) {
      if (it == warmup) device_before = cuda::device_counts();
      SFR_MPI(MPI_Barrier, comm);
      const double t0 = MPI_Wtime();
      for (Index rep = 0; rep < op.repeat; ++rep) {
        run.run_begin();
        compute_for(op.overlap_us);
        run.run_end();
      }
      double dt = MPI_Wtime() - t0, mx = 0;
      SFR_MPI(MPI_Allreduce, &dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
      stall::tick();
      if (it >= warmup) iterations.add(mx * 1e6);
    }
    mark_op(false, i);
    std::optional<trace::DeviceWork> device;
    if (on_device) device = device_work(comm, cuda::device_counts() - device_before, static_cast<double>(iters) * static_cast<double>(op.repeat));
    // The executor sends what the plan says (where its backend counts what it posts).
    if (posted_before >= 0) {
      long long mine = cache.get(op).messages_posted() - posted_before, all = 0;
      SFR_MPI(MPI_Allreduce, &mine, &all, 1, MPI_LONG_LONG, MPI_SUM, comm);
      const long long runs = static_cast<long long>(warmup + iters) * op.repeat;
      if (all != runs * sent.messages)
        throw std::logic_error("op " + std::to_string(i) + " on " + core::backend_name(cache.backend_of(op)) + ": the executor posted " + std::to_string(all) +
                               " messages in " + std::to_string(runs) + " executions, the plan says " + std::to_string(sent.messages) +
                               " per execution");
    }
    OpTiming r;
    r.samples_us = iterations.kept();
    r.iterations = iterations.count();
    r.samples_exact = iterations.exact();
    r.mean_us = iterations.mean();
    r.index = i;
    r.backend = backend.automatic ? trace::auto_label(core::backend_name(cache.backend_of(op))) : backend.name();
    r.bytes = sent.bytes;
    r.messages = sent.messages;
    r.ranks_per_node = place.ranks_per_node;
    r.device = device;
    r.min_us = iterations.min();
    r.max_us = iterations.max();
    std::vector<double> sorted = iterations.kept();
    std::sort(sorted.begin(), sorted.end());
    r.median_us = core::median_of_sorted(sorted);
    r.low_us = core::low_share_of(sorted);
    out.push_back(r);
  }
  stall::idle();
  return out;
}

std::string device_memory_note(const trace::BuiltTrace& t) {
  std::size_t n = 0, first = 0;
  for (std::size_t i = 0; i < t.trace().ops.size(); ++i)
    if (core::op_uses_device(t.trace().ops[i]) && n++ == 0) first = i;
  if (n == 0) return "";
  const std::string why = cuda::no_gpu_reason();
  if (why.empty()) return "";
  return std::to_string(n) + " op(s) of the trace put data in device memory (the first: /ops/" + std::to_string(first) +
         "), but this process has no device (" + why + "): the host backends run them in host memory";
}

std::string mpi_library() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<std::size_t>(std::max(0, len)));
  // First line, up to the first comma: "Open MPI v4.1.4", "MPICH Version: 4.0".
  s = s.substr(0, s.find_first_of(",\n"));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace sfr::exec::mpi
