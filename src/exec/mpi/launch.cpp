#include "exec/mpi/launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::mpi {

namespace {

// `list` ("^ucx,pt2pt") without the element `name`; "" when nothing is left to exclude.
std::string without(std::string_view list, std::string_view name) {
  if (list.empty() || list[0] != '^') return std::string(list);
  std::string out;
  std::size_t pos = 1;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    if (!item.empty() && item != name) out += (out.empty() ? "^" : ",") + std::string(item);
    pos = comma + 1;
  }
  return out;
}

std::string plural(int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

void prepare_mpi_init() {
#ifdef OPEN_MPI
  if (core::env_value(core::Env::ompi_mca_osc)) return;  // the user's choice
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
  std::string value;
  int index = 0;
  if (MPI_T_cvar_get_index("osc", &index) == MPI_SUCCESS) {
    MPI_T_cvar_handle handle;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      std::vector<char> buf(static_cast<std::size_t>(std::max(count, 0)) + 1, '\0');
      if (MPI_T_cvar_read(handle, buf.data()) == MPI_SUCCESS) value = buf.data();
      MPI_T_cvar_handle_free(&handle);
    }
  }
  MPI_T_finalize();
  if (value.empty() || value[0] != '^') return;
  const std::string allowed = without(value, "pt2pt");
  if (allowed != value) setenv(core::env_name(core::Env::ompi_mca_osc), allowed.empty() ? "^none" : allowed.c_str(), 1);
#endif
}

std::string window_refusal(MPI_Comm comm) {
  MPI_Comm probe = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &probe);
  MPI_Comm_set_errhandler(probe, MPI_ERRORS_RETURN);
  double* cell = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  const int rc = MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, probe, &cell, &win);
  int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, probe);
  if (win != MPI_WIN_NULL) MPI_Win_free(&win);
  MPI_Comm_free(&probe);
  if (all) return "";
  std::string why = "this MPI library makes no one-sided window across the ranks of this launch (MPI_Win_allocate failed";
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    why += ": " + std::string(text, static_cast<std::size_t>(len));
  }
  why += ")";
#ifdef OPEN_MPI
  why += "; with Open MPI, allow a component that serves the network (e.g. OMPI_MCA_osc=pt2pt,sm,rdma)";
#endif
  return why;
}

std::string LaunchNodes::describe() const {
  if (block == 0) return plural(nodes, "node") + " (their ranks not in consecutive blocks)";
  return plural(nodes, "node") + " of " + plural(block, "rank");
}

LaunchNodes launch_nodes(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm node = MPI_COMM_NULL;
  SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int lowest = rank;
  SFR_MPI(MPI_Allreduce, &rank, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  LaunchNodes l;
  l.node_of.resize(static_cast<std::size_t>(size));
  SFR_MPI(MPI_Allgather, &lowest, 1, MPI_INT, l.node_of.data(), 1, MPI_INT, comm);
  // Renumber by first rank: node k is the k-th distinct lowest rank.
  std::vector<int> firsts = l.node_of;
  std::sort(firsts.begin(), firsts.end());
  firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
  for (int& n : l.node_of) n = static_cast<int>(std::lower_bound(firsts.begin(), firsts.end(), n) - firsts.begin());
  l.nodes = static_cast<int>(firsts.size());
  // Blocks: node k holds ranks [k*b, (k+1)*b) with b the first node's size.
  const int b = static_cast<int>(std::count(l.node_of.begin(), l.node_of.end(), 0));
  bool blocks = b > 0;
  for (int r = 0; r < size && blocks; ++r) blocks = l.node_of[static_cast<std::size_t>(r)] == r / b;
  l.block = blocks ? b : 0;
  return l;
}

int run_ranks_per_node(const LaunchNodes& launch, int requested, bool from_option, std::string* note) {
  const int size = static_cast<int>(launch.node_of.size());
  if (requested > 0) {
    // Each requested node inside one launch node: its ranks all on its first rank's node.
    int split = -1;
    for (int r = 0; r < size && split < 0; ++r)
      if (launch.node_of[static_cast<std::size_t>(r)] != launch.node_of[static_cast<std::size_t>(r / requested * requested)]) split = r;
    if (split < 0) return requested;
    const std::string together = "ranks " + std::to_string(split / requested * requested) + " and " + std::to_string(split) +
                                 " on one node, but this launch runs them on different nodes (" + launch.describe() + ")";
    if (from_option)
      throw InputError("--ranks-per-node", plural(requested, "rank") + " per node would put " + together +
                                               ": sf-replay emulates nodes only inside the launch's");
    if (note) *note = "the trace's machine puts " + plural(requested, "rank") + " on a node, which would put " + together + "; the run uses the launch's nodes";
  }
  if (launch.block == 0)
    throw InputError("", "this launch places the ranks of a node apart (" + launch.describe() +
                             "): sf-replay's nodes are blocks of consecutive ranks; launch them so (Open MPI: --map-by slot, Slurm: "
                             "--distribution=block)");
  return launch.block;
}

}  // namespace sfr::exec::mpi
