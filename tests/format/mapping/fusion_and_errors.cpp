// STOREL's worked examples (STOREL), part 2: MTTKRP (test 18) and the sorted
// merge of two segments (test 19) with the rules explain reports; explain of a triangular SpMV
// (F2, guard into bound, F1 + T4); symmetric as two views of one array; errors.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using entries2 = std::map<std::array<std::int64_t, 2>, double>;

template <class Tensor> auto stored(const Tensor& t) {
  std::map<std::array<std::int64_t, Tensor::order>, double> out;
  t.for_each_stored([&](const auto& c, double v) {
    if (v != 0) out[c] = v;  // compared modulo zeros (notes §2.8.1)
  });
  return out;
}

auto c_as_csr() {
  return lm::make_tensor<lm::csr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                  lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 3, 5}),
                                  lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
}
}  // namespace

TEST_CASE("mapping test 18: MTTKRP with B a CSF mapping, C and D CSR mappings") {
  auto B = lm::make_tensor<lm::csf3>({2, 3, 2}, std::vector<double>{1, 2, 3, 4, 5},
                                     lm::bind(nm::pos1, std::vector<std::int64_t>{0, 2}),
                                     lm::bind(nm::idx1, std::vector<std::int32_t>{0, 1}),
                                     lm::bind(nm::pos2, std::vector<std::int64_t>{0, 2, 4}),
                                     lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 1, 2}),
                                     lm::bind(nm::pos3, std::vector<std::int64_t>{0, 2, 3, 4, 5}),
                                     lm::bind(nm::idx3, std::vector<std::int32_t>{0, 1, 1, 0, 0}));
  auto C = c_as_csr();
  auto D = lm::make_tensor<lm::csr>({4, 2}, std::vector<double>{1, 2, 3, 4},
                                    lm::bind(nm::pos2, std::vector<std::int64_t>{0, 1, 2, 3, 4}),
                                    lm::bind(nm::idx2, std::vector<std::int32_t>{0, 1, 0, 1}));
  loom::tensor<double, loom::dcsr> A({2, 4});
  A(i, j) = loom::sum(k, loom::sum(l, B(i, k, l) * C(k, j) * D(j, l)));
  CHECK(stored(A) == entries2{{{0, 0}, 6}, {{0, 2}, 27}, {{0, 3}, 148}, {{1, 0}, 25}});
  B.set_name("B");
  D.set_name("D");
  const std::string plan =
      loom::explain(A(i, j), loom::sum(k, loom::sum(l, B(i, k, l) * C(k, j) * D(j, l))));
  CAPTURE(plan);
  CHECK(plan.find("attribute order: i, k, j, l") != std::string::npos);
  CHECK(plan.find("mapping B = csf3_mapping") != std::string::npos);
  CHECK(plan.find("F3 (@unique j): the program's loop over k is the mapping's loop over "
                  "idx2(pos2(i_pos) : pos2(i_pos + 1))") != std::string::npos);
  CHECK(plan.find("fused i (program index k): F1 (iteration -> lookup): k comes from B") !=
        std::string::npos);
  // the l loop intersects B's and D's sorted segments: F4
  CHECK(plan.find(
            "F3 (@unique k) and F4: sorted merge of idx3(pos3(j_pos) : pos3(j_pos + 1)) with D") !=
        std::string::npos);
}

TEST_CASE("mapping test 19: the sorted merge of two index segments") {
  // a = {0 -> 1, 1 -> 2, 4 -> 3}, b = {1 -> 10, 2 -> 20, 4 -> 30}: merge on 1 and 4
  using vec = lm::format_of<decltype(lm::define<"segment_vector">(
      lm::each(nm::i, nm::idx1.slice(nm::pos1(lm::c<0>), nm::pos1(lm::c<1>)), lm::unique),
      lm::values(lm::pos(nm::i))))>;
  auto a = lm::make_tensor<vec>({5}, std::vector<double>{1, 2, 3},
                                lm::bind(nm::pos1, std::vector<std::int64_t>{0, 3}),
                                lm::bind(nm::idx1, std::vector<std::int32_t>{0, 1, 4}));
  auto b = lm::make_tensor<vec>({5}, std::vector<double>{10, 20, 30},
                                lm::bind(nm::pos1, std::vector<std::int64_t>{0, 3}),
                                lm::bind(nm::idx1, std::vector<std::int32_t>{1, 2, 4}));
  loom::tensor<double, loom::sparse_vector> c({5});
  c(i) = a(i) * b(i);
  CHECK(stored(c) == std::map<std::array<std::int64_t, 1>, double>{{{1}, 20}, {{4}, 90}});
  const std::string plan = loom::explain(c(i), a(i) * b(i));
  CAPTURE(plan);
  CHECK(plan.find("F4: sorted merge of idx1(pos1(0) : pos1(1)) with T1") != std::string::npos);
}

