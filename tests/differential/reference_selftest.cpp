// Checks the test support itself: the dense reference evaluator against hand-computed results
// (the indexed-streams paper's worked examples and small cases of every node), the
// random generators, and the comparison helpers. Uses no evaluation code of loom.
// SPDX-License-Identifier: BSL-1.0
#include <loom/expr.hpp>
#include <loom/format.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <type_traits>
#include <vector>

#include <support/compare.hpp>
#include <support/random.hpp>
#include <support/reference.hpp>

namespace {

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using loom::test::reference_eval;

// The sanitizer build's sample of a format product keeps every format at every position.
namespace sample_check {
namespace mp11 = boost::mp11;
struct a;
struct b;
struct c;
using product = mp11::mp_product<mp11::mp_list, mp11::mp_list<a, b, c>, mp11::mp_list<a, b, c>>;
static_assert(
    std::is_same_v<loom::test::covering_sample<product>,
                   mp11::mp_list<mp11::mp_list<a, a>, mp11::mp_list<a, b>, mp11::mp_list<a, c>,
                                 mp11::mp_list<b, a>, mp11::mp_list<c, a>>>);
static_assert(
    std::is_same_v<loom::test::covering_sample<mp11::mp_list<a, a, b>>, mp11::mp_list<a, b>>);
static_assert(mp11::mp_empty<loom::test::covering_sample<mp11::mp_list<>>>::value);
}  // namespace sample_check
using mp = loom::min_plus<double>;

template <class T, class Format>
loom::tensor<T, Format> make(const std::array<std::int64_t, Format::order>& shape,
                             std::vector<std::array<std::int64_t, Format::order>> coords,
                             std::vector<T> values) {
  return loom::from_coo<Format>(shape, coords, values, loom::duplicates::error);
}

}  // namespace

TEST_CASE("reference: T8 SpMV gives {0:70, 2:180}") {
  auto A = make<double, loom::dcsr>({3, 3}, {{0, 0}, {0, 2}, {2, 1}, {2, 2}}, {1, 2, 3, 4});
  auto v = make<double, loom::dense_vector>({3}, {{0}, {1}, {2}}, {10, 20, 30});
  loom::tensor<double, loom::sparse_vector> y({3});
  const auto r = reference_eval(y(i), loom::sum(j, A(i, j) * v(j)));
  REQUIRE(r.values.size() == 3);
  CHECK(r.at({0}) == 70);
  CHECK(r.at({1}) == 0);
  CHECK(r.at({2}) == 180);
}

TEST_CASE("reference: T7 matrix multiply gives {(0,1):18, (1,0):15, (1,1):18}") {
  auto X = make<double, loom::csr>({2, 3}, {{0, 0}, {0, 2}, {1, 1}}, {1, 2, 3});
  auto Y = make<double, loom::csc>({3, 2}, {{0, 1}, {1, 0}, {1, 1}, {2, 1}}, {4, 5, 6, 7});
  loom::tensor<double, loom::dcsr> C({2, 2});
  const auto r = reference_eval(C(i, k), loom::sum(j, X(i, j) * Y(j, k)));
  CHECK(r.at({0, 0}) == 0);
  CHECK(r.at({0, 1}) == 18);
  CHECK(r.at({1, 0}) == 15);
  CHECK(r.at({1, 1}) == 18);
}

TEST_CASE("reference: one operand read in two index orders, and a transposed storage order") {
  // the interpreter reads each operand through a dense copy of its logical coordinates
  auto X = make<double, loom::csc>({2, 2}, {{0, 1}, {1, 0}, {1, 1}}, {2, 3, 5});
  loom::tensor<double, loom::dense_matrix> C({2, 2});
  const auto r = reference_eval(C(i, j), X(i, j) * X(j, i));
  CHECK(r.values == std::vector<double>{0, 6, 6, 25});
  CHECK(reference_eval(loom::sum(i, j, X(i, j) * X(j, i))) == 37);
}

TEST_CASE("reference: T11 (min,+) two-hop") {
  auto W =
      make<mp, loom::csr>({3, 3}, {{0, 1}, {1, 2}, {0, 2}, {2, 0}}, {mp(1), mp(2), mp(5), mp(1)});
  loom::tensor<mp, loom::dense_matrix> C({3, 3});
  const auto r = reference_eval(C(i, k), loom::sum(j, W(i, j) * W(j, k)));
  const double inf = std::numeric_limits<double>::infinity();
  const double expected[3][3] = {{6, inf, 3}, {3, inf, inf}, {inf, 2, 6}};
  for (std::int64_t a = 0; a < 3; ++a)
    for (std::int64_t b = 0; b < 3; ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(r.at({a, b}).value == expected[a][b]);
    }
}

