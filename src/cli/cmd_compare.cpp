// sf-replay compare: ranks backends by predicted time under a machine model (sim/README.md); with
// --analytic, ranks the node-aware study's strategies with its closed forms (Table 6) instead.
#include <cstdio>
#include <iostream>

#include "cli/sim_options.hpp"
#include "core/budget.hpp"
#include "core/error.hpp"
#include "io/output_file.hpp"
#include "sim/analytic.hpp"
#include "sim/render.hpp"
#include "sim/simulate.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

namespace {

int analytic(const sim::MachineModel& m, const std::vector<int>& messages, const std::vector<int>& nodes, const std::vector<double>& sizes,
             double dup, const std::string& json_out) {
  for (int msg : messages)
    if (msg <= 0) throw InputError("--messages", "expected counts > 0");
  for (int n : nodes)
    if (n <= 0) throw InputError("--nodes", "expected counts > 0");
  for (double s : sizes)
    if (!(s >= 0)) throw InputError("--bytes", "expected sizes >= 0");
  const sim::analytic::Model model(m);
  std::cout << "analytic (closed forms of the node-aware study, Table 6), machine " << m.name << ", duplicate fraction " << dup
            << "\ntimes in microseconds, fastest first\n";
  io::Json j = {{"format", "sf-analytic"},
                {"version", 1},
                {"machine", m.name},
                {"duplicate", dup},
                {"unit", "seconds"},
                {"provenance", trace::provenance({"compare", 0, "", "", ""})},
                {"scenarios", io::Json::array()}};
  for (int msg : messages)
    for (int n : nodes) {
      std::cout << "\n" << msg << " inter-node messages to " << n << " nodes:\n";
      for (double s : sizes) {
        const auto v = sim::analytic::predict(model, {msg, n, s, dup});
        char buf[64];
        std::snprintf(buf, sizeof buf, "  %9.0f B:", s);
        std::cout << buf;
        io::Json ranking = io::Json::array();
        for (const auto& p : v) {
          std::snprintf(buf, sizeof buf, " %s %.2f", p.strategy.c_str(), p.seconds * 1e6);
          std::cout << buf << (&p == &v.back() ? "" : ",");
          ranking.push_back({{"backend", p.strategy}, {"seconds", p.seconds}});
        }
        std::cout << "\n";
        j["scenarios"].push_back({{"messages", msg}, {"nodes", n}, {"bytes", s}, {"ranking", ranking}});
      }
    }
  if (!json_out.empty()) io::write_file_atomic(json_out, j.dump(1) + "\n");
  return 0;
}

}  // namespace

int cmd_compare(const Args& args) {
  po::options_description opts("compare options");
  SimArgs a;
  add_sim_options(opts, a, false);
  bool use_analytic = false;
  std::vector<int> messages, nodes;
  std::vector<double> sizes;
  double dup = 0;
  opts.add_options()("analytic", po::bool_switch(&use_analytic),
                     "no trace: rank the study's strategies with its closed forms for the Fig. 4.3 scenarios")(
      "messages", po::value(&messages)->multitoken(), "analytic: inter-node messages sent by one node (default 32 256)")(
      "nodes", po::value(&nodes)->multitoken(), "analytic: destination nodes (default 4 16)")(
      "bytes", po::value(&sizes)->multitoken(), "analytic: bytes per message (default 10 100 1000 10000 100000)")(
      "duplicate", po::value(&dup), "analytic: fraction of duplicate data removed by node-aware strategies (e.g. 0.25)");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("compare",
                    "TRACE --machine M [--backend B,... ...|--all-backends] [--json OUT]  |  --analytic [--messages N..] [--nodes K..] "
                    "[--bytes S..] [--duplicate F]",
                    args, opts, pos, vm))
    return 0;
  auto machine = load_sim_machine(a);
  // Either mode writes --json: its path is checked before any work.
  if (!a.json.empty()) io::check_output_path("--json", a.json);
  if (use_analytic) {
    if (!a.file.empty()) throw InputError("--analytic", "takes no trace: it evaluates the study's scenarios (drop " + a.file + ")");
    if (!a.backends.empty() || a.all)
      throw InputError("--analytic", "ranks all of the study's strategies: --backend/--all-backends do not apply");
    if (dup < 0 || dup >= 1) throw InputError("--duplicate", "expected a fraction in [0, 1)");
    if (vm.count("max-memory")) throw InputError("--max-memory", "applies to a trace; --analytic builds nothing");
    for (const char* opt : {"ranks-per-node", "ranks-per-socket"})
      if (vm.count(opt)) throw InputError(std::string("--") + opt, "places a trace's ranks; --analytic takes --nodes");
    return analytic(machine, messages.empty() ? std::vector<int>{32, 256} : messages, nodes.empty() ? std::vector<int>{4, 16} : nodes,
                    sizes.empty() ? std::vector<double>{10, 100, 1000, 10000, 100000} : sizes, dup, a.json);
  }
  for (const char* opt : {"messages", "nodes", "bytes", "duplicate"})
    if (vm.count(opt)) throw InputError(std::string("--") + opt, "applies only with --analytic");
  if (a.file.empty()) throw InputError("", "no trace given (usage: sf-replay compare TRACE --machine M ..., or compare --analytic ...)");
  const auto list = sim_backend_list("compare", a, true);
  const auto bt = trace::read_trace_file(a.file, {a.max_memory});
  core::check_budget(sim::memory_estimate(bt), bt.max_memory());
  apply_sim_placement(vm, a, machine, bt.trace());
  const auto backends = sim_backends(list, bt.trace());
  say_skipped_backends("compare", list);
  const auto res = sim::simulate(bt, machine, backends);
  std::cout << res.placement << "\n" << sim::render_ranking(res);
  if (!a.json.empty())
    io::write_file_atomic(a.json, sim::render_json(res, trace::provenance({"compare", bt.trace().nranks, bt.trace().name, a.file, ""})));
  return 0;
}

}  // namespace sfr::cli
