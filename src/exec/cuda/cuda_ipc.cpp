// cuda-ipc: ranks of one node write straight into each other's receive buffers through CUDA IPC
// handles (no host round trip); MPI carries only zero-byte "done" and "free" notes. Refused when
// a peer is on another node.
#include <string>

#include "core/error.hpp"
#include "exec/cuda/device_link.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::cuda {

namespace {

// Per link: each send peer's receive buffer mapped here and where my block starts in it, my "free"
// notes to the ranks that write to me, and whether I wrote into my receivers' buffers (their
// "free" is then due before I write again).
struct IpcState : LinkState {
  std::vector<std::byte*> peer_recv;
  std::vector<std::size_t> peer_off;
  std::vector<MPI_Request> frees;
  bool wrote = false;
};

// The first (rank * size + peer) of a pair of peers on different nodes over every rank; -1: none.
long long first_peer_off_node(MPI_Comm comm, const core::RankLists& lists) {
  int me = 0, size = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  MPI_Comm node;
  SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  MPI_Group world_g, node_g;
  SFR_MPI(MPI_Comm_group, comm, &world_g);
  SFR_MPI(MPI_Comm_group, node, &node_g);
  long long bad = -1;
  for (const auto* pl : {&lists.root_side, &lists.leaf_side})
    for (const int p : pl->peers) {
      int in_node = MPI_UNDEFINED;
      SFR_MPI(MPI_Group_translate_ranks, world_g, 1, &p, node_g, &in_node);
      if (in_node == MPI_UNDEFINED && bad < 0) bad = static_cast<long long>(me) * size + p;
    }
  MPI_Group_free(&world_g);
  MPI_Group_free(&node_g);
  MPI_Comm_free(&node);
  long long first = -1;
  SFR_MPI(MPI_Allreduce, &bad, &first, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return first;
}

class Ipc final : public DeviceTransport {
public:
  // Every peer must share this rank's node (its memory, hence its GPUs' IPC).
  void check(MPI_Comm comm, const core::RankLists& lists) const override {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (const long long first = first_peer_off_node(comm, lists); first >= 0)
      throw InputError("--backend", "cuda-ipc moves data between the ranks of one node only, but rank " + std::to_string(first / size) +
                                        " exchanges with rank " + std::to_string(first % size) + " on another node; use cuda-staged");
  }
  // Each receiver tells each of its senders where that sender's block lives in its buffer.
  void init_link(const DeviceContext& c, DeviceLink& l) override {
    struct Note {
      IpcHandle h;
      std::uint64_t off, bytes;  // my block's place in the buffer, and the buffer's size
    };
    auto& st = l.make_state<IpcState>();
    const std::size_t nr = l.recv->npeers(), ns = l.send->npeers(), rb = l.drecv.size();
    std::vector<Note> mine(nr), theirs(ns);
    std::vector<MPI_Request> rq(nr + ns, MPI_REQUEST_NULL);
    const IpcHandle h = rb ? ipc_handle(l.drecv.data()) : IpcHandle{};
    for (std::size_t p = 0; p < nr; ++p) {
      mine[p] = {h, l.block(*l.recv, p), rb};
      SFR_MPI(MPI_Isend, &mine[p], sizeof(Note), MPI_BYTE, l.recv->peers[p], kSetup, c.comm, &rq[p]);
    }
    for (std::size_t p = 0; p < ns; ++p) SFR_MPI(MPI_Irecv, &theirs[p], sizeof(Note), MPI_BYTE, l.send->peers[p], kSetup, c.comm, &rq[nr + p]);
    SFR_MPI(MPI_Waitall, static_cast<int>(rq.size()), rq.data(), MPI_STATUSES_IGNORE);
    for (std::size_t p = 0; p < ns; ++p) {
      st.peer_recv.push_back(ipc_open(theirs[p].h, theirs[p].bytes));
      st.peer_off.push_back(theirs[p].off);
    }
    st.frees.assign(nr, MPI_REQUEST_NULL);
  }
  void start(const DeviceContext& c, DeviceLink& l, bool send_dev, bool) override {
    auto& st = l.state<IpcState>();
    const std::size_t nr = l.rpieces.size(), ns = l.spieces.size();
    for (std::size_t k = 0; k < nr; ++k) SFR_MPI(MPI_Irecv, nullptr, 0, MPI_BYTE, l.recv->peers[l.rpieces[k].peer], l.tag(kDone), c.comm, &l.reqs[k]);
    for (std::size_t k = 0; k < ns; ++k) {
      const auto& pc = l.spieces[k];
      // The receiver's buffer is free again once it has unpacked what I wrote last time.
      if (st.wrote) SFR_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, l.send->peers[pc.peer], l.tag(kFree), c.comm, MPI_STATUS_IGNORE);
      copy_async(st.peer_recv[pc.peer] + st.peer_off[pc.peer], l.send_at(send_dev, pc.peer), static_cast<std::size_t>(pc.bytes), c.kernels.stream());
    }
    c.kernels.sync();
    for (std::size_t k = 0; k < ns; ++k)
      SFR_MPI(MPI_Isend, nullptr, 0, MPI_BYTE, l.send->peers[l.spieces[k].peer], l.tag(kDone), c.comm, &l.reqs[nr + k]);
    st.wrote = ns > 0;
  }
  void finish(const DeviceContext& c, DeviceLink& l, bool recv_dev) override {
    SFR_MPI(MPI_Waitall, static_cast<int>(l.npieces()), l.reqs.data(), MPI_STATUSES_IGNORE);
    if (!recv_dev) {
      copy_async(l.hrecv.data(), l.drecv.data(), l.drecv.size(), c.kernels.stream());
      c.kernels.sync();
    }
  }
  // A "free" note to each rank that writes to me (a piece per peer).
  void release(const DeviceContext& c, DeviceLink& l) override {
    if (l.recv->npeers() == 0) return;
    auto& st = l.state<IpcState>();
    SFR_MPI(MPI_Waitall, static_cast<int>(st.frees.size()), st.frees.data(), MPI_STATUSES_IGNORE);
    for (std::size_t p = 0; p < l.recv->npeers(); ++p) SFR_MPI(MPI_Isend, nullptr, 0, MPI_BYTE, l.recv->peers[p], l.tag(kFree), c.comm, &st.frees[p]);
  }
  // Take the last "free" notes, wait for mine, unmap the peers' buffers.
  void close_link(const DeviceContext& c, DeviceLink& l) override {
    auto& st = l.state<IpcState>();
    if (st.wrote)
      for (const int p : l.send->peers) MPI_Recv(nullptr, 0, MPI_BYTE, p, l.tag(kFree), c.comm, MPI_STATUS_IGNORE);
    if (!st.frees.empty()) MPI_Waitall(static_cast<int>(st.frees.size()), st.frees.data(), MPI_STATUSES_IGNORE);
    for (std::byte* p : st.peer_recv) ipc_close(p);
  }
  // Freeing an exported buffer while a peer still has it mapped is undefined (CUDA IPC): every
  // rank unmaps before any rank frees.
  void before_free(MPI_Comm comm) override { MPI_Barrier(comm); }
};

}  // namespace

std::unique_ptr<DeviceTransport> make_cuda_ipc() { return std::make_unique<Ipc>(); }

}  // namespace sfr::exec::cuda
