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
#include "exec/cuda/kernels.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::cuda {

using core::Direction;
using core::Index;

namespace {

// Tags on the SF's own communicator: the links' set-up, then per link (Link::tag) its data, "done"
// and "free" messages. A tag per link, not per pair of ranks: a "free" of one link must never
// release a sender into another link's buffer while its receiver is still reading that one.
constexpr int kSetup = 1, kLinkTags = 16;
enum LinkTag { kData = 0, kDone = 1, kFree = 2, kTagsPerLink = 3 };

int message_bytes(Index n, std::size_t vbytes) {
  const auto b = static_cast<unsigned long long>(n) * vbytes;
  if (b > static_cast<unsigned long long>(INT_MAX))
    throw std::runtime_error("a message of " + std::to_string(b) + " bytes exceeds the 2 GiB one MPI count can describe");
  return static_cast<int>(b);
}

// What MPI carries of a link: a peer's message, or (pipelined, a large one) a chunk of it.
struct Piece {
  std::size_t peer = 0, off = 0;  // byte offset in the link's buffer
  int bytes = 0;
};
// One side's pieces, in peer order; `pipelined`: messages over kPipelineMin bytes in chunks.
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

}  // namespace

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

struct DeviceStarForest::Link {
  Direction dir = Direction::root_to_leaf;
  std::size_t vbytes = 0;
  const core::PeerLists* send = nullptr;
  const core::PeerLists* recv = nullptr;
  DeviceMemory dsend, drecv, dself;
  PinnedMemory hsend, hrecv, hself;  // the self buffers hold two halves (fetch-and-op's way back)
  std::vector<Piece> rpieces, spieces;  // what MPI carries each way
  std::vector<MPI_Request> reqs;               // rpieces' receives, then spieces' sends
  std::vector<std::unique_ptr<Event>> copied;  // staged: per send piece, its device -> host copy
  std::vector<std::byte*> peer_recv;           // ipc: per send peer, its receive buffer mapped here
  std::vector<std::size_t> peer_off;           // ipc: where my block starts in it
  std::vector<MPI_Request> frees;              // ipc: my "free" notes to the ranks that write to me
  bool wrote = false;                          // ipc: wrote into my receivers' buffers (their "free" is due)
  int tag_base = kLinkTags;                    // links are made in the same order on every rank (ops are collective)

  int tag(LinkTag t) const { return tag_base + t; }

  std::size_t block(const core::PeerLists& pl, std::size_t p) const { return static_cast<std::size_t>(pl.offsets[p]) * vbytes; }
  std::byte* send_at(bool dev, std::size_t p) { return (dev ? dsend.data() : hsend.data()) + block(*send, p); }
  std::byte* recv_at(bool dev, std::size_t p) { return (dev ? drecv.data() : hrecv.data()) + block(*recv, p); }
};

struct DeviceStarForest::Op {
  core::Motion kind = core::Motion::bcast;
  core::Unit unit = core::Unit::float64;
  int bs = 1;
  core::MpiOp op = core::MpiOp::replace;
  Data root, leaf, update;
  Link* link = nullptr;
  Link* back = nullptr;
  bool on_multi = false;
};

