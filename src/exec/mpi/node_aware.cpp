// Node-aware strategies (3step, 2step, split-md, split-dd), after Bienz, Gropp and Olson's
// node-aware irregular point-to-point study and the simulator's models of them (sim/strategies.cpp),
// as a transport: the driver packs one block per destination rank and unpacks one block per source
// rank, exactly as for basic; this backend relays the blocks of off-node peers through
// aggregating processes. Every op, unit, MPI op and block size is therefore conformant, and ops are
// applied only at their destination, in PETSc's order.
//
// Nodes are consecutive blocks of ranks_per_node ranks (the trace's machine or --ranks-per-node:
// emulated nodes on one machine). Traffic from rank s to the ranks of another node L is one
// "group" (s, L); its payload is s's blocks for the ranks of L, in rank order, or, root -> leaf,
// the distinct root values among them (a root value needed by several ranks of L crosses between
// the nodes once). Each group has a route (A, B): A on s's node gathers it (step 1), A sends one
// message per (A, B) pair (step 2), B redistributes it to the destination ranks (step 3).
//   3step     A = rank L of s's node, B = rank K of node L (K = s's node): one message per node pair
//   2step     A = s, B = the rank of node L with s's local index: no gathering step
//   split-md  the groups of a node, in (L, s) order, cut into chunks of at most the split cap
//   split-dd  (the machine description's split.message_cap; a group is never cut); chunk c goes
//             from local rank n-1-c%n to local rank c%n of L: the inter-node traffic of a node
//             spread over all its processes. The two differ only for device buffers (duplicated
//             device pointers vs copies); on the host they are the same transport. No helper
//             processes.
// The groups and their routes are plan::node_groups (src/plan/rounds.hpp), the one implementation
// the simulator times and inspect prints; this file only builds the buffers and posts them.
// On-node peers exchange through the shm transport where they share memory (pack into the sender's
// segment, unpack from it), else directly point to point in step 1. Step 1 and the direct messages are
// posted by start; finish completes step 1, sends step 2, completes it, sends step 3 and completes
// everything. Each step has its own communicator, so tags never cross steps.
#include <algorithm>
#include <map>
#include <optional>
#include <type_traits>

#include "core/pack.hpp"
#include "exec/mpi/backend.hpp"
#include "exec/mpi/mpi_check.hpp"
#include "plan/rounds.hpp"

namespace sfr::exec::mpi {
namespace {

struct Msg {
  int peer = 0;
  std::size_t off = 0, count = 0;  // vertices, into the buffer the step uses
};

// One link's schedule for one payload choice (deduplicated or not), for this rank.
struct Route {
  std::vector<std::size_t> direct_send, direct_recv;  // on-node peers (link peer indices)
  // Step 1, as a source: one entry per group of mine.
  struct Out {
    int agg = 0;
    std::vector<Index> from;  // positions (vertices) in my sendbuf, in payload order
    core::IndexShape shape;
    std::size_t pay_off = 0;  // where it is gathered (s1buf, or s2buf when agg is me)
  };
  std::vector<Out> out;
  std::size_t s1_size = 0;
  std::vector<Msg> s1_recv;  // as an aggregator A: into s2buf
  std::vector<Msg> s2_send;  // from s2buf, per B
  std::size_t s2_size = 0;
  std::vector<Msg> s2_recv;  // as B: into relay
  std::size_t relay_size = 0;
  struct Fwd {
    int dest = 0;
    std::size_t recv_off = 0;  // dest's receive buffer position (vertices), when dest is me
    std::vector<Index> from;   // positions in relay
    core::IndexShape shape;
    std::size_t buf_off = 0;  // in s3buf
  };
  std::vector<Fwd> s3_send;
  std::size_t s3_size = 0;
  std::vector<Msg> s3_recv;  // as a destination: into recvbuf
  // Buffers.
  std::vector<std::byte> s1buf, s2buf, relay, s3buf;
  // Requests: receives of step 1 (as A), of step 2 (as B), of step 3 and direct (as destination),
  // and every send.
  std::vector<MPI_Request> s1_reqs, relay_reqs, last_reqs, send_reqs;
};

// A strategy's own per link (Link::state): its two routes, for deduplicated root values and for
// values by position, each built on first use.
struct NodeAwareState : LinkState {
  std::optional<Route> route[2];
};

class NodeAware final : public Backend {
public:
  // ranks_per_node <= 0: the ranks that share this rank's memory (collective).
  NodeAware(StarForest& sf, plan::Transport t, int ranks_per_node, std::int64_t split_cap) : transport_(t), rpn_(ranks_per_node) {
    params_.split_cap = split_cap;
    if (rpn_ <= 0) rpn_ = ranks_sharing_memory(sf.comm());
    shm_ = make_shm(sf, false, rpn_);
    for (auto& c : comm_) SFR_MPI(MPI_Comm_dup, sf.comm(), &c);
    me_ = sf.rank();
    MPI_Comm_size(sf.comm(), &size_);
  }
  ~NodeAware() override {
    for (auto& c : comm_)
      if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }

