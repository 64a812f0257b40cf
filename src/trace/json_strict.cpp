#include "trace/json_strict.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace sfr::trace {

std::string pointer_escape(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string pointer_join(const std::string& base, std::string_view token) { return base + "/" + pointer_escape(token); }
std::string pointer_join(const std::string& base, std::size_t index) { return base + "/" + std::to_string(index); }
std::string pointer_display(const std::string& ptr) { return ptr.empty() ? std::string("(top level)") : ptr; }

std::string json_quote(std::string_view s) { return Json(std::string(s)).dump(); }

namespace {

// Builds the DOM itself (so that no nlohmann internals are needed) and tracks the JSON pointer of
// the current position to name duplicate keys.
class StrictSax {
public:
  explicit StrictSax(std::string source) : source_(std::move(source)) {}
  Json result;

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const std::string&) { return put(Json(v)); }
  bool string(std::string& v) { return put(Json(std::move(v))); }
  bool binary(Json::binary_t& v) { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second)
      throw InputError(source_, pointer_display(f.pointer) + ": duplicate key " + json_quote(k));
    f.key = k;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    // ex.what(): "[json.exception.parse_error.101] parse error at line L, column C: MESSAGE"
    std::string msg = ex.what();
    std::string where = source_;
    const auto at = msg.find("at line ");
    const auto colon = msg.find(": ", at == std::string::npos ? 0 : at);
    if (at != std::string::npos && colon != std::string::npos) {
      // "line L, column C" -> ":L:C"
      std::istringstream is(msg.substr(at + 8, colon - at - 8));
      long line = 0, col = 0;
      std::string skip;
      is >> line >> skip >> col;  // "L," "column" "C"
      if (!is) {
        is.clear();
      }
      where += ":" + std::to_string(line) + ":" + std::to_string(col);
      msg = msg.substr(colon + 2);
    } else if (const auto rb = msg.find("] "); rb != std::string::npos) {
      msg = msg.substr(rb + 2);
    }
    throw InputError(where, "malformed JSON: " + msg);
  }

private:
  struct Frame {
    Json* node;
    std::string pointer;
    std::string key;
    std::size_t index = 0;
    std::set<std::string> keys;
  };

  // Pointer of the value about to be stored in the top frame.
  std::string child_pointer() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    return f.node->is_array() ? pointer_join(f.pointer, f.index) : pointer_join(f.pointer, f.key);
  }

  Json* put(Json&& v) {
    if (frames_.empty()) {
      result = std::move(v);
      return &result;
    }
    Frame& f = frames_.back();
    if (f.node->is_array()) {
      f.node->push_back(std::move(v));
      ++f.index;
      return &f.node->back();
    }
    Json& slot = (*f.node)[f.key];
    slot = std::move(v);
    return &slot;
  }

  bool open(Json&& empty) {
    std::string ptr = child_pointer();
    Json* node = put(std::move(empty));
    frames_.push_back(Frame{node, std::move(ptr), {}, 0, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::string source_;
  std::vector<Frame> frames_;
};

}  // namespace

Json parse_json_strict(std::string_view text, const std::string& source) {
  StrictSax sax(source);
  Json::sax_parse(text.begin(), text.end(), &sax);
  return std::move(sax.result);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, "error while reading file");
  return ss.str();
}

}  // namespace sfr::trace
