// A build without CUDA: no CUDA runtime behind the device interface (the emulated device remains).
#include "exec/cuda/device_api.hpp"

namespace sfr::exec::cuda {
std::unique_ptr<DeviceApi> make_cuda_api() { return nullptr; }
}  // namespace sfr::exec::cuda
