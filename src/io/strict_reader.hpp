// One strict reader for every JSON document the project reads (traces, machine files, result
// documents): errors are InputErrors naming the source and the JSON pointer of the offending
// value, unknown keys are refused with the allowed ones listed, required members are checked for
// presence and kind. (Duplicate keys and syntax errors are refused by parse_json_strict.)
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "io/json_strict.hpp"

namespace sfr::io {

class StrictReader {
public:
  explicit StrictReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  // InputError(source, "POINTER: msg") ("(top level)" for the empty pointer).
  [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const;
  // Every key of object `obj` (at `ptr`) must be one of `allowed`.
  void check_keys(const Json& obj, const std::string& ptr, std::initializer_list<std::string_view> allowed) const {
    check_keys(obj, ptr, std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  void check_keys(const Json& obj, const std::string& ptr, std::span<const std::string_view> allowed) const;
  // `obj` must be an object (naming `what` it should be), then check_keys.
  void object(const Json& obj, const std::string& ptr, const char* what, std::initializer_list<std::string_view> allowed) const {
    object(obj, ptr, what, std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  void object(const Json& obj, const std::string& ptr, const char* what, std::span<const std::string_view> allowed) const;
  const Json& need(const Json& obj, const std::string& ptr, const char* key) const;
  static const Json* opt(const Json& obj, const char* key);
  void expect_object(const Json& j, const std::string& ptr, const char* what) const;

  // Members that must be present with a given JSON kind.
  enum class Kind { string, number, integer, array, object };
  void require(const Json& obj, const std::string& ptr, std::initializer_list<std::pair<const char*, Kind>> members) const;

  // "the number 3", "the string \"x\"", "an array", ... for error messages.
  static std::string describe(const Json& j);

private:
  std::string source_;
};

}  // namespace sfr::io
