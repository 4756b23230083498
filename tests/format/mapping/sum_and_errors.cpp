// Sums of mappings distributed over their terms (explain names STOREL's rule), and the errors of
// hash maps, non-unique segments and sums (each names the mapping, the mode and the extents).
// Part 1: hash_and_coo.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {
namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
}  // namespace

TEST_CASE("mapping: a sum of mappings is distributed over its terms (explain names the rule)") {
  std::vector<double> packed{1, 2, 3, 4, 5, 6};  // [1; 2 3; 4 5 6]
  auto L = lm::make_view<lm::lower_packed>({3, 3}, std::span<double>(packed));
  auto SL = lm::make_view<lm::strict_lower_packed>({3, 3}, std::span<double>(packed));
  L.set_name("L");
  SL.set_name("SL");
  const auto S = lm::make_sum("S", lm::as_is(L), lm::transposed(SL));
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  for (int p = 0; p < 3; ++p) x.at(p) = p + 1;
  auto program = [&](const auto& A) { return loom::sum(j, A(i, j) * x(j)); };
  CHECK(lm::assign_distributed(y(i), program, S) == 2);
  // S = [1 2 4; 2 3 5; 4 5 6]
  CHECK(y.at(0) == 17);
  CHECK(y.at(1) == 23);
  CHECK(y.at(2) == 32);
  const std::string plan = lm::explain_distributed(y(i), program, S);
  CAPTURE(plan);
  CHECK(plan.find("sum of mappings: S = L [format<lower_packed,lower_packed>] + SL^T "
                  "[format<strict_lower_packed,strict_lower_packed>]") != std::string::npos);
  CHECK(
      plan.find("distributed (STOREL: sum over e1 + e2 = sum over e1 + sum over e2): 2 kernels") !=
      std::string::npos);
  CHECK(plan.find("kernel: out(i) = sum(j, SL(j,i) * T1(j))") != std::string::npos);
  CHECK(plan.find("attribute order: j, i") != std::string::npos);  // SL walked in its own order
  CHECK(plan.find("transpose:") == std::string::npos);
  // S read twice is not linear: the sum is materialised
  auto square = [&](const auto& A) { return loom::sum(j, A(i, j) * A(i, j) * x(j)); };
  CHECK(lm::assign_distributed(y(i), square, S) == 1);
  CHECK(y.at(0) == 1 + 8 + 48);
  CHECK(lm::explain_distributed(y(i), square, S)
            .find("not distributed: the program reads S 2 times") != std::string::npos);
}

TEST_CASE(
    "mapping errors: hash maps, non-unique segments and sums name the mapping, mode, extents") {
  auto err = [](auto&& f) {
    try {
      f();
    } catch (const loom::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto hashed = [](lm::hash_table<> rows, std::vector<double> vals = {6, 9, 8, 5, 7}) {
    return lm::make_tensor<lm::hashed_rows>(
        {3, 4}, std::move(vals), lm::bind(nm::rows, rows),
        lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 5}),
        lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
  };
  CHECK(err([&] {
          hashed(lm::hash_table<>::from({{0, 0}, {5, 1}}));
        }) ==
        "loom::mapping hashed_rows: key 5 of mode 0 (extent 3) under parent position 0 is outside "
        "the extent");
  lm::hash_table<> odd{{0, 2, -1}, {0, 1, 0}};
  CHECK(
      err([&] { hashed(odd); }) ==
      "loom::mapping hashed_rows: the table [0, 3) of mode 0 under parent position 0 has 3 slots, "
      "not a power of two (build it with loom::mapping::hash_table)");
  auto misplaced = lm::hash_table<>::from({{0, 0}, {2, 1}});
  std::swap(misplaced.keys[0], misplaced.keys[1]);
  std::swap(misplaced.vals[0], misplaced.vals[1]);
  CHECK(err([&] { hashed(misplaced); }).find("is not found where the hash function puts it") !=
        std::string::npos);
  CHECK(err([&] {
          lm::hash_table<>::from({{1, 0}, {1, 1}});
        }) == "loom::mapping::hash_table: key 1 appears twice in one table");
  CHECK(err([&] {
          hashed(lm::hash_table<>::from({{0, 0}, {2, 1}}), {6, 9, 8});
        }) ==
        "loom::mapping hashed_rows: the value array has 3 entries; the mapping's offsets need 5");
  lm::hash_table<> ragged{{0, -1}, {0}};
  CHECK(err([&] { hashed(ragged); }) ==
        "loom::mapping hashed_rows: hash map rows has 2 keys but 1 positions");
  // COO rows must ascend (a run per row)
  CHECK(
      err([&] {
        lm::make_tensor<lm::coo>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                 lm::bind(nm::pos1, std::vector<std::int64_t>{0, 5}),
                                 lm::bind(nm::idx1, std::vector<std::int32_t>{0, 2, 0, 2, 2}),
                                 lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
      }) ==
      "loom::mapping coo_mapping: coordinate 0 of mode 0 (extent 3) under parent position 0 is not "
      "ascending (the loop is sorted)");
  // columns of one row run must ascend strictly
  CHECK(
      err([&] {
        lm::make_tensor<lm::coo>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                 lm::bind(nm::pos1, std::vector<std::int64_t>{0, 5}),
                                 lm::bind(nm::idx1, std::vector<std::int32_t>{0, 0, 0, 2, 2}),
                                 lm::bind(nm::idx2, std::vector<std::int32_t>{0, 3, 2, 0, 3}));
      }) ==
      "loom::mapping coo_mapping: coordinate 2 of mode 1 (extent 4) under parent position 0 is not "
      "strictly ascending (the loop is unique and sorted)");
  // the terms of a sum must agree on the shape
  std::vector<double> packed(6, 1.0), bigger(10, 1.0);
  auto L3 = lm::make_view<lm::lower_packed>({3, 3}, std::span<double>(packed));
  auto SL4 = lm::make_view<lm::strict_lower_packed>({4, 4}, std::span<double>(bigger));
  SL4.set_name("SL");
  CHECK(err([&] { lm::make_sum("S", lm::as_is(L3), lm::transposed(SL4)); }) ==
        "loom::mapping::make_sum S: term 1 (SL^T "
        "[format<strict_lower_packed,strict_lower_packed>]) has "
        "extent 4 in mode 0 but term 0 has 3");
}
