// The MPI objects this process holds, counted from outside the code that makes them: PMPI
// wrappers (pmpi_objects.cpp, linked into a test or benchmark program) intercept the program's
// MPI calls, those of the static sf-replay libraries included, and count what each creates and
// frees. A leak shows as a count that grows with the calls.
#pragma once

#include <string>

namespace sfr_test {

struct MpiObjects {
  long comms = 0;                // communicators made (dup, split, split_type, create, dist_graph) and not freed
  long types = 0;                // derived datatypes made and not freed
  long windows = 0;              // windows (allocate, create, dynamic) not freed
  long shared_windows = 0;       // ... of them made by MPI_Win_allocate_shared
  long persistent_requests = 0;  // persistent requests (send/recv init, neighbor alltoallv init) not freed
  long pending_requests = 0;     // nonblocking requests not yet completed or freed
  bool operator==(const MpiObjects&) const = default;
};

MpiObjects live_mpi_objects();

// "comms 3, types 2, windows 1 (shared 1), persistent requests 4, pending requests 0".
std::string describe(const MpiObjects& o);

}  // namespace sfr_test
