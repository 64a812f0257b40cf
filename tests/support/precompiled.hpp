// The headers nearly every GoogleTest program includes, precompiled once for all of them
// (tests/CMakeLists.txt): parsing GoogleTest, nlohmann/json and these standard headers took
// about 3.5 s of each test file's compile.
#pragma once
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>
