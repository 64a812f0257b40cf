// A stand-in for libpetsc in the capture library's refusal tests: it reports the PETSc version and
// PetscInt size the test asks for (FAKE_PETSC_MINOR, FAKE_PETSC_INT_SIZE), so that "another
// PETSc" can be tested where only 3.18 is installed.
#include <cstddef>
#include <cstdlib>

extern "C" {
__attribute__((visibility("default"))) int PetscGetVersionNumber(int* major, int* minor, int* sub, int* release) {
  const char* m = std::getenv("FAKE_PETSC_MINOR");
  *major = 3;
  *minor = m ? std::atoi(m) : 19;
  *sub = 0;
  *release = 1;
  return 0;
}
__attribute__((visibility("default"))) int PetscDataTypeGetSize(int, std::size_t* size) {
  const char* s = std::getenv("FAKE_PETSC_INT_SIZE");
  *size = s ? static_cast<std::size_t>(std::atoi(s)) : 4;
  return 0;
}
__attribute__((visibility("default"))) int PetscSFBcastBegin(void*, void*, const void*, void*, void*) { return 0; }
__attribute__((visibility("default"))) int PetscFinalize() { return 0; }
}
