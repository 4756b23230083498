// Aliasing by memory, not by object: an output whose storage an operand also reads,
// through another view of the same buffer (whole or overlapping) or a view of the output's own
// arrays, gives the answer computed from the operands' old values in `=`, `+=`,
// `loom::order<...>`, decompose (a forced candidate too), a sum of sums run one kernel per term;
// explain() says so; buffers that only touch are not aliases. matrix_chain, la and eval return
// new storage: nothing to alias.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

// A 4x4 csr matrix with a full diagonal and two off-diagonal entries.
loom::tensor<double, loom::csr> matrix_a() {
  return loom::from_coo<loom::csr>({4, 4}, {{0, 0}, {0, 3}, {1, 1}, {2, 0}, {2, 2}, {3, 3}},
                                   std::vector<double>{2, 1, 3, 5, 4, 6});
}
loom::tensor<double, loom::csr> matrix_b() {
  return loom::from_coo<loom::csr>({4, 4}, {{0, 1}, {1, 0}, {3, 2}}, std::vector<double>{7, 8, 9});
}

// y = A x computed by hand from a copy of x.
std::vector<double> times(const loom::tensor<double, loom::csr>& A, std::vector<double> x) {
  std::vector<double> y(static_cast<std::size_t>(A.extent(0)), 0.0);
  A.for_each_stored([&](const auto& c, double v) {
    y[static_cast<std::size_t>(c[0])] += v * x[static_cast<std::size_t>(c[1])];
  });
  return y;
}

// y = (A + B) x by hand: what every term must compute from the old x.
std::vector<double> sum_times(const loom::tensor<double, loom::csr>& A,
                              const loom::tensor<double, loom::csr>& B,
                              const std::vector<double>& x) {
  std::vector<double> y = times(A, x);
  const std::vector<double> from_b = times(B, x);
  for (std::size_t p = 0; p < y.size(); ++p) y[p] += from_b[p];
  return y;
}

std::vector<double> contents(std::span<const double> s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("two views of one buffer: y(i) = sum(j, A(i,j) * x(j)) reads x's old values") {
  const auto A = matrix_a();
  std::vector<double> buffer{1, 2, 3, 4};
  const std::vector<double> expected = times(A, buffer);
  auto y = loom::dense_vector_view<double>(buffer);
  auto xv = loom::dense_vector_view<const double>(buffer);
  xv.set_name("x");
  CHECK(loom::explain(y(i), loom::sum(j, A(i, j) * xv(j)))
            .find("aliasing: the output's storage is also read by x: the result is computed into a "
                  "copy") != std::string::npos);
  y(i) = loom::sum(j, A(i, j) * xv(j));
  CHECK(buffer == expected);

  SUBCASE("+=") {
    const std::vector<double> before = buffer;
    std::vector<double> want = times(A, before);
    for (std::size_t p = 0; p < want.size(); ++p) want[p] += before[p];
    y(i) += loom::sum(j, A(i, j) * xv(j));
    CHECK(buffer == want);
  }
  SUBCASE("a fixed loop order") {
    const std::vector<double> before = buffer;
    y(i) = loom::order<i, j>(loom::sum(j, A(i, j) * xv(j)));
    CHECK(buffer == times(A, before));
  }
}

TEST_CASE("overlapping and touching views of one buffer") {
  const auto A = matrix_a();
  std::vector<double> buffer{1, 2, 3, 4, 5, 6, 7, 8};
  SUBCASE("x = buffer[0, 4), y = buffer[1, 5): overlapping, the old x is read") {
    const std::vector<double> x_old(buffer.begin(), buffer.begin() + 4);
    const auto xv =
        loom::dense_vector_view<const double>(std::span<const double>(buffer.data(), 4));
    auto y = loom::dense_vector_view<double>(std::span<double>(buffer.data() + 1, 4));
    y(i) = loom::sum(j, A(i, j) * xv(j));
    CHECK(contents(std::span<const double>(buffer.data() + 1, 4)) == times(A, x_old));
    CHECK(buffer[0] == 1.0);
  }
  SUBCASE("x = buffer[0, 4), y = buffer[4, 8): adjacent, not aliases") {
    const auto xv =
        loom::dense_vector_view<const double>(std::span<const double>(buffer.data(), 4));
    auto y = loom::dense_vector_view<double>(std::span<double>(buffer.data() + 4, 4));
    CHECK(loom::explain(y(i), loom::sum(j, A(i, j) * xv(j))).find("aliasing") == std::string::npos);
    y(i) = loom::sum(j, A(i, j) * xv(j));
    CHECK(contents(std::span<const double>(buffer.data() + 4, 4)) ==
          times(A, std::vector<double>{1, 2, 3, 4}));
  }
}

TEST_CASE("A(i,j) = V(j,i) where V views A's own arrays: the transpose of the old A") {
  auto A = matrix_a();
  const auto original = A;
  const auto V = loom::csr_view<const double>(4, 4, A.level<1>().pos, A.level<1>().crd,
                                              std::span<const double>(A.values()));
  CHECK(loom::explain(A(i, j), V(j, i)).find("aliasing") != std::string::npos);
  A(i, j) = V(j, i);
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t c = 0; c < 4; ++c) CHECK(A.at(r, c) == original.at(c, r));

  SUBCASE("dense: M(i,j) = W(j,i), W a view of M's values") {
    loom::tensor<double, loom::dense_matrix> M({3, 3});
    for (std::int64_t p = 0; p < 9; ++p)
      M.values()[static_cast<std::size_t>(p)] = static_cast<double>(p);
    const auto W = loom::dense_matrix_view<const double>(3, 3, std::span<const double>(M.values()));
    M(i, j) = W(j, i);
    for (std::int64_t r = 0; r < 3; ++r)
      for (std::int64_t c = 0; c < 3; ++c) CHECK(M.at(r, c) == static_cast<double>(c * 3 + r));
  }
}