  void init_link(StarForest& sf, Link& l) override {
    shm_->init_link(sf, l);
    l.make_state<NodeAwareState>();
    if (rank_lists_.empty()) rank_lists_ = core::build_rank_lists(sf.graph());
  }
  void before_pack(StarForest& sf, Link& l) override { shm_->before_pack(sf, l); }
  void after_unpack(StarForest& sf, Link& l) override { shm_->after_unpack(sf, l); }
  void free_link(Link& l) override {
    shm_->free_link(l);
    l.drop_state<NodeAwareState>();
  }

  void start(StarForest& sf, InFlight& f, Link& l) override {
    Route& r = route(l, f);
    const std::size_t vb = l.vbytes;
    // Receives first: step 3 and direct (into recvbuf), step 2 (relay), step 1 (s2buf).
    for (const auto& m : r.s3_recv) post(MPI_Irecv, l, l.recvbuf.data() + m.off * vb, m.count, m.peer, 2, r.last_reqs);
    for (std::size_t p : r.direct_recv)
      post(MPI_Irecv, l, l.recv_block(p), static_cast<std::size_t>(l.recv->count(p)), l.recv->peers[p], 0, r.last_reqs);
    for (const auto& m : r.s2_recv) post(MPI_Irecv, l, r.relay.data() + m.off * vb, m.count, m.peer, 1, r.relay_reqs);
    for (const auto& m : r.s1_recv) post(MPI_Irecv, l, r.s2buf.data() + m.off * vb, m.count, m.peer, 0, r.s1_reqs);
    for (std::size_t p : r.direct_send)
      post(MPI_Isend, l, l.send_block(p), static_cast<std::size_t>(l.send->count(p)), l.send->peers[p], 0, r.send_reqs);
    posted_ += static_cast<std::int64_t>(r.direct_send.size());
    for (const auto& o : r.out) {
      std::byte* dst = (o.agg == me_ ? r.s2buf.data() : r.s1buf.data()) + o.pay_off * vb;
      core::pack(l.sendbuf.data(), o.from, o.shape, vb, dst);
      if (o.agg != me_) post(MPI_Isend, l, dst, o.from.size(), o.agg, 0, r.send_reqs), ++posted_;
    }
    shm_->start(sf, f, l);  // on-node shared peers: publish the packed blocks
  }

  std::int64_t posted() const override { return posted_; }

  void finish(StarForest& sf, InFlight& f, Link& l) override {
    Route& r = route(l, f);
    const std::size_t vb = l.vbytes;
    wait(r.s1_reqs);  // step 1 gathered at this aggregator
    for (const auto& m : r.s2_send) post(MPI_Isend, l, r.s2buf.data() + m.off * vb, m.count, m.peer, 1, r.send_reqs);
    posted_ += static_cast<std::int64_t>(r.s2_send.size());
    wait(r.relay_reqs);  // step 2 arrived: forward
    for (const auto& fw : r.s3_send) {
      const bool mine = fw.dest == me_;
      std::byte* dst = mine ? l.recvbuf.data() + fw.recv_off * vb : r.s3buf.data() + fw.buf_off * vb;
      core::pack(r.relay.data(), fw.from, fw.shape, vb, dst);
      if (!mine) post(MPI_Isend, l, dst, fw.from.size(), fw.dest, 2, r.send_reqs), ++posted_;
    }
    wait(r.last_reqs);
    wait(r.send_reqs);
    shm_->finish(sf, f, l);
  }

private:
  // The link's route for this op: deduplicated root values only root -> leaf and when the send
  // blocks hold values by index (built on first use).
  Route& route(Link& l, const InFlight& f) {
    const bool dedup = l.dir == Direction::root_to_leaf && f.by_index;
    auto& r = l.state<NodeAwareState>().route[dedup ? 1 : 0];
    if (!r) r = make_route(l, dedup);
    return *r;
  }
  // One message of `count` vertices of step `step` (MPI_Irecv or MPI_Isend), its request in `into`.
  template <class Buf, class Post>
  void post(Post mpi_call, const Link& l, Buf* at, std::size_t count, int peer, int step, std::vector<MPI_Request>& into) const {
    const auto [n, type] = l.message(static_cast<Index>(count));
    into.emplace_back();
    constexpr const char* name = std::is_same_v<Post, decltype(&MPI_Isend)> ? "MPI_Isend" : "MPI_Irecv";
    ::sfr::exec::mpi::check(mpi_call(at, n, type, peer, l.tag, comm_[step], &into.back()), name);
  }
  static void wait(std::vector<MPI_Request>& v) {
    if (!v.empty()) SFR_MPI(MPI_Waitall, static_cast<int>(v.size()), v.data(), MPI_STATUSES_IGNORE);
    v.clear();
  }

