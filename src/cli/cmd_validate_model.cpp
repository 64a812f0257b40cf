// sf-replay validate-model: mpirun -np P sf-replay validate-model TRACE... --machine M [--json F]
// [--backend B,...] [--warmup N] [--iters N] [--repeats R]. Runs every op of every trace of P ranks
// on each backend with the MPI executor, R times with the backends interleaved (repeat 1 of every
// backend, then repeat 2, ...), so that load on the machine falls on all of them alike, and
// predicts it with the simulator on machine M (each op alone, as the executor times it between
// barriers). Measured: the lowest of the repeats' 20th percentiles per iteration (core::kLowShare:
// load only ever adds time), with the repeats' spread. Prints measured against predicted with the relative error, whether it
// is within the measurement's spread, whether the predicted best backend is the measured best, and
// the summary (sim/model_check.hpp).
#include <iostream>
#include <optional>

#include "cli/options.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "core/statistic.hpp"
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
#endif

namespace sfr::cli {

int cmd_validate_model(const Args& args) {
  po::options_description opts("validate-model options");
  std::vector<std::string> files;
  std::string machine, json, store;
  std::vector<std::string> backend_values;
  int warmup = 2, iters = 10, repeats = core::kJudgedRepeats, ranks_per_node = 0;
  std::uint64_t max_memory = 0;
  opts.add_options()("traces", po::value(&files)->composing(), "trace files (those of another rank count are skipped, and said)")(
      "machine,m", po::value(&machine)->required(),
      "machine the predictions are for: a calibrated machine file (sf-replay calibrate), a preset or uniform:...")(
      "backend", backend_value(&backend_values),
      "backends run and simulated: a comma list, repeatable; all (the default): every backend the simulator models (collective "
      "and cuda-* are skipped, said once)")(
      "json", po::value(&json), "also write the comparison (sf-model-check JSON) to this file")(
      "store", po::value(&store), "also file the comparison under this folder (a new file per run, never rewritten)")(
      "ranks-per-node", po::value(&ranks_per_node),
      "nodes of N consecutive ranks, emulated inside the launch's, for the run and the prediction (default: the trace's placement "
      "where the launch allows it, else the launch's nodes); the placement used is printed")(
      "warmup", po::value(&warmup), "untimed iterations per op (default 2)")("iters", po::value(&iters),
                                                                             "timed iterations per op (default 10)")(
      "repeats", po::value(&repeats),
      "interleaved repeats of every backend (default 3): the measurement is the lowest of their 20th percentiles of the iterations, its spread their range");
  add_max_memory_option(opts, &max_memory);
  double stall_timeout = 60;
  add_stall_timeout_option(opts, &stall_timeout);
  po::positional_options_description pos;
  pos.add("traces", -1);
  po::variables_map vm;
  if (parse_options("validate-model",
                    "TRACE... --machine M [--json F] [--store DIR] [--backend B,... ...] [--warmup N] [--iters N] [--repeats R]   (under mpirun)", args, opts,
                    pos, vm))
    return 0;
  if (files.empty()) throw InputError("", "no trace given (usage: sf-replay validate-model TRACE... --machine M ...)");
  if (warmup < 0) throw InputError("--warmup", "must be >= 0, got " + std::to_string(warmup));
  if (vm.count("ranks-per-node") && ranks_per_node < 1) throw InputError("--ranks-per-node", "must be >= 1, got " + std::to_string(ranks_per_node));
  if (iters < 1) throw InputError("--iters", "must be >= 1, got " + std::to_string(iters));
  if (repeats < 1 || repeats > 1000) throw InputError("--repeats", "must be in 1..1000, got " + std::to_string(repeats));
  // Run and simulated: the catalogue's simulated backends (why_not_simulated).
  const auto list =
      parse_backends("validate-model", backend_values.empty() ? std::vector<std::string>{"all"} : backend_values, {.why_not = why_not_simulated});
  const auto& backends = list.names;
  if (!json.empty()) io::check_output_path("--json", json);
  if (!store.empty()) trace::check_store_dir("--store", store);
#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
  const auto m = sim::load_machine(machine);
  const MpiSession mpi;
  const int rank = mpi.rank, size = mpi.size;
  exec::mpi::stall::start("validate-model", stall_timeout);
  say_skipped_backends("validate-model", list);  // rank 0 alone
  const int local = ranks_on_node();
  // What the launch allows and its nodes, found by every rank together before any trace.
  const auto facts = exec::mpi::launch_facts(MPI_COMM_WORLD, backends);
  const auto launch = exec::mpi::launch_nodes(MPI_COMM_WORLD);
  std::vector<sim::ModelPair> pairs;
  std::size_t ran = 0;
  std::string ran_name, ran_file;
  bool warned = false;
  for (const auto& file : files) {
    std::optional<trace::BuiltTrace> t;
    if (!agreed("validate-model", rank, size, [&] {
          t.emplace(trace::read_trace_file(file, {core::memory_limit(max_memory) / static_cast<std::uint64_t>(local)}));
          if (t->trace().nranks == size) core::check_budget(exec::data_estimate(*t, rank, false, false), t->max_memory());
        }))
      return 2;
    const auto& tr = t->trace();
    if (tr.nranks != size) {
      if (rank == 0) std::cout << "skipped " << file << ": needs " << tr.nranks << " ranks, this run has " << size << "\n";
      continue;
    }
    ++ran;
    ran_name = tr.name;
    ran_file = file;
    std::vector<std::string> ran_on;
    std::vector<std::vector<std::vector<exec::mpi::OpTiming>>> measured;  // [backend][repeat][op]
    // The node-aware backends run on the nodes the simulator assumes (the trace's or the machine's,
    // inside the launch's; else the launch's, said once), and the executor has no helper
    // processes: the split strategies are predicted with the node's ranks only.
    const sim::Layout lay = sim::layout_for(tr, m);
    int rpn = 0;
    std::string note;
    const bool given = ranks_per_node > 0;
    if (!agreed("validate-model", rank, size, [&] {
          rpn = exec::mpi::run_ranks_per_node(launch, given ? ranks_per_node : lay.ranks_per_node, given, &note);
        }))
      return 2;
    if (rank == 0 && !note.empty() && !warned) warn("validate-model", note);
    if (const std::string w = sim::machine_mismatch(machine, {trace::host_name(), size, rpn}); rank == 0 && !w.empty() && !warned) {
      warn("validate-model", w);
      warned = true;  // once, not per trace
    }
    auto mt = m;
    mt.procs_per_node = rpn;
    mt.override_topology = true;  // the run's nodes, whatever the trace says
    mt.topology_from = given                                         ? "--ranks-per-node (emulated inside this launch's nodes)"
                       : tr.machine && rpn == lay.ranks_per_node ? "the trace's placement (inside this launch's nodes)"
                                                                 : "this launch's nodes";
    mt.topology.ranks_per_node = rpn;
    mt.topology.ranks_per_socket = std::min(lay.ranks_per_socket, rpn);
    mt.topology.gpus_per_node = lay.gpus_per_node;
    if (rank == 0) std::cout << tr.name << ": " << sim::placement_text(tr, mt) << "\n";
    for (const auto& b : backends) {
      try {
        exec::mpi::check_backend(*t, b, facts);
      } catch (const InputError& e) {
        if (rank == 0) std::cout << "skipped " << b << " on " << tr.name << ": " << e.what() << "\n";
        continue;
      }
      ran_on.push_back(b);
    }
    measured.resize(ran_on.size());
    for (int rep = 0; rep < repeats; ++rep)
      for (std::size_t k = 0; k < ran_on.size(); ++k)
        measured[k].push_back(exec::mpi::time_ops(MPI_COMM_WORLD, *t, ran_on[k], warmup, iters, nullptr, rpn));
    if (rank != 0 || ran_on.empty()) continue;
    // Every op from ranks that start together (the executor times it between barriers).
    std::vector<sim::Backend> sb;
    for (const auto& b : ran_on) sb.push_back(sim::parse_backend(b, "--backend"));
    const auto res = sim::simulate(*t, mt, sb, nullptr, true);
    for (std::size_t k = 0; k < ran_on.size(); ++k)
      for (std::size_t i = 0; i < measured[k].front().size(); ++i) {
        const std::size_t index = measured[k].front()[i].index;
        const auto& o = res.backends.at(k).ops.at(index);
        // Per call, both sides: the executor's iteration is all of the op record's `repeat` calls.
        sim::ModelPair p{tr.name, index, o.label, ran_on[k], 0, o.per_call_s * 1e6};
        const double calls = trace::calls_of(tr.ops.at(index).repeat);
        std::vector<double> lows;
        for (const auto& rep : measured[k]) lows.push_back(rep.at(i).low_us / calls);
        sim::set_measured(p, lows);
        pairs.push_back(std::move(p));
      }
  }
  if (!agreed("validate-model", rank, size, [&] {
        if (ran == 0)
          throw InputError("validate-model",
                           "no trace needs " + std::to_string(size) + " ranks (mpirun -np N with the traces' rank count)");
      }))
    return 2;
  if (rank == 0) {
    const auto c = sim::check_model(std::move(pairs));
    std::cout << sim::render_model_check(c, m.name);
    if (const std::string over = oversubscription(local); !over.empty())
      std::cout << "note: " << over << ": the predictions hold only as far as the machine file was calibrated the same way (these ranks, "
                   "placement and binding to cores" << (bound_to_cores() ? "" : "; these ranks are not bound") << ")\n";
    if (!agreed("validate-model", rank, size, [&] {
          if (json.empty() && store.empty()) return;
          auto doc = sim::model_check_doc(c, m.name);
          // One trace: its name and hash; several: the names only.
          doc.provenance =
              trace::provenance({"validate-model", size, ran == 1 ? ran_name : "", ran == 1 ? ran_file : "", exec::mpi::mpi_library()});
          const std::string text = trace::to_json(doc).dump(2) + "\n";
          io::OutputBatch out;  // both or neither
          if (!json.empty()) out.replace(json, text);
          if (!store.empty()) trace::stage_store_document(out, store, "model-check", ran == 1 ? ran_name : "", text);
          const auto written = out.commit();
          if (!store.empty()) std::cout << "stored " << written.back() << "\n";
        }))
      return 2;
  } else if (!agreed("validate-model", rank, size, [] {})) {
    return 2;
  }
  return 0;
#else
  (void)max_memory;
  throw InputError("validate-model", "this build has no MPI executor or no simulator; validate-model needs both");
#endif
}

}  // namespace sfr::cli
