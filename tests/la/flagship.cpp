// The linear-algebra front end: translation to index notation, the sum-product normal form, and
// evaluation (against the naive operation-at-a-time plan and the worked examples of
// the SPORES paper).
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

// translation: A * x is sum(k, A(row, k) * x(k)); transpose swaps the names
using A_t = tensor<double, csr>;
using x_t = tensor<double, dense_vector>;
static_assert(
    std::is_same_v<decltype(la::to_index_notation(la::mat(std::declval<const A_t&>()) *
                                                  la::mat(std::declval<const x_t&>()))),
                   expr::sum<la::fresh<0>, expr::mul<expr::access<const A_t, la::row, la::fresh<0>>,
                                                     expr::access<const x_t, la::fresh<0>>>>>);
static_assert(std::is_same_v<
              decltype(la::to_index_notation(la::transpose(la::mat(std::declval<const A_t&>())))),
              expr::access<const A_t, la::col, la::row>>);
static_assert(la::fresh_count<decltype(la::pow2(la::mat(std::declval<const A_t&>()) *
                                                la::mat(std::declval<const A_t&>())))>::value == 2);
static_assert(!la::expression<A_t> && la::expression<la::matrix<A_t>>);

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("flagship: sum((X - U V^T)^2) by the rewritten plan (notes §8.4 example 2)") {
  const auto X = make<csr>({2, 2}, {1, 0, 0, 2});
  const auto U = make<dense_matrix>({2, 1}, {1, 2});
  const auto V = make<dense_matrix>({2, 1}, {3, 1});
  const auto e = la::sum(la::pow2(la::mat(X) - la::mat(U) * la::transpose(la::mat(V))));
  CHECK(la::eval(e) == doctest::Approx(41));
  CHECK(la::eval_naive(e) == doctest::Approx(41));
  // example 3: the variant with +
  const auto plus = la::sum(la::pow2(la::mat(X) + la::mat(U) * la::transpose(la::mat(V))));
  CHECK(la::eval(plus) == doctest::Approx(69));
  // the plan: sum(X²) and -2 sum(X∘UVᵀ) fused over X's entries, the (UᵀU)∘(VᵀV) term by
  // variable elimination (sums over the long dimensions first)
  const std::string plan = la::explain(e);
  CHECK(count(plan, "fused kernel") == 2);  // X∘(UVᵀ) and (UVᵀ)∘X merged: coefficient -2
  CHECK(count(plan, "merged: coefficient -2") == 1);
  CHECK(count(plan, "variable elimination") == 1);
  CHECK(plan.find("rules fired: ") != std::string::npos);
  CHECK(plan.find("distribute") != std::string::npos);
}

TEST_CASE("flagship on random data: rewritten, naive and the closed form agree") {
  for (std::uint64_t seed : test::seeds) {
    const auto X = test::random_tensor<double, csr>({9, 7}, test::density::medium, seed);
    const auto U = test::random_tensor<double, dense_matrix>({9, 3}, test::density::full, seed + 1);
    const auto V = test::random_tensor<double, dense_matrix>({7, 3}, test::density::full, seed + 2);
    const auto x = la::mat(X);
    const auto u = la::mat(U);
    const auto v = la::mat(V);
    const auto e = la::sum(la::pow2(x - u * la::transpose(v)));
    const double closed =
        la::eval(la::sum(la::pow2(x))) - 2 * la::eval(la::trace(la::transpose(u) * x * v)) +
        la::eval(la::sum(la::hadamard(la::transpose(u) * u, la::transpose(v) * v)));
    CHECK(la::eval(e) == doctest::Approx(la::eval_naive(e)));
    CHECK(la::eval(e) == doctest::Approx(closed));
    // erratum (example 5): sum(X ∘ UVᵀ) is trace(UᵀXV), not sum(UᵀXV)
    const double s = la::eval(la::sum(la::hadamard(x, u * la::transpose(v))));
    CHECK(s == doctest::Approx(la::eval(la::trace(la::transpose(u) * x * v))));
    CHECK(s != doctest::Approx(la::eval(la::sum(la::transpose(u) * x * v))));
  }
}

TEST_CASE("terms equal up to bound names and factor order merge; different tensors do not") {
  const auto U = test::random_tensor<double, dense_matrix>({4, 3}, test::density::full, 21);
  const auto V = test::random_tensor<double, dense_matrix>({4, 3}, test::density::full, 22);
  const auto u = la::mat(U);
  const auto v = la::mat(V);
  CHECK(la::eval(la::sum(u - u)) == 0);
  CHECK(la::explain(la::sum(u - u)).find("variable elimination") ==
        std::string::npos);  // cancelled
  const double uv = la::eval_naive(la::sum(la::hadamard(u, v)));
  CHECK(la::eval(la::sum(la::hadamard(u, v) + la::hadamard(v, u))) == doctest::Approx(2 * uv));
  CHECK(
      la::explain(la::sum(la::hadamard(u, v) + la::hadamard(v, u))).find("merged: coefficient 2") !=
      std::string::npos);
  const double uu = la::eval_naive(la::sum(la::hadamard(u, u))),
               vv = la::eval_naive(la::sum(la::hadamard(v, v)));
  CHECK(la::eval(la::sum(la::hadamard(u, u) - la::hadamard(v, v))) == doctest::Approx(uu - vv));
  CHECK(la::eval(la::sum(2.0 * u - 3.0 * u)) == doctest::Approx(-la::eval_naive(la::sum(u))));
}
