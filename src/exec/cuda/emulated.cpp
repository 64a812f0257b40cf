// The emulated device (SFR_EMULATE_DEVICE=SEED): the CUDA executor's transports run unchanged on a
// machine without a GPU, with the asynchrony that makes their synchronisation matter.
//  - Device memory is host memory in a shared-memory file of its own (memfd: gone with its last
//    mapping, so a killed run leaves nothing in /dev/shm), filled with a garbage pattern as
//    cudaMalloc leaves it; an IPC handle names the file (/proc/PID/fd/FD), and opening it in another
//    process of the node maps the same memory there (as cudaIpcOpenMemHandle does).
//    Pinned memory is plain host memory.
//  - A stream is a worker thread. Copies, memsets and kernels (core/kernels.hpp's bodies, run by
//    its host launcher) are queued and run later, in order, each after a random delay drawn from a
//    generator seeded with (SEED, rank, stream); an event completes when the work queued before its
//    record has run; stream and event synchronisation wait for that, as in CUDA.
//  - copy_raw (cudaMemcpy) to device memory stages the source at once and lands it later on the
//    legacy stream, which the executor's streams do not wait for (CUDA: pageable host to device
//    may return before the DMA is done); device_sync waits for every stream.
// A failing task's exception is kept and rethrown by the next synchronisation (CUDA's sticky error).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/environment.hpp"
#include "core/kernels.hpp"
#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// This process's rank as the MPI launcher announces it (the emulation runs below MPI).
std::uint64_t launcher_rank() {
  if (const auto r = core::launcher_rank()) return std::strtoull(r->text.c_str(), nullptr, 10);
  return static_cast<std::uint64_t>(::getpid());
}

class EmuStream {
public:
  explicit EmuStream(std::uint64_t seed) : rng_(seed), worker_([this] { loop(); }) {}
  ~EmuStream() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();  // runs what is queued first, as cudaStreamDestroy lets it finish
  }
  void push(std::function<void()> f) {
    {
      std::lock_guard<std::mutex> g(m_);
      q_.push_back(std::move(f));
      ++queued_;
    }
    cv_.notify_all();
  }
  std::uint64_t mark() {
    std::lock_guard<std::mutex> g(m_);
    return queued_;
  }
  void wait(std::uint64_t n) {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return done_ >= n; });
    if (error_) std::rethrow_exception(error_);
  }
  void sync() { wait(mark()); }

private:
  void loop() {
    for (;;) {
      std::function<void()> f;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || !q_.empty(); });
        if (q_.empty()) return;
        f = std::move(q_.front());
        q_.pop_front();
      }
      delay();
      std::exception_ptr e;
      try {
        f();
      } catch (...) {
        e = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> g(m_);
        if (e && !error_) error_ = e;
        ++done_;
      }
      cv_.notify_all();
    }
  }
  // Most tasks start at once or after tens of microseconds; one in ten waits up to 2 ms (a busy
  // GPU, a context switch), long enough for any unsynchronised peer to run ahead of it.
  void delay() {
    const std::uint64_t u = rng_() % 100;
    if (u < 40) return;
    const auto us = u < 90 ? rng_() % 100 : 300 + rng_() % 1700;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> q_;
  std::uint64_t queued_ = 0, done_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::mt19937_64 rng_;
  std::thread worker_;  // last: started once the rest is built
};

struct EmuEvent {
  EmuStream* stream = nullptr;  // null: never recorded (a sync returns at once, as in CUDA)
  std::uint64_t target = 0;
};

EmuStream* as_stream(void* s) { return static_cast<EmuStream*>(s); }

// The entry of a map of memory ranges (base -> range) whose range holds p, else m.end().
template <class Map, class Size>
typename Map::iterator containing(Map& m, const void* p, Size size_of) {
  auto* b = static_cast<std::byte*>(const_cast<void*>(p));
  auto it = m.upper_bound(b);
  if (it == m.begin()) return m.end();
  --it;
  return b < it->first + size_of(it->second) ? it : m.end();
}


constexpr std::uint64_t kHandleMagic = 0x5346522d454d5531ull;  // "SFR-EMU1"
struct EmuHandle {
  char name[40];
  std::uint64_t size, offset, magic;
};
static_assert(sizeof(EmuHandle) == kIpcHandleBytes);

class EmulatedApi final : public DeviceApi {
public:
  explicit EmulatedApi(std::uint64_t seed) : seed_(seed), base_seed_(mix(seed ^ mix(launcher_rank()))), legacy_(mix(base_seed_ + 1)) {}

