// window: one-sided MPI. Each link exposes a staging copy of the roots its peers read or update in
// an MPI window (copied in runs of such roots, in and, for a reduce, back out: the rest of the root
// array is not copied, so a call copies about what it moves, not the whole array).
// bcast: leaves MPI_Get their roots (fence epochs); reduce: leaves MPI_Accumulate into the roots
// (fence epochs; duplicate targets from one rank are split into rounds so no call names a
// location twice); fetch_and_op: MPI_Get_accumulate under an exclusive lock per target rank, so
// every root sees one serial order of whole blocks. The self part is applied locally before the
// window is exposed (self first, as in PETSc's order). Works with Open MPI 4.1's osc components.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>

#include "core/pack.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "exec/mpi/mpi_types.hpp"
#include "exec/mpi/vector_collective.hpp"

namespace sfr::exec::mpi {
namespace {

// Splits one peer's target list into rounds where each target index appears at most once; each
// round holds (position in the peer's block, target index) pairs.
std::vector<std::pair<std::vector<int>, std::vector<int>>> rounds(std::span<const Index> targets) {
  std::vector<std::pair<std::vector<int>, std::vector<int>>> out;
  std::map<Index, std::size_t> seen;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const std::size_t r = seen[targets[k]]++;
    if (r >= out.size()) out.emplace_back();
    out[r].first.push_back(static_cast<int>(k));
    out[r].second.push_back(static_cast<int>(targets[k]));
  }
  return out;
}

// One MPI_Get (bcast) or MPI_Accumulate (reduce: one per round) of a peer, with its committed
// indexed datatypes. Built once per (link, unit, bs, kind) and reused by every later op: making
// and committing the types per op cost more than the data movement itself.
struct Transfer {
  std::size_t peer = 0;
  int count = 0;                      // units received (bcast)
  std::unique_ptr<TypeGuard> origin;  // reduce: the round's positions in the peer's block
  std::unique_ptr<TypeGuard> target;  // target roots in the window
};

// The link's window: a staging copy of the root data, in memory MPI allocates (none on a single
// rank), of which the roots in `runs` are current; and its transfers.
struct WindowState : LinkState {
  MPI_Win win = MPI_WIN_NULL;
  std::span<std::byte> buf;  // freed with the window
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // byte offset and length of each run of roots peers access
  std::map<std::tuple<core::Unit, int, Motion>, std::vector<Transfer>> transfers;  // per (unit, bs, motion)

  // Copies the runs from `from` to `to` (the user's roots and the window, either way).
  void copy_runs(std::byte* to, const std::byte* from) const {
    for (const auto& [at, n] : runs) std::memcpy(to + at, from + at, n);
  }
};

// A gap between two runs of at most this many bytes is copied with them: one memcpy call costs
// about as much as copying that much more (measured: with one call per root of a stride-2 list,
// a 32 KiB exchange took 30 us instead of 20 with the whole array). Copying roots no peer touches
// is harmless: a reduce copies back the values it copied in.
constexpr std::size_t kGapBytes = 256;

// The runs of roots in `roots` (any order, repeats allowed), gaps of up to kGapBytes closed, in
// bytes of `vbytes` a root.
std::vector<std::pair<std::size_t, std::size_t>> root_runs(std::span<const Index> roots, std::size_t vbytes) {
  std::vector<Index> r(roots.begin(), roots.end());
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (const Index i : r) {
    const auto at = static_cast<std::size_t>(i) * vbytes;
    if (!runs.empty() && at <= runs.back().first + runs.back().second + kGapBytes)
      runs.back().second = at + vbytes - runs.back().first;
    else
      runs.emplace_back(at, vbytes);
  }
  return runs;
}

class Window final : public Backend {
public:
  void init_link(StarForest& sf, Link& l) override {
    // A single rank has only a self part, and Open MPI 4.1 cannot create a one-process window
    // (MPI_ERR_WIN): no window then.
    auto& st = l.make_state<WindowState>();
    int size = 0;
    MPI_Comm_size(sf.comm(), &size);
    if (size == 1) return;
    // MPI allocates the window memory: on one node Open MPI then picks its shared-memory osc
    // component, where fences and accumulates are local memory operations (with MPI_Win_create
    // on user memory it falls back to osc/pt2pt or rdma: ~140 us per fence-epoch bcast at 2 ranks).
    const std::size_t n = static_cast<std::size_t>(sf.lists().nroots) * l.vbytes;
    std::byte* mem = nullptr;
    SFR_MPI(MPI_Win_allocate, static_cast<MPI_Aint>(n), static_cast<int>(l.vbytes), MPI_INFO_NULL, sf.comm(), &mem, &st.win);
    return_errors(st.win);
    st.buf = std::span<std::byte>(mem, n);
    st.runs = root_runs(sf.lists().root_side.indices, l.vbytes);
  }
  void free_link(Link& l) override {
    auto& st = l.state<WindowState>();
    st.transfers.clear();  // (their datatypes freed now, as the window)
    if (st.win != MPI_WIN_NULL) MPI_Win_free(&st.win);
  }
  bool wants_pack(const InFlight& f) const override { return f.kind != Motion::bcast; }
  bool reads_user_arrays() const override { return true; }