TEST_CASE("y(i) = sum(j, (A(i,j) + B(i,j)) * y(j)), one kernel per term, reads the old y") {
  const auto A = matrix_a(), B = matrix_b();
  const std::vector<double> start{1, -2, 3, 0.5};
  const std::vector<double> expected = sum_times(A, B, start);
  SUBCASE("the same tensor, =") {  // the second term must not see the first term's writes
    loom::tensor<double, loom::dense_vector> y({4});
    std::copy(start.begin(), start.end(), y.values().begin());
    y(i) = loom::sum(j, (A(i, j) + B(i, j)) * y(j));
    CHECK(contents(y.values()) == expected);
  }
  SUBCASE("two views of one buffer, +=") {
    std::vector<double> buffer = start;
    auto y = loom::dense_vector_view<double>(buffer);
    const auto x = loom::dense_vector_view<const double>(buffer);
    y(i) += loom::sum(j, A(i, j) * x(j)) + loom::sum(j, B(i, j) * x(j));
    for (std::size_t p = 0; p < expected.size(); ++p) CHECK(buffer[p] == start[p] + expected[p]);
  }
}

TEST_CASE("decompose: y(i) = sum(j, (A(i,j) + B(i,j)) * y(j)) reads the old y in every term") {
  const auto A = matrix_a(), B = matrix_b();
  const std::vector<double> start{1, -2, 3, 0.5};
  const std::vector<double> expected = sum_times(A, B, start);

  SUBCASE("the same tensor") {
    loom::tensor<double, loom::dense_vector> y({4});
    std::copy(start.begin(), start.end(), y.values().begin());
    loom::decompose(y(i), loom::sum(j, (A(i, j) + B(i, j)) * y(j)));
    CHECK(contents(y.values()) == expected);
  }
  SUBCASE("two views of one buffer") {
    std::vector<double> buffer = start;
    auto y = loom::dense_vector_view<double>(buffer);
    const auto x = loom::dense_vector_view<const double>(buffer);
    loom::decompose(y(i), loom::sum(j, (A(i, j) + B(i, j)) * x(j)));
    CHECK(buffer == expected);
  }
  SUBCASE("decompose, every candidate forced") {
    for (std::size_t which = 0; which < 2; ++which) {
      loom::tensor<double, loom::dense_vector> y({4});
      std::copy(start.begin(), start.end(), y.values().begin());
      loom::decompose(y(i), loom::sum(j, A(i, j) * y(j)),
                      loom::options<loom::opt::eliminate>{.candidate = which});
      CHECK(contents(y.values()) == times(A, start));
    }
  }
}
