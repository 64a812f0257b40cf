#include "exec/cuda/device_terms.hpp"

#include <algorithm>
#include <chrono>

#include "exec/cuda/kernels.hpp"
#include "exec/cuda/runtime.hpp"

namespace sfr::exec::cuda {

namespace {
// The least over 5 trials of the mean seconds of `iters` calls of f (one untimed call first).
template <class F>
double least_mean(int iters, F&& f) {
  f();
  double best = 1e30;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters);
  }
  return best;
}
}  // namespace

core::CalibrationData::Device measure_device_terms() {
  constexpr std::size_t kMaxCopy = std::size_t{8} << 20, kBandwidthCopy = std::size_t{16} << 20;
  core::CalibrationData::Device d;
  d.name = device_name();
  d.emulated = emulated_device();
  const Stream s;
  DeviceMemory dev(2 * kBandwidthCopy);
  PinnedMemory host(kMaxCopy);
  zero_async(dev.data(), dev.size(), s);
  s.sync();
  for (std::size_t bytes = 8; bytes <= kMaxCopy; bytes *= 4) {
    const int iters = bytes <= (std::size_t{1} << 20) ? 20 : 5;
    d.h2d.push_back({static_cast<double>(bytes), least_mean(iters, [&] {
                       copy_async(dev.data(), host.data(), bytes, s);
                       s.sync();
                     })});
    d.d2h.push_back({static_cast<double>(bytes), least_mean(iters, [&] {
                       copy_async(host.data(), dev.data(), bytes, s);
                       s.sync();
                     })});
  }
  // A strided pack of one value is a kernel (a contiguous one would be a plain copy).
  core::IndexView every_other;
  every_other.kind = core::IndexShape::strided;
  every_other.stride = 2;
  const Launch l{s.get()};
  const double sync_alone = least_mean(50, [&] { s.sync(); });
  const double kernel = least_mean(50, [&] {
    pack(l, core::Unit::float64, 1, dev.data(), every_other, 1, dev.data() + kBandwidthCopy);
    s.sync();
  });
  d.launch = std::max(0.0, kernel - sync_alone);
  const double copy = least_mean(3, [&] {
    copy_async(dev.data() + kBandwidthCopy, dev.data(), kBandwidthCopy, s);
    s.sync();
  });
  d.bandwidth = 2.0 * static_cast<double>(kBandwidthCopy) / copy;
  return d;
}

}  // namespace sfr::exec::cuda
