// Strict JSON parsing: nlohmann's SAX parser building the document itself, with
//  - rejection of duplicate object keys (the JSON grammar allows them; they would let a typo pass),
//  - a nesting-depth limit (one error naming the place, instead of unbounded work),
//  - optionally, arrays of integers packed into 4 or 8 bytes per element (instead of a 16-byte JSON
//    value each), so that a large trace costs about what its numbers cost,
//  - files streamed in small blocks (never held whole), with their own messages for directories,
//    empty files and files that are not JSON text.
// Errors are InputErrors naming "source:line:column" for syntax and the JSON pointer otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sfr::io {

using Json = nlohmann::ordered_json;

struct JsonOptions {
  // Deepest nesting of arrays and objects accepted (sf-trace needs 6).
  int max_depth = 64;
  // Store every array whose elements are all integers in [-2^63, 2^63) as a packed array (see
  // below), except under the top-level key "meta". Off: plain JSON arrays everywhere.
  bool pack_integer_arrays = false;
};

Json parse_json_strict(std::string_view text, const std::string& source, const JsonOptions& opt = {});
// Streams the file through the parser. InputError naming the file if it cannot be read, is a
// directory, is empty or does not start like JSON text.
Json parse_json_file(const std::string& path, const JsonOptions& opt = {});
// Reads a whole file (same checks as parse_json_file, without the JSON-text one).
std::string read_text_file(const std::string& path);

// Packed integer arrays (only produced with pack_integer_arrays) are JSON binary values; these
// helpers let a reader treat packed and plain arrays alike.
bool is_packed(const Json& j);
bool is_array_like(const Json& j);                     // a plain or a packed array
std::size_t array_length(const Json& j);               // its element count (0 for anything else)
std::int64_t packed_at(const Json& j, std::size_t k);  // element k of a packed array
// Element k of either kind: a plain array's element itself, a packed one decoded into `tmp`.
const Json& element_at(const Json& j, std::size_t k, Json& tmp);

// JSON pointer helpers (RFC 6901).
std::string pointer_escape(std::string_view token);
std::string pointer_join(const std::string& base, std::string_view token);
std::string pointer_join(const std::string& base, std::size_t index);
// "(top level)" for the empty pointer, else the pointer itself.
std::string pointer_display(const std::string& ptr);

// Quoted, escaped JSON string.
std::string json_quote(std::string_view s);

// What a reader looks at first: the document's "format". A document of another sf-replay kind is
// refused as such ("t.json is an sf-trace (a trace), not a machine file (sf-machine)"), one of an
// unknown format names it. Without "format": refused when `required` (or when the document is
// not an object), accepted otherwise (the readers of hand-written traces and machine files).
// `expected` is the format ("sf-machine"); its description comes from format_description.
void check_format(const Json& root, const std::string& source, std::string_view expected, bool required);
// "a trace", "a machine file", ... for the sf-replay formats; empty for any other string.
std::string format_description(std::string_view format);

}  // namespace sfr::io
