// sf-replay calibrate: mpirun -np P sf-replay calibrate -o machine.json [--ranks-per-node N]
// [--ranks-per-socket N]. Measures this machine (exec/mpi/calibrate.hpp), fits the simulator's
// model to it (sim/calibration.hpp), prints each fitted parameter with its error and writes a
// machine file that `simulate --machine FILE` reads.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>

#include "cli/options.hpp"
#include "core/calibration_data.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/progress.hpp"
#include "core/tier.hpp"
#include "io/output_file.hpp"
#include "trace/provenance.hpp"

#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
#include "cli/mpi_session.hpp"
#include "exec/mpi/calibrate.hpp"
#include "exec/mpi/launch.hpp"
#include "exec/mpi/stall.hpp"
#include "sim/auto_backend.hpp"
#include "sim/calibration.hpp"
#endif

namespace sfr::cli {

namespace {
#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
io::Json samples(const std::vector<core::TimedSample>& v) {
  io::Json a = io::Json::array();
  for (const auto& s : v) a.push_back({s.x, s.seconds});
  return a;
}

io::Json overheads_json(const core::CalibrationData::Overheads& o) {
  return {{"o_send", o.o_send}, {"o_recv", o.o_recv}, {"train_messages_seconds", samples(o.train)}};
}

// The raw measurements, kept in the machine file next to the fitted parameters.
io::Json measured_json(const core::CalibrationData& d) {
  io::Json j;
  for (const auto& [tier, name] : core::kTierNames) {
    const auto k = static_cast<std::size_t>(tier);
    if (!d.pingpong[k].empty()) j["pingpong"][name] = {{"partner", d.partner[k]}, {"bytes_seconds", samples(d.pingpong[k])}};
  }
  j.update(overheads_json(d.overheads));  // the fastest tier's, at the top
  for (const auto& [tier, name] : core::kTierNames)
    if (const auto& o = d.slower_overheads[static_cast<std::size_t>(tier)]) j["overheads_by_tier"][name] = overheads_json(*o);
  if (d.injection.senders > 1)
    j["injection"] = {{"senders", d.injection.senders},
                      {"bytes_per_sender", d.injection.bytes},
                      {"seconds", d.injection.seconds},
                      {"single_seconds", d.injection.single_seconds}};
  j["fence_s"] = d.fence;
  j["neighbor_alltoallv_s"] = d.neighbor;
  j["alltoallv_s"] = d.alltoallv;
  j["pack_bytes_seconds"] = samples(d.pack);
  if (d.device)
    j["device"] = {{"name", d.device->name},         {"emulated", d.device->emulated},   {"h2d_bytes_seconds", samples(d.device->h2d)},
                   {"d2h_bytes_seconds", samples(d.device->d2h)}, {"launch_s", d.device->launch}, {"bandwidth_bytes_per_s", d.device->bandwidth}};
  j["sf_op_s"] = d.sf_op_backend[0];  // basic
  // Each measurement of the executor (core::kExecutorMeasurements), an object by backend; one that
  // not every backend times has the backends measured only. Backend by backend, so that a key
  // comes where the first backend with it puts it (the files' order since they had these keys).
  for (std::size_t k = 0; k < std::size(core::kCalibratedBackends); ++k)
    for (const core::ExecutorMeasurement& m : core::kExecutorMeasurements)
      if (const double s = (d.*m.field)[k]; !m.measured_only || s >= 0) j[std::string(m.key)][core::kCalibratedBackends[k]] = s;
  if (d.sf_mate_ring > 0)
    j["sf_mate_ring_basic_s"] = {{"cores", d.cores},
                                 {"bytes_seconds", samples({{8.0 * core::kCalibrationSmallValues, d.sf_mate_ring_small},
                                                            {8.0 * core::kCalibrationSfOpValues, d.sf_mate_ring}})}};
  return j;
}

// What says that the executor's rounds met load ("" when nothing does).
std::string met_load(const core::CalibrationData& d) {
  if (d.executor_cpu_share > 0 && d.executor_cpu_share < core::kLoadedCpuShare)
    return "a rank had " + core::format_number("%.0f%%", 100 * d.executor_cpu_share) + " of the CPU it could expect while the executor was timed";
  if (d.executor_spread > core::kLoadedSpread)
    return "the executor's rounds spread to " + core::format_number("%.1fx", d.executor_spread) + " their least (the median of " +
           std::to_string(d.executor_rounds) + " rounds of basic's ring)";
  return "";
}

// Rank 0: fits the model to what was measured, writes the machine file (and the default one
// unless `def` is empty) and says what it fitted and what it doubts.
void save_machine(const core::CalibrationData& data, const std::string& out, const std::string& def, bool emulated,
                  const exec::mpi::LaunchNodes& launch, int local) {
  auto cal = sim::calibrate_machine(data);
  io::Json j = sim::machine_to_json(cal.machine);
  j["calibration"] = {{"host", data.host},
                      {"date", trace::iso8601_utc_now()},
                      {"ranks", data.ranks},
                      {"nodes", data.nodes},
                      {"ranks_per_node", data.ranks_per_node},
                      {"ranks_per_socket", data.ranks_per_socket},
                      {"fit", cal.lines},
                      {"worst_fit_error", cal.worst_rms},
                      {"measured", measured_json(data)},
                      {"emulated_nodes", emulated},
                      {"launch_nodes", launch.nodes},
                      {"ranks_on_host", local},
                      {"cores", cores_on_node()},
                      {"executor_rounds", data.executor_rounds},
                      {"executor_spread", data.executor_spread},
                      {"executor_cpu_share", data.executor_cpu_share}};
  sim::parse_machine(j, out);  // never write a machine file that simulate --machine would refuse
  io::write_file_atomic(out, j.dump(2) + "\n");
  if (!def.empty()) {  // where run --backend auto looks (a failure here is not fatal: -o is written)
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(def).parent_path(), ec);
    try {
      io::write_file_atomic(def, j.dump(2) + "\n");
      std::cout << "also saved as the machine of run --backend auto: " << def << "\n";
    } catch (const std::exception& e) {
      std::cout << "note: could not save the machine of run --backend auto (" << e.what() << ")\n";
    }
  }
  std::cout << "calibrated " << data.host << ": " << data.ranks << " ranks, " << data.nodes << " node(s) of " << data.ranks_per_node
            << " ranks" << (emulated ? " (emulated)" : launch.nodes > 1 ? " (real: a network between them)" : "") << ", " << data.ranks_per_socket << " per socket\n";
  for (const auto& l : cal.lines) std::cout << "  " << l << "\n";
  if (const std::string load = met_load(data); !load.empty())
    warn("calibrate", "the machine was loaded while calibrating: " + load +
                          "; the fit keeps the least of its rounds, but rerun on a quiet machine for numbers that repeat");
  for (const auto& w : sim::implausible_fit(cal.machine, cal.measured, cal.worst_rms))
    warn("calibrate", w);
  if (const std::string over = oversubscription(local); !over.empty())
    warn("calibrate", over + ": the measured times include waits for a core; the machine file describes an oversubscribed run, "
                            "not this machine" +
                            std::string(bound_to_cores() ? ""
                                                         : " (and the ranks are not bound to cores, so how they share them changes from "
                                                           "run to run: bind them, e.g. Open MPI's --bind-to core:overload-allowed --map-by "
                                                           "core, for numbers that repeat)"));
  std::cout << "machine written to " << out << " (sf-replay simulate TRACE --machine " << out << ")\n";
}
#endif

}  // namespace