  int node(int r) const { return placement().node(r); }
  int on_node(int k) const { return placement().ranks_on_node(k); }
  const core::PeerLists& send_side(int s, Direction d) const { return plan::send_side(rank_lists_, s, d); }
  const core::PeerLists& recv_side(int s, Direction d) const { return plan::recv_side(rank_lists_, s, d); }

  using Group = plan::Group;
  core::RankLayout placement() const { return {size_, rpn_}; }
  std::vector<Group> groups(Direction d, std::size_t vbytes) const {
    return plan::node_groups(rank_lists_, d, placement(), transport_, static_cast<std::int64_t>(vbytes), params_);
  }

  // Payload of a group: positions in s's sendbuf (vertices), and per destination peer p of the
  // group and element k, the element's position in the payload. With `dedup`, distinct sender
  // indices, in order of first appearance; each taken from its first position.
  struct Payload {
    std::vector<Index> from;
    std::vector<std::vector<Index>> at;  // per peer of the group
  };
  static Payload payload(const core::PeerLists& side, const Group& g, bool dedup) {
    Payload pl;
    const Index base = side.offsets[g.p0], end = side.offsets[g.p1];
    if (!dedup) {
      for (Index x = base; x < end; ++x) pl.from.push_back(x);
      for (std::size_t p = g.p0; p < g.p1; ++p) {
        pl.at.emplace_back();
        for (Index x = side.offsets[p]; x < side.offsets[p + 1]; ++x) pl.at.back().push_back(x - base);
      }
      return pl;
    }
    std::map<Index, Index> first;  // sender index -> payload position
    for (std::size_t p = g.p0; p < g.p1; ++p) {
      pl.at.emplace_back();
      for (Index x = side.offsets[p]; x < side.offsets[p + 1]; ++x) {
        const Index idx = side.indices[static_cast<std::size_t>(x)];
        auto [it, fresh] = first.emplace(idx, static_cast<Index>(pl.from.size()));
        if (fresh) pl.from.push_back(x);
        pl.at.back().push_back(it->second);
      }
    }
    return pl;
  }
  // The groups' payloads, each built once.
  struct Payloads {
    const NodeAware& self;
    Direction d;
    bool dedup;
    std::map<const Group*, Payload> built{};
    const Payload& operator()(const Group& g) {
      auto it = built.find(&g);
      if (it == built.end()) it = built.emplace(&g, payload(self.send_side(g.s, d), g, dedup)).first;
      return it->second;
    }
  };
  using RelayOf = std::map<std::pair<int, int>, std::pair<const Group*, std::size_t>>;  // (s, dest node) -> group, relay offset

  Route make_route(const Link& l, bool dedup) const {
    Route r;
    const auto gs = groups(l.dir, l.vbytes);
    // On-node peers.
    for (std::size_t p = 0; p < l.send->npeers(); ++p)
      if (node(l.send->peers[p]) == node(me_) && !l.send_placed(p)) r.direct_send.push_back(p);
    for (std::size_t p = 0; p < l.recv->npeers(); ++p)
      if (node(l.recv->peers[p]) == node(me_) && !l.recv_placed(p)) r.direct_recv.push_back(p);
    Payloads pay{*this, l.dir, dedup};
    aggregate(gs, pay, r);
    redistribute(l, gs, pay, relay(gs, pay, r), r);
    r.s1buf.resize(r.s1_size * l.vbytes);
    r.s2buf.resize(r.s2_size * l.vbytes);
    r.relay.resize(r.relay_size * l.vbytes);
    r.s3buf.resize(r.s3_size * l.vbytes);
    return r;
  }

