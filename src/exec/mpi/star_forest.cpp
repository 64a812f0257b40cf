#include "exec/mpi/star_forest.hpp"

#include "core/backends.hpp"
#include "core/derive.hpp"
#include "core/error.hpp"
#include "core/pack.hpp"
#include "exec/mpi/backend.hpp"

namespace sfr::exec::mpi {

std::vector<std::string> backend_names() {
  std::vector<std::string> v;
  for (const auto& b : core::kBackends) v.push_back(b.name);
  v.push_back("auto");
  return v;
}

int ranks_sharing_memory(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

namespace {

std::unique_ptr<Backend> make_backend(StarForest& sf, const std::string& name, const core::Graph& g, int ranks_per_node,
                                      std::int64_t split_cap) {
  if (name == "basic" || name == "auto") return make_basic();  // auto without a choice (runner.hpp): basic
  if (name == "neighbor") return make_neighbor(sf, true);
  if (name == "window") return make_window();
  if (name == "alltoallv") return make_alltoallv(sf);
  if (name == "collective") return make_collective(sf, g);
  if (name == "shm") return make_shm(sf, true, ranks_per_node);  // on-node = the placement's (emulated) node
  if (const auto* info = core::find_backend(name); info && info->node_aware) return make_node_aware(sf, name, ranks_per_node, split_cap);
  std::string list;
  for (const auto& n : backend_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("--backend", "unknown backend \"" + name + "\" (expected one of " + list + ")");
}

}  // namespace

StarForest::StarForest(MPI_Comm comm, const core::Graph& g, const std::string& backend, int ranks_per_node, std::int64_t split_cap)
    : graph_(g), backend_name_(backend), ranks_per_node_(ranks_per_node), split_cap_(split_cap) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (size != g.nranks)
    throw InputError("", "the SF lives on " + std::to_string(g.nranks) + " ranks but the communicator has " + std::to_string(size));
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  plan_ = core::build_plan(g, rank_);
  backend_ = make_backend(*this, backend, g, ranks_per_node_, split_cap_);
}

std::int64_t StarForest::messages_posted() const {
  const std::int64_t mine = backend_->posted();
  if (mine < 0 || !multi_) return mine;
  const std::int64_t multi = multi_->messages_posted();
  return multi < 0 ? -1 : mine + multi;
}

StarForest::~StarForest() {
  multi_.reset();
  for (auto& l : links_) {
    backend_->free_link(*l);
    MPI_Type_free(&l->vtype);
  }
  backend_.reset();
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
  l->send = d == Direction::root_to_leaf ? &plan_.root_side : &plan_.leaf_side;
  l->recv = d == Direction::root_to_leaf ? &plan_.leaf_side : &plan_.root_side;
  l->sendbuf.resize(l->send->indices.size() * vbytes);
  l->recvbuf.resize(l->recv->indices.size() * vbytes);
  for (const auto& sh : l->send->shapes) l->send_contiguous.push_back(sh.kind == core::IndexShape::contiguous);
  for (const auto& sh : l->recv->shapes) l->recv_contiguous.push_back(sh.kind == core::IndexShape::contiguous);
  MPI_Type_contiguous(static_cast<int>(vbytes), MPI_BYTE, &l->vtype);
  MPI_Type_commit(&l->vtype);
  backend_->init_link(*this, *l);
  l->busy = true;
  links_.push_back(std::move(l));
  return *links_.back();
}

StarForest& StarForest::multi() {
  if (!multi_) {
    multi_graph_ = std::make_unique<core::Graph>(core::multi_sf(graph_));
    multi_ = std::make_unique<StarForest>(comm_, *multi_graph_, backend_name_, ranks_per_node_, split_cap_);
  }
  return *multi_;
}

Index StarForest::multi_nroots() { return multi().plan().nroots; }

StarForest::Handle StarForest::start(std::unique_ptr<InFlight> fp) {
  InFlight& f = *fp;
  StarForest& s = *f.sf;
  s.backend_->check(s, f);
  const std::size_t vb = core::unit_size(f.unit) * static_cast<std::size_t>(f.bs);
  const core::RankPlan& pl = s.plan_;
  f.link = &s.acquire(f.kind == Motion::bcast ? Direction::root_to_leaf : Direction::leaf_to_root, vb);
  if (f.kind == Motion::fetch_and_op) f.back = &s.acquire(Direction::root_to_leaf, vb);
  Link& l = *f.link;
  // No packing for contiguous peers on a backend that can use user buffers directly. Receives go
  // straight into the leaves only for REPLACE broadcasts (leaf positions are unique).
  const bool direct = s.backend_->direct_capable();
  f.send_direct.assign(l.send->npeers(), 0);
  f.recv_direct.assign(l.recv->npeers(), 0);
  if (direct && f.kind != Motion::fetch_and_op) f.send_direct = l.send_contiguous;
  if (direct && f.kind == Motion::bcast && f.op == core::MpiOp::replace) f.recv_direct = l.recv_contiguous;
  s.backend_->before_pack(s, l);
  if (s.backend_->wants_pack(f)) {
    const std::byte* src = f.kind == Motion::bcast ? f.rootdata : f.leafdata;
    for (std::size_t p = 0; p < l.send->npeers(); ++p)
      if (!f.send_direct[p]) core::pack(src, l.send->list(p), l.send->shapes[p], vb, l.send_block(p));
  }
  switch (f.kind) {
    case Motion::bcast: core::scatter_local(f.unit, f.bs, f.op, f.rootdata, pl.self_roots, f.leafdata, pl.self_leaves); break;
    case Motion::reduce: core::scatter_local(f.unit, f.bs, f.op, f.leafdata, pl.self_leaves, f.rootdata, pl.self_roots); break;
    case Motion::fetch_and_op:
      core::fetch_and_op_local(f.unit, f.bs, f.op, f.rootdata, pl.self_roots, f.leafdata, pl.self_leaves, f.leafupdate);
      break;
  }
  s.backend_->start(s, f, l);
  for (std::size_t h = 0; h < inflight_.size(); ++h)
    if (!inflight_[h]) {
      inflight_[h] = std::move(fp);
      return h;
    }
  inflight_.push_back(std::move(fp));
  return inflight_.size() - 1;
}

void StarForest::end(Handle h) {
  if (h >= inflight_.size() || !inflight_[h]) throw std::logic_error("StarForest::end: no such operation in flight");
  InFlight& f = *inflight_[h];
  StarForest& s = *f.sf;
  Link& l = *f.link;
  s.backend_->finish(s, f, l);
  if (!f.applied) {
    switch (f.kind) {
      case Motion::bcast:
        for (std::size_t p = 0; p < l.recv->npeers(); ++p)
          if (!f.recv_direct[p]) core::unpack(f.unit, f.bs, f.op, l.recv_block(p), l.recv->list(p), l.recv->shapes[p], f.leafdata);
        s.backend_->after_unpack(s, l);
        break;
      case Motion::reduce:
        for (std::size_t p = 0; p < l.recv->npeers(); ++p)
          core::unpack(f.unit, f.bs, f.op, l.recv_block(p), l.recv->list(p), l.recv->shapes[p], f.rootdata);
        s.backend_->after_unpack(s, l);
        break;
      case Motion::fetch_and_op: {
        Link& b = *f.back;
        if (!f.fetched_in_back) {
          // Apply the arrived leaf values in peer order, keeping what each one fetched, and send the
          // fetched values back along the root -> leaf direction.
          s.backend_->before_pack(s, b);
          for (std::size_t p = 0; p < l.recv->npeers(); ++p)
            core::fetch_and_op_unpack(f.unit, f.bs, f.op, l.recv_block(p), l.recv->list(p), l.recv->shapes[p], f.rootdata, b.send_block(p));
          s.backend_->after_unpack(s, l);
          InFlight ret;
          ret.kind = Motion::bcast;
          ret.unit = f.unit;
          ret.bs = f.bs;
          ret.sf = &s;
          ret.by_index = false;
          ret.send_direct.assign(b.send->npeers(), 0);
          ret.recv_direct.assign(b.recv->npeers(), 0);
          s.backend_->start(s, ret, b);
          s.backend_->finish(s, ret, b);
        }
        for (std::size_t p = 0; p < b.recv->npeers(); ++p)
          core::unpack(f.unit, f.bs, core::MpiOp::replace, b.recv_block(p), b.recv->list(p), b.recv->shapes[p], f.leafupdate);
        if (!f.fetched_in_back) s.backend_->after_unpack(s, b);
        break;
      }
    }
  }
  l.busy = false;
  if (f.back) f.back->busy = false;
  inflight_[h].reset();
}

namespace {
std::unique_ptr<InFlight> record(Motion k, core::Unit u, int bs, core::MpiOp op, StarForest* sf) {
  auto f = std::make_unique<InFlight>();
  f->kind = k;
  f->unit = u;
  f->bs = bs;
  f->op = op;
  f->sf = sf;
  return f;
}
std::byte* bytes(const void* p) { return static_cast<std::byte*>(const_cast<void*>(p)); }
}  // namespace

StarForest::Handle StarForest::bcast_begin(core::Unit u, int bs, core::MpiOp op, const void* rootdata, void* leafdata) {
  auto f = record(Motion::bcast, u, bs, op, this);
  f->rootdata = bytes(rootdata);
  f->leafdata = bytes(leafdata);
  return start(std::move(f));
}

StarForest::Handle StarForest::reduce_begin(core::Unit u, int bs, core::MpiOp op, const void* leafdata, void* rootdata) {
  auto f = record(Motion::reduce, u, bs, op, this);
  f->rootdata = bytes(rootdata);
  f->leafdata = bytes(leafdata);
  return start(std::move(f));
}

StarForest::Handle StarForest::fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, void* rootdata, const void* leafdata,
                                                  void* leafupdate) {
  auto f = record(Motion::fetch_and_op, u, bs, op, this);
  f->rootdata = bytes(rootdata);
  f->leafdata = bytes(leafdata);
  f->leafupdate = bytes(leafupdate);
  return start(std::move(f));
}

StarForest::Handle StarForest::gather_begin(core::Unit u, int bs, const void* leafdata, void* multirootdata) {
  auto f = record(Motion::reduce, u, bs, core::MpiOp::replace, &multi());
  f->rootdata = bytes(multirootdata);
  f->leafdata = bytes(leafdata);
  return start(std::move(f));
}

StarForest::Handle StarForest::scatter_begin(core::Unit u, int bs, const void* multirootdata, void* leafdata) {
  auto f = record(Motion::bcast, u, bs, core::MpiOp::replace, &multi());
  f->rootdata = bytes(multirootdata);
  f->leafdata = bytes(leafdata);
  return start(std::move(f));
}

std::vector<std::int64_t> StarForest::degree() {
  std::vector<std::int64_t> deg(static_cast<std::size_t>(plan_.nroots), 0), ones(static_cast<std::size_t>(plan_.leafspace), 1);
  end(reduce_begin(core::Unit::int64, 1, core::MpiOp::sum, ones.data(), deg.data()));
  return deg;
}

}  // namespace sfr::exec::mpi
