// Owner of the GoogleTest programs' precompiled headers (support/precompiled.hpp,
// tests/CMakeLists.txt). It compiles with no definitions of its own: GCC refuses a precompiled
// header made under a macro that the file using it does not define.
