// Differential tests of the hash-map mappings against the dense reference (on a built-in CSR
// copy): DCSR with hashed rows (24 cases x 8 kernels), the trie of hash maps and the dictionary of
// keys (x 4 kernels each).
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: hashed_rows (DCSR with a hash map of rows)") {
  CHECK(mapping_test::run_differential<loom::mapping::hashed_rows>(
            "A=hashed_rows", [](std::int64_t, std::int64_t) { return true; }) == 192);
}
TEST_CASE("differential mapping: hash_trie (rows and columns in hash maps)") {
  CHECK(mapping_test::run_differential<loom::mapping::hash_trie, false>(
            "A=hash_trie", [](std::int64_t, std::int64_t) { return true; }) == 96);
}
TEST_CASE("differential mapping: dok (one flat hash map keyed by (row, column))") {
  CHECK(mapping_test::run_differential<loom::mapping::dok, false>(
            "A=dok", [](std::int64_t, std::int64_t) { return true; }) == 96);
}
