// Defines the einsum front end (notes 003 §8.2 item 23): "ij,jk->ik" over key indices lowers to
// Σ(gbk, mat_add)(⋈(jl, jr, mat_mul)) — as an IA plan type (einsum_plan_t) and as a call on two
// relations (einsum<"...">(l, r)); batch indices kept in the output stay group-by keys (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_EINSUM_HPP
#define LOOM_TRA_EINSUM_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/operators.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace loom::tra {

namespace detail {
constexpr bool has(std::string_view s, char c) { return s.find(c) != std::string_view::npos; }

/// The parsed spec "<left>,<right>-><out>": one letter per key position.
template <fixed_string S>
struct einsum_spec {
  static constexpr std::string_view text = S.view();
  static constexpr std::size_t comma = text.find(',');
  static constexpr std::size_t arrow = text.find("->");
  static constexpr bool parsed = comma != std::string_view::npos && arrow != std::string_view::npos && comma < arrow;
  static constexpr std::string_view left = parsed ? text.substr(0, comma) : "";
  static constexpr std::string_view right = parsed ? text.substr(comma + 1, arrow - comma - 1) : "";
  static constexpr std::string_view out = parsed ? text.substr(arrow + 2) : "";
  static constexpr std::size_t kl = left.size(), kr = right.size(), gb = out.size();
  static constexpr std::size_t g = [] {
    std::size_t n = 0;
    for (char c : left) n += has(right, c) ? 1 : 0;
    return n;
  }();
  static constexpr std::size_t ko = kl + kr - g;
  static constexpr std::array<std::size_t, g> jl = [] {
    std::array<std::size_t, g> a{};
    std::size_t n = 0;
    for (std::size_t p = 0; p < kl; ++p)
      if (has(right, left[p])) a[n++] = p;
    return a;
  }();
  static constexpr std::array<std::size_t, g> jr = [] {
    std::array<std::size_t, g> a{};
    for (std::size_t n = 0; n < g; ++n) a[n] = right.find(left[jl[n]]);
    return a;
  }();
  // the join's output key [L∖J, J, R∖J] as letters
  static constexpr std::array<char, ko> joined = [] {
    std::array<char, ko> a{};
    std::size_t n = 0;
    for (char c : left)
      if (!has(right, c)) a[n++] = c;
    for (std::size_t p : jl) a[n++] = left[p];
    for (char c : right)
      if (!has(left, c)) a[n++] = c;
    return a;
  }();
  static constexpr std::array<std::size_t, gb> gbk = [] {
    std::array<std::size_t, gb> a{};
    for (std::size_t n = 0; n < gb; ++n)
      for (std::size_t p = 0; p < ko; ++p)
        if (joined[p] == out[n]) a[n] = p;
    return a;
  }();
  static constexpr bool distinct(std::string_view s) {
    for (std::size_t p = 0; p < s.size(); ++p)
      if (s.find(s[p], p + 1) != std::string_view::npos) return false;
    return true;
  }
  static constexpr bool valid = [] {
    if (!parsed || !distinct(left) || !distinct(right) || !distinct(out)) return false;
    for (char c : out)
      if (!has(left, c) && !has(right, c)) return false;
    return true;
  }();
};

template <class Seq, const auto& A>
struct dims_of;
template <std::size_t... I, const auto& A>
struct dims_of<std::index_sequence<I...>, A> {
  using type = ia::dims<A[I]...>;
};
template <const auto& A>
using dims_of_t = typename dims_of<std::make_index_sequence<A.size()>, A>::type;
}  // namespace detail

/// The IA plan of einsum S over inputs 0 and 1, placed as LeftPart and RightPart (to run it,
/// one side must be replicated or both co-partitioned on the join keys).
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary>
  requires detail::einsum_spec<S>::valid
using einsum_plan_t =
    ia::lagg<detail::dims_of_t<detail::einsum_spec<S>::gbk>, mat_add,
             ia::ljoin<detail::dims_of_t<detail::einsum_spec<S>::jl>,
                       detail::dims_of_t<detail::einsum_spec<S>::jr>, mat_mul,
                       ia::leaf<0, detail::einsum_spec<S>::kl, LeftPart>,
                       ia::leaf<1, detail::einsum_spec<S>::kr, RightPart>>>;

/// einsum over the keys of two relations of matrix tiles; each tile pair contracts as a matrix
/// product (every index is split into a key part and a tile part, notes §2.3).
template <fixed_string S, class T, std::size_t KL, std::size_t KR>
auto einsum(const relation<T, KL, 2>& l, const relation<T, KR, 2>& r) {
  using spec = detail::einsum_spec<S>;
  static_assert(spec::valid,
                "loom::tra::einsum: write \"<left>,<right>-><out>\" with distinct letters per "
                "operand and output letters taken from the inputs");
  static_assert(spec::kl == KL && spec::kr == KR,
                "loom::tra::einsum: give one letter per key position of each relation");
  return join_aggregate(l, r, spec::jl, spec::jr, mat_mul{}, spec::gbk, mat_add{});
}

}  // namespace loom::tra

#endif  // LOOM_TRA_EINSUM_HPP