int cmd_calibrate(const Args& args) {
  po::options_description opts("calibrate options");
  std::string out;
  int rpn = 0, rps = 0;
  bool no_default = false;
  double stall_timeout = 60;
  double executor_seconds = core::kExecutorSeconds;
  add_stall_timeout_option(opts, &stall_timeout);
  opts.add_options()("output,o", po::value(&out)->required(), "machine file to write (sf-machine JSON, atomically)")(
      "ranks-per-node", po::value(&rpn), "emulated nodes of N consecutive ranks (default: the real nodes, by shared memory)")(
      "ranks-per-socket", po::value(&rps), "sockets of N consecutive ranks of a node (default: one socket per node)")(
      "no-default", po::bool_switch(&no_default),
      "do not also save the machine where run --backend auto looks for it ($SFR_MACHINE_FILE, else ~/.config/sf-replay/machine.json, or "
      "machine-emulated.json there for emulated nodes)")(
      "executor-seconds", po::value(&executor_seconds),
      ("how long to time the executor's own costs, calibrate's longest part (default " + core::format_number("%.0f", core::kExecutorSeconds) +
       "; at least " + std::to_string(core::kMinExecutorRounds) + " rounds however long they take, at most " +
       std::to_string(core::kMaxExecutorRounds) + "): over a network a round takes about a second")
          .c_str());
  po::positional_options_description pos;
  po::variables_map vm;
  if (parse_options("calibrate", "-o FILE [--ranks-per-node N] [--ranks-per-socket N] [--no-default] [--executor-seconds S]   (under mpirun, at least 2 ranks)",
                    args, opts, pos, vm))
    return 0;
  if (!(executor_seconds >= 0)) throw InputError("--executor-seconds", "must be >= 0");
  if (vm.count("ranks-per-node") && rpn < 1) throw InputError("--ranks-per-node", "must be >= 1, got " + std::to_string(rpn));
  if (vm.count("ranks-per-socket") && rps < 1) throw InputError("--ranks-per-socket", "must be >= 1, got " + std::to_string(rps));
  if (rpn > 0 && rps > rpn)
    throw InputError("--ranks-per-socket", std::to_string(rps) + " ranks per socket exceed " + std::to_string(rpn) + " ranks per node");
  if (rpn > 0 && rps > 0 && rpn % rps != 0)  // the machine file would not be read back (sockets split nodes evenly)
    throw InputError("--ranks-per-socket", std::to_string(rps) + " must divide --ranks-per-node " + std::to_string(rpn));
  io::check_output_path("--output", out);
#if defined(HAVE_SFREPLAY_MPI) && defined(HAVE_SFREPLAY_SIM)
  const MpiSession mpi;
  exec::mpi::stall::start("calibrate", stall_timeout);
  if (!agreed("calibrate", mpi.rank, mpi.size, [&] {
        if (mpi.size < 2)
          throw InputError("calibrate", "needs at least 2 ranks to measure messages (mpirun -np 2 sf-replay calibrate ...)");
        if (rpn > mpi.size)
          throw InputError("--ranks-per-node", std::to_string(rpn) + " exceeds the " + std::to_string(mpi.size) + " ranks of this run");
      }))
    return 2;
  // The launch's nodes (real ones: a network between them) and emulated nodes inside them.
  const auto launch = exec::mpi::launch_nodes(MPI_COMM_WORLD);
  if (!agreed("calibrate", mpi.rank, mpi.size, [&] {
        if (rpn > 0) exec::mpi::run_ranks_per_node(launch, rpn, true, nullptr);
      }))
    return 2;
  const bool emulated = rpn > 0 && rpn != launch.block;
  const std::string def = no_default ? "" : sim::default_machine_path(emulated);
  exec::mpi::CalibrateOptions o;
  o.executor_seconds = executor_seconds;
  o.ranks_per_node = rpn;
  o.ranks_per_socket = rps;
  core::Progress progress("calibrate", 0, stderr, mpi.rank == 0 && core::progress_wanted(stderr));
  o.progress = [&](const std::string& what) { progress.step(what); };
  const int local = ranks_on_node();
  // Ranks that outnumber the host's cores share them round robin: the simulator shares the
  // executor's work per call between the ranks of one core (MachineModel::CoreSharing). The ring
  // between core mates is measured where every rank is on this host (the same answer on every
  // rank, so the collective measurement is entered by all or none) and at least 2 cores hold as
  // many ranks each: then the rings the executor's costs are fitted on (rank r reads rank r+1) all
  // cross cores, and the ring between core mates (rank r reads rank r+cores) never does.
  const int cores = cores_on_node();
  if (local == mpi.size && local > cores && cores >= 2 && local % cores == 0) o.cores = cores;
  auto data = exec::mpi::calibrate(MPI_COMM_WORLD, o);
  data.ranks_on_host = local;
  data.cores = local > cores ? cores : 0;
  progress.done();
  if (!agreed("calibrate", mpi.rank, mpi.size, [&] {
        if (mpi.rank == 0) save_machine(data, out, def, emulated, launch, local);
      }))
    return 2;
  return 0;
#else
  throw InputError("calibrate", "this build has no MPI executor or no simulator; calibrate needs both");
#endif
}

}  // namespace sfr::cli
