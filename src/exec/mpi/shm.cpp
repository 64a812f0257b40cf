// shm: ranks that share a node (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) exchange through one
// MPI-3 shared-memory window per link (MPI_Win_allocate_shared, set up once, when the link is
// made). The sender packs straight into its own segment, the receiver unpacks straight from the
// sender's segment: two copies per value instead of pack, MPI's copy in, MPI's copy out, unpack.
// Off-node peers go through the basic transport, and so do on-node peers whose values are one large
// contiguous run of the sender's array (core/shm_route.hpp: MPI's single copy beats our two). As
// the on-node step of the node-aware strategies (node_aware.cpp) it moves only the peers of the
// rank's own (emulated) node, all through the segment, and nothing else.
//
// Synchronisation, per link and pair of ranks, with counters that only grow (no fences, no
// barriers): every op on a link has a sequence number n (the same on every rank: ops are
// collective). Each block is double: op n uses copy n % 2. The sender writes its blocks, then
// stores ready[receiver] = n (release); the receiver waits until ready >= n (acquire), unpacks,
// and stores consumed[sender] = n (release); before the sender writes the link's blocks for op n
// it needs every receiver's consumed >= n - 2 (the op that last used that copy). Reading the
// receiver's consumed line is a miss across cores (0.1-0.35 us of a 1 KiB exchange's 1.1-1.5 us,
// measured on a 2-core VM), and a receiver that also sends to me has already said it: its ready
// for op n - 1, which I waited for, was stored after it ended op n - 2 (the link's ops are in
// order on every rank), so it read my op n - 2 blocks. Only a sender to a rank that sends nothing
// back on the link reads consumed (and then often learns enough for two ops). Each link has its
// own segment, so ops on different links (several ops in flight) never wait on each other. A
// waiting rank spins briefly, then yields the core and lets MPI progress (off-node messages of its
// peers may depend on it).
//
// Segment of one rank (64-byte slots, so that no two counters share a cache line):
//   ready[j]     written by me, read by node rank j: my blocks for j are complete up to op n
//   consumed[j]  written by me, read by node rank j: I have read j's blocks up to op n
//   offset[j]    byte offset of my two blocks for node rank j (written once at set-up); kByMpi: my
//                values for j go through MPI
//   data         my send blocks for on-node peers, in peer order, two each, each 64-byte aligned
#include <sched.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>

