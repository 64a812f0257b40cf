// An "application" of the fake PETSc (fake_petsc.cpp): with "bcast" it makes one SF call, then
// finalizes; with "none" it only finalizes.
#include <cstring>

extern "C" int PetscSFBcastBegin(void*, void*, const void*, void*, void*);
extern "C" int PetscFinalize();

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "bcast") == 0) PetscSFBcastBegin(nullptr, nullptr, nullptr, nullptr, nullptr);
  return PetscFinalize();
}
