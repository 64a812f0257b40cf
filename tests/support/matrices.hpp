// The shared SuiteSparse matrices (../shared/matrices beside the repository). Tests that read them
// skip, with the reason, when the folder is not there (a clone without ../shared), instead of
// failing.
#pragma once

#include <filesystem>
#include <string>

namespace sfr_test {
inline bool have_shared_matrices() {
  std::error_code ec;
  if (!std::filesystem::is_directory(SFR_MATRICES_DIR, ec)) return false;
  for (const auto& e : std::filesystem::directory_iterator(SFR_MATRICES_DIR, ec))
    if (e.path().extension() == ".mtx") return true;
  return false;
}
}  // namespace sfr_test

#define SFR_SKIP_WITHOUT_MATRICES()                                                                                                 \
  do {                                                                                                                              \
    if (!sfr_test::have_shared_matrices()) GTEST_SKIP() << SFR_MATRICES_DIR << " not found (clone with ../shared beside the repo)"; \
  } while (0)
