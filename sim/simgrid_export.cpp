#include "sim/simgrid_export.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/peer_lists.hpp"
#include "plan/rounds.hpp"
#include "sim/simulate.hpp"
#include "io/output_file.hpp"

namespace sfr::sim {

SimgridExport export_simgrid(const trace::BuiltTrace& bt, const MachineModel& m, const std::string& dir, const BackendVariant& b) {
  const auto& t = bt.trace();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, "cannot create directory: " + ec.message());
  std::vector<std::string> act(static_cast<std::size_t>(t.nranks));
  for (int r = 0; r < t.nranks; ++r) act[r] = std::to_string(r) + " init\n";
  std::map<const core::Graph*, std::vector<core::RankLists>> rank_lists;
  int tag = 0;
  auto line = [&](int r, const char* what, int peer, std::int64_t bytes) {
    act[r] += std::to_string(r) + " " + what + " " + std::to_string(peer) + " " + std::to_string(tag) + " " + std::to_string(bytes) + "\n";
  };
  const RankLayout lay = layout_for(t, m);
    const auto transport = plan::transport_of(b.kind);
  for (const auto& op : t.ops) {
    const core::Graph& g = bt.graph_for(op);
    auto it = rank_lists.find(&g);
    if (it == rank_lists.end()) it = rank_lists.emplace(&g, core::build_rank_lists(g)).first;
    const auto rounds = plan::op_rounds(it->second, op, lay, transport, {m.message_cap});
    for (core::Index rep = 0; rep < op.repeat; ++rep)
      for (const auto& round : rounds) {
        for (int r = 0; r < t.nranks; ++r) {  // receives first, as PetscSF posts them
          for (const auto& msg : round.msgs)
            if (msg.dst == r) line(r, "irecv", msg.src, msg.bytes);
          for (const auto& msg : round.msgs)
            if (msg.src == r) line(r, "isend", msg.dst, msg.bytes);
          act[r] += std::to_string(r) + " waitall\n";
        }
        ++tag;
      }
  }
  SimgridExport ex;
  std::string list;
  for (int r = 0; r < t.nranks; ++r) {
    act[r] += std::to_string(r) + " finalize\n";
    const std::string f = (std::filesystem::path(dir) / ("rank" + std::to_string(r) + ".tit")).string();
    io::write_file_atomic(f, act[r]);
    list += f + "\n";
  }
  ex.trace_list = (std::filesystem::path(dir) / "trace_list.txt").string();
  io::write_file_atomic(ex.trace_list, list);
  // Postal alpha + beta*s with the off-node eager parameters: a cluster of private split-duplex
  // links of latency alpha/2 each (up, then down: alpha end to end) and no backbone, so that only
  // flows that share a sender's up link or a receiver's down link share bandwidth.
  const auto& ab = m.ab(false, Tier::network, Proto::eager);
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                "  <cluster id=\"sfr\" prefix=\"rank\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" bw=\"%.17gBps\" lat=\"%.17gs\" "
                "sharing_policy=\"SPLITDUPLEX\"/>\n</platform>\n",
                t.nranks - 1, ab.beta > 0 ? 1.0 / ab.beta : 1e15, m.latency(false, Tier::network, Proto::eager) / 2);
  ex.platform = (std::filesystem::path(dir) / "platform.xml").string();
  io::write_file_atomic(ex.platform, buf);
  std::string hosts;
  for (int r = 0; r < t.nranks; ++r) hosts += "rank" + std::to_string(r) + "\n";
  ex.hostfile = (std::filesystem::path(dir) / "hostfile.txt").string();
  io::write_file_atomic(ex.hostfile, hosts);
  ex.command = "smpirun -np " + std::to_string(t.nranks) + " -platform " + ex.platform + " -hostfile " + ex.hostfile + " -replay " +
               ex.trace_list +
               " --cfg=network/model:CM02 --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 --cfg=network/crosstraffic:0"
               " --cfg=smpi/display-timing:yes";
  return ex;
}

bool smpirun_available() { return std::system("command -v smpirun >/dev/null 2>&1") == 0; }

double run_smpirun(const SimgridExport& ex, const std::string& dir) {
  const std::string log = (std::filesystem::path(dir) / "smpirun.log").string();
  if (std::system((ex.command + " >" + log + " 2>&1").c_str()) != 0) return -1;
  std::ifstream in(log);
  std::string line;
  double t = -1;
  // "Simulated time: 1.22032e-05 seconds." (smpi/display-timing; six significant digits), not the
  // replay's "Simulation time" line, which is rounded to microseconds.
  const std::string key = "Simulated time: ";
  while (std::getline(in, line)) {
    const auto at = line.find(key);
    if (at != std::string::npos) t = std::strtod(line.c_str() + at + key.size(), nullptr);
  }
  return t;
}

}  // namespace sfr::sim
