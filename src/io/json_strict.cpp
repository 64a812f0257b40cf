#include "io/json_strict.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"

namespace sfr::io {

std::string pointer_escape(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string pointer_join(const std::string& base, std::string_view token) { return base + "/" + pointer_escape(token); }
std::string pointer_join(const std::string& base, std::size_t index) { return base + "/" + std::to_string(index); }
std::string pointer_display(const std::string& ptr) { return ptr.empty() ? std::string("(top level)") : ptr; }

std::string json_quote(std::string_view s) { return Json(std::string(s)).dump(); }

std::string format_description(std::string_view format) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"sf-trace", "a trace"},
      {"sf-machine", "a machine file"},
      {"sf-dump", "a conformance dump"},
      {"sf-suite", "a suite manifest"},
      {"sf-timing", "a timing result"},
      {"sf-simulation", "a simulation result"},
      {"sf-model-check", "a model-check result"},
      {"sf-bench", "a benchmark result"},
      {"sf-analytic", "an analytic ranking"},
  };
  for (const auto& [f, d] : kinds)
    if (format == f) return d;
  return "";
}

void check_format(const Json& root, const std::string& source, std::string_view expected, bool required) {
  const std::string want = std::string(expected), what = format_description(expected);
  const std::string wanted = (what.empty() ? "an " + want + " document" : what + " (" + want + ")");
  if (!root.is_object() || !root.contains("format")) {
    if (!required && root.is_object()) return;
    throw InputError(source, "(top level): not " + wanted + (root.is_object() ? ": no \"format\"" : ": not a JSON object"));
  }
  const Json& f = root["format"];
  if (!f.is_string()) throw InputError(source, "/format: expected " + json_quote(want) + ", got " + f.dump());
  const std::string got = f.get<std::string>();
  if (got == want) return;
  const std::string is = format_description(got);
  if (!is.empty()) throw InputError("", source + " is an " + got + " (" + is + "), not " + wanted);
  throw InputError(source, "/format: expected " + json_quote(want) + (what.empty() ? "" : " (" + what + ")") + ", got " + json_quote(got));
}

// ---- packed integer arrays: a binary value whose subtype is the element width (4 or 8 bytes) ----

bool is_packed(const Json& j) { return j.is_binary(); }
bool is_array_like(const Json& j) { return j.is_array() || j.is_binary(); }

std::size_t array_length(const Json& j) {
  if (j.is_array()) return j.size();
  if (j.is_binary()) return j.get_binary().size() / static_cast<std::size_t>(j.get_binary().subtype());
  return 0;
}

std::int64_t packed_at(const Json& j, std::size_t k) {
  const auto& b = j.get_binary();
  if (b.subtype() == 4) {
    std::int32_t v;
    std::memcpy(&v, b.data() + 4 * k, 4);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, b.data() + 8 * k, 8);
  return v;
}

const Json& element_at(const Json& j, std::size_t k, Json& tmp) {
  if (!j.is_binary()) return j[k];
  tmp = packed_at(j, k);
  return tmp;
}

namespace {

void append_packed(Json::binary_t& b, std::int64_t v) {
  if (b.subtype() == 4 && (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())) {
    // Widen every element to 8 bytes.
    const std::size_t n = b.size() / 4;
    std::vector<std::uint8_t> wide(8 * n);
    for (std::size_t k = 0; k < n; ++k) {
      std::int32_t x;
      std::memcpy(&x, b.data() + 4 * k, 4);
      const std::int64_t y = x;
      std::memcpy(wide.data() + 8 * k, &y, 8);
    }
    b = Json::binary_t(std::move(wide), 8);
  }
  const std::size_t at = b.size();
  if (b.subtype() == 4) {
    const auto x = static_cast<std::int32_t>(v);
    b.resize(at + 4);
    std::memcpy(b.data() + at, &x, 4);
  } else {
    b.resize(at + 8);
    std::memcpy(b.data() + at, &v, 8);
  }
}

// Builds the document itself (so that no nlohmann internals are needed) and tracks where it is, to
// name duplicate keys and too deep nesting.
// "line:column" (1-based line, column as nlohmann counts it) of byte `pos` of a text read through
// `next`, which yields the text's bytes in order (EOF at its end).
template <class Next>
std::string line_column(std::size_t pos, Next&& next) {
  long line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    const int c = next();
    if (c == EOF) break;
    if (c == '\n') ++line, line_start = i + 1;
  }
  return std::to_string(line) + ":" + std::to_string(pos - line_start);
}

class StrictSax {
public:
  // `locate(pos)`: the "line:column" of byte `pos` of the input (computed only for an error).
  StrictSax(std::string source, const JsonOptions& opt, std::function<std::string(std::size_t)> locate)
      : source_(std::move(source)), opt_(opt), locate_(std::move(locate)) {}
  Json result;

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) {
    if (packing()) return append_packed(frames_.back().node->get_binary(), v), true;
    return put(Json(v));
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    if (packing() && v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return append_packed(frames_.back().node->get_binary(), static_cast<std::int64_t>(v)), true;
    return put(Json(v));
  }
  bool number_float(Json::number_float_t v, const std::string&) { return put(Json(v)); }
  bool string(std::string& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t& v) { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) { return open(Json::object(), false); }
  bool start_array(std::size_t) {
    const bool under_meta = !frames_.empty() && !frames_[0].is_array && frames_[0].key == "meta";
    if (opt_.pack_integer_arrays && !under_meta) return open(Json::binary({}, 4), true);
    return open(Json::array(), true);
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) throw InputError(source_, pointer_display(f.pointer) + ": duplicate key " + json_quote(k));
    f.key = k;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& ex) {
    // The place from the byte offset; the reason is ex.what() after its prefix
    // "[json.exception.parse_error.N] parse error at line L, column C: ".
    std::string msg = ex.what();
    if (const auto rb = msg.find("] "); rb != std::string::npos) {
      const auto colon = msg.find(": ", rb);
      msg = msg.substr(colon != std::string::npos ? colon + 2 : rb + 2);
    }
    throw InputError(source_ + ":" + locate_(position), "malformed JSON: " + msg);
  }

