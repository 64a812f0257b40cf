#include "exec/cuda/list_kernels.hpp"

#include <tuple>

#include "exec/cuda/kernels.hpp"

namespace sfr::exec::cuda {

using core::Index;

namespace {

DeviceMemory upload(const std::vector<Index>& v) {
  DeviceMemory d(v.size() * sizeof(Index));
  copy(d.data(), v.data(), d.size());
  return d;
}
const Index* as_index(const DeviceMemory& m) { return reinterpret_cast<const Index*>(m.data()); }

// A side's whole concatenated list: by its shape when there is one peer, else as a general list.
core::IndexView view(const core::PeerLists& pl, const Index* list) {
  return pl.npeers() == 1 ? core::index_view(pl.shapes[0], list) : core::index_view(list);
}

const core::Groups kNone{};

// One side's kernels, on the GPU or the host by where its data live.
struct SideKernels {
  Launch L;
  void pack(bool dev, core::Unit u, int bs, const std::byte* src, const core::IndexView& dv, const core::IndexView& hv, Index n,
            std::byte* dst) const {
    if (dev) return cuda::pack(L, u, bs, src, dv, n, dst);
    core::HostLauncher H;
    core::HostKernels::pack(H, u, bs, src, hv, n, dst);
  }
  void unpack(bool dev, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& dv, const core::IndexView& hv,
              Index n, std::byte* dst, const core::Groups& gd, const core::Groups& gh) const {
    if (dev) return cuda::unpack(L, u, bs, op, src, dv, n, dst, gd);
    core::HostLauncher H;
    core::HostKernels::unpack(H, u, bs, op, src, hv, n, dst, gh);
  }
  void fetch(bool dev, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& dv, const core::IndexView& hv,
             Index n, std::byte* root, std::byte* fetched, const core::Groups& gd, const core::Groups& gh) const {
    if (dev) return cuda::fetch_and_op(L, u, bs, op, src, dv, n, root, fetched, gd);
    core::HostLauncher H;
    core::HostKernels::fetch_and_op(H, u, bs, op, src, hv, n, root, fetched, gh);
  }
};

}  // namespace

ListKernels::ListKernels(const core::RankLists& plan) : lists_(plan) {
  root_idx_ = upload(lists_.root_side.indices);
  leaf_idx_ = upload(lists_.leaf_side.indices);
  self_root_idx_ = upload(lists_.self_roots);
  self_leaf_idx_ = upload(lists_.self_leaves);
  root_groups_ = core::group_by_destination(lists_.root_side.indices, lists_.nroots);
  self_groups_ = core::group_by_destination(lists_.self_roots, lists_.nroots);
  for (auto [g, d, at] : {std::tuple{&root_groups_, root_groups_dev_, &root_at_}, std::tuple{&self_groups_, self_groups_dev_, &self_at_}}) {
    d[0] = upload(g->starts);
    d[1] = upload(g->order);
    *at = {g->view(as_index(d[0]), as_index(d[1])), g->view()};
  }
  stream_.sync();
}

ListKernels::At ListKernels::side_view(const core::PeerLists& side) const {
  const bool root = &side == &lists_.root_side;
  return {view(side, as_index(root ? root_idx_ : leaf_idx_)), view(side, side.indices.data())};
}

void ListKernels::pack(const core::PeerLists& side, core::Unit u, int bs, Data src, std::byte* dst) const {
  const At v = side_view(side);
  SideKernels{{stream_.get()}}.pack(src.on_device(), u, bs, src.p, v.dev, v.host, static_cast<Index>(side.indices.size()), dst);
}

void ListKernels::unpack(const core::PeerLists& side, core::Unit u, int bs, core::MpiOp op, const std::byte* src, Data dst) const {
  const At v = side_view(side);
  const bool root = &side == &lists_.root_side;
  SideKernels{{stream_.get()}}.unpack(dst.on_device(), u, bs, op, src, v.dev, v.host, static_cast<Index>(side.indices.size()), dst.p,
                                      root ? root_at_.dev : kNone, root ? root_at_.host : kNone);
}

void ListKernels::fetch(core::Unit u, int bs, core::MpiOp op, const std::byte* src, Data root, std::byte* fetched) const {
  const At v = side_view(lists_.root_side);
  SideKernels{{stream_.get()}}.fetch(root.on_device(), u, bs, op, src, v.dev, v.host, static_cast<Index>(lists_.root_side.indices.size()),
                                     root.p, fetched, root_at_.dev, root_at_.host);
}

void ListKernels::self_part(core::Motion kind, core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data update, std::byte* dself,
                            std::byte* hself) const {
  const auto n = static_cast<Index>(lists_.self_roots.size());
  if (n == 0) return;
  const SideKernels K{{stream_.get()}};
  const core::IndexView dr = core::index_view(as_index(self_root_idx_)), dl = core::index_view(as_index(self_leaf_idx_));
  const core::IndexView hr = core::index_view(lists_.self_roots.data()), hl = core::index_view(lists_.self_leaves.data());
  const std::size_t half = static_cast<std::size_t>(n) * core::unit_size(u) * static_cast<std::size_t>(bs);
  core::HostLauncher H;
  const Launch L = K.L;
  const bool fetch = kind == core::Motion::fetch_and_op, down = kind == core::Motion::bcast;
  const Data src = down ? root : leaf, dst = down ? leaf : root;
  const core::IndexView &ds = down ? dr : dl, &hs = down ? hr : hl;
  const core::IndexView &dd = down ? dl : dr, &hd = down ? hl : hr;
  // Roots repeat on the way up only (a bcast writes each leaf once).
  const core::Groups& gd = down ? kNone : self_at_.dev;
  const core::Groups& gh = down ? kNone : self_at_.host;
  if (src.on_device() == dst.on_device()) {  // one kernel
    if (fetch) {
      if (src.on_device())
        cuda::fetch_local(L, u, bs, op, root.p, dr, leaf.p, dl, n, update.p, gd);
      else
        core::HostKernels::fetch_local(H, u, bs, op, root.p, hr, leaf.p, hl, n, update.p, gh);
    } else if (src.on_device()) {
      cuda::local(L, u, bs, op, src.p, ds, dst.p, dd, n, gd);
    } else {
      core::HostKernels::local(H, u, bs, op, src.p, hs, dst.p, hd, n, gh);
    }
    return;
  }
  // Mixed memtypes: pack where the source lives, move across, apply where the destination lives.
  std::byte* at_src = src.on_device() ? dself : hself;
  std::byte* at_dst = dst.on_device() ? dself : hself;
  K.pack(src.on_device(), u, bs, src.p, ds, hs, n, at_src);
  copy_async(at_dst, at_src, half, stream_);
  stream_.sync();
  if (!fetch) return K.unpack(dst.on_device(), u, bs, op, at_dst, dd, hd, n, dst.p, gd, gh);
  // fetch-and-op: the fetched values come back in the second half, then land in leafupdate.
  K.fetch(dst.on_device(), u, bs, op, at_dst, dd, hd, n, root.p, at_dst + half, gd, gh);
  copy_async(at_src + half, at_dst + half, half, stream_);
  stream_.sync();
  K.unpack(src.on_device(), u, bs, core::MpiOp::replace, at_src + half, ds, hs, n, update.p, kNone, kNone);
}

}  // namespace sfr::exec::cuda
