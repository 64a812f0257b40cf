// The states backends keep per link, on the link: what one backend (host or CUDA transport) keeps
// for one exchange beyond the link's buffers and requests (basic's bound addresses, window's
// window, shm's segments, a strategy's routes, cuda-ipc's mapped peer buffers). A type of its own
// per backend, made by that backend on the link and read only by it (PetscSF keeps such state
// behind the backend too): no backend keeps a map keyed by links, and no driver reads it.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sfr::exec {

struct LinkState {
  virtual ~LinkState() = default;
};

// One state per type: a backend that wraps another (shm around basic, the node-aware strategies
// around shm) keeps its own beside the wrapped one's. Links of both executors derive from it.
class LinkStates {
public:
  template <class T>
  T& make_state() {
    if (find_state<T>()) throw std::logic_error("Link: a second backend state of one type");
    states_.emplace_back(type_tag<T>(), std::make_unique<T>());
    return static_cast<T&>(*states_.back().second);
  }
  // Null where the backend made none (yet).
  template <class T>
  T* find_state() {
    for (auto& [tag, s] : states_)
      if (tag == type_tag<T>()) return static_cast<T*>(s.get());
    return nullptr;
  }
  template <class T>
  T& state() {
    T* s = find_state<T>();
    if (!s) throw std::logic_error("Link: no such backend state");
    return *s;
  }
  template <class T>
  void drop_state() {
    std::erase_if(states_, [](const auto& e) { return e.first == type_tag<T>(); });
  }

private:
  // One address per state type (no RTTI on the hot path: a pointer compare over one to three).
  template <class T>
  static const void* type_tag() {
    static const char tag = 0;
    return &tag;
  }
  std::vector<std::pair<const void*, std::unique_ptr<LinkState>>> states_;
};

}  // namespace sfr::exec