  bool emulated() const override { return true; }
  int device_count() override { return 1; }
  std::string no_gpu_reason() override { return ""; }
  void select_device(int) override {}
  std::string device_name() override { return "emulated device (SFR_EMULATE_DEVICE=" + std::to_string(seed_) + ")"; }
  std::string device_id() override { return "emulated"; }

  void* allocate(std::size_t bytes, MemoryKind k) override {
    if (k == MemoryKind::pinned) {
      void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
      if (!p) throw std::runtime_error("emulated cudaMallocHost of " + std::to_string(bytes) + " bytes: out of memory");
      return p;
    }
    // An anonymous memory file (memfd): freed with its last mapping, so a killed process leaves
    // nothing behind; a peer of the node opens it through /proc/PID/fd/FD (the IPC handle).
    const int fd = ::memfd_create("sfr-emu", MFD_CLOEXEC);
    if (fd < 0) throw std::runtime_error(std::string("emulated cudaMalloc: memfd_create: ") + std::strerror(errno));
    void* p = MAP_FAILED;
    if (::ftruncate(fd, static_cast<off_t>(bytes)) == 0) p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error("emulated cudaMalloc of " + std::to_string(bytes) + " bytes: " + std::strerror(err));
    }
    std::memset(p, 0xA5, bytes);  // not zero: cudaMalloc's memory holds whatever was there
    std::lock_guard<std::mutex> g(m_);
    segments_[static_cast<std::byte*>(p)] = {"/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd), bytes, fd};
    return p;
  }
  // cudaFree / cudaFreeHost synchronise the device first: no queued work still touches the memory.
  void release(void* p, MemoryKind k) noexcept override {
    try {
      device_sync();
    } catch (...) {  // a failed task's error belongs to the stream's next synchronisation
    }
    if (k == MemoryKind::pinned) return std::free(p);
    std::lock_guard<std::mutex> g(m_);
    const auto it = segments_.find(static_cast<std::byte*>(p));
    if (it == segments_.end()) return;
    ::munmap(p, it->second.size);
    ::close(it->second.fd);
    segments_.erase(it);
  }

