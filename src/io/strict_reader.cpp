#include "io/strict_reader.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace sfr::io {

namespace {

bool has_kind(const Json& v, StrictReader::Kind k) {
  switch (k) {
    case StrictReader::Kind::string: return v.is_string();
    case StrictReader::Kind::number: return v.is_number();
    case StrictReader::Kind::integer: return v.is_number_integer();
    case StrictReader::Kind::array: return v.is_array();
    case StrictReader::Kind::object: return v.is_object();
  }
  return false;
}

const char* kind_name(StrictReader::Kind k) {
  switch (k) {
    case StrictReader::Kind::string: return "a string";
    case StrictReader::Kind::number: return "a number";
    case StrictReader::Kind::integer: return "an integer";
    case StrictReader::Kind::array: return "an array";
    case StrictReader::Kind::object: return "an object";
  }
  return "?";
}

}  // namespace

void StrictReader::fail(const std::string& ptr, const std::string& msg) const {
  throw InputError(source_, pointer_display(ptr) + ": " + msg);
}

void StrictReader::check_keys(const Json& obj, const std::string& ptr, std::span<const std::string_view> allowed) const {
  for (const auto& [k, _] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(pointer_join(ptr, k), "unknown key " + json_quote(k) + " (allowed here: " + list + ")");
  }
}

void StrictReader::object(const Json& obj, const std::string& ptr, const char* what, std::span<const std::string_view> allowed) const {
  expect_object(obj, ptr, what);
  check_keys(obj, ptr, allowed);
}

const Json& StrictReader::need(const Json& obj, const std::string& ptr, const char* key) const {
  auto it = obj.find(key);
  if (it == obj.end()) fail(ptr, std::string("missing required key \"") + key + "\"");
  return *it;
}

const Json* StrictReader::opt(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

void StrictReader::expect_object(const Json& j, const std::string& ptr, const char* what) const {
  if (!j.is_object()) fail(ptr, std::string("expected ") + what + ", got " + describe(j));
}

void StrictReader::require(const Json& obj, const std::string& ptr, std::initializer_list<std::pair<const char*, Kind>> members) const {
  expect_object(obj, ptr, "an object");
  for (const auto& [name, kind] : members) {
    const auto it = obj.find(name);
    if (it == obj.end()) fail(pointer_join(ptr, name), "missing (required here)");
    if (!has_kind(*it, kind)) fail(pointer_join(ptr, name), std::string("expected ") + kind_name(kind) + ", got " + describe(*it));
  }
}

std::string StrictReader::describe(const Json& j) {
  if (j.is_number_float()) return "the non-integer number " + j.dump();
  if (j.is_number()) return "the number " + j.dump();
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return "the string " + json_quote(s);
  }
  if (j.is_boolean()) return std::string("the boolean ") + (j.get<bool>() ? "true" : "false");
  if (j.is_null()) return "null";
  if (is_array_like(j)) return "an array";
  return "an object";
}

}  // namespace sfr::io
