// Defines the distributed matmul plans of the TRA paper as IA plan types (broadcast left,
// broadcast right, cross product, replicated 3-D) for inputs placed as XPart and YPart, and the
// generic rules applied to them (R2-4 drops the final shuffle when partitions allow) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_PLANS_HPP
#define LOOM_TRA_PLANS_HPP

#include <loom/tra/cost.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/ia/rewrite.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/rules/rule_sets.hpp>

namespace loom::tra {

/// X (key <i,k>) times Y (key <k,j>): Σ<0,2>(⋈(<1>,<0>, matmul)) in four physical forms.
template <class XPart = ia::arbitrary, class YPart = ia::arbitrary> struct matmul_plans {
  using X = ia::leaf<0, 2, XPart>;
  using Y = ia::leaf<1, 2, YPart>;
  template <class L, class R> using mm_join = ia::ljoin<ia::dims<1>, ia::dims<0>, mat_mul, L, R>;
  template <class J> using sum_out = ia::lagg<ia::dims<0, 2>, mat_add, ia::shuf<ia::dims<0, 2>, J>>;

  using broadcast_left = ia::rewrite_t<sum_out<mm_join<ia::bcast<X>, Y>>, rules::repartition>;
  using broadcast_right = ia::rewrite_t<sum_out<mm_join<X, ia::bcast<Y>>>, rules::repartition>;
  using cross_product =
      ia::rewrite_t<sum_out<mm_join<ia::shuf<ia::dims<1>, X>, ia::shuf<ia::dims<0>, Y>>>,
                    rules::repartition>;
  // X's blocks copied J times (new last key), Y's I times (new first key), both shuffled by
  // <i, j>: the join on all three positions is local, and so is the sum (notes §4.3, corrected).
  using replicated_3d = ia::lagg<ia::dims<0, 2>, mat_add,
                                 ia::ljoin<ia::dims<0, 1, 2>, ia::dims<0, 1, 2>, mat_mul,
                                           ia::shuf<ia::dims<0, 2>, ia::ldup<2, 1, 1, X>>,
                                           ia::shuf<ia::dims<0, 2>, ia::ldup<0, 0, 0, Y>>>>;
};

/// Runs `f(plan_type)` for the plan of strategy `s` (a runtime choice over the four types).
template <class XPart, class YPart, class F>
decltype(auto) with_matmul_plan(matmul_strategy s, F&& f) {
  using P = matmul_plans<XPart, YPart>;
  switch (s) {
    case matmul_strategy::broadcast_left:
      return f(typename P::broadcast_left{});
    case matmul_strategy::broadcast_right:
      return f(typename P::broadcast_right{});
    case matmul_strategy::cross_product:
      return f(typename P::cross_product{});
    case matmul_strategy::replicated_3d:
      break;
  }
  return f(typename P::replicated_3d{});
}

}  // namespace loom::tra

#endif  // LOOM_TRA_PLANS_HPP
