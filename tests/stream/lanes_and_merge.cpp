// The hand loop's habits in generated kernels: dense reductions in vector partial sums (eight
// fixed ones under loom::set_deterministic(true)); intersections that merge, and gallop only on fibers whose
// lengths differ by skip::gallop_ratio or more; an output with an operand's pattern written as
// values only.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace loom;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// The products of row 0 of U and V are 1e16, 1, -1e16, 1, 1e16, 1, -1e16, 1: the sequential sum
// keeps two of the 1s, the eight fixed partial sums of deterministic mode none, the target's
// vector lanes four: each order gives another sum.
struct sddmm_case {
  tensor<double, csr> A = from_coo<csr>({1, 1}, {{0, 0}}, std::vector<double>{1.0});
  tensor<double, dense_matrix> U{{1, 8}}, V{{1, 8}};
  sddmm_case() {
    const std::array<double, 8> u{1e16, 1, -1e16, 1, 1e16, 1, -1e16, 1};
    for (std::int64_t c = 0; c < 8; ++c) {
      U.at(0, c) = u[static_cast<std::size_t>(c)];
      V.at(0, c) = 1.0;
    }
  }
  double sequential() const {
    double s = 0;
    for (std::int64_t c = 0; c < 8; ++c) s += U.at(0, c) * V.at(0, c);
    return s;
  }
  // deterministic mode's order: term q into partial sum q mod 8, then a fixed tree
  double fixed_lanes() const {
    std::array<double, 8> s{};
    for (std::int64_t c = 0; c < 8; ++c)
      s[static_cast<std::size_t>(c % 8)] += U.at(0, c) * V.at(0, c);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  }
  double loom_sddmm() const {
    tensor<double, csr> C({1, 1});
    C(i, j) = sum(k, A(i, j) * U(i, k) * V(j, k));
    return C.at(0, 0);
  }
};
}  // namespace

TEST_CASE("a dense reduction keeps vector partial sums; deterministic mode eight fixed ones") {
  loom::set_num_threads(1);
  sddmm_case c;
  const double fixed = c.fixed_lanes();
  CHECK(fixed != c.sequential());  // the orders differ on this input (the test can fail)
  loom::set_deterministic(true);
  CHECK(c.loom_sddmm() == fixed);  // bit-exact
  tensor<double, dense_vector> y({1});
  y(i) = sum(k, c.U(i, k) * c.V(i, k));
  CHECK(y.at(0) == fixed);
  loom::set_deterministic(false);
  const double lanes = c.loom_sddmm();
  CHECK(lanes != fixed);                  // the target's lanes are in use
  CHECK(std::abs(lanes - fixed) <= 4.0);  // within the rounding of the 1e16 terms
  // integer-valued data sum exactly in any order
  for (std::int64_t q = 0; q < 8; ++q) c.U.at(0, q) = static_cast<double>(q + 1);
  CHECK(c.loom_sddmm() == 36.0);
}

TEST_CASE("an intersection merges fibers of similar length and gallops on skewed ones") {
  struct fiber {  // what merge_fibers reads of a level stream: its cursor's position and end
    struct cursor {};
    std::int64_t p, end;
  };
  CHECK(stream::merge_fibers(fiber{0, 10}, fiber{0, 10}));
  CHECK(stream::merge_fibers(fiber{0, 10}, fiber{0, 200}));
  CHECK_FALSE(stream::merge_fibers(fiber{0, 1}, fiber{0, 1000}));
  CHECK_FALSE(stream::merge_fibers(fiber{0, 5000}, fiber{5, 10}));
  CHECK(stream::merge_fibers(fiber{0, 0}, fiber{0, 0}));
  // the choice at the ratio's edge (gallop_ratio is 24)
  static_assert(stream::skip::gallop_ratio == 24);
  CHECK(stream::merge_fibers(fiber{0, 23}, fiber{0, 0}));
  CHECK_FALSE(stream::merge_fibers(fiber{0, 24}, fiber{0, 0}));
  CHECK_FALSE(stream::merge_fibers(fiber{3, 3}, fiber{0, 31}));
  CHECK(stream::merge_fibers(fiber{0, 1}, fiber{0, 47}));
  CHECK_FALSE(stream::merge_fibers(fiber{0, 1}, fiber{0, 48}));

  // the same results either way: a long row against short ones, and the other way round
  const std::int64_t n = 5000;
  std::vector<std::array<std::int64_t, 2>> long_rows, short_rows;
  std::vector<double> long_vals, short_vals;
  for (std::int64_t c = 0; c < n; c += 2) {
    long_rows.push_back({0, c});
    long_vals.push_back(1.0 + static_cast<double>(c % 5));
  }
  for (std::int64_t c : {2, 3, 1000, 4998, 4999}) {
    short_rows.push_back({0, c});
    short_vals.push_back(2.0);
    long_rows.push_back({1, c});
    long_vals.push_back(3.0);
  }
  short_rows.push_back({1, 3});
  short_vals.push_back(5.0);
  const auto A = from_coo<csr>({2, n}, long_rows, long_vals);
  const auto B = from_coo<csr>({2, n}, short_rows, short_vals);
  // row 0: the long row meets columns 2, 1000, 4998 (even): 2*(1+2) + 2*(1+0) + 2*(1+3) = 16
  // row 1: column 3 only: 3 * 5 = 15
  CHECK(eval(sum(i, j, A(i, j) * B(i, j))) == 31.0);
  CHECK(eval(sum(i, j, B(i, j) * A(i, j))) == 31.0);
  tensor<double, csr> C({2, n});
  C(i, j) = A(i, j) * B(i, j);
  CHECK(C.nnz() == 4);
  CHECK(C.at(0, 1000) == 2.0);
  CHECK(C.at(1, 3) == 15.0);
}