  // Steps 1 and 2 from this rank: as an aggregator A, the (A, B) messages in B order, each the
  // groups' payloads in s order, and the step-1 receives (groups of other sources aggregated here)
  // in (s, L) order = send order; as a source, its groups' payloads, packed for their aggregators.
  void aggregate(const std::vector<Group>& gs, Payloads& pay, Route& r) const {
    std::map<int, std::vector<const Group*>> as_a;
    for (const auto& g : gs)
      if (g.A == me_) as_a[g.B].push_back(&g);
    std::map<const Group*, std::size_t> in_s2;
    for (auto& [B, v] : as_a) {
      std::sort(v.begin(), v.end(), [](const Group* a, const Group* b) { return a->s < b->s; });
      Msg m{B, r.s2_size, 0};
      for (const Group* g : v) {
        in_s2[g] = r.s2_size + m.count;
        m.count += pay(*g).from.size();
      }
      r.s2_size += m.count;
      r.s2_send.push_back(m);
    }
    for (const auto& g : gs)
      if (g.A == me_ && g.s != me_) r.s1_recv.push_back({g.s, in_s2.at(&g), pay(g).from.size()});
    for (const auto& g : gs) {
      if (g.s != me_) continue;
      Route::Out o;
      o.agg = g.A;
      o.from = pay(g).from;
      o.shape = core::classify_indices(o.from);
      if (g.A == me_)
        o.pay_off = in_s2.at(&g);
      else {
        o.pay_off = r.s1_size;
        r.s1_size += o.from.size();
      }
      r.out.push_back(std::move(o));
    }
  }

  // Step 2 into this rank, as B: the relay holds the (A, me) messages in A order; each group's
  // payload at a known place (returned).
  RelayOf relay(const std::vector<Group>& gs, Payloads& pay, Route& r) const {
    std::map<int, std::vector<const Group*>> as_b;
    for (const auto& g : gs)
      if (g.B == me_) as_b[g.A].push_back(&g);
    RelayOf relay_of;
    for (auto& [A, v] : as_b) {
      std::sort(v.begin(), v.end(), [](const Group* a, const Group* b) { return a->s < b->s; });
      Msg m{A, r.relay_size, 0};
      for (const Group* g : v) {
        relay_of[{g->s, g->L}] = {g, r.relay_size + m.count};
        m.count += pay(*g).from.size();
      }
      r.relay_size += m.count;
      r.s2_recv.push_back(m);
    }
    return relay_of;
  }

  // Step 3, both ends: for a destination rank t, its receive list's off-node peers, cut into runs
  // of consecutive peers with the same relay B; one message per run, into t's receive buffer.
  void redistribute(const Link& l, const std::vector<Group>& gs, Payloads& pay, const RelayOf& relay_of, Route& r) const {
    const Direction d = l.dir;
    std::map<std::pair<int, int>, const Group*> index;
    for (const auto& g : gs) index[{g.s, g.L}] = &g;
    auto relay = [&](int s, int L) { return index.at({s, L})->B; };
    auto runs = [&](int t, auto&& emit) { plan::relay_runs(recv_side(t, d), placement(), t, relay, emit); };
    runs(me_, [&](int B, std::size_t p, std::size_t q) {
      if (B != me_)
        r.s3_recv.push_back({B, static_cast<std::size_t>(l.recv->offsets[p]), static_cast<std::size_t>(l.recv->offsets[q] - l.recv->offsets[p])});
    });
    for (int t = node(me_) * rpn_; t < node(me_) * rpn_ + on_node(node(me_)); ++t)
      runs(t, [&](int B, std::size_t p, std::size_t q) {
        if (B != me_) return;
        const auto& rs = recv_side(t, d);
        Route::Fwd fw;
        fw.dest = t;
        fw.recv_off = static_cast<std::size_t>(rs.offsets[p]);
        for (std::size_t k = p; k < q; ++k) {
          const auto& [g, off] = relay_of.at({rs.peers[k], node(t)});
          // t's position among the group's destination peers.
          const auto& ss = send_side(g->s, d);
          const std::size_t pi = static_cast<std::size_t>(std::lower_bound(ss.peers.begin() + static_cast<std::ptrdiff_t>(g->p0),
                                                                           ss.peers.begin() + static_cast<std::ptrdiff_t>(g->p1), t) -
                                                          ss.peers.begin()) -
                                 g->p0;
          for (Index at : pay(*g).at[pi]) fw.from.push_back(static_cast<Index>(off) + at);
        }
        fw.shape = core::classify_indices(fw.from);
        if (t != me_) {
          fw.buf_off = r.s3_size;
          r.s3_size += fw.from.size();
        }
        r.s3_send.push_back(std::move(fw));
      });
  }

  plan::Transport transport_;
  plan::RouteParams params_;
  std::int64_t posted_ = 0;  // messages posted (MPI_Isend), for the runner's check against the plan
  int rpn_ = 1, me_ = 0, size_ = 1;
  MPI_Comm comm_[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
  std::unique_ptr<Backend> shm_;  // the on-node step
  std::vector<core::RankLists> rank_lists_;
};

}  // namespace

std::unique_ptr<Backend> make_node_aware(const BackendArgs& a) {
  return std::make_unique<NodeAware>(a.sf, core::backend(a.id).transport, a.ranks_per_node, a.split_cap);
}

}  // namespace sfr::exec::mpi
