// sf-replay run: the serial reference executor (--reference, no MPI) or the MPI executor
// (mpirun -np P sf-replay run TRACE --backend B ...). Under MPI every rank validates the same
// inputs; on bad input rank 0 prints the one-line error and every rank exits with status 2.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "plan/rounds.hpp"
#include "core/backends.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "core/statistic.hpp"
#include "exec/conformance.hpp"
#include "exec/dump.hpp"
#include "exec/dump_check.hpp"
#include "exec/reference/reference.hpp"
#include "io/output_file.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

#ifdef HAVE_SFREPLAY_MPI
#include <mpi.h>

#include "cli/mpi_session.hpp"
#include "exec/mpi/launch.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/mpi/stall.hpp"
#include "exec/mpi/star_forest.hpp"
#include "exec/mpi/timing_output.hpp"
#endif
#ifdef HAVE_SFREPLAY_SIM
#include "sim/auto_backend.hpp"
#endif

namespace sfr::cli {

namespace {

struct RunArgs {
  std::string file, dump, timing, store, machine;
  std::vector<std::string> backend_values;  // --backend, repeatable comma lists
  BackendList backends;                      // parsed; basic when none is given
  bool reference = false;
  int warmup = 2, iters = 10, ranks_per_node = 0;
  double stall_timeout = 60;
  bool uses_nodes = false;  // a backend that uses the placement's nodes (shm, node-aware, auto)
  std::uint64_t max_memory = 0;
};

int run_reference(const RunArgs& a) {
  const auto t = trace::read_trace_file(a.file, {a.max_memory});
  // Every op's results are kept until the dump is written.
  core::check_budget(exec::data_estimate(t, -1, true, !a.dump.empty()), t.max_memory());
  std::vector<exec::DumpEntry> entries;
  for (size_t i = 0; i < t.trace().ops.size(); ++i) {
    const auto& op = t.trace().ops[i];
    entries.push_back({i, &op, exec::reference::run_op(t, op)});
  }
  if (!a.dump.empty()) io::write_file_atomic(a.dump, exec::write_dump(t.trace().name, entries));
  std::cout << "ran " << entries.size() << " ops of " << t.trace().name << " on " << t.trace().nranks
            << " ranks with the reference executor" << (a.dump.empty() ? "" : "; dump written to " + a.dump) << "\n";
  return 0;
}

#ifdef HAVE_SFREPLAY_MPI
// One MPI run as its steps see it: what each step found for the ones after it.
struct MpiRun {
  const RunArgs& a;
  int rank = 0, size = 0;
  std::optional<trace::BuiltTrace> t{};
  // `all`: every backend of the catalogue. One the trace or this machine refuses (collective on
  // a graph that is no pattern, cuda-* without a GPU) is skipped with its reason where only `all`
  // stands for it, and refused where it was named.
  std::vector<core::BackendChoice> backends = [&] {
    std::vector<core::BackendChoice> v;
    for (const auto& b : a.backends.chosen) v.push_back(b.backend);
    return v;
  }();
  std::vector<std::pair<std::string, std::string>> skipped{};  // backend, why
  std::string device_note{}, placement_note{};
  exec::mpi::LaunchFacts facts{};
  exec::mpi::LaunchNodes launch{};
  int rpn = a.ranks_per_node;  // the nodes of shm, the node-aware backends and auto (0: none used)
  std::optional<exec::mpi::GpuPlacement> gpu{};
  exec::mpi::AutoChoice choice{};
  std::int64_t split_cap = plan::RouteParams{}.split_cap;
  bool uses_auto = false, uses_split = false;
  std::string dump_text{};
  std::vector<exec::mpi::OpTiming> timings{};
};

// The trace, with as many ranks as the run, within the memory each rank of a node may use.
bool read_run_trace(MpiRun& r) {
  const RunArgs& a = r.a;
  const int local = ranks_on_node();
  return agreed("run", r.rank, r.size, [&] {
    if (r.backends.empty()) throw InputError("--backend", "no backend given");
    // The node's memory is shared by its ranks.
    r.t.emplace(trace::read_trace_file(a.file, {core::memory_limit(a.max_memory) / static_cast<std::uint64_t>(local)}));
    const auto& tr = r.t->trace();
    if (tr.nranks != r.size)
      throw InputError(a.file, "trace \"" + tr.name + "\" needs " + std::to_string(tr.nranks) + " ranks but this run has " +
                                   std::to_string(r.size) + " (use mpirun -np " + std::to_string(tr.nranks) + ")");
    if (a.ranks_per_node > r.size)
      throw InputError("--ranks-per-node", std::to_string(a.ranks_per_node) + " exceeds the trace's " + std::to_string(r.size) + " ranks");
    // One op's buffers at a time; rank 0 also gathers every op's results for a dump.
    core::check_budget(exec::data_estimate(*r.t, r.rank, false, false), r.t->max_memory());
    if (r.rank == 0 && !a.dump.empty()) core::check_budget(exec::data_estimate(*r.t, -1, true, true), r.t->max_memory());
  });
}

// What the launch allows, found collectively first; then each rank checks the same things alike:
// the nodes, each backend (skipped where only `all` named it), device memory, the samples' memory.
bool check_run_launch(MpiRun& r) {
  const RunArgs& a = r.a;
  r.facts = exec::mpi::launch_facts(MPI_COMM_WORLD, r.backends);
  r.launch = exec::mpi::launch_nodes(MPI_COMM_WORLD);
  return agreed("run", r.rank, r.size, [&] {
    if (a.uses_nodes) {
      const int asked = a.ranks_per_node > 0 ? a.ranks_per_node : r.t->trace().machine ? r.t->trace().machine->ranks_per_node : 0;
      r.rpn = exec::mpi::run_ranks_per_node(r.launch, asked, a.ranks_per_node > 0, &r.placement_note);
    }
    std::vector<core::BackendChoice> runnable;
    for (const auto& b : a.backends.chosen) {
      try {
        exec::mpi::check_backend(*r.t, b.backend, r.facts);
        runnable.push_back(b.backend);
      } catch (const InputError& e) {
        if (!b.from_all) throw;
        r.skipped.emplace_back(b.backend.name(), e.what());
      }
    }
    r.backends = std::move(runnable);
    // Device memory the trace asks for and this process may not have (a malformed
    // SFR_EMULATE_DEVICE is refused here, on whichever rank has it).
    r.device_note = exec::mpi::device_memory_note(*r.t);
    // The timings, kept to the end: per op and backend up to core::kSampleCap samples of 8 bytes,
    // and on rank 0 about 24 bytes of text each in the timing document.
    const std::size_t ops = r.t->trace().ops.size();
    const long double samples = static_cast<long double>(std::min<std::uint64_t>(static_cast<std::uint64_t>(a.iters), core::kSampleCap)) *
                                static_cast<long double>(ops * r.backends.size());
    core::check_budget({"--iters", samples * (r.rank == 0 ? 32 : 8),
                        "the timing samples of " + std::to_string(ops) + " op(s) on " + std::to_string(r.backends.size()) + " backend(s)"},
                       r.t->max_memory());
  });
}

// What rank 0 says before the run: skipped backends, device memory, placement; and for the cuda-*
// backends which GPU each rank uses, and whether ranks share one without MPS (said once).
void place_and_say(MpiRun& r) {
  if (r.rank == 0) {
    say_skipped_backends("run", r.a.backends);  // none today: run takes every catalogue backend
    for (const auto& [b, why] : r.skipped) say_skipped_backend("run", b, why);
    if (!r.device_note.empty()) warn("run", r.device_note);
    if (!r.placement_note.empty()) warn("run", r.placement_note);
  }
  if (std::none_of(r.backends.begin(), r.backends.end(), [](core::BackendChoice b) { return b.row() && b.row()->gpu; }))
    return;
  r.gpu = exec::mpi::gpu_placement(MPI_COMM_WORLD);
  if (const std::string w = exec::mpi::gpu_sharing_warning(*r.gpu); r.rank == 0 && !w.empty()) warn("run", w);
}

#ifdef HAVE_SFREPLAY_SIM
// Rank 0's reading of the machine: the split strategies' chunk size, and auto's choices as
// [SF, motion, backend] rows (said).
nlohmann::json choose_on_machine(MpiRun& r) {
  nlohmann::json chosen = nlohmann::json::array();
  std::string source, file;
  // A run on emulated nodes (inside the launch's) takes a calibration of emulated nodes.
  const auto m = sim::auto_machine(r.a.machine, &source, &file, r.rpn > 0 && r.rpn != r.launch.block);
  r.split_cap = m.message_cap;
  if (!r.uses_auto) return chosen;
  // The nodes as the run uses them: shm and the node-aware candidates are predicted on them.
  for (const auto& c : sim::choose_backends(*r.t, m, r.rpn)) {
    chosen.push_back({c.sf, static_cast<int>(c.motion), static_cast<int>(c.backend)});
    char line[256];
    std::snprintf(line, sizeof line, " -> %s (predicted %.3f us for its %zu op(s); next: %s, +%.1f%%)\n", core::backend_name(c.backend),
                  c.predicted_s * 1e6, c.ops, c.runner_up ? core::backend_name(*c.runner_up) : "", 100 * c.margin());
    std::cout << "auto: SF " << c.sf << " " << c.kinds << line;
  }
  std::cout << "auto: predictions for " << m.name << " from " << source << "\n";
  // A calibration of another placement, host or day: said once.
  if (const std::string w = sim::machine_mismatch(file, {trace::host_name(), r.size, r.rpn}); !w.empty()) warn("run", "auto: " + w);
  return chosen;
}
#endif

// --backend auto and the split strategies: rank 0 reads the machine (the --machine given, else
// the file calibrate saved, else the generic preset) and sends every rank what it takes from it:
// auto's backend per SF and motion (its bcasts, its reduces, its fetch-and-ops), the one the
// simulator predicts fastest there, and the split strategies' chunk size (what run executes is
// what simulate times; the timing document records it). Ranks that read another machine file
// (no shared home directory) or count other ranks on their node (uneven nodes) would otherwise
// choose differently, and exchange nothing that matches.
bool agree_on_machine(MpiRun& r) {
  r.uses_auto = std::find(r.backends.begin(), r.backends.end(), core::BackendChoice::chooser()) != r.backends.end();
  r.uses_split = r.uses_auto;
  for (const auto& b : r.backends) r.uses_split = r.uses_split || (b.row() && b.row()->transport == core::Transport::split);
  if (!r.uses_split) return true;
#ifdef HAVE_SFREPLAY_SIM
  nlohmann::json chosen;
  // (An internal error in rank 0's choice escapes the agreement: run_guarded ends the job.)
  if (!agreed("run", r.rank, r.size, [&] {
        if (r.rank == 0) chosen = choose_on_machine(r);
      }))
    return false;
  MPI_Bcast(&r.split_cap, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  std::string text = r.rank == 0 ? chosen.dump() : std::string();
  exec::mpi::bcast_string(MPI_COMM_WORLD, text);
  for (const auto& c : nlohmann::json::parse(text))
    r.choice[{c[0].get<std::string>(), static_cast<core::Motion>(c[1].get<int>())}] = static_cast<core::BackendId>(c[2].get<int>());
#else
  if (r.rank == 0 && r.uses_auto) std::cout << "auto: this build has no simulator; every SF runs on basic\n";
#endif
  return true;
}

// Every backend's dump is checked against the reference; the first one's is kept for writing
// (one that does not conform is written at once, for the user to see, and the run fails).
bool check_dumps(MpiRun& r) {
  std::string failed;
  for (const auto& b : r.backends) {
    const std::string text = exec::mpi::conformance_dump(MPI_COMM_WORLD, *r.t, b, &r.choice, r.rpn, r.split_cap);
    if (r.rank != 0) continue;
    if (r.dump_text.empty()) r.dump_text = text;
    if (r.backends.size() == 1) break;
    const std::string name = b.name();
    const auto res = exec::check_dump(*r.t, text, "backend " + name);
    if (res.ok())
      std::cout << "backend " << name << ": " << res.ops_checked << " ops conform to the reference\n";
    else {
      std::cout << "backend " << name << ": " << res.problems.size() << " problem(s), first: " << res.problems.front() << "\n";
      failed += (failed.empty() ? "" : ", ") + name;
    }
  }
  return agreed("run", r.rank, r.size, [&] {
    if (r.rank != 0 || failed.empty()) return;
    io::write_file_atomic(r.a.dump, r.dump_text);
    throw InputError("--dump", "backend(s) " + failed + " do not conform to the reference (dump of " + r.backends.front().name() + " written)");
  });
}

// The outputs appear together at the end (io::OutputBatch): a run that fails on the way leaves
// none of them.
bool write_run_outputs(MpiRun& r) {
  const RunArgs& a = r.a;
  std::vector<std::string> written;
  if (!agreed("run", r.rank, r.size, [&] {
        if (r.rank != 0) return;
        std::string timing_doc;
        if (!a.timing.empty() || !a.store.empty()) {
          auto prov = trace::provenance({"run", r.size, r.t->trace().name, a.file, exec::mpi::mpi_library()});
          if (r.gpu) prov["gpu"] = r.gpu->json();
          timing_doc = exec::mpi::timing_json(*r.t, r.timings, a.warmup, a.iters, prov, r.uses_split ? r.split_cap : 0);
        }
        io::OutputBatch out;
        if (!a.dump.empty()) out.replace(a.dump, r.dump_text);
        if (!a.timing.empty()) out.replace(a.timing, timing_doc);
        if (!a.store.empty()) trace::stage_store_document(out, a.store, "timing", r.t->trace().name, timing_doc);
        written = out.commit();
      }))
    return false;
  if (r.rank == 0 && !a.store.empty()) std::cout << "stored " << written.back() << "\n";
  if (r.rank == 0 && !a.dump.empty()) std::cout << "dump written to " << a.dump << "\n";
  return true;
}

int run_mpi(const RunArgs& a) {
  const MpiSession mpi;
  exec::mpi::stall::start("run", a.stall_timeout);
  MpiRun r{.a = a, .rank = mpi.rank, .size = mpi.size};
  if (!read_run_trace(r) || !check_run_launch(r)) return 2;
  place_and_say(r);
  if (!agree_on_machine(r)) return 2;
  if (!a.dump.empty() && !check_dumps(r)) return 2;
  if (a.dump.empty() || !a.timing.empty() || !a.store.empty()) {
    for (const auto& b : r.backends) {
      auto times = exec::mpi::time_ops(MPI_COMM_WORLD, *r.t, b, a.warmup, a.iters, &r.choice, r.rpn, r.split_cap);
      r.timings.insert(r.timings.end(), times.begin(), times.end());
    }
    if (r.rank == 0) std::cout << exec::mpi::timing_table(*r.t, r.timings, a.iters);
  }
  return write_run_outputs(r) ? 0 : 2;
}
#endif

// "3step, 2step, split-md, split-dd": the catalogue's node-aware strategies.
std::string node_aware_backends() {
  std::string l;
  for (const auto& b : core::kBackends)
    if (b.node_aware) l += (l.empty() ? "" : ", ") + std::string(b.name);
  return l;
}

}  // namespace

int cmd_run(const Args& args) {
  po::options_description opts("run options");
  RunArgs a;
  opts.add_options()("trace", po::value(&a.file), "trace file")("reference", po::bool_switch(&a.reference),
                                                                "use the serial reference executor (all ranks in this process, no MPI)")(
      "backend", backend_value(&a.backend_values),
      "MPI backends: a comma list, repeatable, of the names --backend list prints (default basic), auto (per SF and motion, the one the "
      "simulator predicts fastest) and all (every backend but auto; one the trace or this machine cannot run is skipped, said once); "
      "list alone: what each does")(
      "ranks-per-node", po::value(&a.ranks_per_node),
      "nodes of shm and the node-aware backends: consecutive blocks of N ranks (emulated nodes; default: the trace's machine.ranks_per_node, else "
      "the "
      "ranks that share memory)")("dump", po::value(&a.dump), "write the sf-dump v1 conformance dump to this file (atomically)")(
      "timing", po::value(&a.timing), "write timings (sf-timing v1 JSON) to this file (atomically)")(
      "store", po::value(&a.store), "also file the timing document under this folder (a new file per run, never rewritten)")(
      "warmup", po::value(&a.warmup), "untimed iterations per op (default 2)")("iters", po::value(&a.iters),
                                                                               "timed iterations per op (default 10)")(
      "machine", po::value(&a.machine),
      "with --backend auto: the machine whose predictions choose; with split-md / split-dd: the machine whose split.message_cap cuts "
      "the inter-node chunks (default: the file calibrate saved, else the generic preset)");
  add_max_memory_option(opts, &a.max_memory);
  add_stall_timeout_option(opts, &a.stall_timeout);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("run", "TRACE (--reference | --backend B) [--dump FILE] [--timing FILE] [--store DIR] [--warmup N] [--iters N]", args,
                    opts, pos, vm))
    return 0;
  if (a.backend_values.size() == 1 && a.backend_values[0] == "list") {
    print_backend_list();
    return 0;
  }
  if (a.file.empty()) throw InputError("", "no trace given (usage: sf-replay run TRACE ...; --backend list lists the backends)");
  // Every rank parses the same list before MPI starts (a bad one is one line from rank 0).
  a.backends = parse_backends("run", a.backend_values.empty() ? std::vector<std::string>{core::backend_name(core::kDefaultBackend)} : a.backend_values,
                              {.takes_auto = true});
  bool& uses_nodes = a.uses_nodes;
  bool uses_machine = false;
  for (const auto& [b, aware, from_all] : a.backends.chosen) {
    // auto may choose shm or a node-aware strategy; split-* cut their chunks at the machine's message cap.
    uses_nodes = uses_nodes || b.automatic || core::backend(b.id).nodes;
    uses_machine = uses_machine || from_all || b.automatic || core::backend(b.id).transport == core::Transport::split;
  }
  if (vm.count("ranks-per-node")) {
    if (a.ranks_per_node < 1) throw InputError("--ranks-per-node", "must be >= 1, got " + std::to_string(a.ranks_per_node));
    if (!uses_nodes)
      throw InputError("--ranks-per-node", "only shm and the node-aware backends (" + node_aware_backends() +
                                               ") use nodes, and auto, which may choose them; none is in --backend");
  }
  if (a.warmup < 0) throw InputError("--warmup", "must be >= 0, got " + std::to_string(a.warmup));
  if (a.iters < 1) throw InputError("--iters", "must be >= 1 (a timed run times at least one iteration), got " + std::to_string(a.iters));
  if (vm.count("machine") && !uses_machine)
    throw InputError("--machine",
                     "only --backend auto (to choose backends) and the split strategies (their chunk size) use a machine; give one of "
                     "them or drop --machine");
  if (a.reference) {
    if (vm.count("backend")) throw InputError("--backend", "--reference and --backend exclude each other");
    for (const char* o : {"timing", "warmup", "iters", "store", "stall-timeout"})
      if (vm.count(o))
        throw InputError(std::string("--") + o, "the reference executor is not timed; timings come from the MPI executor (--backend)");
  } else if (!a.dump.empty() && a.timing.empty() && a.store.empty()) {
    // A dump-only run times nothing.
    for (const char* o : {"warmup", "iters"})
      if (vm.count(o)) throw InputError(std::string("--") + o, "nothing is timed in a run with --dump and no --timing; add --timing FILE");
  }
  // Output paths are checked before any work.
  if (!a.dump.empty()) io::check_output_path("--dump", a.dump);
  if (!a.timing.empty()) io::check_output_path("--timing", a.timing);
  if (!a.store.empty()) trace::check_store_dir("--store", a.store);
  if (a.reference) return run_reference(a);
#ifdef HAVE_SFREPLAY_MPI
  return run_mpi(a);
#else
  throw InputError("--backend", "this build has no MPI executor; use --reference");
#endif
}

}  // namespace sfr::cli