private:
  struct Frame {
    Json* node;
    bool is_array;
    std::string pointer;
    std::string key;
    std::unordered_set<std::string> keys;
  };

  bool packing() const { return !frames_.empty() && frames_.back().node->is_binary(); }

  // Pointer of the value about to be stored in the top frame.
  std::string child_pointer() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    return f.is_array ? pointer_join(f.pointer, array_length(*f.node)) : pointer_join(f.pointer, f.key);
  }

  // A packed array that meets a value other than an integer becomes a plain array.
  static void unpack(Json& node) {
    Json plain = Json::array();
    const std::size_t n = array_length(node);
    plain.get_ref<Json::array_t&>().reserve(n);
    for (std::size_t k = 0; k < n; ++k) plain.push_back(packed_at(node, k));
    node = std::move(plain);
  }

  Json* put(Json&& v) {
    if (frames_.empty()) {
      result = std::move(v);
      return &result;
    }
    Frame& f = frames_.back();
    if (f.is_array) {
      if (f.node->is_binary()) unpack(*f.node);
      f.node->push_back(std::move(v));
      return &f.node->back();
    }
    // Keys are unique (checked above): append without the ordered map's linear search.
    auto& members = static_cast<Json::object_t::Container&>(f.node->get_ref<Json::object_t&>());
    members.emplace_back(f.key, std::move(v));
    return &members.back().second;
  }

  bool open(Json&& empty, bool is_array) {
    if (static_cast<int>(frames_.size()) >= opt_.max_depth)
      throw InputError(source_, (frames_.empty() ? std::string() : frames_[std::min<std::size_t>(8, frames_.size() - 1)].pointer) +
                                    "/...: nested deeper than " + std::to_string(opt_.max_depth) + " levels of arrays and objects");
    std::string ptr = child_pointer();
    Json* node = put(std::move(empty));
    frames_.push_back(Frame{node, is_array, std::move(ptr), {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::string source_;
  JsonOptions opt_;
  std::function<std::string(std::size_t)> locate_;
  std::vector<Frame> frames_;
};

// Opens `path` for reading with its own message for what cannot be a text file.
std::ifstream open_text_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) throw InputError(path, "no such file");
  if (st.type() == std::filesystem::file_type::directory) throw InputError(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file for reading");
  return in;
}

bool is_blank(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Fails unless `c`, the first non-blank byte (EOF: none) at offset `at`, can start JSON text.
void check_json_start(int c, std::size_t at, const std::string& source) {
  if (c == EOF) throw InputError(source, at == 0 ? "is empty (expected JSON text)" : "holds only blanks (expected JSON text)");
  const bool json_start = (c != 0 && std::strchr("{[\"-0123456789tfn", c) != nullptr) || c == 0xEF /* UTF-8 byte order mark */;
  if (json_start) return;
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(c));
  throw InputError(source, std::string("is not JSON text (byte ") + hex + " at offset " + std::to_string(at) +
                               (c >= 0x20 && c < 0x7f ? std::string(" '") + static_cast<char>(c) + "'" : std::string()) + ")");
}

}  // namespace

Json parse_json_strict(std::string_view text, const std::string& source, const JsonOptions& opt) {
  std::size_t at = 0;
  while (at < text.size() && is_blank(static_cast<unsigned char>(text[at]))) ++at;
  check_json_start(at < text.size() ? static_cast<unsigned char>(text[at]) : EOF, at, source);
  StrictSax sax(source, opt, [&](std::size_t pos) {
    std::size_t i = 0;
    return line_column(pos, [&] { return i < text.size() ? static_cast<unsigned char>(text[i++]) : EOF; });
  });
  Json::sax_parse(text.begin(), text.end(), &sax);
  return std::move(sax.result);
}

Json parse_json_file(const std::string& path, const JsonOptions& opt) {
  std::ifstream in = open_text_file(path);
  int c;
  std::size_t at = 0;
  while ((c = in.get()) != EOF && is_blank(c)) ++at;
  if (in.bad()) throw InputError(path, "error while reading file");
  check_json_start(c, at, path);
  in.clear();
  in.seekg(0);
  StrictSax sax(path, opt, [&](std::size_t pos) {
    std::ifstream again(path, std::ios::binary);  // only on an error: read up to the place again
    return line_column(pos, [&] { return again.get(); });
  });
  Json::sax_parse(in, &sax);
  if (in.bad()) throw InputError(path, "error while reading file");
  return std::move(sax.result);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in = open_text_file(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, "error while reading file");
  std::string text = ss.str();
  if (text.empty()) throw InputError(path, "is empty");
  return text;
}

}  // namespace sfr::io
