// Strict JSON parsing: nlohmann's parser plus rejection of duplicate object keys (which the JSON
// grammar allows but which would let a typo pass silently). Errors are InputErrors naming
// "source:line:column" for syntax and the JSON pointer for duplicate keys.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sfr::trace {

using Json = nlohmann::ordered_json;

Json parse_json_strict(std::string_view text, const std::string& source);
// Reads a whole file; InputError naming the file if it cannot be read.
std::string read_text_file(const std::string& path);

// JSON pointer helpers (RFC 6901).
std::string pointer_escape(std::string_view token);
std::string pointer_join(const std::string& base, std::string_view token);
std::string pointer_join(const std::string& base, std::size_t index);
// "(top level)" for the empty pointer, else the pointer itself.
std::string pointer_display(const std::string& ptr);

// Quoted, escaped JSON string.
std::string json_quote(std::string_view s);

}  // namespace sfr::trace
