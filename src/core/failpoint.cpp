#include "core/failpoint.hpp"

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "core/environment.hpp"
#include "core/error.hpp"

namespace sfr::core {

namespace {

struct Named {
  FailPoint point;
  const char* name;
};
constexpr Named kNames[] = {{FailPoint::setup, "setup"},
                            {FailPoint::begin, "begin"},
                            {FailPoint::end, "end"},
                            {FailPoint::write, "write"},
                            {FailPoint::stall_write, "stall-write"},
                            {FailPoint::stall_begin, "stall-begin"},
                            {FailPoint::mpi_error, "mpi-error"}};

std::string names() {
  std::string s;
  for (const auto& n : kNames) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

// The launcher's rank of this process (0 without one).
long this_rank() {
  const auto r = launcher_rank();
  return r ? r->rank : 0;
}

struct Setting {
  const Named* named = nullptr;
  long rank = -1;
};

// SFR_FAILPOINT parsed; named is null when it is malformed.
Setting parse(std::string_view v) {
  Setting s;
  const auto at = v.rfind('@');
  const std::string_view name = v.substr(0, at), rank = at == std::string_view::npos ? "" : v.substr(at + 1);
  for (const auto& n : kNames)
    if (name == n.name) s.named = &n;
  if (rank.empty() || rank.find_first_not_of("0123456789") != std::string_view::npos || rank.size() > 9) s.named = nullptr;
  if (s.named) s.rank = std::strtol(std::string(rank).c_str(), nullptr, 10);
  return s;
}

}  // namespace

namespace detail {

const bool kFailPointsArmed = env_value(Env::failpoint) != nullptr;

bool fail_point_reached(FailPoint p) {
  static const Setting s = parse(env_value(Env::failpoint));
  static bool fired = false;  // the first pass only
  if (fired || !s.named || s.named->point != p || s.rank != this_rank()) return false;
  fired = true;
  if (p == FailPoint::stall_write || p == FailPoint::stall_begin) {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return false;
  }
  if (p == FailPoint::mpi_error) return true;
  throw FailPointHit(std::string("fail point '") + s.named->name + "' reached (SFR_FAILPOINT)");
}

}  // namespace detail

void check_fail_point_setting() {
  const char* v = env_value(Env::failpoint);
  if (v && !parse(v).named)
    throw InputError("SFR_FAILPOINT", "'" + std::string(v) + "' is not NAME@RANK with NAME one of " + names() + " and RANK an integer >= 0");
}

}  // namespace sfr::core
