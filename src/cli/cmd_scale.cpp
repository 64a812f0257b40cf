// sf-replay scale TRACE --ranks P -o OUT: a captured DMDA application's trace at P ranks
// (generators/scale.hpp says what is regenerated, how it is checked, and what is refused).
#include <iostream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

#ifdef HAVE_SFREPLAY_GENERATORS
#include <iomanip>

#include "core/budget.hpp"
#include "generators/scale.hpp"
#include "io/output_file.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"
#endif

namespace sfr::cli {

#ifndef HAVE_SFREPLAY_GENERATORS
int cmd_scale(const Args&) { throw InputError("scale", "not available in this build (needs the generators: SuiteSparse, METIS and Boost.Graph)"); }
#else

namespace {

std::string grid(const std::array<int, 3>& p, int dim) {
  return std::to_string(p[0]) + "x" + std::to_string(p[1]) + (dim == 3 ? "x" + std::to_string(p[2]) : "");
}

std::string dmda_text(const gen::DmdaShape& s) {
  std::string size = std::to_string(s.sizes[0]) + "x" + std::to_string(s.sizes[1]) + (s.dim == 3 ? "x" + std::to_string(s.sizes[2]) : "");
  return std::to_string(s.dim) + "-D " + size + " " + (s.stencil == gen::StencilKind::star ? "star" : "box") + " w" + std::to_string(s.width) +
         " dof " + std::to_string(s.dof);
}

// One line per SF: what it was, the process grids, its leaves before and after.
void print_plan(std::ostream& o, const trace::BuiltTrace& in, const trace::Trace& out, const gen::ScalePlan& plan) {
  o << "SF     role             DMDA                          processes            leaves\n";
  for (const auto& sf : plan.regenerated) {
    const auto* def = out.find_sf(sf.name);
    const auto& g = *std::get<trace::ExplicitSF>(def->def).graph;
    o << std::left << std::setw(7) << sf.name << std::setw(17) << gen::role_name(sf.role) << std::setw(30) << dmda_text(sf.shape) << std::setw(21)
      << (grid(sf.grid_captured, sf.shape.dim) + " -> " + grid(sf.grid_scaled, sf.shape.dim)) << in.graph(sf.name).total_leaves() << " -> "
      << g.total_leaves() << "\n";
  }
  for (const auto& name : plan.derived) o << std::left << std::setw(7) << name << "derived: rebuilt from the regenerated SFs\n";
  for (const auto& l : plan.left_out) o << std::left << std::setw(7) << l.name << "left out (" << l.op_calls << " op calls): " << l.reason << "\n";
  if (plan.calls_without_sf > 0)
    o << "(" << plan.calls_without_sf << " op calls the capture only counted, their SFs first used beyond --max-ops: left out)\n";
  o << "ops: " << out.ops.size() << " records as captured (the same op stream and counts at " << out.nranks << " ranks)\n";
}

}  // namespace

int cmd_scale(const Args& args) {
  po::options_description opts("scale options");
  std::string file, out;
  gen::ScaleOptions o;
  int ranks_per_node = 0, ranks_per_socket = 0;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&file)->required(), "a captured trace (sf-replay capture)")(
      "ranks", po::value(&o.ranks)->required(), "the rank count P to regenerate its DMDA SFs at")(
      "output,o", po::value(&out)->required(), "trace file to write (atomically)")(
      "ranks-per-node", po::value(&ranks_per_node), "place N consecutive ranks on a node (default: no placement; simulate's machine decides)")(
      "ranks-per-socket", po::value(&ranks_per_socket), "N consecutive ranks share a socket (with --ranks-per-node; must divide it)")(
      "leave-out-unscalable", po::bool_switch(&o.leave_out),
      "leave out the SFs that cannot be regenerated and their ops (listed in meta.scaled.left_out), instead of refusing");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (parse_options("scale", "TRACE --ranks P -o OUT [--ranks-per-node N [--ranks-per-socket S]] [--leave-out-unscalable]", args, opts, pos,
                    vm))
    return 0;
  if (o.ranks < 1) throw InputError("--ranks", "must be at least 1, got " + std::to_string(o.ranks));
  if (vm.count("ranks-per-socket") && !vm.count("ranks-per-node")) throw InputError("--ranks-per-socket", "needs --ranks-per-node");
  if (vm.count("ranks-per-node"))
    o.machine = trace::checked_placement(o.ranks, ranks_per_node, vm.count("ranks-per-socket") ? ranks_per_socket : ranks_per_node, 0);
  io::check_output_path("--output", out);
  const auto in = trace::read_trace_file(file, {max_memory});
  const gen::ScalePlan plan = gen::plan_scale(in, file, o);
  core::check_budget(plan.size, core::memory_limit(max_memory));
  const trace::Trace scaled = gen::scale_trace(in, plan, o);
  const std::string text = trace::write_trace(scaled);
  trace::parse_trace(text, out, {max_memory});  // what is written validates
  io::write_file_atomic(out, text);
  print_plan(std::cout, in, scaled, plan);
  std::cerr << "wrote " << out << " (" << scaled.name << ", " << scaled.nranks << " ranks, scaled from " << plan.from_ranks << ")\n";
  return 0;
}

#endif

}  // namespace sfr::cli