TEST_CASE("mapping explain: lower-triangular SpMV is the mapping's loops, fused") {
  auto L = lm::make_tensor<lm::lower_packed>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  L.set_name("L");
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  for (int p = 0; p < 3; ++p) x.at(p) = p + 1;
  y(i) = loom::sum(j, L(i, j) * x(j));
  CHECK(y.at(0) == 1);
  CHECK(y.at(1) == 8);
  CHECK(y.at(2) == 32);
  const std::string plan = loom::explain(y(i), loom::sum(j, L(i, j) * x(j)));
  CAPTURE(plan);
  CHECK(plan.find("mapping L = lower_packed: L(i,j) = vals((i*(i + 1))/2 + j) for i in 0 : N, "
                  "j in 0 : N where j <= i") != std::string::npos);
  CHECK(plan.find("G (guard into bound) gives j in 0 : min(N, i + 1); F2: the program's loop "
                  "over j is the mapping's loop j in 0 : min(N, i + 1) (a counted loop)") !=
        std::string::npos);
  CHECK(plan.find("let-inlining") != std::string::npos);
  // a lookup: x iterated (sparse), L located through the range test (F1 + T4)
  loom::tensor<double, loom::sparse_vector> xs(x);
  loom::tensor<double, loom::dense_vector> z({3});
  z(i) = loom::sum(j, xs(j) * L(i, j));
  CHECK(z.at(2) == 32);
  const std::string probe = loom::explain(z(i), loom::sum(j, xs(j) * L(i, j)));
  CAPTURE(probe);
  CHECK(probe.find("F1 (iteration -> lookup): j comes from T0") != std::string::npos);
}

TEST_CASE("mapping: symmetric as two views of one packed array equals symmetric_packed") {
  std::vector<double> packed{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // 4 x 4 lower triangle
  auto L = lm::make_view<lm::lower_packed>({4, 4}, std::span<double>(packed));
  auto SL = lm::make_view<lm::strict_lower_packed>({4, 4}, std::span<double>(packed));
  auto S = lm::make_view<lm::symmetric_packed>({4, 4}, std::span<double>(packed));
  loom::tensor<double, loom::dense_vector> x({4}), y({4}), z({4});
  for (int p = 0; p < 4; ++p) x.at(p) = p + 1;
  y(i) = loom::sum(j, L(i, j) * x(j));
  y(j) += loom::sum(i, SL(i, j) * x(i));
  z(i) = loom::sum(j, S(i, j) * x(j));
  // row 0 of S is (1, 2, 4, 7): 1 + 4 + 12 + 28
  CHECK(z.at(0) == 45);
  for (int p = 0; p < 4; ++p) CHECK(y.at(p) == z.at(p));
  CHECK(SL.at(2, 2) == 0);
  CHECK(SL.at(3, 2) == 9);
}

TEST_CASE("mapping: mapped formats as outputs (assembled through the mapping's levels)") {
  auto L = lm::make_tensor<lm::lower_packed>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  loom::tensor<double, lm::lower_packed> twice({3, 3});
  twice(i, j) = L(i, j) + L(i, j);
  CHECK(twice.at(2, 1) == 10);
  CHECK(twice.values().size() == 6);
  auto C = c_as_csr();
  loom::tensor<double, lm::csr> squared({3, 4});
  squared(i, j) = C(i, j) * C(i, j);
  CHECK(stored(squared) ==
        entries2{{{0, 0}, 36}, {{0, 2}, 81}, {{0, 3}, 64}, {{2, 0}, 25}, {{2, 3}, 49}});
}

TEST_CASE("mapping errors name the mapping, the mode and the extents") {
  CHECK_THROWS_WITH_AS(lm::make_tensor<lm::lower_packed>({3, 3}, std::vector<double>{1, 2, 3}),
                       "loom::mapping lower_packed: the value array has 3 entries; the mapping's "
                       "offsets need 6",
                       loom::shape_error);
  CHECK_THROWS_WITH_AS(
      (lm::make_tensor<lm::csr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 3, 5}),
                                lm::bind(nm::idx2, std::vector<std::int32_t>{0, 3, 2, 0, 3}))),
      "loom::mapping csr_mapping: coordinate 2 of mode 1 (extent 4) under parent position 0 is "
      "not strictly ascending (the loop is unique and sorted)",
      loom::shape_error);
  CHECK_THROWS_WITH_AS(
      (lm::make_tensor<lm::csr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 3, 6}),
                                lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}))),
      "loom::mapping csr_mapping: the segment [3, 6) of mode 1 under parent position 2 is not a "
      "range "
      "inside its index array of 5 entries",
      loom::shape_error);
  CHECK_THROWS_WITH_AS(
      (lm::make_tensor<lm::csr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 2, 5}),
                                lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}))),
      "loom::mapping csr_mapping: the segment [3, 2) of mode 1 under parent position 1 is not a "
      "range "
      "inside its index array of 5 entries",
      loom::shape_error);
  // an entry outside the stored region cannot be placed
  CHECK_THROWS_WITH_AS(
      (loom::from_coo<lm::lower_packed>({3, 3}, {{0, 2}}, std::vector<double>{1})),
      "loom::mapping lower_packed: an entry with coordinate 2 in mode 1 (extent 3) under parent "
      "position 0 lies outside the stored region j in 0 : min(N, i + 1)",
      loom::shape_error);
}
