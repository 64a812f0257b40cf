#include "analysis/report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/backends.hpp"
#include "core/calibration_data.hpp"
#include "core/format.hpp"
#include "core/statistic.hpp"

namespace sfr::analysis {

namespace {

void star_forests(std::ostringstream& o, const TraceStats& ts) {
  o << "## Star forests\n\n";
  o << "| SF | form | roots | leaves | degree min/mean/max | messages | socket | node | network | self share | max out/in | leaf imbalance "
       "|\n";
  o << "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|\n";
  for (const SFStats& s : ts.sfs) {
    const double tot = static_cast<double>(s.self_edges + s.remote_edges);
    char deg[64];
    std::snprintf(deg, sizeof deg, "%lld / %.2f / %lld", (long long)s.degree_min, s.degree_mean, (long long)s.degree_max);
    o << "| " << s.name << " | " << s.form << " | " << s.roots << " | " << s.leaves << " | " << deg << " | " << s.messages << " | "
      << s.tier_messages.v[0] << " | " << s.tier_messages.v[1] << " | " << s.tier_messages.v[2] << " | "
      << core::format_number("%.1f%%", tot > 0 ? 100.0 * static_cast<double>(s.self_edges) / tot : 0.0) << " | " << s.max_out_degree << "/"
      << s.max_in_degree << " | " << core::format_number("%.2f", s.leaf_imbalance) << " |\n";
  }
}

void measured(std::ostringstream& o, const trace::TimingDoc& j) {
  o << "\n## Measured times (MPI executor)\n\n"
    << j.iters << " timed iterations per op; an iteration runs the op `repeat` times, and its time is the maximum over " << j.nranks
    << " ranks. Per call: the iterations' median over `repeat`; the iteration columns are totals of `repeat` calls.\n\n";
  o << "| op# | op | sf | backend | unit | bs | bytes | messages | repeat | per call us | iteration min us | iteration median us | "
       "iteration max us |\n|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : j.results)
    o << "| " << r.index << " | " << r.op << " | " << r.sf << " | " << r.backend << " | " << r.unit << " | " << r.bs << " | " << r.bytes
      << " | " << r.messages << " | " << r.repeat << " | " << core::format_number("%.2f", r.per_call_us()) << " | " << core::format_number("%.2f", r.min_us) << " | "
      << core::format_number("%.2f", r.median_us) << " | " << core::format_number("%.2f", r.max_us) << " |\n";
}

// The backend a timing result ran: under --backend auto the one it chose ("auto:shm" ran shm's code).
std::string chosen(const std::string& backend) {
  const std::string c = trace::auto_choice(backend);
  return c.empty() ? backend : c;
}

// Backend name of a simulator result without its GPU path suffix ("basic:aware" -> "basic").
std::string base_backend(const std::string& b) { return b.substr(0, b.find(':')); }

// A machine written by `sf-replay calibrate` (its name says so): the prediction is for the
// machine it measured.
bool calibrated(const std::string& machine) { return machine.rfind(core::kCalibratedMachinePrefix, 0) == 0; }

void predicted(std::ostringstream& o, const trace::SimulationDoc& j, bool what_if) {
  if (what_if)
    o << "\n## What-if: predicted on machine `" << j.machine << "`\n\nA machine other than the one measured (" << j.model
      << " model): predictions only, not checked against the measurements; all repeats of every op, in "
      << "microseconds.\n\n";
  else
    o << "\n## Predicted times (simulator)\n\nmachine `" << j.machine << "` (" << j.model
      << " model); all repeats of every op, in microseconds.\n\n";
  if (j.placement.is_object()) o << "The simulator's " << j.placement.value("text", std::string()) << ".\n\n";
  double best = -1;
  for (const auto& b : j.backends)
    if (best < 0 || b.total < best) best = b.total;
  o << "| backend | total us | messages | vs best |\n|---|---:|---:|---:|\n";
  for (const auto& b : j.backends)
    o << "| " << b.backend << " | " << core::format_number("%.3f", b.total * 1e6) << " | " << b.messages << " | "
      << (best > 0 ? core::format_number("%.2fx", b.total / best) : std::string("-")) << " |\n";
}

// Per op and executor backend: measured median next to the simulator's prediction for the same
// backend (host path). The ratio shows how far the chosen machine model is from the machine the
// timings were taken on (the calibration target).
void side_by_side(std::ostringstream& o, const trace::TimingDoc& timing, const trace::SimulationDoc& sim) {
  std::map<std::pair<std::string, std::size_t>, double> pred;  // (backend, op index) -> us per call
  for (const auto& b : sim.backends) {
    if (b.backend.find(":aware") != std::string::npos) continue;
    for (const auto& op : b.ops) pred[{base_backend(b.backend), op.index}] = op.per_call_us();
  }
  std::ostringstream rows;
  for (const auto& measured : timing.results) {
    const trace::TimingResult r = trace::per_call(measured);
    const auto it = pred.find({chosen(r.backend), r.index});
    if (it == pred.end()) continue;
    // The statistic the model is fitted on (core::low_share_of), where the document has the samples.
    std::vector<double> sorted = r.samples_us;
    std::sort(sorted.begin(), sorted.end());
    const double m = sorted.empty() ? r.median_us : core::low_share_of(sorted), p = it->second;
    rows << "| " << r.index << " | " << r.op << " | " << r.backend << " | " << core::format_number("%.2f", m) << " | " << core::format_number("%.3f", p) << " | "
         << (p > 0 ? core::format_number("%.1f", m / p) : std::string("-")) << " |\n";
  }
  if (rows.str().empty()) return;
  const std::string& machine = sim.machine;
  o << "\n## Measured vs predicted\n\nMeasured time (the 20th percentile of the iterations, what calibrate fits; the median in "
       "documents without their samples) against the simulator's prediction for the same op and backend on machine `"
    << machine << "`. "
    << (calibrated(machine)
            ? "The prediction is for the machine measured (its calibration): the ratio is the model's error.\n\n"
            : "Machine `" + machine +
                  "` is not a calibration of the machine measured: the ratio compares two machines (a what-if), it is not the "
                  "model's error. `sf-replay calibrate` makes a machine file of the machine measured.\n\n")
    << "| op# | op | backend | measured us per call | predicted us per call | measured / predicted |\n|---:|---|---|---:|---:|---:|\n"
    << rows.str();
}

// The validate-model comparison (sf-model-check): per op and backend, the executor's time (its
// statistic: the lowest of the repeats' 20th percentiles) against the simulator's prediction on the document's machine and the relative error.
void model_check(std::ostringstream& o, const trace::ModelCheckDoc& mc, const std::string& trace) {
  std::ostringstream rows;
  std::size_t n = 0;
  for (const auto& p : mc.pairs) {
    if (p.trace != trace) continue;
    const double m = p.measured_us, pr = p.predicted_us;
    rows << "| " << p.op << " | " << p.label << " | " << p.backend << " | " << core::format_number("%.2f", m) << " | " << core::format_number("%.3f", pr) << " | "
         << (m > 0 ? core::format_number("%+.1f%%", 100 * (pr - m) / m) : std::string("-")) << " |\n";
    ++n;
  }
  const std::string& machine = mc.machine;
  o << "\n## Measured vs predicted (validate-model)\n\n"
    << n << " (op, backend) pairs of this trace from `sf-replay validate-model` on machine `" << machine << "`"
    << (calibrated(machine) ? " (a calibration of the machine measured)" : " (not a calibration of the machine measured)")
    << "; error = (predicted - measured) / measured.";
  // median_abs_error is a required member of the document's summary.
  o << " Over the whole document: median |error| " << core::format_number("%.1f%%", 100 * mc.median_abs_error) << ".";
  o << "\n\n| op# | op | backend | measured us | predicted us | error |\n|---:|---|---|---:|---:|---:|\n" << rows.str();
}

// Which SFs and ops dominate a captured application's communication: its exact op counts times
// what one op moves and, where measured, takes.
void captured(std::ostringstream& o, const CaptureSummary& c) {
  const auto& m = c.meta;
  o << "\n## Captured application\n\n";
  std::string cmd;
  for (const auto& w : m.value("command", io::Json::array())) cmd += (cmd.empty() ? "" : " ") + w.get<std::string>();
  o << "- command: `" << cmd << "`\n- PETSc " << m.value("petsc_version", "") << ", " << m.value("ranks", 0) << " ranks, captured "
    << m.value("date", "") << "\n- SF operations: " << m.value("ops_recorded", 0LL) << " (" << m.value("ops_in_trace", 0LL)
    << " in the trace's op records, " << m.value("ops_dropped", 0LL) << " beyond its cap only counted)\n";
  if (const auto sc = m.value("scaled", io::Json::object()); !sc.empty())
    o << "- scaled by `sf-replay scale` from the capture at " << sc.value("from_ranks", 0) << " ranks: " << sc.value("regenerated", io::Json::array()).size()
      << " DMDA SF(s) regenerated at " << sc.value("ranks", 0) << ", " << sc.value("left_out", io::Json::array()).size()
      << " left out; the op stream and counts as captured\n";
  std::int64_t skipped = 0;
  for (const auto& n : m.value("not_recorded", io::Json::array())) skipped += n.value("count_all_ranks", 0LL);
  if (skipped > 0) o << "- calls not recorded (summed over ranks; reasons in the trace's meta): " << skipped << "\n";
  for (const auto& s : m.value("sfs", io::Json::array()))
    if (s.contains("built_by") && s["built_by"].contains("dmda")) {
      const auto& d = s["built_by"]["dmda"];
      const auto& n = d.value("sizes", io::Json::array());
      const auto& p = d.value("processes", io::Json::array());
      const std::size_t dim = d.value("dim", std::size_t{0});
      std::string sizes, procs;
      for (std::size_t k = 0; k < dim && k < n.size() && k < p.size(); ++k)
        sizes += (k ? " x " : "") + n[k].dump(), procs += (k ? " x " : "") + p[k].dump();
      o << "- " << s.value("name", "") << ": " << (s["built_by"].value("role", "") == "matmult" ? "the MatMult scatter of a matrix made from"
                                                                                                    : "the global-to-local scatter of")
        << " a " << dim << "-D DMDA (" << sizes << ", dof " << d.value("dof", 0) << ", " << d.value("stencil", "") << " stencil of width "
        << d.value("stencil_width", 0) << ", " << procs << " processes)\n";
    }
  if (const auto hosts = m.value("hosts", io::Json::array()); !hosts.empty()) {
    std::set<std::string> distinct;
    for (const auto& h : hosts) distinct.insert(h.is_string() ? h.get<std::string>() : h.dump());
    o << "- ran on " << distinct.size() << " host(s): " << m.value("placement", std::string("its placement not recorded")) << "\n";
  }
  // Calls beyond the op records' cap have no record: nothing says what they move or take.
  std::int64_t calls = 0, unknown = 0;
  for (const auto& r : c.rows) calls += r.count, unknown += r.records == 0 ? r.count : 0;
  if (unknown > 0)
    o << "\n**Warning:** " << unknown << " of " << calls
      << " calls have no op record in the trace (they came after its --max-ops records were full): their bytes and times count as 0 "
         "below, so the shares understate them. Capture again with a larger --max-ops to weigh them.\n";
  double total = 0;
  for (const auto& r : c.rows) total += static_cast<double>(r.count) * (c.backend.empty() ? r.remote_bytes : std::max(r.us, 0.0));
  o << "\nWhere the communication goes, heaviest first ("
    << (c.backend.empty() ? "by op count x bytes sent between ranks per op; give --timing for times"
                          : "by op count x measured median per call on `" + c.backend + "`, the backend whose application total (count x per call) is least")
    << "):\n\n| SF | op | count | via VecScatter | remote bytes per call | us per call | total ms | share |\n|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : c.rows) {
    const double w = static_cast<double>(r.count) * (c.backend.empty() ? r.remote_bytes : std::max(r.us, 0.0));
    o << "| " << r.sf << " | " << r.op << " | " << r.count << " | " << r.vecscatter << " | " << core::format_number("%.0f", r.remote_bytes) << " | "
      << (r.us < 0 ? std::string("-") : core::format_number("%.2f", r.us)) << " | "
      << (r.us < 0 ? std::string("-") : core::format_number("%.3f", static_cast<double>(r.count) * r.us / 1000.0)) << " | "
      << core::format_number("%.1f%%", total > 0 ? 100.0 * w / total : 0.0) << " |\n";
  }
}

const core::BackendInfo* ran_on(const std::string& backend) { return core::find_backend(chosen(backend)); }

std::string in_petsc(const std::string& backend) {
  const auto* b = ran_on(backend);
  if (!b) return "-";
  if (b->petsc) return std::string("PetscSF itself (-sf_type ") + b->petsc_type + ")";
  return b->petsc_type ? std::string("-sf_type ") + b->petsc_type : "not in PETSc: needs sf-replay's implementation";
}

// What to set in PETSc: the -sf_type of `settable` (the fastest backend PETSc has a type for; null:
// none ran), naming it where it is not the fastest, `best`; and that `best` needs sf-replay's own
// implementation where PETSc has no type for it.
void sf_type_advice(std::ostringstream& o, const BackendTotal* settable, const BackendTotal& best, const char* where) {
  if (settable)
    o << ". In PETSc 3.18 set `-sf_type " << ran_on(settable->backend)->petsc_type << "`"
      << (settable->backend != best.backend ? std::string(" (its fastest type ") + where + ": `" + settable->backend + "`)" : "");
  if (!ran_on(best.backend) || !ran_on(best.backend)->petsc_type) o << "; `" << best.backend << "` itself is not in PETSc: it needs sf-replay's implementation";
}

// The end of a captured application's report: per backend measured, the application's
// communication (count x per call), its ratio to PetscSF's best type, and what to set in PETSc.
void verdict(std::ostringstream& o, const CaptureSummary& c) {
  if (c.totals.empty()) return;
  const bool petsc_ran = std::any_of(c.totals.begin(), c.totals.end(), [](const BackendTotal& t) { return ran_on(t.backend) && ran_on(t.backend)->petsc; });
  // PETSc's own fastest type where it ran; the fastest with a PETSc type (PETSc's own where they
  // ran, else sf-replay's of the same transport): what to set. totals are least first.
  const BackendTotal *petsc = nullptr, *settable = nullptr;
  for (const auto& t : c.totals) {
    const auto* b = ran_on(t.backend);
    if (!b) continue;
    if (b->petsc && !petsc) petsc = &t;
    if (b->petsc_type && (b->petsc || !petsc_ran) && !settable) settable = &t;
  }
  o << "\n## Verdict\n\nThe captured run's communication (" << c.meta.value("ranks", 0) << " ranks) on each backend measured: per SF and "
    << "op, its calls x its time per call, summed (median; p25-p75: the noise).\n\n";
  o << "| backend | total ms | p25-p75 ms | vs PetscSF | in PETSc 3.18 |\n|---|---:|---:|---:|---|\n";
  for (const auto& t : c.totals)
    o << "| " << t.backend << " | " << core::format_number("%.3f", t.median_us / 1e3) << " | " << core::format_number("%.3f", t.p25_us / 1e3) << "-"
      << core::format_number("%.3f", t.p75_us / 1e3) << " | " << (petsc && petsc->median_us > 0 ? core::format_number("%.2fx", t.median_us / petsc->median_us) : std::string("-"))
      << " | " << in_petsc(t.backend) << " |\n";
  const BackendTotal& best = c.totals.front();
  o << "\n**Verdict:** `" << best.backend << "` is fastest";
  if (petsc && petsc != &best)
    o << ", " << core::format_number("%.2fx", best.median_us / petsc->median_us) << " PetscSF's best type (`" << petsc->backend << "`), "
      << (best.p75_us < petsc->p25_us ? "beyond the noise" : "within the noise of it");
  sf_type_advice(o, settable, best, "here");
  o << (petsc_ran ? "." : "; add `--backend ...,petsc,petsc-neighbor` to `sf-replay run` for PetscSF's own times.") << "\n";
}

// The same verdict from a prediction (a scaled trace's, on a machine one does not have): per
// simulated backend, the run's communication and what to set in PETSc. PetscSF's own code is not
// simulated: the -sf_type named is that of sf-replay's backend of the same transport.
void predicted_verdict(std::ostringstream& o, const CaptureSummary& c) {
  if (c.predicted.empty()) return;
  const BackendTotal& best = c.predicted.front();
  o << "\n## Predicted verdict (" << c.predicted_machine << ")\n\nThe run's communication (" << c.meta.value("ranks", 0)
    << " ranks) as the simulator predicts it on `" << c.predicted_machine << "`: per SF and op, its calls x its predicted time per call, summed"
    << (c.predicted_placement.empty() ? "" : " (" + c.predicted_placement + ")") << ".\n\n";
  o << "| backend | total ms | vs fastest | in PETSc 3.18 |\n|---|---:|---:|---|\n";
  for (const auto& t : c.predicted)
    o << "| " << t.backend << " | " << core::format_number("%.3f", t.median_us / 1e3) << " | "
      << (best.median_us > 0 ? core::format_number("%.2fx", t.median_us / best.median_us) : std::string("-")) << " | " << in_petsc(t.backend) << " |\n";
  const auto settable = std::find_if(c.predicted.begin(), c.predicted.end(), [](const BackendTotal& t) { return ran_on(t.backend) && ran_on(t.backend)->petsc_type; });
  o << "\n**Predicted verdict:** `" << best.backend << "` is fastest on `" << c.predicted_machine << "`, " << core::format_number("%.3f", best.median_us / 1e3)
    << " ms of communication over the run";
  sf_type_advice(o, settable != c.predicted.end() ? &*settable : nullptr, best, "predicted");
  o << " (PetscSF's own code is not simulated: measure it with `sf-replay run --backend petsc,...` where the ranks exist).\n";
}

}  // namespace

