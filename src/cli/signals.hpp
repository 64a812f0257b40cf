// What SIGINT, SIGTERM and SIGHUP do to sf-replay: the temporary files of the outputs being
// written are removed (io::remove_pending_files), then the signal ends the process as it would
// have without a handler (its default action, raised again): exit status 128+N, which mpirun
// reports for a rank, and no partial output. `capture` replaces them while its application runs
// (it forwards them to the launcher instead).
#pragma once

namespace sfr::cli {

void remove_partial_output_on_signals();

}  // namespace sfr::cli