TEST_CASE("reference: scalars, sums of everything and inner products") {
  auto A = make<std::int64_t, loom::coo>({2, 3}, {{0, 0}, {1, 2}, {1, 1}}, {5, -2, 7});
  auto B = make<std::int64_t, loom::csc>({2, 3}, {{0, 0}, {1, 2}, {0, 1}}, {3, 4, 9});
  CHECK(reference_eval(loom::sum(i, j, A(i, j))) == 10);
  CHECK(reference_eval(loom::sum(i, j, A(i, j) * B(i, j))) == 15 - 8);
  // a sum over an index absent from its body multiplies by the extent
  CHECK(reference_eval(loom::sum(i, j, k, A(i, j) * B(i, k))) ==
        (5 + 0 + 0) * (3 + 9 + 0) + (0 + 7 - 2) * (0 + 0 + 4));
  CHECK(reference_eval(loom::sum(i, j, A(i, j) + 1)) == 10 + 6);
}

TEST_CASE("reference: pointwise nodes, literals, map with f(0) != 0, where and comparisons") {
  auto A = make<double, loom::csr>({2, 2}, {{0, 1}, {1, 0}}, {3, -1});
  auto B = make<double, loom::dcsc>({2, 2}, {{0, 0}, {0, 1}}, {2, 5});
  loom::tensor<double, loom::dense_matrix> C({2, 2});
  auto r = reference_eval(C(i, j), A(i, j) + B(i, j));
  CHECK(r.values == std::vector<double>{2, 8, -1, 0});
  r = reference_eval(C(i, j), A(i, j) * B(i, j));
  CHECK(r.values == std::vector<double>{0, 15, 0, 0});
  r = reference_eval(C(i, j), A(i, j) + B(j, i));  // a transpose inside an expression
  CHECK(r.values == std::vector<double>{2, 3, 4, 0});
  r = reference_eval(C(i, j), -A(i, j) / 2.0);
  CHECK(r.values == std::vector<double>{0, -1.5, 0.5, 0});
  r = reference_eval(C(i, j), 2 * A(i, j) + 1);
  CHECK(r.values == std::vector<double>{1, 7, -1, 1});
  r = reference_eval(C(i, j), loom::map([](double v) { return v + 1; }, A(i, j)));
  CHECK(r.values == std::vector<double>{1, 4, 0, 1});
  r = reference_eval(C(i, j), A(i, j) > 2);
  CHECK(r.values == std::vector<double>{0, 1, 0, 0});
  r = reference_eval(C(i, j), A(i, j) < 2);  // true where A is absent
  CHECK(r.values == std::vector<double>{1, 0, 1, 1});
  r = reference_eval(C(i, j), loom::where(B(i, j) > 2, A(i, j) + 10));
  CHECK(r.values == std::vector<double>{0, 13, 0, 0});
  r = reference_eval(C(i, j), A(i, j) - B(i, j));
  CHECK(r.values == std::vector<double>{-2, -2, -1, 0});
  r = reference_eval(C(i, j),
                     loom::map([](double a, double b) { return a * 10 + b; }, A(i, j), B(i, j)));
  CHECK(r.values == std::vector<double>{2, 35, -10, 0});
}

TEST_CASE("reference: expand broadcasts, += accumulates, (min,+) literals") {
  auto x = make<double, loom::sparse_vector>({3}, {{1}}, {4});
  loom::tensor<double, loom::dense_matrix> C({3, 2});
  auto r = reference_eval(C(i, j), loom::expand(j, x(i)));
  CHECK(r.values == std::vector<double>{0, 0, 4, 4, 0, 0});
  C.at(2, 1) = 7;
  r = loom::test::reference_eval_accumulate(C(i, j), loom::expand(j, x(i)));
  CHECK(r.values == std::vector<double>{0, 0, 4, 4, 0, 7});
  // the same from the value of `=` (kernel_cases interprets the right-hand side once)
  const auto assigned = reference_eval(C(i, j), loom::expand(j, x(i)));
  CHECK(loom::test::reference_accumulate(C(i, j), assigned).values == r.values);
  CHECK(loom::test::reads_tensor(C(i, j) * 2, &C));
  CHECK_FALSE(loom::test::reads_tensor(loom::expand(j, x(i)), &C));

  auto W = make<mp, loom::csr>({1, 2}, {{0, 1}}, {mp(5)});
  loom::tensor<mp, loom::dense_matrix> D({1, 2});
  auto s = reference_eval(D(i, j), W(i, j) + 3);  // min(W, 3): 3 where W is absent (+inf)
  CHECK(s.at({0, 0}).value == 3);
  CHECK(s.at({0, 1}).value == 3);
  s = reference_eval(D(i, j), W(i, j) * 3);  // W + 3
  CHECK(std::isinf(s.at({0, 0}).value));
  CHECK(s.at({0, 1}).value == 8);
}

TEST_CASE("reference: an extent clash or an unknown extent is a test bug") {
  auto A = make<double, loom::csr>({2, 3}, {}, {});
  auto x = make<double, loom::dense_vector>({4}, {}, {});
  loom::tensor<double, loom::dense_vector> y({2});
  CHECK_THROWS_AS(reference_eval(y(i), loom::sum(j, A(i, j) * x(j))), std::logic_error);
  loom::tensor<double, loom::dense_vector> z({3});
  CHECK_THROWS_AS(reference_eval(loom::sum(i, k, z(i))), std::logic_error);
}

