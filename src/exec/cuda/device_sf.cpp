#include "exec/cuda/device_sf.hpp"

#include "core/backends.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <climits>
#include <cstdlib>
#include <cstdint>
#include <stdexcept>

#include "core/derive.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/failpoint.hpp"
#include "core/kernels.hpp"
#include "exec/cuda/device_link.hpp"
#include "exec/cuda/kernels.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::cuda {

using core::Direction;
using core::Index;

namespace {

int message_bytes(Index n, std::size_t vbytes) {
  const auto b = static_cast<unsigned long long>(n) * vbytes;
  if (b > static_cast<unsigned long long>(INT_MAX))
    throw std::runtime_error("a message of " + std::to_string(b) + " bytes exceeds the 2 GiB one MPI count can describe");
  return static_cast<int>(b);
}

// The transports, one row per gpu row of the catalogue (core::kBackends).
struct TransportRow {
  core::BackendId id;
  std::unique_ptr<DeviceTransport> (*make)();
};
constexpr TransportRow kTransports[] = {
    {core::BackendId::cuda_staged, make_cuda_staged},
    {core::BackendId::cuda_aware, make_cuda_aware},
    {core::BackendId::cuda_ipc, make_cuda_ipc},
};
static_assert(core::one_row_each(kTransports, [](const core::BackendInfo& b) { return b.gpu; }),
              "every gpu backend of core::kBackends has one row of kTransports");

std::unique_ptr<DeviceTransport> make_transport(core::BackendId id) {
  for (const auto& r : kTransports)
    if (r.id == id) return r.make();
  throw std::logic_error("DeviceStarForest: not a CUDA transport");
}

}  // namespace

std::vector<Piece> pieces(const core::PeerLists& side, std::size_t vbytes, bool pipelined) {
  std::vector<Piece> out;
  for (std::size_t p = 0; p < side.npeers(); ++p) {
    const std::size_t base = static_cast<std::size_t>(side.offsets[p]) * vbytes;
    const auto bytes = static_cast<std::size_t>(message_bytes(side.count(p), vbytes));
    const std::size_t chunk = pipelined && bytes > kPipelineMin ? kPipelineChunk : std::max<std::size_t>(bytes, 1);
    std::size_t off = 0;
    do {
      out.push_back({p, base + off, static_cast<int>(std::min(chunk, bytes - off))});
      off += chunk;
    } while (off < bytes);
  }
  return out;
}

std::string cuda_aware_refusal() {
  if (emulated_device()) {
    // Its device memory is host memory, which any MPI reads; SFR_EMULATE_DEVICE_MPI=host makes it
    // act as an MPI that takes no device pointers (the staged paths run, cuda-aware refuses).
    const char* mpi = core::env_value(core::Env::emulate_device_mpi);
    if (mpi && std::string_view(mpi) == "host")
      return "the MPI library takes no device pointers (the emulated device with SFR_EMULATE_DEVICE_MPI=host); use cuda-staged";
    return "";
  }
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  if (MPIX_Query_cuda_support() == 1) return "";
  return "the MPI library does not report CUDA support at run time (MPIX_Query_cuda_support() returned 0); use cuda-staged";
#else
  return "the MPI library offers no run-time CUDA support query (MPIX_Query_cuda_support), so device pointers are not handed to it; "
         "use cuda-staged";
#endif
}

void select_node_device(MPI_Comm comm) {
  MPI_Comm node;
  int local = 0;
  SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  select_device(local);
}


struct DeviceStarForest::Op {
  core::Motion kind = core::Motion::bcast;
  core::Unit unit = core::Unit::float64;
  int bs = 1;
  core::MpiOp op = core::MpiOp::replace;
  Data root, leaf, update;
  DeviceLink* link = nullptr;
  DeviceLink* back = nullptr;
  bool on_multi = false;
};

DeviceStarForest::DeviceStarForest(MPI_Comm comm, const core::Graph& g, core::BackendId t)
    : graph_(g), backend_(t), transport_(make_transport(t)) {
  core::fail_point(core::FailPoint::setup);
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (size != g.nranks)
    throw InputError("", "the SF lives on " + std::to_string(g.nranks) + " ranks but the communicator has " + std::to_string(size));
  int me = 0;
  MPI_Comm_rank(comm, &me);
  lists_ = core::build_rank_lists(g, me);
  transport_->check(comm, lists_);
  SFR_MPI(MPI_Comm_dup, comm, &comm_);
  rank_ = me;
  kernels_ = std::make_unique<ListKernels>(lists_);
}