  void start(StarForest& sf, InFlight& f, Link& l) override {
    auto& st = l.state<WindowState>();
    if (st.win == MPI_WIN_NULL) {  // single rank: the self part did everything
      f.applied = true;
      f.fetched_in_back = true;
      return;
    }
    const core::RankLists& pl = sf.lists();
    // Plain predefined types only (count = bs, indexed displacements in units): Open MPI 4.1's
    // osc component mishandles accumulates on derived "vertex" types.
    const MPI_Datatype base = mpi_type(f.unit);
    const int bs = f.bs;
    int me = 0;
    MPI_Comm_rank(sf.comm(), &me);
    switch (f.kind) {
      case Motion::bcast: {
        st.copy_runs(st.buf.data(), f.rootdata);
        SFR_MPI(MPI_Win_fence, 0, st.win);
        for (const Transfer& t : transfers(pl, l, f))
          SFR_MPI(MPI_Get, l.recv_block(t.peer), t.count, base, pl.leaf_side.peers[t.peer], 0, 1, t.target->get(), st.win);
        break;
      }
      case Motion::reduce: {
        st.copy_runs(st.buf.data(), f.rootdata);
        MPI_Op op = mpi_op(f.mpi_op);
        if (is_logical(f.mpi_op)) {
          logical_as_bitwise(f, pl, l);
          op = bitwise_twin(f.mpi_op);
        }
        SFR_MPI(MPI_Win_fence, 0, st.win);
        for (const Transfer& t : transfers(pl, l, f))
          SFR_MPI(MPI_Accumulate, l.send_block(t.peer), 1, t.origin->get(), pl.leaf_side.peers[t.peer], 0, 1, t.target->get(), op, st.win);
        break;
      }
      case Motion::fetch_and_op: {
        SFR_MPI(MPI_Win_lock, MPI_LOCK_EXCLUSIVE, me, 0, st.win);
        st.copy_runs(st.buf.data(), f.rootdata);
        SFR_MPI(MPI_Win_unlock, me, st.win);
        SFR_MPI(MPI_Barrier, sf.comm());
        Link& back = *f.back;
        for (std::size_t p = 0; p < pl.leaf_side.npeers(); ++p) {
          const int peer = pl.leaf_side.peers[p];
          const auto tgt = targets(pl, p);
          SFR_MPI(MPI_Win_lock, MPI_LOCK_EXCLUSIVE, peer, 0, st.win);
          for (std::size_t k = 0; k < tgt.size(); ++k) {
            std::byte* fetched = back.recv_block(p) + k * l.vbytes;
            const std::byte* mine = l.send_block(p) + k * l.vbytes;
            if (!is_logical(f.mpi_op)) {
              SFR_MPI(MPI_Get_accumulate, mine, bs, base, fetched, bs, base, peer, tgt[k], bs, base, mpi_op(f.mpi_op), st.win);
              continue;
            }
            // Logical ops: atomic read, combine here, write back; the exclusive lock keeps it one
            // serial step (Open MPI 4.1's osc mis-applies the logical ops).
            SFR_MPI(MPI_Get_accumulate, mine, bs, base, fetched, bs, base, peer, tgt[k], bs, base, MPI_NO_OP, st.win);
            SFR_MPI(MPI_Win_flush, peer, st.win);
            std::vector<std::byte> next(fetched, fetched + l.vbytes);
            core::scatter_local(f.unit, bs, f.mpi_op, mine, std::vector<Index>{0}, next.data(), std::vector<Index>{0});
            SFR_MPI(MPI_Accumulate, next.data(), bs, base, peer, tgt[k], bs, base, MPI_REPLACE, st.win);
            SFR_MPI(MPI_Win_flush, peer, st.win);
          }
          SFR_MPI(MPI_Win_unlock, peer, st.win);
        }
        f.fetched_in_back = true;
        break;
      }
    }
  }

