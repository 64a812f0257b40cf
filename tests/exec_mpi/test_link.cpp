// A link keeps each backend's own state, one per type, beside the others (shm's beside basic's
// when shm wraps basic): the backends keep no maps keyed by links.
#include <gtest/gtest.h>

#include <stdexcept>

#include "exec/mpi/link.hpp"

namespace {

using sfr::exec::mpi::Link;
using sfr::exec::mpi::LinkState;

struct Inner : LinkState {
  int bound = 0;
};
struct Outer : LinkState {
  int seq = 0;
};
struct Counted : LinkState {
  static inline int alive = 0;
  Counted() { ++alive; }
  ~Counted() override { --alive; }
};

TEST(LinkStates, EachTypeHasItsOwnBesideTheOthers) {
  Link l;
  EXPECT_EQ(l.find_state<Inner>(), nullptr);
  l.make_state<Inner>().bound = 3;
  l.make_state<Outer>().seq = 7;
  EXPECT_EQ(l.state<Inner>().bound, 3);
  EXPECT_EQ(l.state<Outer>().seq, 7);
  EXPECT_THROW(l.make_state<Inner>(), std::logic_error);  // one per type
  l.drop_state<Outer>();
  EXPECT_EQ(l.find_state<Outer>(), nullptr);
  EXPECT_EQ(l.state<Inner>().bound, 3);
  EXPECT_THROW(l.state<Outer>(), std::logic_error);
}

TEST(LinkStates, AreDestroyedWithTheLinkOrWhenDropped) {
  {
    Link l;
    l.make_state<Counted>();
    EXPECT_EQ(Counted::alive, 1);
  }
  EXPECT_EQ(Counted::alive, 0);
  Link l;
  l.make_state<Counted>();
  l.drop_state<Counted>();
  EXPECT_EQ(Counted::alive, 0);
}

}  // namespace
