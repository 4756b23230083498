// The planner's static facts (plan/order.hpp), checked at compile time on the kernels the other
// folders run: the loop order concordant with every sparse operand, dense operands that never
// constrain it, the transposition when no order exists, the candidates a runtime choice weighs,
// and whether a sparse output is written in order.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <type_traits>

namespace {

constexpr loom::index<"pi"> i;
constexpr loom::index<"pj"> j;
constexpr loom::index<"pk"> k;
using I = std::remove_const_t<decltype(i)>;
using J = std::remove_const_t<decltype(j)>;
using K = std::remove_const_t<decltype(k)>;
using boost::mp11::mp_list;

template <class Lhs, class Rhs> using plan_of = loom::plan::order_plan<Lhs, Rhs>;
template <class F> using matrix = loom::tensor<double, F>;
using dense_vector = loom::tensor<double, loom::dense_vector>;

template <class Lhs, class Rhs> constexpr auto plan_for(const Lhs&, const Rhs&) {
  return plan_of<Lhs, Rhs>{};
}

}  // namespace

TEST_CASE("plan: SpMV over csr loops i then j, over csc j then i, never transposing") {
  matrix<loom::csr> A({3, 4});
  matrix<loom::csc> B({3, 4});
  dense_vector x({4}), y({3});
  using P = decltype(plan_for(y(i), loom::sum(j, A(i, j) * x(j))));
  static_assert(std::is_same_v<P::order, mp_list<I, J>>);
  static_assert(!P::any_transposed && P::output_in_order);
  using Q = decltype(plan_for(y(i), loom::sum(j, B(i, j) * x(j))));
  static_assert(std::is_same_v<Q::order, mp_list<J, I>>);  // the dense x and y never constrain it
  static_assert(!Q::any_transposed);
  CHECK(P::index_count == 2);
}

TEST_CASE("plan: A(i,j) * B(j,i) over two csr matrices has no concordant order: one is copied") {
  matrix<loom::csr> A({4, 4}), B({4, 4}), C({4, 4});
  using P = decltype(plan_for(C(i, j), A(i, j) * B(j, i)));
  static_assert(P::any_transposed);
  CHECK(loom::explain(C(i, j), A(i, j) * B(j, i)).find("transpose") != std::string::npos);
}

TEST_CASE("plan: SpGEMM into csr is written in order; csr x csc weighs more than one plan") {
  matrix<loom::csr> A({4, 5}), B({5, 3}), C({4, 3});
  matrix<loom::csc> Bc({5, 3});
  using P = decltype(plan_for(C(i, k), loom::sum(j, A(i, j) * B(j, k))));
  static_assert(std::is_same_v<P::order, mp_list<I, J, K>>);  // Gustavson: the row of C per i
  static_assert(P::output_prefix >= 1);
  using Both =
      loom::plan::plan_candidates<std::remove_cvref_t<decltype(C(i, k))>,
                                  std::remove_cvref_t<decltype(loom::sum(j, A(i, j) * Bc(j, k)))>>;
  static_assert(Both::count >= 2 && Both::count <= loom::limits::plan_candidates);
}

TEST_CASE("plan: storage_order keeps every storage order it is given, ties by id") {
  using loom::plan::detail::storage_order;
  constexpr auto kept = [] {
    storage_order o(3);
    o.keep(std::array<std::size_t, 2>{2, 0});  // 2 above 0
    o.keep(std::array<std::size_t, 2>{0, 1});  // 0 above 1
    return o.solve();
  }();
  static_assert(kept.ok && kept.order[0] == 2 && kept.order[1] == 0 && kept.order[2] == 1);
  constexpr auto free = storage_order(3).solve();  // nothing constrains it: ids in order
  static_assert(free.ok && free.order[0] == 0 && free.order[1] == 1 && free.order[2] == 2);
  constexpr auto cycle = [] {
    storage_order o(2);
    o.keep(std::array<std::size_t, 2>{0, 1});
    o.keep(std::array<std::size_t, 2>{1, 0});
    return o.solve();
  }();
  static_assert(!cycle.ok);
  CHECK(kept.order[0] == 2);
}
