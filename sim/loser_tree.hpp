// Loser tree (tournament tree): a priority queue over a fixed set of slots, each holding one key,
// where the least key is known at once and replacing it costs log2(slots) comparisons along the
// fixed path from its slot to the root. The comparisons pick with conditional moves, not branches:
// a binary heap's sift-down mispredicts about one branch per level, which dominated the serial
// engine's run with 32 senders per node.
//
// Keys are (hi, lo) pairs ordered lexicographically and must be distinct (the engine's (time,
// sequence)); then the order of the least keys is that of any other priority queue. hi ==
// UINT64_MAX marks an empty slot.
#pragma once

#include <cstdint>
#include <vector>

namespace sfr::sim {

class LoserTree {
public:
  struct Key {
    std::uint64_t hi, lo;
  };
  static constexpr std::uint64_t kNone = UINT64_MAX;

  // Starts over with one slot per key (slot i holds keys[i]).
  void reset(const Key* keys, std::size_t n) {
    width_ = 1;
    while (width_ < n) width_ *= 2;
    // Bottom-up tournament: play_[i] is the winner below node i; node i keeps the loser.
    play_.resize(2 * width_);
    for (std::size_t i = 0; i < width_; ++i) play_[width_ + i] = {i < n ? keys[i] : Key{kNone, kNone}, static_cast<std::uint32_t>(i)};
    node_.resize(width_);
    for (std::size_t i = width_ - 1; i >= 1; --i) {
      const Entry& a = play_[2 * i];
      const Entry& b = play_[2 * i + 1];
      const bool a_wins = less(a, b);
      play_[i] = a_wins ? a : b;
      node_[i] = a_wins ? b : a;
    }
    win_ = play_[1];
  }
  bool empty() const { return win_.key.hi == kNone; }
  std::uint32_t top() const { return win_.slot; }  // the slot holding the least key
  const Key& top_key() const { return win_.key; }
  // The top slot's key becomes k (hi == kNone: the slot leaves the queue).
  void replace_top(Key k) {
    Entry cur{k, win_.slot};
    for (std::size_t i = (width_ + cur.slot) >> 1; i >= 1; i >>= 1) {
      const Entry held = node_[i];
      const bool swap = less(held, cur);
      node_[i] = swap ? cur : held;
      cur = swap ? held : cur;
    }
    win_ = cur;
  }

private:
  struct Entry {
    Key key;
    std::uint32_t slot;
  };
  static bool less(const Entry& a, const Entry& b) {
    return (static_cast<unsigned __int128>(a.key.hi) << 64 | a.key.lo) < (static_cast<unsigned __int128>(b.key.hi) << 64 | b.key.lo);
  }
  std::size_t width_ = 1;
  std::vector<Entry> node_;  // node_[i], 1 <= i < width_: the loser of the match at node i
  std::vector<Entry> play_;  // reset's scratch
  Entry win_{{kNone, kNone}, 0};
};

}  // namespace sfr::sim
