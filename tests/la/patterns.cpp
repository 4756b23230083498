// The linear-algebra front end on SPORES' patterns (ALS, PNMF, MLR) and
// the remaining operations, against the naive operation-at-a-time plan.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/la.hpp>

#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "../support/random.hpp"

namespace {
using namespace loom;

template <class Format>
tensor<double, Format> make(std::array<std::int64_t, Format::order> shape,
                            const std::vector<double>& rowmajor) {
  std::vector<std::array<std::int64_t, Format::order>> c;
  std::vector<double> v;
  for (std::size_t p = 0; p < rowmajor.size(); ++p) {
    if (rowmajor[p] == 0) continue;
    if constexpr (Format::order == 2)
      c.push_back(
          {static_cast<std::int64_t>(p) / shape[1], static_cast<std::int64_t>(p) % shape[1]});
    else
      c.push_back({static_cast<std::int64_t>(p)});
    v.push_back(rowmajor[p]);
  }
  return from_coo<Format>(shape, c, v, duplicates::error);
}

template <class T> std::vector<double> values_of(const T& t) {
  return std::vector<double>(t.values().begin(), t.values().end());
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("sum((U V^T)^2) = sum((U^T U) o (V^T V)) (example 4)") {
  const auto U = make<dense_matrix>({3, 2}, {1, 2, 0, 1, 3, 1});
  const auto V = make<dense_matrix>({2, 2}, {1, 0, 2, 1});
  const auto u = la::mat(U), v = la::mat(V);
  CHECK(la::eval(la::sum(la::pow2(u * la::transpose(v)))) == doctest::Approx(76));
  CHECK(la::eval(la::sum(la::hadamard(la::transpose(u) * u, la::transpose(v) * v))) ==
        doctest::Approx(76));
}

TEST_CASE("ALS: (U V^T - X) V is distributed; X V runs over X's entries (example 6)") {
  const auto U = make<dense_matrix>({3, 2}, {1, 2, 0, 1, 3, 1});
  const auto V = make<dense_matrix>({3, 2}, {1, 0, 2, 1, 0, 3});
  const auto X = make<csr>({3, 3}, {1, 0, 0, 0, 2, 0, 0, 0, 1});
  const auto u = la::mat(U);
  const auto v = la::mat(V);
  const auto x = la::mat(X);
  const auto als = (u * la::transpose(v) - x) * v;
  const std::vector<double> expected{8, 22, -2, 8, 17, 13};
  CHECK(values_of(la::eval(als)) == expected);
  CHECK(values_of(la::eval_naive(als)) == expected);
  CHECK(values_of(la::eval(u * (la::transpose(v) * v) - x * v)) == expected);
  const std::string plan = la::explain(als);
  CHECK(count(plan, "variable elimination") == 1);  // U (VᵀV): dense, eliminated
  CHECK(count(plan, "fused kernel") == 1);          // X V: sparse
}

TEST_CASE("PNMF: sum(W H) = colSums(W) . rowSums(H) (example 7)") {
  const auto W = make<dense_matrix>({2, 2}, {1, 2, 3, 4});
  const auto H = make<dense_matrix>({2, 3}, {1, 0, 2, 0, 1, 1});
  const auto w = la::mat(W), h = la::mat(H);
  CHECK(la::eval(la::sum(w * h)) == doctest::Approx(24));
  CHECK(la::eval_naive(la::sum(w * h)) == doctest::Approx(24));
  CHECK(la::eval(la::sum(la::hadamard(la::col_sums(w), la::row_sums(h)))) == doctest::Approx(24));
  // recognised: one dense term, never the m×n product
  const std::string plan = la::explain(la::sum(w * h));
  CHECK(count(plan, "variable elimination") == 1);
  CHECK(count(plan, "entries") == 3);  // three eliminations, each to a vector or a scalar
}

TEST_CASE("MLR: P*X - P*rowSums(P)*X = P*(1 - P)*X (example 8)") {
  const auto P = test::random_tensor<double, dense_vector>({6}, test::density::full, 5);
  const auto X = test::random_tensor<double, csr>({6, 4}, test::density::medium, 6);
  const auto p = la::mat(P);
  const auto x = la::mat(X);
  const auto mlr = la::hadamard(p, x) - la::hadamard(la::hadamard(p, la::row_sums(p)), x);
  const auto sprop = la::hadamard(la::hadamard(p, 1.0 - p), x);
  const auto a = la::eval(mlr);
  const auto b = la::eval(sprop);
  const auto c = la::eval_naive(mlr);
  for (std::size_t q = 0; q < a.values().size(); ++q) {
    CHECK(a.values()[q] == doctest::Approx(b.values()[q]));
    CHECK(a.values()[q] == doctest::Approx(c.values()[q]));
  }
}

TEST_CASE("other operations against the naive plan") {
  const auto A = test::random_tensor<double, dcsr>({5, 4}, test::density::medium, 11);
  const auto B = test::random_tensor<double, dense_matrix>({4, 5}, test::density::full, 12);
  const auto y = test::random_tensor<double, dense_vector>({4}, test::density::full, 13);
  const auto a = la::mat(A);
  const auto b = la::mat(B);
  const auto v = la::mat(y);
  auto same = [](const auto& l, const auto& r) {
    REQUIRE(l.values().size() == r.values().size());
    for (std::size_t q = 0; q < l.values().size(); ++q)
      CHECK(l.values()[q] == doctest::Approx(r.values()[q]));
  };
  same(la::eval(a * v), la::eval_naive(a * v));
  same(la::eval(la::row_sums(a * b)), la::eval_naive(la::row_sums(a * b)));
  same(la::eval(la::col_sums(2.0 * a + la::transpose(b))),
       la::eval_naive(la::col_sums(2.0 * a + la::transpose(b))));
  same(la::eval(la::diag(a * b)), la::eval_naive(la::diag(a * b)));
  CHECK(la::eval(la::trace(a * b)) == doctest::Approx(la::eval_naive(la::trace(a * b))));
  CHECK(la::eval(la::sum(a - 1.0)) == doctest::Approx(la::eval_naive(la::sum(a - 1.0))));
  same(la::eval(a / 2.0), la::eval_naive(a / 2.0));
}

TEST_CASE("constants and homomorphic terms (examples 10 and 14)") {
  // sum(x + 3) = sum(x) + 3n: the constant term sums over an index no factor uses
  const auto x = make<dense_vector>({4}, {1, 2, 0, 5});
  CHECK(la::eval(la::sum(la::mat(x) + 3.0)) == doctest::Approx(8 + 3 * 4));
  // Σ A(i,v)B(v,w)A(i,s)B(s,t) is not Σ A(i,j)² B(j,k)²: equal shapes of terms, different values
  const auto A = make<dense_matrix>({2, 3}, {1, 2, 0, 3, 1, 1});
  const auto B = make<dense_matrix>({3, 3}, {1, 0, 2, 0, 1, 1, 2, 2, 0});
  const auto a = la::mat(A);
  const auto b = la::mat(B);
  CHECK(values_of(la::eval(la::hadamard(la::row_sums(a * b), la::row_sums(a * b)))) ==
        std::vector<double>{49, 225});
  CHECK(values_of(la::eval(la::row_sums(la::pow2(a) * la::pow2(b)))) ==
        std::vector<double>{13, 55});
}