DeviceStarForest::~DeviceStarForest() {
  if (unwinding()) {  // (exec/sf.hpp) links, peers' mappings and the multi-SF are left to the process's end
    for (auto& l : links_) (void)l.release();
    (void)multi_.release();
    return;
  }
  multi_.reset();
  if (comm_ != MPI_COMM_NULL) {
    for (auto& l : links_) transport_->close_link(context(), *l);
    transport_->before_free(comm_);
  }
  links_.clear();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

DeviceContext DeviceStarForest::context() const { return {comm_, *kernels_}; }

DeviceLink& DeviceStarForest::link(Direction d, std::size_t vbytes) {
  for (auto& l : links_)
    if (l->dir == d && l->vbytes == vbytes) return *l;
  auto l = std::make_unique<DeviceLink>();
  l->tag_base = kLinkTags + kTagsPerLink * static_cast<int>(links_.size());
  l->dir = d;
  l->vbytes = vbytes;
  l->send = d == Direction::root_to_leaf ? &lists_.root_side : &lists_.leaf_side;
  l->recv = d == Direction::root_to_leaf ? &lists_.leaf_side : &lists_.root_side;
  const std::size_t sb = l->send->indices.size() * vbytes, rb = l->recv->indices.size() * vbytes;
  const std::size_t selfb = 2 * lists_.self_roots.size() * vbytes;
  l->dsend = DeviceMemory(sb);
  l->drecv = DeviceMemory(rb);
  l->dself = DeviceMemory(selfb);
  l->hsend = PinnedMemory(sb);
  l->hrecv = PinnedMemory(rb);
  l->hself = PinnedMemory(selfb);
  l->rpieces = pieces(*l->recv, vbytes, transport_->pipelined());
  l->spieces = pieces(*l->send, vbytes, transport_->pipelined());
  l->reqs.assign(l->npieces(), MPI_REQUEST_NULL);
  transport_->init_link(context(), *l);
  links_.push_back(std::move(l));
  return *links_.back();
}

DeviceStarForest& DeviceStarForest::multi() {
  if (!multi_) {
    multi_graph_ = std::make_unique<core::Graph>(core::multi_sf(graph_));
    multi_ = std::make_unique<DeviceStarForest>(comm_, *multi_graph_, backend_);
  }
  return *multi_;
}

void DeviceStarForest::start(DeviceLink& l, bool send_dev, bool recv_dev) { transport_->start(context(), l, send_dev, recv_dev); }

std::byte* DeviceStarForest::finish(DeviceLink& l, bool recv_dev) {
  transport_->finish(context(), l, recv_dev);
  return recv_dev ? l.drecv.data() : l.hrecv.data();
}

void DeviceStarForest::release(DeviceLink& l) { transport_->release(context(), l); }

void DeviceStarForest::begin(Op o) {
  if (inflight_) throw std::logic_error("DeviceStarForest: one op in flight at a time (end the last one first)");
  const std::size_t vb = core::unit_size(o.unit) * static_cast<std::size_t>(o.bs);
  const bool down = o.kind == core::Motion::bcast;
  o.link = &link(down ? Direction::root_to_leaf : Direction::leaf_to_root, vb);
  if (o.kind == core::Motion::fetch_and_op) o.back = &link(Direction::root_to_leaf, vb);
  const Data src = down ? o.root : o.leaf, dst = down ? o.leaf : o.root;
  DeviceLink& l = *o.link;
  kernels_->pack(*l.send, o.unit, o.bs, src, src.on_device() ? l.dsend.data() : l.hsend.data());
  kernels_->self_part(o.kind, o.unit, o.bs, o.op, o.root, o.leaf, o.update, l.dself.data(), l.hself.data());
  start(l, src.on_device(), dst.on_device());
  inflight_ = std::make_unique<Op>(o);
}

void DeviceStarForest::end(Handle) {
  if (!inflight_) throw std::logic_error("DeviceStarForest::end: no op in flight");
  const Op o = *inflight_;
  inflight_.reset();
  if (o.on_multi) return multi().end();
  const ListKernels& K = *kernels_;
  DeviceLink& l = *o.link;
  switch (o.kind) {
    case core::Motion::bcast:
      K.unpack(lists_.leaf_side, o.unit, o.bs, o.op, finish(l, o.leaf.on_device()), o.leaf);
      K.sync();
      release(l);
      break;
    case core::Motion::reduce:
      K.unpack(lists_.root_side, o.unit, o.bs, o.op, finish(l, o.root.on_device()), o.root);
      K.sync();
      release(l);
      break;
    case core::Motion::fetch_and_op: {
      // Apply the arrived leaf values at the roots, keeping what each fetched in the way back's
      // send blocks (the same lists, in the same order), and send those back to the leaves.
      DeviceLink& b = *o.back;
      K.fetch(o.unit, o.bs, o.op, finish(l, o.root.on_device()), o.root, o.root.on_device() ? b.dsend.data() : b.hsend.data());
      K.sync();
      release(l);
      start(b, o.root.on_device(), o.leaf.on_device());
      K.unpack(lists_.leaf_side, o.unit, o.bs, core::MpiOp::replace, finish(b, o.leaf.on_device()), o.update);
      K.sync();
      release(b);
      break;
    }
  }
}

Sf::Handle DeviceStarForest::bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) {
  begin({core::Motion::bcast, u, bs, op, root, leaf, Data{}, nullptr, nullptr, false});
  return 0;
}
Sf::Handle DeviceStarForest::reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) {
  begin({core::Motion::reduce, u, bs, op, root, leaf, Data{}, nullptr, nullptr, false});
  return 0;
}
Sf::Handle DeviceStarForest::fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) {
  begin({core::Motion::fetch_and_op, u, bs, op, root, leaf, leafupdate, nullptr, nullptr, false});
  return 0;
}
// gather / scatter run on the multi-SF; this SF only remembers that its end goes there.
Sf::Handle DeviceStarForest::gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) {
  if (inflight_) throw std::logic_error("DeviceStarForest: one op in flight at a time (end the last one first)");
  multi().reduce_begin(u, bs, core::MpiOp::replace, leaf, multiroot);
  inflight_ = std::make_unique<Op>();
  inflight_->on_multi = true;
  return 0;
}
Sf::Handle DeviceStarForest::scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) {
  if (inflight_) throw std::logic_error("DeviceStarForest: one op in flight at a time (end the last one first)");
  multi().bcast_begin(u, bs, core::MpiOp::replace, multiroot, leaf);
  inflight_ = std::make_unique<Op>();
  inflight_->on_multi = true;
  return 0;
}

}  // namespace sfr::exec::cuda
