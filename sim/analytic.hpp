// Analytic mode: the closed-form strategy costs of the node-aware study (its Table 6), built from
// a machine model's parameters (the lassen preset holds the study's Tables 2, 3, 4). Each term picks
// the protocol (short / eager / rendezvous) from the size of one message of that term.
//
// Reading of the formulas (the study prints them without every detail):
//  - T_on(s) = (gps-1)(a_socket + b_socket s) + gps (a_node + b_node s), gps = GPUs per socket;
//    host (CPU) parameters when staged, GPU parameters when device-aware.
//  - T_on-split(s, ppg) = (pps/ppg - 1)(a_socket + b_socket s) + (pps/ppg)(a_node + b_node s) with
//    host parameters, pps = processes per socket (procs_per_node / sockets), s as passed (s_node).
//  - T_off(m, s, s_node) = a_off m + max(s_node R_N^-1, s b_off), host parameters.
//  - T_off-DA(m, s) = a_off m + s b_off, GPU parameters.
//  - T_copy(s_send, s_recv) = a_D2H + b_D2H s_send + a_H2D + b_H2D s_recv, with the one-process or
//    the four-process cudaMemcpyAsync parameters. The study prints H2D with s_send; the data to
//    send leaves the GPU, so we pair D2H with it, as the simulator's staged paths do.
//  - Standard staged = the max-rate model alone, as the study prints it (no T_copy, unlike its
//    other staged rows; the simulator does charge the copies).
//  - Table 7 parameters describe the pattern after aggregation by the strategy: 3-step sends one
//    message between two nodes (m_node->node = 1).
#pragma once

#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "sim/strategies.hpp"

namespace sfr::sim::analytic {

struct Params {            // Table 7, bytes and counts
  double s_proc = 0;       // max bytes sent by a single process / GPU
  double s_node = 0;       // max bytes injected by a single node
  double s_node_node = 0;  // max bytes sent between any two nodes
  double m_proc_node = 0;  // max number of nodes to which a process sends
  double m_node_node = 0;  // max number of messages between any two nodes
};

struct Model {
  const MachineModel& m;
  int gpus_per_socket = 2;
  int procs_per_socket = 20;
  int procs_per_node = 40;
  explicit Model(const MachineModel& mm);

  double t_on(double s, bool device) const;
  double t_on_split(double s, int ppg) const;
  double t_off(double m, double s, double s_node, double msg_bytes) const;
  double t_off_da(double m, double s, double msg_bytes) const;
  double t_copy(double s_send, double s_recv, int procs) const;
  // Standard communication (Table 6 first rows): m messages of msg_bytes per process, ppn active.
  double standard_staged(double m, double s_proc, double msg_bytes, int ppn) const;
  double standard_da(double m, double s_proc, double msg_bytes) const;
  double three_step(const Params& p, bool device_aware) const;
  double two_step(const Params& p, bool device_aware) const;
  double split(const Params& p, bool duplicate_device_pointers) const;
};

// The study's Fig. 4.3 scenario: one node sends `messages` messages of `bytes` each, spread evenly
// over its GPUs, to `nodes` nodes; `duplicate` of the data (0.25) is removed by node-aware strategies.
struct Scenario {
  int messages = 32, nodes = 4;
  double bytes = 1000, duplicate = 0;
};
struct Prediction {
  std::string strategy;  // the backend's name, as everywhere: "basic" (the study's standard), "3step:aware", "split-md", ...
  double seconds;
};
// All strategies of Table 5, fastest first (ties keep Table 5's order).
std::vector<Prediction> predict(const Model& model, const Scenario& sc);

}  // namespace sfr::sim::analytic
