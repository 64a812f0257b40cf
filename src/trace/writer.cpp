#include "trace/writer.hpp"

#include "io/json_out.hpp"
#include "io/json_strict.hpp"
#include "io/output_file.hpp"

namespace sfr::trace {

using namespace sfr::io;  // the JSON layer
namespace {

void put_ilocal(std::string& o, bool has, const std::vector<Index>& ilocal) {
  if (!has) return;
  o += ", \"ilocal\": ";
  append_int_array<Index>(o, ilocal);
}

void put_sf(std::string& o, const SFDef& sf) {
  o += "    " + json_quote(sf.name) + ": ";
  if (const auto* e = std::get_if<ExplicitSF>(&sf.def)) {
    o += "{\"ranks\": [\n";
    const core::Graph& g = *e->graph;
    for (int r = 0; r < g.nranks; ++r) {
      const core::RankGraph& rg = g[r];
      o += "      {\"nroots\": ";
      append_int(o, rg.nroots);
      put_ilocal(o, rg.has_ilocal, rg.ilocal);
      o += ", \"remote_rank\": ";
      append_int_array<int>(o, rg.remote_rank);
      o += ", \"remote_index\": ";
      append_int_array<Index>(o, rg.remote_index);
      o += r + 1 < g.nranks ? "},\n" : "}\n";
    }
    o += "    ]}";
  } else if (const auto* l = std::get_if<LayoutSF>(&sf.def)) {
    o += "{\"layout\": ";
    append_int_array<Index>(o, l->layout);
    o += ", \"ranks\": [\n";
    for (size_t r = 0; r < l->ranks.size(); ++r) {
      o += "      {\"global\": ";
      append_int_array<Index>(o, l->ranks[r].global);
      put_ilocal(o, l->ranks[r].has_ilocal, l->ranks[r].ilocal);
      o += r + 1 < l->ranks.size() ? "},\n" : "}\n";
    }
    o += "    ]}";
  } else if (const auto* p = std::get_if<PatternSF>(&sf.def)) {
    o += "{\"pattern\": ";
    o += json_quote(core::pattern_name(p->pattern));
    o += ", \"nroots\": ";
    append_int_array<Index>(o, p->nroots);
    o += "}";
  } else {
    const auto& d = std::get<DerivedSF>(sf.def);
    o += "{\"derive\": " + json_quote(derive_kind_name(d.kind)) + ", \"of\": [";
    for (size_t k = 0; k < d.of.size(); ++k) o += (k ? ", " : "") + json_quote(d.of[k]);
    o += "]";
    if (d.kind == DeriveKind::embed_roots || d.kind == DeriveKind::embed_leaves) {
      o += ", \"selected\": [";
      for (size_t r = 0; r < d.selected.size(); ++r) {
        if (r) o += ", ";
        append_int_array<Index>(o, d.selected[r]);
      }
      o += "]";
    }
    if (d.kind == DeriveKind::concatenate) o += std::string(", \"shared_roots\": ") + (d.shared_roots ? "true" : "false");
    o += "}";
  }
}

void put_op(std::string& o, const OpSpec& op) {
  o += "    {\"op\": " + json_quote(op_kind_name(op.op)) + ", \"sf\": " + json_quote(op.sf);
  o += ", \"unit\": " + json_quote(core::unit_name(op.unit)) + ", \"bs\": ";
  append_int(o, op.bs);
  if (op_takes_mpi_op(op.op)) o += ", \"mpi_op\": " + json_quote(core::mpi_op_name(op.mpi_op));
  if (op.root_mem == op.leaf_mem)
    o += ", \"memtype\": " + json_quote(memtype_name(op.root_mem));
  else
    o += std::string(", \"memtype\": {\"root\": \"") + memtype_name(op.root_mem) + "\", \"leaf\": \"" + memtype_name(op.leaf_mem) + "\"}";
  o += ", \"repeat\": ";
  append_int(o, op.repeat);
  o += ", \"overlap_us\": ";
  append_double(o, op.overlap_us);
  o += "}";
}

}  // namespace

std::string write_trace(const Trace& t) {
  std::string o;
  o += "{\n  \"format\": \"sf-trace\",\n  \"version\": 1,\n  \"name\": " + json_quote(t.name) + ",\n  \"nranks\": ";
  append_int(o, t.nranks);
  o += ",\n";
  if (t.machine) {
    o += "  \"machine\": {\"ranks_per_node\": ";
    append_int(o, t.machine->ranks_per_node);
    o += ", \"ranks_per_socket\": ";
    append_int(o, t.machine->ranks_per_socket);
    o += ", \"gpus_per_node\": ";
    append_int(o, t.machine->gpus_per_node);
    o += "},\n";
  }
  if (!t.meta_json.empty()) o += "  \"meta\": " + t.meta_json + ",\n";
  o += "  \"sfs\": {\n";
  for (size_t i = 0; i < t.sfs.size(); ++i) {
    put_sf(o, t.sfs[i]);
    o += i + 1 < t.sfs.size() ? ",\n" : "\n";
  }
  o += "  },\n  \"ops\": [\n";
  for (size_t i = 0; i < t.ops.size(); ++i) {
    put_op(o, t.ops[i]);
    o += i + 1 < t.ops.size() ? ",\n" : "\n";
  }
  o += "  ]\n}\n";
  return o;
}

void write_trace_file(const Trace& t, const std::string& path) { write_file_atomic(path, write_trace(t)); }

}  // namespace sfr::trace