DeviceStarForest::DeviceStarForest(MPI_Comm comm, const core::Graph& g, core::BackendId t) : graph_(g), transport_(t) {
  if (!core::backend(t).gpu) throw std::logic_error("DeviceStarForest: not a CUDA transport");
  core::fail_point(core::FailPoint::setup);
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (size != g.nranks)
    throw InputError("", "the SF lives on " + std::to_string(g.nranks) + " ranks but the communicator has " + std::to_string(size));
  if (t == core::BackendId::cuda_aware)
    if (const std::string why = cuda_aware_refusal(); !why.empty()) throw InputError("--backend", "cuda-aware: " + why);
  int me = 0;
  MPI_Comm_rank(comm, &me);
  lists_ = core::build_rank_lists(g, me);
  if (t == core::BackendId::cuda_ipc) {
    // Every peer must share this rank's node (its memory, hence its GPUs' IPC).
    MPI_Comm node;
    SFR_MPI(MPI_Comm_split_type, comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Group world_g, node_g;
    SFR_MPI(MPI_Comm_group, comm, &world_g);
    SFR_MPI(MPI_Comm_group, node, &node_g);
    long long bad = -1;  // rank * size + peer of the first peer off the node
    for (const auto* pl : {&lists_.root_side, &lists_.leaf_side})
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
    if (first >= 0)
      throw InputError("--backend", "cuda-ipc moves data between the ranks of one node only, but rank " + std::to_string(first / size) +
                                        " exchanges with rank " + std::to_string(first % size) + " on another node; use cuda-staged");
  }
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
  for (auto& l : links_) {
    // ipc: take the last "free" notes, wait for mine, unmap the peers' buffers.
    if (l->wrote)
      for (const int p : l->send->peers) MPI_Recv(nullptr, 0, MPI_BYTE, p, l->tag(kFree), comm_, MPI_STATUS_IGNORE);
    if (!l->frees.empty()) MPI_Waitall(static_cast<int>(l->frees.size()), l->frees.data(), MPI_STATUSES_IGNORE);
    for (std::byte* p : l->peer_recv) ipc_close(p);
  }
  // Freeing an exported buffer while a peer still has it mapped is undefined (CUDA IPC): every
  // rank unmaps before any rank frees.
  if (transport_ == core::BackendId::cuda_ipc && comm_ != MPI_COMM_NULL) MPI_Barrier(comm_);
  links_.clear();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

DeviceStarForest::Link& DeviceStarForest::link(Direction d, std::size_t vbytes) {
  for (auto& l : links_)
    if (l->dir == d && l->vbytes == vbytes) return *l;
  auto l = std::make_unique<Link>();
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
  l->rpieces = pieces(*l->recv, vbytes, transport_ == core::BackendId::cuda_staged);
  l->spieces = pieces(*l->send, vbytes, transport_ == core::BackendId::cuda_staged);
  l->reqs.assign(l->rpieces.size() + l->spieces.size(), MPI_REQUEST_NULL);
  if (transport_ == core::BackendId::cuda_staged)
    for (std::size_t k = 0; k < l->spieces.size(); ++k) l->copied.push_back(std::make_unique<Event>());
  if (transport_ == core::BackendId::cuda_ipc) {
    // Each receiver tells each of its senders where that sender's block lives in its buffer.
    struct Note {
      IpcHandle h;
      std::uint64_t off, bytes;  // my block's place in the buffer, and the buffer's size
    };
    const std::size_t nr = l->recv->npeers(), ns = l->send->npeers();
    std::vector<Note> mine(nr), theirs(ns);
    std::vector<MPI_Request> rq(nr + ns, MPI_REQUEST_NULL);
    const IpcHandle h = rb ? ipc_handle(l->drecv.data()) : IpcHandle{};
    for (std::size_t p = 0; p < nr; ++p) {
      mine[p] = {h, l->block(*l->recv, p), rb};
      SFR_MPI(MPI_Isend, &mine[p], sizeof(Note), MPI_BYTE, l->recv->peers[p], kSetup, comm_, &rq[p]);
    }
    for (std::size_t p = 0; p < ns; ++p) SFR_MPI(MPI_Irecv, &theirs[p], sizeof(Note), MPI_BYTE, l->send->peers[p], kSetup, comm_, &rq[nr + p]);
    SFR_MPI(MPI_Waitall, static_cast<int>(rq.size()), rq.data(), MPI_STATUSES_IGNORE);
    for (std::size_t p = 0; p < ns; ++p) {
      l->peer_recv.push_back(ipc_open(theirs[p].h, theirs[p].bytes));
      l->peer_off.push_back(theirs[p].off);
    }
    l->frees.assign(nr, MPI_REQUEST_NULL);
  }
  links_.push_back(std::move(l));
  return *links_.back();
}

DeviceStarForest& DeviceStarForest::multi() {
  if (!multi_) {
    multi_graph_ = std::make_unique<core::Graph>(core::multi_sf(graph_));
    multi_ = std::make_unique<DeviceStarForest>(comm_, *multi_graph_, transport_);
  }
  return *multi_;
}

void DeviceStarForest::start(Link& l, bool send_dev, bool recv_dev) {
  // Every piece of a pair travels under one tag: MPI keeps one pair's chunks in order.
  const std::size_t nr = l.rpieces.size(), ns = l.spieces.size();
  switch (transport_) {
    case core::BackendId::cuda_staged:
      // Each piece goes down to pinned memory on its own event, so its send leaves as soon as its
      // copy is done, while the later copies still run.
      if (send_dev)
        for (std::size_t k = 0; k < ns; ++k) {
          const auto& pc = l.spieces[k];
          copy_async(l.hsend.data() + pc.off, l.dsend.data() + pc.off, static_cast<std::size_t>(pc.bytes), kernels_->stream());
          l.copied[k]->record(kernels_->stream());
        }
      for (std::size_t k = 0; k < nr; ++k) {
        const auto& pc = l.rpieces[k];
        SFR_MPI(MPI_Irecv, l.hrecv.data() + pc.off, pc.bytes, MPI_BYTE, l.recv->peers[pc.peer], l.tag(kData), comm_, &l.reqs[k]);
      }
      for (std::size_t k = 0; k < ns; ++k) {
        const auto& pc = l.spieces[k];
        if (send_dev) l.copied[k]->sync();
        SFR_MPI(MPI_Isend, l.hsend.data() + pc.off, pc.bytes, MPI_BYTE, l.send->peers[pc.peer], l.tag(kData), comm_, &l.reqs[nr + k]);
      }
      return;
    case core::BackendId::cuda_aware:
      if (send_dev) kernels_->sync();  // the pack is done
      for (std::size_t k = 0; k < nr; ++k) {
        const auto& pc = l.rpieces[k];
        SFR_MPI(MPI_Irecv, (recv_dev ? l.drecv.data() : l.hrecv.data()) + pc.off, pc.bytes, MPI_BYTE, l.recv->peers[pc.peer], l.tag(kData), comm_,
                  &l.reqs[k]);
      }
      for (std::size_t k = 0; k < ns; ++k) {
        const auto& pc = l.spieces[k];
        SFR_MPI(MPI_Isend, (send_dev ? l.dsend.data() : l.hsend.data()) + pc.off, pc.bytes, MPI_BYTE, l.send->peers[pc.peer], l.tag(kData), comm_,
                  &l.reqs[nr + k]);
      }
      return;
    case core::BackendId::cuda_ipc:
      for (std::size_t k = 0; k < nr; ++k) SFR_MPI(MPI_Irecv, nullptr, 0, MPI_BYTE, l.recv->peers[l.rpieces[k].peer], l.tag(kDone), comm_, &l.reqs[k]);
      for (std::size_t k = 0; k < ns; ++k) {
        const auto& pc = l.spieces[k];
        // The receiver's buffer is free again once it has unpacked what I wrote last time.
        if (l.wrote) SFR_MPI(MPI_Recv, nullptr, 0, MPI_BYTE, l.send->peers[pc.peer], l.tag(kFree), comm_, MPI_STATUS_IGNORE);
        copy_async(l.peer_recv[pc.peer] + l.peer_off[pc.peer], l.send_at(send_dev, pc.peer), static_cast<std::size_t>(pc.bytes), kernels_->stream());
      }
      kernels_->sync();
      for (std::size_t k = 0; k < ns; ++k)
        SFR_MPI(MPI_Isend, nullptr, 0, MPI_BYTE, l.send->peers[l.spieces[k].peer], l.tag(kDone), comm_, &l.reqs[nr + k]);
      l.wrote = ns > 0;
      return;
    default: return;  // not a CUDA transport: refused by the constructor
  }
}

std::byte* DeviceStarForest::finish(Link& l, bool recv_dev) {
  const std::size_t nr = l.rpieces.size(), ns = l.spieces.size();
  switch (transport_) {
    case core::BackendId::cuda_staged:
      // Each piece goes up to the device as it lands, while the others arrive.
      if (recv_dev)
        for (;;) {
          int k = MPI_UNDEFINED;
          SFR_MPI(MPI_Waitany, static_cast<int>(nr), l.reqs.data(), &k, MPI_STATUS_IGNORE);
          if (k == MPI_UNDEFINED) break;
          const Piece& pc = l.rpieces[static_cast<std::size_t>(k)];
          copy_async(l.drecv.data() + pc.off, l.hrecv.data() + pc.off, static_cast<std::size_t>(pc.bytes), kernels_->stream());
        }
      SFR_MPI(MPI_Waitall, static_cast<int>(nr + ns), l.reqs.data(), MPI_STATUSES_IGNORE);
      break;
    case core::BackendId::cuda_aware: SFR_MPI(MPI_Waitall, static_cast<int>(nr + ns), l.reqs.data(), MPI_STATUSES_IGNORE); break;
    case core::BackendId::cuda_ipc:
      SFR_MPI(MPI_Waitall, static_cast<int>(nr + ns), l.reqs.data(), MPI_STATUSES_IGNORE);
      if (!recv_dev) {
        copy_async(l.hrecv.data(), l.drecv.data(), l.drecv.size(), kernels_->stream());
        kernels_->sync();
      }
      break;
    default: break;  // not a CUDA transport: refused by the constructor
  }
  return recv_dev ? l.drecv.data() : l.hrecv.data();
}

void DeviceStarForest::release(Link& l) {
  if (transport_ != core::BackendId::cuda_ipc || l.recv->npeers() == 0) return;  // (ipc: a piece per peer)
  SFR_MPI(MPI_Waitall, static_cast<int>(l.frees.size()), l.frees.data(), MPI_STATUSES_IGNORE);
  for (std::size_t p = 0; p < l.recv->npeers(); ++p) SFR_MPI(MPI_Isend, nullptr, 0, MPI_BYTE, l.recv->peers[p], l.tag(kFree), comm_, &l.frees[p]);
}

void DeviceStarForest::begin(Op o) {
  if (inflight_) throw std::logic_error("DeviceStarForest: one op in flight at a time (end the last one first)");
  const std::size_t vb = core::unit_size(o.unit) * static_cast<std::size_t>(o.bs);
  const bool down = o.kind == core::Motion::bcast;
  o.link = &link(down ? Direction::root_to_leaf : Direction::leaf_to_root, vb);
  if (o.kind == core::Motion::fetch_and_op) o.back = &link(Direction::root_to_leaf, vb);
  const Data src = down ? o.root : o.leaf, dst = down ? o.leaf : o.root;
  Link& l = *o.link;
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
  Link& l = *o.link;
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
      Link& b = *o.back;
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
