// sf-replay validate-model: mpirun -np P sf-replay validate-model TRACE... --machine M [--json F]
// [--backend B,...] [--warmup N] [--iters N] [--repeats R]. Runs every op of every trace of P ranks
// on each backend with the MPI executor, R times with the backends interleaved (repeat 1 of every
// backend, then repeat 2, ...), so that load on the machine falls on all of them alike, and
// predicts it with the simulator on machine M (each op alone, as the executor times it between
// barriers). Measured: the lowest of the repeats' 20th percentiles per iteration (core::kLowShare:
// load only ever adds time), with the repeats' spread. Prints measured against predicted with the relative error, whether it
// is within the measurement's spread, whether the predicted best backend is the measured best, and
// the summary (sim/model_check.hpp).
#include <algorithm>
#include <iostream>
#include <optional>

#include "cli/options.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "core/statistic.hpp"
#include "io/json_strict.hpp"
#include "io/output_file.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
#include "cli/mpi_session.hpp"
#include "exec/conformance.hpp"
#include "exec/mpi/launch.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/mpi/stall.hpp"
#include "sim/auto_backend.hpp"
#include "sim/model_check.hpp"
#include "sim/simulate.hpp"
#include "trace/calibration_ring.hpp"
#endif

namespace sfr::cli {

namespace {
struct ValidateArgs {
  std::vector<std::string> files;
  std::string machine, json, store;
  std::vector<std::string> backend_values;
  int warmup = 2, iters = 10, repeats = core::kJudgedRepeats, ranks_per_node = 0;
  std::uint64_t max_memory = 0;
  double stall_timeout = 60;
};

// The options, checked; nullopt for --help (printed).
std::optional<ValidateArgs> parse_validate_args(const Args& args) {
  ValidateArgs v;
  po::options_description opts("validate-model options");
  opts.add_options()("traces", po::value(&v.files)->composing(), "trace files (those of another rank count are skipped, and said)")(
      "machine,m", po::value(&v.machine)->required(),
      "machine the predictions are for: a calibrated machine file (sf-replay calibrate), a preset or uniform:...")(
      "backend", backend_value(&v.backend_values),
      "backends run and simulated: a comma list, repeatable; all (the default): every backend the simulator models (collective "
      "and cuda-* are skipped, said once)")(
      "json", po::value(&v.json), "also write the comparison (sf-model-check JSON) to this file")(
      "store", po::value(&v.store), "also file the comparison under this folder (a new file per run, never rewritten)")(
      "ranks-per-node", po::value(&v.ranks_per_node),
      "nodes of N consecutive ranks, emulated inside the launch's, for the run and the prediction (default: the trace's placement "
      "where the launch allows it, else the launch's nodes); the placement used is printed")(
      "warmup", po::value(&v.warmup), "untimed iterations per op (default 2)")("iters", po::value(&v.iters),
                                                                               "timed iterations per op (default 10)")(
      "repeats", po::value(&v.repeats),
      "interleaved repeats of every backend (default 3): the measurement is the lowest of their 20th percentiles of the iterations, its spread their range");
  add_max_memory_option(opts, &v.max_memory);
  add_stall_timeout_option(opts, &v.stall_timeout);
  po::positional_options_description pos;
  pos.add("traces", -1);
  po::variables_map vm;
  if (parse_options("validate-model",
                    "TRACE... --machine M [--json F] [--store DIR] [--backend B,... ...] [--warmup N] [--iters N] [--repeats R]   (under mpirun)", args, opts,
                    pos, vm))
    return std::nullopt;
  if (v.files.empty()) throw InputError("", "no trace given (usage: sf-replay validate-model TRACE... --machine M ...)");
  if (v.warmup < 0) throw InputError("--warmup", "must be >= 0, got " + std::to_string(v.warmup));
  if (vm.count("ranks-per-node") && v.ranks_per_node < 1)
    throw InputError("--ranks-per-node", "must be >= 1, got " + std::to_string(v.ranks_per_node));
  if (v.iters < 1) throw InputError("--iters", "must be >= 1, got " + std::to_string(v.iters));
  if (v.repeats < 1 || v.repeats > 1000) throw InputError("--repeats", "must be in 1..1000, got " + std::to_string(v.repeats));
  if (!v.json.empty()) io::check_output_path("--json", v.json);
  if (!v.store.empty()) trace::check_store_dir("--store", v.store);
  return v;
}

#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
// What the whole launch shares between its traces.
struct Validation {
  const ValidateArgs& v;
  const sim::MachineModel m;
  std::vector<core::BackendChoice> backends;
  int rank = 0, size = 0, local = 1;
  exec::mpi::LaunchFacts facts{};
  exec::mpi::LaunchNodes launch{};
  std::vector<sim::ModelPair> pairs{};
  std::size_t ran = 0;
  std::string ran_name{}, ran_file{};
  bool warned = false;  // about the placement or the machine file: once, not per trace
  // basic on calibrate's ring (sim::RingCheck): the machine file's, where it has one for this
  // rank count (0: none), and this run's, timed once after every repeat of every trace.
  double ring_calibrated_us = 0;
  std::optional<trace::BuiltTrace> ring{};
  std::vector<double> ring_lows{};
};

// basic's time on calibrate's permuted ring as a machine file recorded it (calibration.measured
// .sf_op_by_backend_s.basic, seconds), for a calibration of `ranks` ranks; 0 for a preset, an inline
// machine or a file without one.
double calibrated_ring_us(const std::string& machine, int ranks) {
  if (sim::preset(machine) || machine.rfind("uniform:", 0) == 0) return 0;
  const auto j = io::parse_json_strict(io::read_text_file(machine), machine);
  const io::Json* c = j.contains("calibration") ? &j["calibration"] : nullptr;
  if (!c || !c->contains("ranks") || (*c)["ranks"] != ranks) return 0;
  const io::Json::json_pointer at("/measured/sf_op_by_backend_s/basic");
  if (!c->contains(at) || !c->at(at).is_number() || c->at(at).get<double>() <= 0) return 0;
  return c->at(at).get<double>() * 1e6;
}

// One more time of basic on calibrate's ring, as calibrate timed it (its iterations per round,
// their 20th percentile), where the machine file has the calibrated one.
void time_ring(Validation& val, int rpn) {
  if (val.ring_calibrated_us <= 0) return;
  if (!val.ring) val.ring.emplace(trace::calibration_ring_trace(val.size));
  val.ring_lows.push_back(exec::mpi::time_ops(MPI_COMM_WORLD, *val.ring, core::BackendChoice::of(core::BackendId::basic), core::kExecutorWarmup, core::kExecutorIters, nullptr, rpn).at(0).low_us);
}

// The machine on the run's nodes: the node-aware backends run on the nodes the simulator assumes
// (the trace's or the machine's, inside the launch's; else the launch's, said once), and the
// executor has no helper processes: the split strategies are predicted with the node's ranks
// only. nullopt where the ranks did not agree.
std::optional<sim::MachineModel> machine_on_run_nodes(Validation& val, const trace::Trace& tr, int& rpn) {
  const core::RankLayout lay = sim::layout_for(tr, val.m);
  std::string note;
  const bool given = val.v.ranks_per_node > 0;
  if (!agreed("validate-model", val.rank, val.size, [&] {
        rpn = exec::mpi::run_ranks_per_node(val.launch, given ? val.v.ranks_per_node : lay.ranks_per_node, given, &note);
      }))
    return std::nullopt;
  if (val.rank == 0 && !note.empty() && !val.warned) warn("validate-model", note);
  if (const std::string w = sim::machine_mismatch(val.v.machine, {trace::host_name(), val.size, rpn}); val.rank == 0 && !w.empty() && !val.warned) {
    warn("validate-model", w);
    val.warned = true;
  }
  auto mt = val.m;
  mt.procs_per_node = rpn;
  mt.override_topology = true;  // the run's nodes, whatever the trace says
  mt.topology_from = given                                    ? "--ranks-per-node (emulated inside this launch's nodes)"
                     : tr.machine && rpn == lay.ranks_per_node ? "the trace's placement (inside this launch's nodes)"
                                                               : "this launch's nodes";
  mt.topology.ranks_per_node = rpn;
  mt.topology.ranks_per_socket = std::min(lay.ranks_per_socket, rpn);
  mt.topology.gpus_per_node = lay.gpus_per_node;
  return mt;
}

// Rank 0: every op of every backend run, predicted from ranks that start together (the executor
// times it between barriers), per call on both sides (the executor's iteration is all of the op
// record's `repeat` calls).
void add_pairs(Validation& val, const trace::BuiltTrace& t, const sim::MachineModel& mt, const std::vector<core::BackendChoice>& ran_on,
               const std::vector<std::vector<std::vector<exec::mpi::OpTiming>>>& measured) {
  const auto& tr = t.trace();
  std::vector<sim::BackendVariant> sb;
  for (const auto& b : ran_on) sb.push_back({b.id, false});
  const auto res = sim::simulate(t, mt, sb, nullptr, true);
  for (std::size_t k = 0; k < ran_on.size(); ++k)
    for (std::size_t i = 0; i < measured[k].front().size(); ++i) {
      const std::size_t index = measured[k].front()[i].index;
      const auto& o = res.backends.at(k).ops.at(index);
      sim::ModelPair p{tr.name, index, o.label, ran_on[k].name(), 0, o.per_call_s * 1e6};
      const double calls = trace::calls_of(tr.ops.at(index).repeat);
      std::vector<double> lows;
      for (const auto& rep : measured[k]) lows.push_back(rep.at(i).low_us / calls);
      sim::set_measured(p, lows);
      val.pairs.push_back(std::move(p));
    }
}

// One trace: skipped (and said) where it has another rank count; else run on every backend this
// launch can run it on, `repeats` times interleaved, and predicted. False where the ranks did not
// agree.
bool validate_trace(Validation& val, const std::string& file) {
  const ValidateArgs& v = val.v;
  std::optional<trace::BuiltTrace> t;
  if (!agreed("validate-model", val.rank, val.size, [&] {
        t.emplace(trace::read_trace_file(file, {core::memory_limit(v.max_memory) / static_cast<std::uint64_t>(val.local)}));
        if (t->trace().nranks == val.size) core::check_budget(exec::data_estimate(*t, val.rank, false, false), t->max_memory());
      }))
    return false;
  const auto& tr = t->trace();
  if (tr.nranks != val.size) {
    if (val.rank == 0) std::cout << "skipped " << file << ": needs " << tr.nranks << " ranks, this run has " << val.size << "\n";
    return true;
  }
  ++val.ran, val.ran_name = tr.name, val.ran_file = file;
  int rpn = 0;
  const auto mt = machine_on_run_nodes(val, tr, rpn);
  if (!mt) return false;
  if (val.rank == 0) std::cout << tr.name << ": " << sim::placement_text(tr, *mt) << "\n";
  std::vector<core::BackendChoice> ran_on;
  for (const auto& b : val.backends) {
    try {
      exec::mpi::check_backend(*t, b, val.facts);
    } catch (const InputError& e) {
      if (val.rank == 0) std::cout << "skipped " << b.name() << " on " << tr.name << ": " << e.what() << "\n";
      continue;
    }
    ran_on.push_back(b);
  }
  std::vector<std::vector<std::vector<exec::mpi::OpTiming>>> measured(ran_on.size());  // [backend][repeat][op]
  for (int rep = 0; rep < v.repeats; ++rep) {
    for (std::size_t k = 0; k < ran_on.size(); ++k)
      measured[k].push_back(exec::mpi::time_ops(MPI_COMM_WORLD, *t, ran_on[k], v.warmup, v.iters, nullptr, rpn));
    time_ring(val, rpn);
  }
  if (val.rank == 0 && !ran_on.empty()) add_pairs(val, *t, *mt, ran_on, measured);
  return true;
}

// Rank 0 prints the comparison and writes its JSON and stored copy (both or neither).
bool report_model_check(Validation& val) {
  const ValidateArgs& v = val.v;
  sim::RingCheck ring;
  if (!val.ring_lows.empty()) ring = {val.ring_calibrated_us, *std::min_element(val.ring_lows.begin(), val.ring_lows.end())};
  const auto c = sim::check_model(std::move(val.pairs), ring);
  std::cout << sim::render_model_check(c, val.m.name);
  if (const std::string over = oversubscription(val.local); !over.empty())
    std::cout << "note: " << over << ": the predictions hold only as far as the machine file was calibrated the same way (these ranks, "
                 "placement and binding to cores" << (bound_to_cores() ? "" : "; these ranks are not bound") << ")\n";
  return agreed("validate-model", val.rank, val.size, [&] {
    if (v.json.empty() && v.store.empty()) return;
    auto doc = sim::model_check_doc(c, val.m.name);
    // One trace: its name and hash; several: the names only.
    const bool one = val.ran == 1;
    doc.provenance = trace::provenance({"validate-model", val.size, one ? val.ran_name : "", one ? val.ran_file : "", exec::mpi::mpi_library()});
    const std::string text = trace::to_json(doc).dump(2) + "\n";
    io::OutputBatch out;
    if (!v.json.empty()) out.replace(v.json, text);
    if (!v.store.empty()) trace::stage_store_document(out, v.store, "model-check", one ? val.ran_name : "", text);
    const auto written = out.commit();
    if (!v.store.empty()) std::cout << "stored " << written.back() << "\n";
  });
}
#endif
}  // namespace

int cmd_validate_model(const Args& args) {
  const auto v = parse_validate_args(args);
  if (!v) return 0;
  // Run and simulated: the catalogue's simulated backends (why_not_simulated).
  const auto list =
      parse_backends("validate-model", v->backend_values.empty() ? std::vector<std::string>{"all"} : v->backend_values, {.why_not = why_not_simulated});
#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
  Validation val{.v = *v, .m = sim::load_machine(v->machine), .backends = {}};
  for (const auto& b : list.chosen) val.backends.push_back(b.backend);
  const MpiSession mpi;
  val.rank = mpi.rank, val.size = mpi.size, val.local = ranks_on_node();
  val.ring_calibrated_us = calibrated_ring_us(v->machine, val.size);  // every rank reads it: all time the ring or none
  exec::mpi::stall::start("validate-model", v->stall_timeout);
  say_skipped_backends("validate-model", list);  // rank 0 alone
  // What the launch allows and its nodes, found by every rank together before any trace.
  val.facts = exec::mpi::launch_facts(MPI_COMM_WORLD, val.backends);
  val.launch = exec::mpi::launch_nodes(MPI_COMM_WORLD);
  for (const auto& file : v->files)
    if (!validate_trace(val, file)) return 2;
  if (!agreed("validate-model", val.rank, val.size, [&] {
        if (val.ran == 0)
          throw InputError("validate-model", "no trace needs " + std::to_string(val.size) + " ranks (mpirun -np N with the traces' rank count)");
      }))
    return 2;
  if (val.rank == 0) return report_model_check(val) ? 0 : 2;
  return agreed("validate-model", val.rank, val.size, [] {}) ? 0 : 2;
#else
  (void)list;
  throw InputError("validate-model", "this build has no MPI executor or no simulator; validate-model needs both");
#endif
}

}  // namespace sfr::cli