  void finish(StarForest& sf, InFlight& f, Link& l) override {
    auto& st = l.state<WindowState>();
    if (st.win == MPI_WIN_NULL) return;
    switch (f.kind) {
      case Motion::bcast: SFR_MPI(MPI_Win_fence, 0, st.win); break;
      case Motion::reduce:
        SFR_MPI(MPI_Win_fence, 0, st.win);
        st.copy_runs(f.rootdata, st.buf.data());
        f.applied = true;
        break;
      case Motion::fetch_and_op: {
        SFR_MPI(MPI_Barrier, sf.comm());
        int me = 0;
        MPI_Comm_rank(sf.comm(), &me);
        SFR_MPI(MPI_Win_lock, MPI_LOCK_EXCLUSIVE, me, 0, st.win);
        st.copy_runs(f.rootdata, st.buf.data());
        SFR_MPI(MPI_Win_unlock, me, st.win);
        break;
      }
    }
  }

private:
  const std::vector<Transfer>& transfers(const core::RankLists& pl, Link& l, const InFlight& f) {
    auto [it, fresh] = l.state<WindowState>().transfers.try_emplace({f.unit, f.bs, f.kind});
    if (!fresh) return it->second;
    const MPI_Datatype base = mpi_type(f.unit);
    for (std::size_t p = 0; p < pl.leaf_side.npeers(); ++p) {
      const auto tgt = targets(pl, p);
      if (f.kind == Motion::bcast) {
        Transfer t;
        t.peer = p;
        t.count = static_cast<int>(tgt.size()) * f.bs;
        t.target = std::make_unique<TypeGuard>(indexed(tgt, f.bs, base));
        it->second.push_back(std::move(t));
        continue;
      }
      for (const auto& [pos, round] : rounds(tgt)) {
        Transfer t;
        t.peer = p;
        t.origin = std::make_unique<TypeGuard>(indexed_int(pos, f.bs, base));
        t.target = std::make_unique<TypeGuard>(indexed_int(round, f.bs, base));
        it->second.push_back(std::move(t));
      }
    }
    return it->second;
  }

  // Open MPI 4.1's one-sided accumulate mis-applies the logical ops (LXOR acts as LOR, ...).
  // They only look at truthiness and yield 0/1, so normalising the roots that receive remote
  // updates and the packed leaf values to 0/1 and using the bitwise twin gives the same result.
  static bool is_logical(core::MpiOp op) { return op == core::MpiOp::land || op == core::MpiOp::lor || op == core::MpiOp::lxor; }
  static MPI_Op bitwise_twin(core::MpiOp op) { return op == core::MpiOp::land ? MPI_BAND : op == core::MpiOp::lor ? MPI_BOR : MPI_BXOR; }
  static void logical_as_bitwise(const InFlight& f, const core::RankLists& pl, Link& l) {
    auto& st = l.state<WindowState>();
    core::visit_unit(f.unit, [&]<class T>() {
      if constexpr (std::is_integral_v<T>) {
        T* root = reinterpret_cast<T*>(st.buf.data());
        const auto bs = static_cast<std::size_t>(f.bs);
        for (Index i : pl.root_side.indices)
          for (std::size_t c = 0; c < bs; ++c) root[static_cast<std::size_t>(i) * bs + c] = root[static_cast<std::size_t>(i) * bs + c] != 0;
        T* leaf = reinterpret_cast<T*>(l.sendbuf.data());
        for (std::size_t k = 0; k < l.sendbuf.size() / sizeof(T); ++k) leaf[k] = leaf[k] != 0;
      }
    });
  }
  static std::span<const Index> targets(const core::RankLists& pl, std::size_t p) {
    return std::span<const Index>(pl.leaf_remote)
        .subspan(static_cast<std::size_t>(pl.leaf_side.offsets[p]), static_cast<std::size_t>(pl.leaf_side.count(p)));
  }
  // bs consecutive `base` units at each vertex index.
  static MPI_Datatype indexed(std::span<const Index> idx, int bs, MPI_Datatype base) {
    std::vector<int> d(idx.begin(), idx.end());
    return indexed_int(d, bs, base);
  }
  static MPI_Datatype indexed_int(std::vector<int> d, int bs, MPI_Datatype base) {
    static const int dummy = 0;
    for (int& x : d) x *= bs;
    MPI_Datatype t;
    SFR_MPI(MPI_Type_create_indexed_block, static_cast<int>(d.size()), bs, d.empty() ? &dummy : d.data(), base, &t);
    return t;
  }
};

}  // namespace

std::unique_ptr<Backend> make_window() { return std::make_unique<Window>(); }

}  // namespace sfr::exec::mpi
