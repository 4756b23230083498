// loom::alternatives: one tensor held in several formats, each kernel reading the one the cost
// model estimates cheapest (STOREL's choice among layouts). Every variant of every kernel against
// the dense reference over formats, densities and seeds; the choices where one format needs a
// transposed copy; explain; forced variants; two alternatives in one expression; the errors.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

namespace lt = loom::test;
constexpr loom::index<"alt_i"> i;
constexpr loom::index<"alt_j"> j;
constexpr loom::index<"alt_k"> k;

template <class T, std::size_t N>
void check_close(const lt::dense_result<T, N>& got, const lt::dense_result<T, N>& want) {
  REQUIRE(got.values.size() == want.values.size());
  for (std::size_t p = 0; p < got.values.size(); ++p)
    CHECK(got.values[p] == doctest::Approx(want.values[p]));
}

// runs `lhs = rhs` chosen, then with each variant forced, against the reference
template <class Lhs, class Rhs, class Ref>
void check_every_variant(Lhs lhs, const Rhs& rhs, const Ref& reference, std::size_t variants) {
  const auto want = lt::reference_eval(lhs, reference);
  loom::assign(lhs, rhs);
  check_close(lt::to_dense(*lhs.tensor), want);
  for (std::size_t v = 0; v <= variants; ++v) {  // the last one clamped
    CAPTURE(v);
    loom::assign(lhs, rhs, loom::options<>{.alternative = v});
    check_close(lt::to_dense(*lhs.tensor), want);
  }
}

}  // namespace

TEST_CASE(
    "alternatives: every variant of SpMV, its transpose, SpGEMM, A∘B and add matches the "
    "reference") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({11, 9}, d, seed);
      const loom::tensor<double, loom::csc> Ac(A);
      const loom::tensor<double, loom::mapping::dok> Ad(A);
      const loom::alternatives A3(A, Ac, Ad);
      const auto B = lt::random_tensor<double, loom::dcsr>({9, 7}, lt::density::medium, seed + 5);
      const auto S = lt::random_tensor<double, loom::csr>({11, 9}, lt::density::medium, seed + 9);
      const auto x = lt::random_tensor<double, loom::dense_vector>({9}, lt::density::full, seed);
      const auto u = lt::random_tensor<double, loom::dense_vector>({11}, lt::density::full, seed);
      loom::tensor<double, loom::dense_vector> y({11}), z({9});
      loom::tensor<double, loom::csr> C({11, 7}), E({11, 9});
      check_every_variant(y(i), loom::sum(j, A3(i, j) * x(j)), loom::sum(j, A(i, j) * x(j)), 3);
      check_every_variant(z(j), loom::sum(i, A3(i, j) * u(i)), loom::sum(i, A(i, j) * u(i)), 3);
      check_every_variant(C(i, k), loom::sum(j, A3(i, j) * B(j, k)),
                          loom::sum(j, A(i, j) * B(j, k)), 3);
      check_every_variant(E(i, j), S(i, j) * A3(i, j), S(i, j) * A(i, j), 3);
      check_every_variant(E(i, j), A3(i, j) + S(i, j), A(i, j) + S(i, j), 3);
      // through `=` and `+=` as well
      y(i) = loom::sum(j, A3(i, j) * x(j));
      y(i) += loom::sum(j, A3(i, j) * x(j));
      auto twice = lt::reference_eval(y(i), loom::sum(j, A(i, j) * x(j)));
      for (double& v : twice.values) v *= 2;
      check_close(lt::to_dense(y), twice);
      // a scalar
      const double want = lt::reference_eval(loom::sum(i, j, A(i, j) * A(i, j)));
      CHECK(loom::eval(loom::sum(i, j, A3(i, j) * A(i, j))) == doctest::Approx(want));
      for (std::size_t v = 0; v < 3; ++v)
        CHECK(loom::eval(loom::sum(i, j, A3(i, j) * A(i, j)), loom::options<>{.alternative = v}) ==
              doctest::Approx(want));
    }
}

TEST_CASE(
    "alternatives: two in one expression give every combination, numbered as explain "
    "lists them") {
  auto A = lt::random_tensor<double, loom::csr>({12, 10}, lt::density::medium, 3);
  const auto B = lt::random_tensor<double, loom::csr>({10, 8}, lt::density::medium, 4);
  A.set_name("A");
  const loom::tensor<double, loom::csc> Ac(A), Bc(B);
  const loom::alternatives A2(A, Ac);
  const loom::alternatives B2(Bc, B);
  loom::tensor<double, loom::csr> C({12, 8});
  check_every_variant(C(i, k), loom::sum(j, A2(i, j) * B2(j, k)), loom::sum(j, A(i, j) * B(j, k)),
                      4);
  const std::string text = loom::explain(C(i, k), loom::sum(j, A2(i, j) * B2(j, k)));
  CAPTURE(text);
  CHECK(text.find("alternatives: 4 variants, one per format held") != std::string::npos);
  CHECK(text.find("#0 A as csr, T1 as csc: estimated cost") != std::string::npos);
  CHECK(text.find("#3 A as csc, T1 as csr: estimated cost") != std::string::npos);
  const std::string forced =
      loom::explain(C(i, k), loom::sum(j, A2(i, j) * B2(j, k)), loom::options<>{.alternative = 2});
  CHECK(forced.find("variant #2 forced by the options") != std::string::npos);
  CHECK(forced.find("operands: A [csc") != std::string::npos);
}

TEST_CASE("alternatives: the cost model avoids the format that needs a transposed copy") {
  // B held as csc first and csr second: Gustavson's SpGEMM walks B by rows, so csr wins
  const auto A = lt::random_tensor<double, loom::csr>({300, 300}, lt::density::sparse, 1);
  auto B = lt::random_tensor<double, loom::csr>({300, 300}, lt::density::sparse, 2);
  B.set_name("B");
  const loom::tensor<double, loom::csc> Bc(B);
  const loom::alternatives B2(Bc, B);
  loom::tensor<double, loom::csr> C({300, 300});
  const std::string spgemm = loom::explain(C(i, k), loom::sum(j, A(i, j) * B2(j, k)));
  CAPTURE(spgemm);
  CHECK(spgemm.find("* #1 B as csr") != std::string::npos);
  CHECK(spgemm.find("chosen: variant #1, the cheapest") != std::string::npos);
  // the inner product of A with B's transpose reads B by columns: csc, no copy
  loom::tensor<double, loom::format<>> s;
  const std::string inner = loom::explain(s(), loom::sum(i, j, A(i, j) * B2(j, i)));
  CAPTURE(inner);
  CHECK(inner.find("* #0 B as csc") != std::string::npos);
  CHECK(inner.find("transpose") == std::string::npos);
}

TEST_CASE("alternatives: shapes are checked") {
  loom::tensor<double, loom::csr> a({3, 4});
  a.set_name("a");
  const loom::tensor<double, loom::csc> b({3, 5});
  CHECK_THROWS_WITH_AS(loom::alternatives(a, b),
                       doctest::Contains("alternative 1 has extent 5 in mode 1, alternative 0 (a) "
                                         "has 4; every alternative holds the same tensor"),
                       loom::shape_error);
}