std::string render_markdown(const TraceStats& ts, const ReportInputs& in) {
  std::ostringstream o;
  o << "# sf-replay report: " << ts.name << "\n\n";
  o << "- ranks: " << ts.nranks << "\n- machine: " << ts.machine << "\n- SFs: " << ts.sfs.size() << ", ops: " << ts.ops.size() << "\n\n";
  star_forests(o, ts);
  o << "\n## Operations\n\n";
  for (const OpSummary& op : ts.ops) o << "- " << op.text << "\n";
  if (in.run) {
    o << "\n## Run\n\n- executor: " << in.run->executor << "\n- ops run: " << in.run->ops_run << "\n";
    if (!in.run->dump_path.empty()) o << "- conformance dump: `" << in.run->dump_path << "`\n";
  }
  if (in.timing) measured(o, *in.timing);
  if (in.simulation) predicted(o, *in.simulation, false);
  if (in.timing && in.simulation) side_by_side(o, *in.timing, *in.simulation);
  if (in.what_if) predicted(o, *in.what_if, true);
  if (in.model_check) model_check(o, *in.model_check, ts.name);
  if (in.capture) captured(o, *in.capture);
  if (in.capture) verdict(o, *in.capture);
  if (in.capture) predicted_verdict(o, *in.capture);
  return o.str();
}

}  // namespace sfr::analysis
