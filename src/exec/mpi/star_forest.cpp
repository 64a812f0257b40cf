#include "exec/mpi/star_forest.hpp"

#include <algorithm>

#include "core/backends.hpp"
#include "core/derive.hpp"
#include "core/error.hpp"
#include "core/failpoint.hpp"
#include "core/pack.hpp"
#include "exec/cuda/device_sf.hpp"
#include "exec/cuda/list_kernels.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::mpi {

int ranks_sharing_memory(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

StarForest::StarForest(MPI_Comm comm, const core::Graph& g, core::BackendId backend, int ranks_per_node, std::int64_t split_cap)
    : graph_(g), backend_(backend), ranks_per_node_(ranks_per_node), split_cap_(split_cap) {
  core::fail_point(core::FailPoint::setup);
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (size != g.nranks)
    throw InputError("", "the SF lives on " + std::to_string(g.nranks) + " ranks but the communicator has " + std::to_string(size));
  SFR_MPI(MPI_Comm_dup, comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  lists_ = core::build_rank_lists(g, rank_);
  transport_ = make_backend({*this, g, backend, ranks_per_node_, split_cap_});
  self_while_sending_ = core::backend(backend).self_while_sending;
}

std::int64_t StarForest::messages_posted() const {
  const std::int64_t mine = transport_->posted();
  if (mine < 0 || !multi_) return mine;
  const std::int64_t multi = multi_->messages_posted();
  return multi < 0 ? -1 : mine + multi;
}

StarForest::~StarForest() {
  if (unwinding()) {  // (exec/sf.hpp) the backend's state and the links are left to the process's end
    (void)transport_.release();
    (void)multi_.release();
    return;
  }
  multi_.reset();
  for (auto& l : links_) {
    transport_->free_link(*l);
    MPI_Type_free(&l->vtype);
  }
  transport_.reset();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Link& StarForest::acquire(Direction d, std::size_t vbytes) {
  for (auto& l : links_)
    if (!l->busy && l->dir == d && l->vbytes == vbytes) {
      l->busy = true;
      return *l;
    }
  auto l = std::make_unique<Link>();
  l->dir = d;
  l->vbytes = vbytes;
  l->tag = next_tag_++;
  l->send = d == Direction::root_to_leaf ? &lists_.root_side : &lists_.leaf_side;
  l->recv = d == Direction::root_to_leaf ? &lists_.leaf_side : &lists_.root_side;
  l->sendbuf.resize(l->send->indices.size() * vbytes);
  l->recvbuf.resize(l->recv->indices.size() * vbytes);
  for (const auto& sh : l->send->shapes) l->send_contiguous.push_back(sh.kind == core::IndexShape::contiguous);
  for (const auto& sh : l->recv->shapes) l->recv_contiguous.push_back(sh.kind == core::IndexShape::contiguous);
  SFR_MPI(MPI_Type_contiguous, static_cast<int>(vbytes), MPI_BYTE, &l->vtype);
  SFR_MPI(MPI_Type_commit, &l->vtype);
  transport_->init_link(*this, *l);
  l->busy = true;
  links_.push_back(std::move(l));
  return *links_.back();
}

StarForest& StarForest::multi() {
  if (!multi_) {
    multi_graph_ = std::make_unique<core::Graph>(core::multi_sf(graph_));
    multi_ = std::make_unique<StarForest>(comm_, *multi_graph_, backend_, ranks_per_node_, split_cap_);
  }
  return *multi_;
}

Index StarForest::multi_nroots() { return multi().lists().nroots; }

const cuda::ListKernels& StarForest::kernels() {
  if (!kernels_) kernels_ = std::make_unique<cuda::ListKernels>(lists_);
  return *kernels_;
}

bool StarForest::device_direct() {
  if (device_direct_ < 0) {
    // Every rank asks its own MPI library; all must agree, or a device block would meet a host one.
    int mine = transport_->device_blocks() && cuda::cuda_aware_refusal().empty() ? 1 : 0, all = 0;
    SFR_MPI(MPI_Allreduce, &mine, &all, 1, MPI_INT, MPI_MIN, comm_);
    device_direct_ = all;
  }
  return device_direct_ == 1;
}

void StarForest::stage(Link& l) {
  if (l.dsend.size() == l.sendbuf.size() && l.drecv.size() == l.recvbuf.size() && !l.hself.empty() == !lists_.self_roots.empty()) return;
  l.dsend = cuda::DeviceMemory(l.sendbuf.size());
  l.drecv = cuda::DeviceMemory(l.recvbuf.size());
  const std::size_t selfb = 2 * lists_.self_roots.size() * l.vbytes;
  l.dself = cuda::DeviceMemory(selfb);
  l.hself.assign(selfb, std::byte{0});
}

namespace {

// The staged path: the blocks packed on the device go to where the backend reads them (the link's
// send buffer, or where the backend placed a peer's block), and the received blocks up to the
// device.
// Each block goes down once: to where it was placed, else into the send buffer (one copy of the
// whole buffer where no block was placed). Copying the whole buffer and then the placed blocks
// again moved shm's on-node bytes twice.
void blocks_down(Link& l, const cuda::Stream& s) {
  if (!l.any_send_placed()) {
    if (!l.sendbuf.empty()) cuda::copy_async(l.sendbuf.data(), l.dsend.data(), l.sendbuf.size(), s);
  } else {
    for (std::size_t p = 0; p < l.send->npeers(); ++p)
      cuda::copy_async(l.host_send_block(p), l.dsend.data() + static_cast<std::size_t>(l.send->offsets[p]) * l.vbytes,
                       static_cast<std::size_t>(l.send->count(p)) * l.vbytes, s);
  }
  s.sync();
}
// Blocks just packed into l.dsend, handed to the transport by the op's device path: down to host memory
// (staged), or left on the device for MPI (direct).
void hand_over_packed(const cuda::ListKernels& K, InFlight::DevicePath path, Link& l) {
  if (path == InFlight::DevicePath::staged) return blocks_down(l, K.stream());
  K.sync();
  l.dev_send = l.dsend.data();
}
void blocks_up(Link& l, const cuda::Stream& s) {
  if (!l.any_recv_placed()) {
    if (!l.recvbuf.empty()) cuda::copy_async(l.drecv.data(), l.recvbuf.data(), l.recvbuf.size(), s);
  } else {
    for (std::size_t p = 0; p < l.recv->npeers(); ++p)
      cuda::copy_async(l.drecv.data() + static_cast<std::size_t>(l.recv->offsets[p]) * l.vbytes, l.host_recv_block(p),
                       static_cast<std::size_t>(l.recv->count(p)) * l.vbytes, s);
  }
}

// A device array as a host copy (the mirror path); host arrays stay where they are.
std::byte* mirror(const Data& d, std::vector<std::byte>& m, std::size_t bytes) {
  if (!d.on_device()) return d.p;
  m.resize(bytes);
  if (bytes) cuda::copy(m.data(), d.p, bytes);
  return m.data();
}
void mirror_back(const Data& d, const std::vector<std::byte>& m) {
  if (d.on_device() && !m.empty()) cuda::copy(d.p, m.data(), m.size());
}

}  // namespace

// The self part of f: this rank's leaves on its own roots, on the device where its data are.
void StarForest::self_part(InFlight& f) {
  const core::RankLists& pl = lists_;
  if (f.packs_on_device()) {
    Link& l = *f.link;
    kernels().self_part(f.kind, f.unit, f.bs, f.mpi_op, f.root, f.leaf, f.update, l.dself.data(), l.hself.data());
    return;
  }
  switch (f.kind) {
    case Motion::bcast: core::scatter_local(f.unit, f.bs, f.mpi_op, f.rootdata, pl.self_roots, f.leafdata, pl.self_leaves); break;
    case Motion::reduce: core::scatter_local(f.unit, f.bs, f.mpi_op, f.leafdata, pl.self_leaves, f.rootdata, pl.self_roots); break;
    case Motion::fetch_and_op:
      core::fetch_and_op_local(f.unit, f.bs, f.mpi_op, f.rootdata, pl.self_roots, f.leafdata, pl.self_leaves, f.leafupdate);
      break;
  }
}

StarForest::Handle StarForest::start(std::unique_ptr<InFlight> fp) {
  InFlight& f = *fp;
  StarForest& s = *f.sf;
  s.transport_->check(s, f);
  const std::size_t vb = core::unit_size(f.unit) * static_cast<std::size_t>(f.bs);
  const core::RankLists& pl = s.lists_;
  const bool fetch = f.kind == Motion::fetch_and_op;
  f.rootdata = f.root.p;
  f.leafdata = f.leaf.p;
  f.leafupdate = f.update.p;
  if (f.root.on_device() || f.leaf.on_device() || (fetch && f.update.on_device())) {
    if (s.transport_->reads_user_arrays()) {
      f.device_path = InFlight::DevicePath::mirror;
      f.rootdata = mirror(f.root, f.mroot, static_cast<std::size_t>(pl.nroots) * vb);
      f.leafdata = mirror(f.leaf, f.mleaf, static_cast<std::size_t>(pl.leafspace) * vb);
      if (fetch) f.leafupdate = mirror(f.update, f.mupdate, static_cast<std::size_t>(pl.leafspace) * vb);
    } else {
      f.device_path = s.device_direct() ? InFlight::DevicePath::direct : InFlight::DevicePath::staged;
    }
  }
  const bool dev = f.packs_on_device();
  f.link = &s.acquire(f.kind == Motion::bcast ? Direction::root_to_leaf : Direction::leaf_to_root, vb);
  if (fetch) f.back = &s.acquire(Direction::root_to_leaf, vb);
  Link& l = *f.link;
  // No packing for contiguous peers on a backend that can use user buffers directly. Receives go
  // straight into the leaves only for REPLACE broadcasts (leaf positions are unique).
  const bool direct = s.transport_->direct_capable() && !dev;
  f.send_direct.assign(l.send->npeers(), 0);
  f.recv_direct.assign(l.recv->npeers(), 0);
  if (direct && !fetch) f.send_direct = l.send_contiguous;
  if (direct && f.kind == Motion::bcast && f.mpi_op == core::MpiOp::replace) f.recv_direct = l.recv_contiguous;
  const Data src = f.kind == Motion::bcast ? f.root : f.leaf;
  if (dev) {
    s.stage(l);
    if (f.back) s.stage(*f.back);
  }
  s.transport_->before_pack(s, l);
  if (s.transport_->wants_pack(f)) {
    if (dev && src.on_device()) {
      const cuda::ListKernels& K = s.kernels();
      K.pack(*l.send, f.unit, f.bs, src, l.dsend.data());
      hand_over_packed(K, f.device_path, l);
    } else {
      const std::byte* from = f.kind == Motion::bcast ? f.rootdata : f.leafdata;
      for (std::size_t p = 0; p < l.send->npeers(); ++p)
        if (!f.send_direct[p]) core::pack(from, l.send->list(p), l.send->shapes[p], vb, l.send_block(p));
    }
  }
  if (f.device_path == InFlight::DevicePath::direct && (f.kind == Motion::bcast ? f.leaf : f.root).on_device()) l.dev_recv = l.drecv.data();
  // PetscSF's order: start the sends, then the self part while they fly (the remote part is
  // applied after it, in end(), either way). Device data keep the self part first: its kernel and
  // the staged copies share one stream, and no GPU has timed the other order.
  const bool self_first = dev || !s.self_while_sending_;
  if (self_first) s.self_part(f);
  s.transport_->start(s, f, l);
  if (!self_first) s.self_part(f);
  for (std::size_t h = 0; h < inflight_.size(); ++h)
    if (!inflight_[h]) {
      inflight_[h] = std::move(fp);
      return h;
    }
  inflight_.push_back(std::move(fp));
  return inflight_.size() - 1;
}

namespace {

// Unpacks link l's received blocks into `dst` (the leaves for a root -> leaf link, else the roots):
// on the device where dst is device memory (after the staged path brought them up), else per peer.
// Whether it synchronised the device stream (then everything the op put on it is done).
bool unpack_into(const cuda::ListKernels* K, InFlight& f, Link& l, core::MpiOp op, const Data& dst, std::byte* host_dst, bool skip_direct) {
  if (K && dst.on_device()) {
    if (f.device_path == InFlight::DevicePath::staged) blocks_up(l, K->stream());
    K->unpack(*l.recv, f.unit, f.bs, op, l.drecv.data(), dst);
    K->sync();
    return true;
  }
  for (std::size_t p = 0; p < l.recv->npeers(); ++p)
    if (!skip_direct || !f.recv_direct[p]) core::unpack(f.unit, f.bs, op, l.recv_block(p), l.recv->list(p), l.recv->shapes[p], host_dst);
  return false;
}

}  // namespace

void StarForest::end(Handle h) {
  if (h >= inflight_.size() || !inflight_[h]) throw std::logic_error("StarForest::end: no such operation in flight");
  InFlight& f = *inflight_[h];
  StarForest& s = *f.sf;
  Link& l = *f.link;
  const cuda::ListKernels* K = f.packs_on_device() ? &s.kernels() : nullptr;
  s.transport_->finish(s, f, l);
  bool synced = false;  // the device stream, after the op's last work on it
  if (!f.applied) {
    switch (f.kind) {
      case Motion::bcast:
        synced = unpack_into(K, f, l, f.mpi_op, f.leaf, f.leafdata, true);
        s.transport_->after_unpack(s, l);
        break;
      case Motion::reduce:
        synced = unpack_into(K, f, l, f.mpi_op, f.root, f.rootdata, false);
        s.transport_->after_unpack(s, l);
        break;
      case Motion::fetch_and_op: {
        Link& b = *f.back;
        if (!f.fetched_in_back) {
          // Apply the arrived leaf values in peer order, keeping what each one fetched, and send the
          // fetched values back along the root -> leaf direction.
          s.transport_->before_pack(s, b);
          if (K && f.root.on_device()) {
            if (f.device_path == InFlight::DevicePath::staged) blocks_up(l, K->stream());
            K->fetch(f.unit, f.bs, f.mpi_op, l.drecv.data(), f.root, b.dsend.data());
            hand_over_packed(*K, f.device_path, b);
          } else {
            for (std::size_t p = 0; p < l.recv->npeers(); ++p)
              core::fetch_and_op_unpack(f.unit, f.bs, f.mpi_op, l.recv_block(p), l.recv->list(p), l.recv->shapes[p], f.rootdata,
                                        b.send_block(p));
          }
          s.transport_->after_unpack(s, l);
          if (f.device_path == InFlight::DevicePath::direct && f.leaf.on_device()) b.dev_recv = b.drecv.data();
          InFlight ret;
          ret.kind = Motion::bcast;
          ret.unit = f.unit;
          ret.bs = f.bs;
          ret.sf = &s;
          ret.by_index = false;
          ret.device_path = f.device_path;
          ret.send_direct.assign(b.send->npeers(), 0);
          ret.recv_direct.assign(b.recv->npeers(), 0);
          s.transport_->start(s, ret, b);
          s.transport_->finish(s, ret, b);
        }
        synced = unpack_into(K, f, b, core::MpiOp::replace, f.update, f.leafupdate, false);
        if (!f.fetched_in_back) s.transport_->after_unpack(s, b);
        break;
      }
    }
  }
  if (K && !synced) K->sync();  // the self part's device work, where no unpack on the device waited for it
  if (f.device_path == InFlight::DevicePath::mirror) {
    if (f.kind == Motion::bcast) mirror_back(f.leaf, f.mleaf);
    if (f.kind != Motion::bcast) mirror_back(f.root, f.mroot);
    if (f.kind == Motion::fetch_and_op) mirror_back(f.update, f.mupdate);
  }
  for (Link* x : {f.link, f.back})
    if (x) {
      x->busy = false;
      x->dev_send = x->dev_recv = nullptr;
    }
  inflight_[h].reset();
}

namespace {
std::unique_ptr<InFlight> record(Motion k, core::Unit u, int bs, core::MpiOp op, StarForest* sf, Data root, Data leaf, Data update = {}) {
  auto f = std::make_unique<InFlight>();
  f->kind = k;
  f->unit = u;
  f->bs = bs;
  f->mpi_op = op;
  f->sf = sf;
  f->root = root;
  f->leaf = leaf;
  f->update = update;
  return f;
}
}  // namespace

StarForest::Handle StarForest::bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) {
  return start(record(Motion::bcast, u, bs, op, this, root, leaf));
}
StarForest::Handle StarForest::reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) {
  return start(record(Motion::reduce, u, bs, op, this, root, leaf));
}
StarForest::Handle StarForest::fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) {
  return start(record(Motion::fetch_and_op, u, bs, op, this, root, leaf, leafupdate));
}
StarForest::Handle StarForest::gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) {
  return start(record(Motion::reduce, u, bs, core::MpiOp::replace, &multi(), multiroot, leaf));
}
StarForest::Handle StarForest::scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) {
  return start(record(Motion::bcast, u, bs, core::MpiOp::replace, &multi(), multiroot, leaf));
}

std::vector<std::int64_t> StarForest::degree() {
  std::vector<std::int64_t> deg(static_cast<std::size_t>(lists_.nroots), 0), ones(static_cast<std::size_t>(lists_.leafspace), 1);
  end(reduce_begin(core::Unit::int64, 1, core::MpiOp::sum, host_data(ones.data()), host_data(deg.data())));
  return deg;
}

}  // namespace sfr::exec::mpi
