// Differential tests: zero-copy views as operands and as the output, against the dense reference:
// y(i) = sum(j, A(i,j) * x(j)) with A a csr_view (64- and 32-bit positions) or a csc_view, x a
// dense_vector_view and y a writable dense_vector_view; C(i,j) = sum(k, A(i,k) * B(k,j)) with A a
// csr_view and B a csc_view into dcsr and dense_matrix_view outputs. `=` and `+=`, (+,x) and
// (min,+).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
using lt::density;
using lt::mix_seed;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

// Element type of the read-only views: every semiring's values, read-only.
template <class T> using view_element = const T;

// The arrays of a compressed level with positions converted to Pos.
template <class Pos, class Tensor> std::vector<Pos> positions(const Tensor& t) {
  const auto& pos = t.template level<1>().pos;
  return std::vector<Pos>(pos.begin(), pos.end());
}

lt::case_context context(std::string expression, std::string formats, std::string semiring,
                         std::string densities, std::uint64_t seed) {
  return lt::case_context{.expression = std::move(expression),
                          .formats = std::move(formats),
                          .semiring = std::move(semiring),
                          .densities = std::move(densities),
                          .seed = seed};
}

template <class T, class Pos> void spmv_over_views() {
  const lt::case_group group;
  lt::for_each_case(true, [](std::uint64_t seed, density dA, density dx, density dy) {
    const auto e = lt::extents_for_seed(seed);
    const std::int64_t m = e[0], n = e[1];
    const auto A = lt::random_tensor<T, loom::csr>(shape2{m, n}, dA, mix_seed(seed, 1));
    const auto Ac = lt::random_tensor<T, loom::csc>(shape2{m, n}, dA, mix_seed(seed, 1));
    const auto x = lt::random_tensor<T, loom::dense_vector>(shape1{n}, dx, mix_seed(seed, 2));
    const auto y0 = lt::random_tensor<T, loom::dense_vector>(shape1{m}, dy, mix_seed(seed, 3));
    const std::vector<Pos> pos = positions<Pos>(A), pos_c = positions<Pos>(Ac);
    std::vector<T> a_vals(A.values().begin(), A.values().end());
    std::vector<T> ac_vals(Ac.values().begin(), Ac.values().end());
    std::vector<T> x_vals(x.values().begin(), x.values().end());
    using V = view_element<T>;
    const auto A_view =
        loom::csr_view<V, Pos>(m, n, pos, A.template level<1>().crd, std::span<V>(a_vals));
    const auto Ac_view =
        loom::csc_view<V, Pos>(m, n, pos_c, Ac.template level<1>().crd, std::span<V>(ac_vals));
    const auto x_view = loom::dense_vector_view<V>(std::span<V>(x_vals));
    const std::string densities = lt::densities_text({{"A", dA}, {"x", dx}, {"y(before)", dy}});
    const std::string pos_bits = std::to_string(8 * sizeof(Pos));
    for (const bool accumulate : {false, true}) {
      const std::string text =
          accumulate ? "y(i) += sum(j, A(i,j) * x(j))" : "y(i) = sum(j, A(i,j) * x(j))";
      {
        std::vector<T> buffer(y0.values().begin(), y0.values().end());
        auto y = loom::dense_vector_view<T>(buffer);
        lt::check_assign(y(i), loom::sum(j, A_view(i, j) * x_view(j)),
                         context(text,
                                 lt::concat("A=csr_view (", pos_bits,
                                            "-bit positions) x=dense_vector_view "
                                            "y=dense_vector_view"),
                                 lt::semiring_name<T>(), densities, seed),
                         accumulate);
      }
      {
        std::vector<T> buffer(y0.values().begin(), y0.values().end());
        auto y = loom::dense_vector_view<T>(buffer);
        lt::check_assign(y(i), loom::sum(j, Ac_view(i, j) * x_view(j)),
                         context(text,
                                 lt::concat("A=csc_view (", pos_bits,
                                            "-bit positions) x=dense_vector_view "
                                            "y=dense_vector_view"),
                                 lt::semiring_name<T>(), densities, seed),
                         accumulate);
      }
    }
  });
}

template <class T> void spgemm_over_views() {
  const lt::case_group group;
  lt::for_each_case(true, [](std::uint64_t seed, density dA, density dB, density dC) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<T, loom::csr>(shape2{e[0], e[2]}, dA, mix_seed(seed, 1));
    const auto B = lt::random_tensor<T, loom::csc>(shape2{e[2], e[1]}, dB, mix_seed(seed, 2));
    std::vector<T> a_vals(A.values().begin(), A.values().end());
    std::vector<T> b_vals(B.values().begin(), B.values().end());
    using V = view_element<T>;
    const auto A_view = loom::csr_view<V>(e[0], e[2], A.template level<1>().pos,
                                          A.template level<1>().crd, std::span<V>(a_vals));
    const auto B_view = loom::csc_view<V>(e[2], e[1], B.template level<1>().pos,
                                          B.template level<1>().crd, std::span<V>(b_vals));
    const std::string densities = lt::densities_text({{"A", dA}, {"B", dB}, {"C(before)", dC}});
    for (const bool accumulate : {false, true}) {
      const std::string text =
          accumulate ? "C(i,j) += sum(k, A(i,k) * B(k,j))" : "C(i,j) = sum(k, A(i,k) * B(k,j))";
      {
        auto C = lt::random_tensor<T, loom::dcsr>(shape2{e[0], e[1]}, dC, mix_seed(seed, 3));
        lt::check_assign(
            C(i, j), loom::sum(k, A_view(i, k) * B_view(k, j)),
            context(text, "A=csr_view B=csc_view C=dcsr", lt::semiring_name<T>(), densities, seed),
            accumulate);
      }
      {
        const auto C0 =
            lt::random_tensor<T, loom::dense_matrix>(shape2{e[0], e[1]}, dC, mix_seed(seed, 3));
        std::vector<T> buffer(C0.values().begin(), C0.values().end());
        auto C = loom::dense_matrix_view<T>(e[0], e[1], buffer);
        lt::check_assign(C(i, j), loom::sum(k, A_view(i, k) * B_view(k, j)),
                         context(text, "A=csr_view B=csc_view C=dense_matrix_view",
                                 lt::semiring_name<T>(), densities, seed),
                         accumulate);
      }
    }
  });
}

}  // namespace

TEST_CASE_TEMPLATE("differential: views, y(i) = sum(j, A(i,j) * x(j))", T, double,
                   loom::min_plus<double>) {
  spmv_over_views<T, std::int64_t>();
  spmv_over_views<T, std::int32_t>();
}

TEST_CASE_TEMPLATE("differential: views, C(i,j) = sum(k, A(i,k) * B(k,j))", T, double,
                   loom::min_plus<double>) {
  spgemm_over_views<T>();
}
