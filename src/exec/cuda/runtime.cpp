#include "exec/cuda/runtime.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <atomic>
#include <map>
#include <mutex>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {

namespace {

// A build without CUDA and no emulation asked for: no device, and the reason says how to get one.
class NoDevice final : public DeviceApi {
public:
  bool emulated() const override { return false; }
  int device_count() override { return 0; }
  std::string no_gpu_reason() override {
    return "no CUDA device: this sf-replay was built without CUDA (no nvcc at configure time); SFR_EMULATE_DEVICE=SEED runs the cuda-* "
           "backends on an emulated device";
  }
  void select_device(int) override {}
  std::string device_name() override { fail(); }
  std::string device_id() override { fail(); }
  void* allocate(std::size_t, MemoryKind) override { fail(); }
  void release(void*, MemoryKind) noexcept override {}
  void* stream_create() override { fail(); }
  void stream_destroy(void*) noexcept override {}
  void stream_sync(void*) override { fail(); }
  void* event_create() override { fail(); }
  void event_destroy(void*) noexcept override {}
  void event_record(void*, void*) override { fail(); }
  void event_sync(void*) override { fail(); }
  void copy_async(void*, const void*, std::size_t, void*) override { fail(); }
  void zero_async(void*, std::size_t, void*) override { fail(); }
  void copy_raw(void*, const void*, std::size_t) override { fail(); }
  void device_sync() override { fail(); }
  IpcHandle ipc_handle(const void*) override { fail(); }
  std::byte* ipc_open(const IpcHandle&) override { fail(); }
  void ipc_close(std::byte*) noexcept override {}
  void pack(const Launch&, core::Unit, int, const std::byte*, const core::IndexView&, core::Index, std::byte*) override { fail(); }
  void unpack(const Launch&, core::Unit, int, core::MpiOp, const std::byte*, const core::IndexView&, core::Index, std::byte*, const core::Groups&) override {
    fail();
  }
  void fetch_and_op(const Launch&, core::Unit, int, core::MpiOp, const std::byte*, const core::IndexView&, core::Index, std::byte*, std::byte*,
                    const core::Groups&) override {
    fail();
  }
  void local(const Launch&, core::Unit, int, core::MpiOp, const std::byte*, const core::IndexView&, std::byte*, const core::IndexView&,
             core::Index, const core::Groups&) override {
    fail();
  }
  void fetch_local(const Launch&, core::Unit, int, core::MpiOp, std::byte*, const core::IndexView&, const std::byte*, const core::IndexView&,
                   core::Index, std::byte*, const core::Groups&) override {
    fail();
  }

private:
  [[noreturn]] void fail() { throw std::runtime_error(no_gpu_reason()); }
};

std::unique_ptr<DeviceApi> choose() {
  if (const auto seed = core::emulated_device_seed()) return make_emulated_api(*seed);
  if (auto api = make_cuda_api()) return api;
  return std::make_unique<NoDevice>();
}

// The counters of device_counts(), and where device memory lies (for a copy's direction): this
// process's device allocations and the peers' buffers it mapped (base -> bytes).
struct Counters {
  std::atomic<std::int64_t> launches{0}, stream_syncs{0}, event_syncs{0}, device_syncs{0}, memsets{0};
  std::atomic<std::int64_t> h2d{0}, h2d_bytes{0}, d2h{0}, d2h_bytes{0}, d2d{0}, d2d_bytes{0};
  std::mutex m;
  std::map<const std::byte*, std::size_t> device;
};
Counters& counters() {
  static Counters c;
  return c;
}
void bump(std::atomic<std::int64_t>& a, std::int64_t by = 1) { a.fetch_add(by, std::memory_order_relaxed); }

bool on_device(const void* p) {
  auto& c = counters();
  const auto* b = static_cast<const std::byte*>(p);
  std::lock_guard l(c.m);
  auto it = c.device.upper_bound(b);
  if (it == c.device.begin()) return false;
  --it;
  return b < it->first + it->second;
}

void count_copy(void* dst, const void* src, std::size_t bytes) {
  auto& c = counters();
  const bool d = on_device(dst), s = on_device(src);
  const auto n = static_cast<std::int64_t>(bytes);
  if (d && s) bump(c.d2d), bump(c.d2d_bytes, n);
  else if (d) bump(c.h2d), bump(c.h2d_bytes, n);
  else if (s) bump(c.d2h), bump(c.d2h_bytes, n);
}

}  // namespace

