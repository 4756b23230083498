// Defines loom::expr::access, a tensor indexed by index variables: A(i, j) (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_ACCESS_HPP
#define LOOM_EXPR_ACCESS_HPP

#include <loom/core/index.hpp>

#include <type_traits>

namespace loom::expr {

/// Tags telling the evaluator whether `=` or `+=` was written.
struct assign_tag {};
struct accumulate_tag {};

// access<Tensor, Is...>: the tensor read (or written) at indices Is...; A(i, j).
// Assigning an expression to an access evaluates it: `y(i) = sum(j, A(i, j) * x(j))`. The
// evaluator (`evaluate_assignment`, found by argument-dependent lookup) lives in stream/.
template <class Tensor, class... Is> struct access {
  Tensor* tensor;

  constexpr access(Tensor* t) : tensor(t) {}  // NOLINT: built by Tensor::operator()
  constexpr access(const access&) = default;
  template <class Rhs> access& operator=(const Rhs& rhs) {
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, assign_tag{});
    return *this;
  }
  access& operator=(const access& rhs) {  // y(i) = x(i) evaluates, it does not rebind
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, assign_tag{});
    return *this;
  }
  template <class Rhs> access& operator+=(const Rhs& rhs) {
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, accumulate_tag{});
    return *this;
  }
};

}  // namespace loom::expr

#endif  // LOOM_EXPR_ACCESS_HPP