TEST_CASE("an output with an operand's pattern copies it and computes values only") {
  loom::set_num_threads(1);
  const auto A =
      from_coo<csr>({3, 4}, {{0, 1}, {0, 3}, {2, 0}, {2, 2}}, std::vector<double>{1, 2, 3, 4});
  tensor<double, dense_matrix> U({3, 2}), V({4, 2});
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t c = 0; c < 2; ++c) U.at(r, c) = static_cast<double>(1 + r + c);
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t c = 0; c < 2; ++c) V.at(r, c) = static_cast<double>(2 * r - c);
  tensor<double, csr> C({3, 4});
  C.set_name("C");
  auto& named_A = const_cast<tensor<double, csr>&>(A).set_name("A");
  (void)named_A;
  CHECK(loom::explain(C(i, j), sum(k, A(i, j) * U(i, k) * V(j, k)))
            .find("written on the pattern of A") != std::string::npos);
  C(i, j) = sum(k, A(i, j) * U(i, k) * V(j, k));
  CHECK(C.nnz() == A.nnz());
  CHECK(std::equal(C.level<1>().crd.begin(), C.level<1>().crd.end(), A.level<1>().crd.begin()));
  CHECK(std::equal(C.level<1>().pos.begin(), C.level<1>().pos.end(), A.level<1>().pos.begin()));
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t c = 0; c < 4; ++c) {
      double want = 0;
      for (std::int64_t q = 0; q < 2; ++q) want += A.at(r, c) * U.at(r, q) * V.at(c, q);
      CHECK(C.at(r, c) == want);
    }
  // a scaling, and the output read as its own pattern (aliasing: loom copies it first)
  C(i, j) = A(i, j) * 2.0;
  CHECK(C.at(2, 2) == 8.0);
  C(i, j) = C(i, j) * 3.0;
  CHECK(C.at(2, 2) == 24.0);
  CHECK(C.nnz() == 4);
  // an empty k range emits no value: the count differs and the output is assembled as usual
  tensor<double, dense_matrix> U0({3, 0}), V0({4, 0});
  C(i, j) = sum(k, A(i, j) * U0(i, k) * V0(j, k));
  CHECK(C.nnz() == 0);
  CHECK(C.at(0, 1) == 0.0);
  // a sparse factor may drop entries: assembled as usual, not on A's pattern
  const auto B = from_coo<csr>({3, 4}, {{0, 3}}, std::vector<double>{5});
  CHECK(loom::explain(C(i, j), A(i, j) * B(i, j)).find("pattern of") == std::string::npos);
  C(i, j) = A(i, j) * B(i, j);
  CHECK(C.nnz() == 1);
  CHECK(C.at(0, 3) == 10.0);
}

TEST_CASE("an output on an operand's pattern copies it again only when either has changed") {
  loom::set_num_threads(1);
  auto A = from_coo<csr>({3, 4}, {{0, 1}, {0, 3}, {2, 0}, {2, 2}}, std::vector<double>{1, 2, 3, 4});
  tensor<double, csr> C({3, 4});
  const auto same_pattern = [&] {
    return C.nnz() == A.nnz() &&
           std::equal(C.level<1>().crd.begin(), C.level<1>().crd.end(), A.level<1>().crd.begin()) &&
           std::equal(C.level<1>().pos.begin(), C.level<1>().pos.end(), A.level<1>().pos.begin());
  };
  C(i, j) = A(i, j) * 2.0;
  const auto* crd = std::as_const(C).level<1>().crd.data();
  C(i, j) = A(i, j) * 3.0;  // neither changed: the copy C holds is kept, values rewritten
  CHECK(std::as_const(C).level<1>().crd.data() == crd);
  CHECK(C.at(2, 2) == 12.0);
  CHECK(same_pattern());
  // A replaced at the same address by another pattern: copied again
  A = from_coo<csr>({3, 4}, {{1, 1}, {1, 2}, {2, 3}}, std::vector<double>{5, 6, 7});
  C(i, j) = A(i, j) * 2.0;
  CHECK(same_pattern());
  CHECK(C.at(1, 2) == 12.0);
  CHECK(C.at(0, 1) == 0.0);
  // A's coordinates edited in place (a non-const level access): copied again
  A.level<1>().crd[0] = 0;
  C(i, j) = A(i, j) * 2.0;
  CHECK(same_pattern());
  CHECK(C.at(1, 0) == 10.0);
  // C written by another kernel in between: C's pattern is then B's, and A's is copied again
  const auto B = from_coo<csr>({3, 4}, {{0, 0}}, std::vector<double>{1});
  C(i, j) = B(i, j) * 1.0;
  CHECK(C.nnz() == 1);
  C(i, j) = A(i, j) * 2.0;
  CHECK(same_pattern());
  // C's coordinates edited by the user: copied again
  C.level<1>().crd[1] = 3;
  C(i, j) = A(i, j) * 2.0;
  CHECK(same_pattern());
  CHECK(C.at(1, 2) == 12.0);
}