#include "core/shm_route.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::mpi {
namespace {

constexpr std::size_t kSlot = 64;
// The offset a sender writes for a receiver whose values it leaves to MPI (core/shm_route.hpp).
constexpr std::uint64_t kByMpi = ~std::uint64_t{0};

std::size_t align_up(std::size_t n) { return (n + kSlot - 1) / kSlot * kSlot; }

std::uint64_t load_acquire(std::byte* at) {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at)).load(std::memory_order_acquire);
}
void store_release(std::byte* at, std::uint64_t v) {
  std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at)).store(v, std::memory_order_release);
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Waits until the counter at `at` reaches `target`: spins `spin` times, then yields the core, and
// once in 64 of its iterations past the spins (the 64th, 128th, ...) lets MPI progress (requests
// of this rank a peer may be waiting on: off-node messages, other ops in flight). Not at the
// first yield: where ranks share cores (`spin` 0), Open MPI's progress yields the core once more,
// and progressing at the first yield cost the chain watt_2 at 4 ranks on 2 cores 1.3 us per op
// (shm 4.3-4.6 us against basic's 3.2-3.3; then 3.0-3.1).
// Returns the counter as it saw it reach `target` (it may be past it).
std::uint64_t wait_until(std::byte* at, std::uint64_t target, MPI_Comm comm, unsigned spin) {
  std::uint64_t seen = 0;
  for (unsigned spins = 0; (seen = load_acquire(at)) < target; ++spins) {
    if (spins < spin) {
      cpu_relax();
      continue;
    }
    sched_yield();  // oversubscribed runs: the peer may need this core
    if (spins % 64 == 63) {
      int flag = 0;
      SFR_MPI(MPI_Iprobe, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
    }
  }
  return seen;
}

// One on-node peer's pair of blocks: where copy 0 starts, and the distance to copy 1.
struct Blocks {
  std::size_t peer = 0;  // link peer index
  std::byte* first = nullptr;
  std::size_t size = 0;
  std::byte* of(std::uint64_t seq) const { return first + (seq % 2) * size; }
};

// shm's own per link (Link::state).
struct ShmState : LinkState {
  MPI_Win win = MPI_WIN_NULL;
  std::byte* mine = nullptr;                // my segment
  std::uint64_t seq = 0;                    // op number on this link
  std::vector<int> send_local, recv_local;  // node ranks of the link's shared peers
  std::vector<Blocks> send_blocks, recv_blocks;  // per on-node send / receive peer
  std::vector<std::byte*> recv_ready;       // sender's ready[me], per on-node receive peer
  std::vector<std::byte*> send_consumed;    // receiver's consumed[me], per on-node send peer
  std::vector<std::uint64_t> consumed_seen;  // per on-node send peer: its consumed, as last learnt
  std::vector<int> sends_back;              // per on-node receive peer: its index among the send peers, or -1
};

class Shm final : public Backend {
public:
  Shm(StarForest& sf, bool off_node_basic, int ranks_per_node) : ranks_per_node_(ranks_per_node), comm_(sf.comm()) {
    if (off_node_basic) basic_ = make_basic();
    SFR_MPI(MPI_Comm_split_type, sf.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_);
    MPI_Comm_size(node_, &nlocal_);
    MPI_Comm_rank(node_, &me_local_);
    // More ranks than cores on the node: a spinning rank would take the core of the rank it
    // waits for, so waiting yields at once.
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    spin_ = cores > 0 && nlocal_ > cores ? 0 : 2000;
    int size = 0;
    MPI_Comm_size(sf.comm(), &size);
    MPI_Group all = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
    SFR_MPI(MPI_Comm_group, sf.comm(), &all);
    SFR_MPI(MPI_Comm_group, node_, &local);
    std::vector<int> ranks(static_cast<std::size_t>(size));
    std::iota(ranks.begin(), ranks.end(), 0);
    local_of_.assign(ranks.size(), MPI_UNDEFINED);
    SFR_MPI(MPI_Group_translate_ranks, all, size, ranks.data(), local, local_of_.data());
    MPI_Group_free(&all);
    MPI_Group_free(&local);
  }
  ~Shm() override {
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  }

  // On-node peers are copies, not messages: what this rank posted is its off-node basic sends.
  std::int64_t posted() const override { return basic_ ? basic_->posted() : 0; }

  bool direct_capable() const override { return true; }  // off-node peers only (shared peers are never marked contiguous)

  void init_link(StarForest& sf, Link& l) override {
    ShmState st;
    std::vector<std::size_t> recv_peers;  // link peer indices of the shared receive peers
    const int me = sf.rank();
    auto shared = [&](int peer) {
      return peer != me && local_of_[static_cast<std::size_t>(peer)] != MPI_UNDEFINED &&
             (ranks_per_node_ <= 0 || peer / ranks_per_node_ == me / ranks_per_node_);
    };
    const std::size_t header = 3 * static_cast<std::size_t>(nlocal_) * kSlot;
    std::size_t bytes = header;
    std::vector<std::size_t> offset(l.send->npeers());
    std::vector<int> to_mpi;  // node ranks of on-node receivers left to MPI (core/shm_route.hpp)
    for (std::size_t p = 0; p < l.send->npeers(); ++p) {
      if (!shared(l.send->peers[p])) continue;
      const int local = local_of_[static_cast<std::size_t>(l.send->peers[p])];
      if (basic_ && core::shm_leaves_to_mpi(l.send->count(p) * static_cast<std::int64_t>(l.vbytes), l.send->shapes[p])) {
        to_mpi.push_back(local);
        continue;
      }
      l.send_contiguous[p] = 0;  // packed into the segment, never sent from the user's buffer
      offset[p] = bytes;
      st.send_blocks.push_back({p, nullptr, align_up(static_cast<std::size_t>(l.send->count(p)) * l.vbytes)});  // placed below
      bytes += 2 * st.send_blocks.back().size;
      st.send_local.push_back(local);
    }
    for (std::size_t p = 0; p < l.recv->npeers(); ++p)
      if (shared(l.recv->peers[p])) recv_peers.push_back(p);  // unless the sender leaves it to MPI (below)
    MPI_Info info = MPI_INFO_NULL;
    SFR_MPI(MPI_Info_create, &info);
    SFR_MPI(MPI_Info_set, info, "alloc_shared_noncontig", "true");  // each segment on its owner's NUMA node
    SFR_MPI(MPI_Win_allocate_shared, static_cast<MPI_Aint>(bytes), 1, info, node_, &st.mine, &st.win);
    return_errors(st.win);
    MPI_Info_free(&info);
    SFR_MPI(MPI_Win_lock_all, MPI_MODE_NOCHECK, st.win);
    std::fill(st.mine, st.mine + header, std::byte{0});
    for (std::size_t k = 0; k < st.send_blocks.size(); ++k) {
      const std::size_t p = st.send_blocks[k].peer;
      l.place_send(p, st.send_blocks[k].first = st.mine + offset[p]);
      const auto off = static_cast<std::uint64_t>(offset[p]);
      std::memcpy(slot(st.mine, 2, st.send_local[k]), &off, sizeof off);
    }
    for (int j : to_mpi) std::memcpy(slot(st.mine, 2, j), &kByMpi, sizeof kByMpi);
    // The headers are written: make them visible on the node (set-up only).
    SFR_MPI(MPI_Win_sync, st.win);
    SFR_MPI(MPI_Barrier, node_);
    SFR_MPI(MPI_Win_sync, st.win);
    for (std::size_t p : recv_peers) {
      const int local = local_of_[static_cast<std::size_t>(l.recv->peers[p])];
      std::byte* theirs = segment(st.win, local);
      std::uint64_t off = 0;
      std::memcpy(&off, slot(theirs, 2, me_local_), sizeof off);
      if (off == kByMpi) continue;  // a message from basic, received as from any other rank
      l.recv_contiguous[p] = 0;
      l.place_recv(p, theirs + off);
      st.recv_blocks.push_back({p, theirs + off, align_up(static_cast<std::size_t>(l.recv->count(p)) * l.vbytes)});
      st.recv_local.push_back(local);
      st.recv_ready.push_back(slot(theirs, 0, me_local_));
    }
    for (int j : st.send_local) st.send_consumed.push_back(slot(segment(st.win, j), 1, me_local_));
    st.consumed_seen.assign(st.send_local.size(), 0);
    for (int j : st.recv_local) {
      const auto k = std::find(st.send_local.begin(), st.send_local.end(), j) - st.send_local.begin();
      st.sends_back.push_back(k < static_cast<std::ptrdiff_t>(st.send_local.size()) ? static_cast<int>(k) : -1);
    }
    l.make_state<ShmState>() = std::move(st);
    if (basic_) basic_->init_link(sf, l);
  }

  void free_link(Link& l) override {
    if (basic_) basic_->free_link(l);
    ShmState* st = l.find_state<ShmState>();
    if (!st) return;
    MPI_Win_unlock_all(st->win);  // (from the destructor: not checked)
    MPI_Win_free(&st->win);
    l.drop_state<ShmState>();
  }

  void before_pack(StarForest&, Link& l) override {
    ShmState& st = l.state<ShmState>();
    ++st.seq;
    // This op's copy of my blocks was last used by op seq - 2: every receiver must have read it.
    const std::uint64_t need = st.seq >= 2 ? st.seq - 2 : 0;
    for (std::size_t k = 0; k < st.send_consumed.size(); ++k)
      if (st.consumed_seen[k] < need) st.consumed_seen[k] = wait_until(st.send_consumed[k], need, comm_, spin_);
    for (const Blocks& b : st.send_blocks) l.place_send(b.peer, b.of(st.seq));
    for (const Blocks& b : st.recv_blocks) l.place_recv(b.peer, b.of(st.seq));
  }

  void start(StarForest& sf, InFlight& f, Link& l) override {
    ShmState& st = l.state<ShmState>();
    if (basic_) basic_->start(sf, f, l);  // off-node peers first: their messages travel while we publish
    for (int j : st.send_local) store_release(slot(st.mine, 0, j), st.seq);
  }

  void finish(StarForest& sf, InFlight& f, Link& l) override {
    ShmState& st = l.state<ShmState>();
    for (std::size_t k = 0; k < st.recv_ready.size(); ++k) {
      wait_until(st.recv_ready[k], st.seq, comm_, spin_);
      // It started this op, so it ended the previous one: it has read my blocks of op seq - 1.
      if (const int back = st.sends_back[k]; back >= 0) st.consumed_seen[static_cast<std::size_t>(back)] = st.seq - 1;
    }
    if (basic_) basic_->finish(sf, f, l);
  }

  void after_unpack(StarForest&, Link& l) override {
    ShmState& st = l.state<ShmState>();
    for (int j : st.recv_local) store_release(slot(st.mine, 1, j), st.seq);
  }

private:
  // Slot `j` of header array `a` (0 ready, 1 consumed, 2 offset) of a segment.
  std::byte* slot(std::byte* seg, int a, int j) const {
    return seg + (static_cast<std::size_t>(a) * static_cast<std::size_t>(nlocal_) + static_cast<std::size_t>(j)) * kSlot;
  }
  static std::byte* segment(MPI_Win win, int local) {
    MPI_Aint size = 0;
    int disp = 0;
    void* base = nullptr;
    SFR_MPI(MPI_Win_shared_query, win, local, &size, &disp, &base);
    return static_cast<std::byte*>(base);
  }

  std::unique_ptr<Backend> basic_;  // off-node peers (none when it is the node-aware strategies' on-node step)
  int ranks_per_node_ = 0;          // > 0: only peers of my emulated node are shared
  MPI_Comm comm_ = MPI_COMM_NULL;   // the SF's (progress while waiting)
  unsigned spin_ = 2000;            // spins before a waiting rank yields
  MPI_Comm node_ = MPI_COMM_NULL;
  int nlocal_ = 1, me_local_ = 0;
  std::vector<int> local_of_;  // node rank of each rank of the SF's communicator (MPI_UNDEFINED: other node)
};

}  // namespace

std::unique_ptr<Backend> make_shm(StarForest& sf, bool off_node_basic, int ranks_per_node) {
  return std::make_unique<Shm>(sf, off_node_basic, ranks_per_node);
}

}  // namespace sfr::exec::mpi