TEST_CASE_TEMPLATE("random: generators are deterministic and honour the density", T, double,
                   std::int64_t, mp) {
  const std::array<std::int64_t, 3> shape{7, 5, 3};
  for (auto d : loom::test::all_densities)
    for (auto seed : loom::test::seeds) {
      CAPTURE(loom::test::density_name(d));
      CAPTURE(seed);
      const auto a = loom::test::random_coo<T>(shape, d, seed);
      const auto b = loom::test::random_coo<T>(shape, d, seed);
      CHECK(a.coords == b.coords);
      CHECK(a.values == b.values);
      CHECK(static_cast<std::int64_t>(a.coords.size()) == loom::test::entry_count(d, 105));
      std::set<std::array<std::int64_t, 3>> unique(a.coords.begin(), a.coords.end());
      CHECK(unique.size() == a.coords.size());
      std::int64_t zeros = 0;
      for (const T& v : a.values) zeros += v == loom::semiring_traits<T>::zero();
      if (d != loom::test::density::zeros) CHECK(zeros == 0);
      for (const auto& c : a.coords)
        for (std::size_t m = 0; m < 3; ++m) CHECK((c[m] >= 0 && c[m] < shape[m]));
    }
  CHECK(loom::test::random_coo<T>(shape, loom::test::density::medium, 1).coords !=
        loom::test::random_coo<T>(shape, loom::test::density::medium, 2).coords);
  CHECK(loom::test::entry_count(loom::test::density::sparse, 105) == 1);
  CHECK(loom::test::entry_count(loom::test::density::sparse, 1001) == 10);
  CHECK(loom::test::entry_count(loom::test::density::medium, 105) == 32);
  CHECK(loom::test::entry_count(loom::test::density::full, 105) == 105);
}

TEST_CASE_TEMPLATE("random: every format holds the generated entries", Format, loom::csr, loom::csc,
                   loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix,
                   loom::format<loom::dense, loom::compressed>::ordered<1, 0>) {
  for (auto d : loom::test::all_densities) {
    CAPTURE(loom::test::density_name(d));
    const auto data = loom::test::random_coo<double>(std::array<std::int64_t, 2>{6, 9}, d, 7);
    const auto t = loom::test::build<Format>(data);
    const auto dense = loom::test::to_dense(t);
    std::vector<double> expected(54, 0.0);
    for (std::size_t e = 0; e < data.coords.size(); ++e)
      expected[static_cast<std::size_t>(data.coords[e][0] * 9 + data.coords[e][1])] =
          data.values[e];
    CHECK(dense.values == expected);
  }
}

TEST_CASE("compare: names and tolerant equality") {
  CHECK(loom::test::format_name<loom::csr>() == "csr");
  CHECK(loom::test::format_name<loom::csf<3>>() == "csf<3>");
  CHECK(loom::test::format_name<loom::coo_n<3>>() == "coo_n<3>");
  CHECK(loom::test::format_name<loom::dense_n<3>>() == "dense_n<3>");
  CHECK(loom::test::format_name<
            loom::format<loom::dense, loom::compressed, loom::compressed>::ordered<2, 0, 1>>() ==
        "format<dense,compressed,compressed>::ordered<2,0,1>");
  CHECK(loom::test::semiring_name<mp>() == "min_plus<double>");
  CHECK(loom::test::values_equal(1.0, 1.0 + 1e-14, 1e-12));
  CHECK_FALSE(loom::test::values_equal(1.0, 1.0 + 1e-14, 0));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(loom::test::values_equal(mp(inf), mp(inf), 1e-12));
  CHECK_FALSE(loom::test::values_equal(mp(inf), mp(3), 1e-12));
  CHECK(loom::test::show(mp(inf)) == "inf");
  CHECK(loom::test::show(2.5) == "2.5");
}

TEST_CASE("compare: a stored zero equals an absent entry; a wrong value is caught") {
  auto saved = loom::test::stats();
  loom::test::case_context ctx{.expression = "selftest",
                               .formats = "C=coo",
                               .semiring = "double",
                               .densities = "-",
                               .seed = 0};
  auto C = make<double, loom::coo>({2, 2}, {{0, 0}, {1, 1}}, {0.0, 4.0});
  loom::test::dense_result<double, 2> expected{{2, 2}, {0, 0, 0, 4}};
  CHECK(loom::test::check_tensor(C, expected, ctx));
  loom::test::stats() = saved;
}

TEST_CASE("compare: mismatches fail the case" * doctest::should_fail()) {
  auto saved = loom::test::stats();
  loom::test::case_context ctx{.expression = "selftest (this failure is expected)",
                               .formats = "C=csr",
                               .semiring = "double",
                               .densities = "-",
                               .seed = 0};
  auto C = make<double, loom::csr>({2, 2}, {{0, 1}}, {1.0});
  loom::test::dense_result<double, 2> expected{{2, 2}, {0, 2, 0, 0}};
  CHECK_FALSE(loom::test::check_tensor(C, expected, ctx));
  CHECK_FALSE(loom::test::check_scalar(1.0, 2.0, ctx));
  loom::test::stats() = saved;
}
