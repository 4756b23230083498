// What tests/differential/entry_points*.cpp share: a case's description, loom::decompose's check,
// and the loom::la differential test (defined here, applied to its format combinations in
// entry_points.cpp and entry_points_la.cpp: in one unit it took 40 s under g++ -O0).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_DIFFERENTIAL_ENTRY_POINTS_HPP
#define LOOM_TESTS_DIFFERENTIAL_ENTRY_POINTS_HPP

#include <loom/loom.hpp>

#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <support/compare.hpp>

namespace loom_test_entry_points {

namespace lt = loom::test;
namespace la = loom::la;
using boost::mp11::mp_at_c;
using boost::mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

// A case's description; `expression` is filled in per check.
template <class... Formats, class... Names>
lt::case_context context_of(std::uint64_t seed, const std::array<std::int64_t, 4>& e,
                            std::string densities, const Names&... names) {
  return lt::case_context{.expression = "",
                          .formats = lt::formats_text<Formats...>(names...),
                          .semiring = "double",
                          .densities = std::move(densities),
                          .seed = seed,
                          .extents = lt::show_coords(e)};
}

// Decompose --------------------------------------------------------------------------------------

// `decompose(lhs, rhs)` (the planner's choice) and, when `every_candidate`, each forced candidate of
// every candidate with sorted and with dense intermediates, each from the output's prior
// contents, against the reference.
template <bool every_candidate, class Lhs, class Rhs>
void check_decompose(const Lhs& lhs, const Rhs& rhs, lt::case_context ctx) {
  auto& out = *lhs.tensor;
  const auto prior = out;
  const auto expected = lt::reference_eval(lhs, rhs);
  const std::string text = ctx.expression;
  ctx.expression = lt::concat(text, "   [loom::decompose]");
  if (lt::run_guarded(ctx, [&] { loom::decompose(lhs, rhs); }))
    lt::check_tensor(out, expected, ctx);
  if constexpr (every_candidate) {
    loom::decomposition_choice plan;
    ctx.expression = lt::concat(text, "   [loom::plan_decomposition]");
    if (!lt::run_guarded(ctx, [&] { plan = loom::plan_decomposition(lhs, rhs); })) return;
    CHECK(plan.cost.size() >= 2);  // the fused kernel and at least one elimination
    for (std::size_t c = 0; c < plan.cost.size(); ++c)
      for (const auto f : {loom::intermediate_format::sorted, loom::intermediate_format::dense}) {
        if (c == 0 && f == loom::intermediate_format::dense) continue;  // no intermediate
        out = prior;
        ctx.expression = lt::concat(text, "   [loom::decompose, forced candidate ",
                                    std::to_string(c), ": ", plan.description[c], "; ",
                                    loom::intermediate_format_name(f), " intermediates]");
        // the plan's reuse mask given: decompose does not plan again (slow at -O0)
        if (lt::run_guarded(ctx, [&] {
              loom::decompose(lhs, rhs,
                              loom::options<loom::opt::eliminate>{
                                  .candidate = c, .intermediates = {f}, .reuse = plan.reuse[c]});
            }))
          lt::check_tensor(out, expected, ctx);
      }
  }
}

// la ---------------------------------------------------------------------------------------------

// la::eval(e) against `want`: a dense_result of the same order, or a scalar for rank 0.
template <class E, class Want>
void check_la(lt::case_context ctx, std::string_view text, const E& e, const Want& want,
              double tolerance = 0) {
  ctx.expression = lt::concat("la::eval(", text, ")");
  ctx.tolerance = tolerance;
  using R = decltype(la::eval(e));
  std::optional<R> got;
  if (!lt::run_guarded(ctx, [&] { got.emplace(la::eval(e)); })) return;
  if constexpr (std::is_arithmetic_v<R>)
    lt::check_scalar(*got, want, ctx);
  else
    lt::check_tensor(*got, want, ctx);
}

constexpr auto square = [](double v) { return v * v; };
constexpr auto divide = [](double a, double b) { return a / b; };
constexpr auto minus_one = [](double v) { return v - 1.0; };

// (X, Y): X and Y are m x n operands of the element-wise operations and products; U (m x r),
// V (n x r) and w (m, no zero) are dense and full, as in SPORES' factorisations.
// The first combination also runs every other operation and pattern (tests/differential/
// entry_points.cpp); the others (entry_points_la.cpp) the products and factorisations.
using la_first_combo = mp_list<loom::csr, loom::dense_matrix>;
using la_other_combos =
    std::tuple<mp_list<loom::dcsr, loom::csr>, mp_list<loom::dense_matrix, loom::dcsr>>;

// ------------------------------------------------------------------------------------------------
// loom::la: products, transposes, element-wise operations, reductions and the SPORES patterns
// ------------------------------------------------------------------------------------------------

TEST_CASE_TEMPLATE_DEFINE("entry points: loom::la expressions against the dense reference", Combo,
                          la_expressions) {
  using FX = mp_at_c<Combo, 0>;
  using FY = mp_at_c<Combo, 1>;
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density dx, lt::density dy, lt::density) {
    const auto e = lt::extents_for_seed(seed);
    const std::int64_t rows = e[0], cols = e[1], rank = 3;
    const auto X = lt::random_tensor<double, FX>({rows, cols}, dx, lt::mix_seed(seed, 1));
    const auto Y = lt::random_tensor<double, FY>({rows, cols}, dy, lt::mix_seed(seed, 2));
    const auto U = lt::random_tensor<double, loom::dense_matrix>({rows, rank}, lt::density::full,
                                                                 lt::mix_seed(seed, 3));
    const auto V = lt::random_tensor<double, loom::dense_matrix>({cols, rank}, lt::density::full,
                                                                 lt::mix_seed(seed, 4));
    const auto w = lt::random_tensor<double, loom::dense_vector>({rows}, lt::density::full,
                                                                 lt::mix_seed(seed, 5));
    const auto ctx = context_of<FX, FY, loom::dense_matrix, loom::dense_matrix, loom::dense_vector>(
        seed, e,
        lt::densities_text({{"X", dx},
                            {"Y", dy},
                            {"U", lt::density::full},
                            {"V", lt::density::full},
                            {"w", lt::density::full}}),
        "X", "Y", "U", "V", "w");
    // outputs of the reference, for their shapes
    loom::tensor<double, loom::dense_matrix> mm({rows, rows}), mn({rows, cols}), mr({rows, rank});
    loom::tensor<double, loom::dense_vector> vm({rows}), vn({cols});
    const auto x = la::mat(X);
    const auto y = la::mat(Y);
    const auto u = la::mat(U);
    const auto v = la::mat(V);
    const auto p = la::mat(w);

    // every combination: a product with a transpose, element-wise merges, two SPORES patterns
    check_la(ctx, "X * transpose(Y)", x * la::transpose(y),
             lt::reference_eval(mm(i, j), loom::sum(k, X(i, k) * Y(j, k))));
    check_la(ctx, "hadamard(X, Y) + 2 * X - Y", la::hadamard(x, y) + 2.0 * x - y,
             lt::reference_eval(mn(i, j), X(i, j) * Y(i, j) + 2.0 * X(i, j) - Y(i, j)));
    check_la(ctx, "sum(pow2(X - U * transpose(V))) (SPORES flagship)",
             la::sum(la::pow2(x - u * la::transpose(v))),
             lt::reference_eval(
                 loom::sum(i, j, loom::map(square, X(i, j) - loom::sum(k, U(i, k) * V(j, k))))));
    check_la(ctx, "(U * transpose(V) - X) * V (ALS)", (u * la::transpose(v) - x) * v,
             lt::reference_eval(
                 mr(i, l), loom::sum(j, (loom::sum(k, U(i, k) * V(j, k)) - X(i, j)) * V(j, l))));
    // the other operations and patterns, on the first combination only (compile time)
    if constexpr (std::is_same_v<Combo, la_first_combo>) {
      check_la(ctx, "transpose(X) * w", la::transpose(x) * p,
               lt::reference_eval(vn(j), loom::sum(i, X(i, j) * w(i))));
      check_la(ctx, "-X + pow2(Y)", -x + la::pow2(y),
               lt::reference_eval(mn(i, j), -X(i, j) + Y(i, j) * Y(i, j)));
      check_la(ctx, "Y / w (w broadcast along the columns)", y / p,
               lt::reference_eval(mn(i, j), loom::map(divide, Y(i, j), w(i))), 1e-12);
      check_la(ctx, "sum(X - 1)", la::sum(x - 1.0),
               lt::reference_eval(loom::sum(i, j, loom::map(minus_one, X(i, j)))));
      check_la(ctx, "row_sums(X)", la::row_sums(x),
               lt::reference_eval(vm(i), loom::sum(j, X(i, j))));
      check_la(ctx, "col_sums(2 * X + Y)", la::col_sums(2.0 * x + y),
               lt::reference_eval(vn(j), loom::sum(i, 2.0 * X(i, j) + Y(i, j))));
      check_la(ctx, "trace(X * transpose(Y))", la::trace(x * la::transpose(y)),
               lt::reference_eval(loom::sum(i, k, X(i, k) * Y(i, k))));
      check_la(ctx, "diag(X * transpose(Y))", la::diag(x * la::transpose(y)),
               lt::reference_eval(vm(i), loom::sum(k, X(i, k) * Y(i, k))));
      // sum(X o U V^T) is trace(U^T X V) (notes §8.4, the erratum of example 5)
      const double xuv = lt::reference_eval(loom::sum(i, j, k, X(i, j) * U(i, k) * V(j, k)));
      check_la(ctx, "sum(hadamard(X, U * transpose(V)))",
               la::sum(la::hadamard(x, u * la::transpose(v))), xuv);
      check_la(ctx, "trace(transpose(U) * X * V)", la::trace(la::transpose(u) * x * v), xuv);
      check_la(ctx, "sum(X * V) (PNMF)", la::sum(x * v),
               lt::reference_eval(loom::sum(i, l, loom::sum(j, X(i, j) * V(j, l)))));
      check_la(ctx, "hadamard(w, X) - hadamard(hadamard(w, row_sums(w)), X) (MLR)",
               la::hadamard(p, x) - la::hadamard(la::hadamard(p, la::row_sums(p)), x),
               lt::reference_eval(mn(i, j), w(i) * X(i, j) - w(i) * w(i) * X(i, j)));
    }
  });
}

}  // namespace loom_test_entry_points

#endif  // LOOM_TESTS_DIFFERENTIAL_ENTRY_POINTS_HPP