  void* stream_create() override { return new EmuStream(mix(base_seed_ + 2 + streams_++)); }
  void stream_destroy(void* s) noexcept override {
    {
      std::lock_guard<std::mutex> g(m_);
      live_.erase(as_stream(s));
    }
    delete as_stream(s);
  }
  void stream_sync(void* s) override { as_stream(s)->sync(); }
  void* event_create() override { return new EmuEvent; }
  void event_destroy(void* e) noexcept override { delete static_cast<EmuEvent*>(e); }
  void event_record(void* e, void* s) override {
    auto* ev = static_cast<EmuEvent*>(e);
    ev->stream = as_stream(s);
    ev->target = ev->stream->mark();
  }
  void event_sync(void* e) override {
    const auto* ev = static_cast<const EmuEvent*>(e);
    if (ev->stream) ev->stream->wait(ev->target);
  }
  void copy_async(void* dst, const void* src, std::size_t bytes, void* s) override {
    enqueue(s, [=] { std::memmove(dst, src, bytes); });
  }
  void zero_async(void* dst, std::size_t bytes, void* s) override {
    enqueue(s, [=] { std::memset(dst, 0, bytes); });
  }
  void copy_raw(void* dst, const void* src, std::size_t bytes) override {
    if (!on_device(dst)) {  // to the host: waits for the legacy stream's earlier work, then copies
      legacy_.sync();
      std::memcpy(dst, src, bytes);
      return;
    }
    // Host (pageable) to device: staged now, in device memory later.
    auto staged = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(src), static_cast<const std::byte*>(src) + bytes);
    legacy_.push([=] { std::memcpy(dst, staged->data(), bytes); });
  }
  void device_sync() override {
    std::vector<EmuStream*> all;
    {
      std::lock_guard<std::mutex> g(m_);
      all.assign(live_.begin(), live_.end());
    }
    legacy_.sync();
    for (EmuStream* s : all) s->sync();
  }

  IpcHandle ipc_handle(const void* p) override {
    std::lock_guard<std::mutex> g(m_);
    const auto it = containing(segments_, p, [](const Segment& seg) { return seg.size; });
    if (it == segments_.end()) throw std::runtime_error("emulated cudaIpcGetMemHandle: not device memory");
    EmuHandle h{};
    std::snprintf(h.name, sizeof h.name, "%s", it->second.name.c_str());
    h.size = it->second.size;
    h.offset = static_cast<std::uint64_t>(static_cast<const std::byte*>(p) - it->first);
    h.magic = kHandleMagic;
    IpcHandle out{};
    std::memcpy(out.bytes, &h, sizeof h);
    return out;
  }
  std::byte* ipc_open(const IpcHandle& ih) override {
    EmuHandle h{};
    std::memcpy(&h, ih.bytes, sizeof h);
    if (h.magic != kHandleMagic) throw std::runtime_error("emulated cudaIpcOpenMemHandle: not a handle of the emulated device");
    const int fd = ::open(h.name, O_RDWR | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(std::string("emulated cudaIpcOpenMemHandle: open ") + h.name + ": " + std::strerror(errno));
    void* p = ::mmap(nullptr, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int err = errno;
    ::close(fd);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("emulated cudaIpcOpenMemHandle: mmap: ") + std::strerror(err));
    std::lock_guard<std::mutex> g(m_);
    mapped_[static_cast<std::byte*>(p)] = h.size;
    return static_cast<std::byte*>(p) + h.offset;
  }
  void ipc_close(std::byte* p) noexcept override {
    std::lock_guard<std::mutex> g(m_);
    const auto it = containing(mapped_, p, [](std::size_t size) { return size; });
    if (it == mapped_.end()) return;
    ::munmap(it->first, it->second);
    mapped_.erase(it);
  }

  // The kernels: core/kernels.hpp's bodies, by its host launcher, on the stream's worker.
  void pack(const Launch& l, core::Unit u, int bs, const std::byte* src, const core::IndexView& idx, core::Index n, std::byte* dst) override {
    enqueue(l.stream, [=] {
      core::HostLauncher H;
      core::HostKernels::pack(H, u, bs, src, idx, n, dst);
    });
  }
  void unpack(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
              std::byte* dst, const core::Groups& groups) override {
    enqueue(l.stream, [=] {
      core::HostLauncher H;
      core::HostKernels::unpack(H, u, bs, op, src, idx, n, dst, groups);
    });
  }
  void fetch_and_op(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& idx, core::Index n,
                    std::byte* root, std::byte* fetched, const core::Groups& groups) override {
    enqueue(l.stream, [=] {
      core::HostLauncher H;
      core::HostKernels::fetch_and_op(H, u, bs, op, src, idx, n, root, fetched, groups);
    });
  }
  void local(const Launch& l, core::Unit u, int bs, core::MpiOp op, const std::byte* src, const core::IndexView& sidx, std::byte* dst,
             const core::IndexView& didx, core::Index n, const core::Groups& groups) override {
    enqueue(l.stream, [=] {
      core::HostLauncher H;
      core::HostKernels::local(H, u, bs, op, src, sidx, dst, didx, n, groups);
    });
  }
  void fetch_local(const Launch& l, core::Unit u, int bs, core::MpiOp op, std::byte* root, const core::IndexView& ridx, const std::byte* leaf,
                   const core::IndexView& lidx, core::Index n, std::byte* upd, const core::Groups& groups) override {
    enqueue(l.stream, [=] {
      core::HostLauncher H;
      core::HostKernels::fetch_local(H, u, bs, op, root, ridx, leaf, lidx, n, upd, groups);
    });
  }

private:
  struct Segment {
    std::string name;  // how a peer opens it: /proc/PID/fd/FD
    std::size_t size;
    int fd;
  };
  void enqueue(void* s, std::function<void()> f) {
    EmuStream* st = as_stream(s);
    {
      std::lock_guard<std::mutex> g(m_);
      live_.insert(st);
    }
    st->push(std::move(f));
  }
  bool on_device(const void* p) {
    std::lock_guard<std::mutex> g(m_);
    return containing(segments_, p, [](const Segment& seg) { return seg.size; }) != segments_.end();
  }

  std::uint64_t seed_, base_seed_;
  std::mutex m_;
  std::map<std::byte*, Segment> segments_;  // my allocations, by base
  std::map<std::byte*, std::size_t> mapped_;  // peers' segments mapped here, by base
  std::set<EmuStream*> live_;                 // streams that ever had work (device_sync waits for them)
  std::atomic<std::uint64_t> streams_{0};
  EmuStream legacy_;
};

}  // namespace

std::unique_ptr<DeviceApi> make_emulated_api(std::uint64_t seed) { return std::make_unique<EmulatedApi>(seed); }

}  // namespace sfr::exec::cuda