DeviceCounts DeviceCounts::operator-(const DeviceCounts& o) const {
  return {launches - o.launches, stream_syncs - o.stream_syncs, event_syncs - o.event_syncs, device_syncs - o.device_syncs,
          memsets - o.memsets,   h2d - o.h2d,                     h2d_bytes - o.h2d_bytes,     d2h - o.d2h,
          d2h_bytes - o.d2h_bytes, d2d - o.d2d,                   d2d_bytes - o.d2d_bytes};
}

DeviceCounts device_counts() {
  const auto& c = counters();
  auto v = [](const std::atomic<std::int64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {v(c.launches), v(c.stream_syncs), v(c.event_syncs), v(c.device_syncs), v(c.memsets), v(c.h2d),
          v(c.h2d_bytes), v(c.d2h),         v(c.d2h_bytes),   v(c.d2d),          v(c.d2d_bytes)};
}

DeviceApi& device_api() {
  static std::once_flag once;
  static std::unique_ptr<DeviceApi> api;
  std::call_once(once, [] { api = choose(); });
  return *api;
}

int device_count() { return device_api().device_count(); }
std::string no_gpu_reason() { return device_api().no_gpu_reason(); }
void select_device(int local_rank) { device_api().select_device(local_rank); }
std::string device_name() { return device_api().device_name(); }
std::string device_id() { return device_api().device_id(); }
bool emulated_device() { return device_api().emulated(); }

bool mps_running() {
  const char* dir = core::env_nonempty(core::Env::cuda_mps_pipe_directory);
  const std::string control = std::string(dir ? dir : "/tmp/nvidia-mps") + "/control";
  struct stat st {};
  return ::stat(control.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

template <MemoryKind K>
CudaMemory<K>::CudaMemory(std::size_t bytes) : n_(bytes) {
  if (!bytes) return;
  p_ = static_cast<std::byte*>(device_api().allocate(bytes, K));
  if (K == MemoryKind::device) {
    std::lock_guard l(counters().m);
    counters().device[p_] = bytes;
  }
}
template <MemoryKind K>
CudaMemory<K>::~CudaMemory() {
  if (!p_) return;
  if (K == MemoryKind::device) {
    std::lock_guard l(counters().m);
    counters().device.erase(p_);
  }
  device_api().release(p_, K);
}
template class CudaMemory<MemoryKind::device>;
template class CudaMemory<MemoryKind::pinned>;

Stream::Stream() : s_(device_api().stream_create()) {}
Stream::~Stream() {
  if (s_) device_api().stream_destroy(s_);
}
void Stream::sync() const {
  bump(counters().stream_syncs);
  device_api().stream_sync(s_);
}

Event::Event() : e_(device_api().event_create()) {}
Event::~Event() {
  if (e_) device_api().event_destroy(e_);
}
void Event::record(const Stream& s) { device_api().event_record(e_, s.get()); }
void Event::sync() const {
  bump(counters().event_syncs);
  device_api().event_sync(e_);
}

void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& s) {
  if (!bytes) return;
  count_copy(dst, src, bytes);
  device_api().copy_async(dst, src, bytes, s.get());
}
void copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  count_copy(dst, src, bytes);
  bump(counters().device_syncs);
  device_api().copy_raw(dst, src, bytes);
  device_api().device_sync();
}
void zero_async(void* dst, std::size_t bytes, const Stream& s) {
  if (!bytes) return;
  bump(counters().memsets);
  device_api().zero_async(dst, bytes, s.get());
}

IpcHandle ipc_handle(const void* device_ptr) { return device_api().ipc_handle(device_ptr); }
std::byte* ipc_open(const IpcHandle& h, std::size_t bytes) {
  std::byte* p = device_api().ipc_open(h);
  std::lock_guard l(counters().m);
  counters().device[p] = bytes;
  return p;
}
void ipc_close(std::byte* p) {
  if (!p) return;
  {
    std::lock_guard l(counters().m);
    counters().device.erase(p);
  }
  device_api().ipc_close(p);
}

void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst) {
  bump(counters().launches);
  device_api().pack(l, u, bs, src, idx, n, dst);
}
void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
            std::byte* dst, const core::Groups& groups) {
  bump(counters().launches);
  device_api().unpack(l, u, bs, op, src, idx, n, dst, groups);
}
void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                  std::byte* root, std::byte* fetched, const core::Groups& groups) {
  bump(counters().launches);
  device_api().fetch_and_op(l, u, bs, op, src, idx, n, root, fetched, groups);
}
void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
           const core::IndexView& didx, core::Index n, const core::Groups& groups) {
  bump(counters().launches);
  device_api().local(l, u, bs, op, src, sidx, dst, didx, n, groups);
}
void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                 const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups) {
  bump(counters().launches);
  device_api().fetch_local(l, u, bs, op, root, ridx, leaf, lidx, n, upd, groups);
}

}  // namespace sfr::exec::cuda
