// Defines the skip policies of an intersection, one per loop (stream/): how `mul` co-iterates
// its operands at a depth (leapfrog, linear merge, or one leader iterating while the others are
// probed), carried as a type by the product's scalar operation.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_SKIP_HPP
#define LOOM_STREAM_SKIP_HPP

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace loom::stream::skip {

/// The static policy (combinators.hpp case table): `adaptive` between two ordered operands (a
/// merge, or leapfrog when one fiber is `gallop_ratio` times longer); with a random-access
/// operand, iterate the other and locate it.
struct standard {
  static constexpr const char* name = "standard";
};
/// `standard` at a loop where the kernel's context may say that every fiber is shorter than
/// `gallop_ratio` (`kernel_context::short_fibers`): there `adaptive` merges without comparing
/// the lengths of each pair of fibers. The driver gives it to the loops where that pays
/// (exec/bind.hpp, `short_fiber_loops`); elsewhere the flag is not read.
struct standard_short {
  static constexpr const char* name = "standard";
};
/// The default between two ordered operands (`standard`): a merge that steps the operand
/// behind one entry, like the hand-written two-pointer loop, unless one fiber is at least
/// `gallop_ratio` times longer than the other, which then seeks with a galloping search
/// (leapfrog). Decided once per pair of fibers from their lengths: one branch per fiber, in
/// front of a copy of the loop per choice (one copy when the product's value is nested).
struct adaptive {
  static constexpr const char* name = "merge, or leapfrog on skewed fibers";
};
/// The length ratio from which `adaptive` gallops: the measured crossover between merging and
/// galloping (benchmarks/hand_loop/hand_loop.cpp, `intersect`; the table in docs/optimizer.md,
/// "Skip policy").
inline constexpr std::int64_t gallop_ratio = 24;

/// Every operand behind seeks the other's index with a galloping search.
struct leapfrog {
  static constexpr const char* name = "leapfrog";
};
/// The operand behind steps one entry at a time (a sorted merge, no search).
struct merge {
  static constexpr const char* name = "merge";
};
/// Side K of every intersection at the loop iterates (0: the first operand of the product, 1:
/// the last); the others are probed at its index: located when random-access, else sought.
template <std::size_t K> struct lead {
  static_assert(K <= 1, "loom::stream::skip::lead: the leader is side 0 (first) or 1 (last)");
  static constexpr const char* name = K == 0 ? "lead first" : "lead last";
};

/// The policy of an intersection of two ordered operands, as a value: what `runtime` reads from
/// the kernel context (and the optimizer's cost table indexes; `standard` is the static table).
enum class code : std::uint8_t { leapfrog, merge, lead_first, lead_last, standard };

/// Where neither operand is random-access, the policy is read at run time from the kernel's
/// context (`kernel_context::skip`, one code per loop, chosen by optimize/choice/skip_choice.hpp from
/// statistics): one kernel serves leapfrog, merge and either leader. Elsewhere it is `standard`.
struct runtime {
  static constexpr const char* name = "chosen at run time";
};

/// The codes of a kernel's loops (outermost first), as `runtime` reads them.
inline constexpr std::size_t max_loops = 16;
using codes = std::array<code, max_loops>;
inline constexpr codes default_codes = [] {
  codes c{};
  c.fill(code::leapfrog);  // read only by `runtime` loops, which are given the chosen codes
  return c;
}();

/// Policies by loop depth (outermost first); depths past the list use `standard`.
template <class... Ps> struct per_loop {};

/// One policy at every loop.
template <class P> struct every_loop {};

namespace detail {
template <class L, std::size_t D> struct at_impl {
  using type = standard;
};
template <class... Ps, std::size_t D>
  requires(D < sizeof...(Ps))
struct at_impl<per_loop<Ps...>, D> {
  using type = boost::mp11::mp_at_c<boost::mp11::mp_list<Ps...>, D>;
};
template <class P, std::size_t D> struct at_impl<every_loop<P>, D> {
  using type = P;
};
template <class Op> struct skips_of {
  using type = per_loop<>;
};
template <class Op>
  requires requires { typename Op::skips; }
struct skips_of<Op> {
  using type = typename Op::skips;
};
}  // namespace detail

/// The policy of loop D in the list L.
template <class L, std::size_t D> using at = typename detail::at_impl<L, D>::type;

/// The policy that an operation Op (a product carrying `skips`, or any other) asks at depth D.
template <class Op, std::size_t D> using of_op_at = at<typename detail::skips_of<Op>::type, D>;

template <class P> std::string describe(every_loop<P>) {
  return std::string("every loop: ") + P::name;
}

/// "leapfrog, merge at j": the list in words, depth by depth.
template <class... Ps> std::string describe(per_loop<Ps...>) {
  std::string s;
  [[maybe_unused]] std::size_t d = 0;
  (..., [&] {
    if (!s.empty()) s += ", ";
    s += "loop " + std::to_string(d++) + ": " + Ps::name;
  }());
  return s.empty() ? std::string("standard") : s;
}

}  // namespace loom::stream::skip

#endif  // LOOM_STREAM_SKIP_HPP
