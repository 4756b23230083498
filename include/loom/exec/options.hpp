// Defines loom::options<...>: what the optimizer may choose for one assignment, as a type (the
// choices that instantiate kernels) with run-time fields (the choices forced for comparisons).
// Passed to loom::assign, loom::eval, loom::explain and loom::decompose; never a macro, so two
// translation units with different options instantiate different templates (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_OPTIONS_HPP
#define LOOM_EXEC_OPTIONS_HPP

#include <loom/core/config.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace loom {

// In loom::enums: its enumerators, in loom itself, would shadow the levels loom::dense,
// loom::bitmap and loom::hashed (GCC 12 -Wshadow).
namespace enums {
/// How `decompose` stores a candidate's one- and two-index intermediates (Galley's output formats,
/// Galley): sorted (csf, a sparse vector), dense, bitmap (Galley's bytemap: dense values
/// with presence bits, written in place, read by their set bits) or hashed (sorted entries plus a
/// hash table per fiber: readers locate an index in O(1) instead of intersecting with the list).
/// Intermediates with three or more indices are sorted.
enum class intermediate_format : std::uint8_t { sorted, dense, bitmap, hashed };
}  // namespace enums
using enums::intermediate_format;
/// Every intermediate format, in the order `decompose` costs them. Sorted, bitmap and hashed
/// intermediates are one type (`loom::adaptive`, its fibers' kind set at run time), so all four
/// are costed by default at the compile time of two.
inline constexpr std::array<intermediate_format, 4> intermediate_formats{
    intermediate_format::sorted, intermediate_format::dense, intermediate_format::bitmap,
    intermediate_format::hashed};
/// "sorted", "dense", "bitmap" or "hashed".
constexpr const char* intermediate_format_name(intermediate_format f) {
  return f == intermediate_format::dense    ? "dense"
         : f == intermediate_format::bitmap ? "bitmap"
         : f == intermediate_format::hashed ? "hashed"
                                            : "sorted";
}

/// The options' tags: each names one choice the optimizer may make, at the cost of the kernels it
/// instantiates (docs/optimizer.md measures them).
namespace opt {
/// Intersections of ordered operands keep the static policy: a merge, galloping where one fiber
/// is `skip::gallop_ratio` times longer (decided per pair of fibers). The default.
struct static_skips {};
/// One kernel per plan whose intersections read their policy per loop (leapfrog, merge, lead
/// first, lead last), chosen from statistics at run time; `options::skip_codes` forces it.
struct runtime_skips {};
/// Up to N kernels per plan, one per skip-policy candidate; the cheapest is chosen from
/// statistics at run time; `options::skip_candidate` forces one.
template <std::size_t N = limits::skip_candidates> struct skip_candidates {
  static_assert(N >= 1, "loom::opt::skip_candidates<N>: N must be at least 1");
};
/// The given policies (a `loom::stream::skip::per_loop<...>`), one per loop of the plan run; no
/// hoisting of inner sums, so the loops are the plan's. For comparisons and tests.
template <class PerLoop> struct fixed_skips {};
/// Run the assignment through `decompose` (variable elimination with materialised
/// intermediates), for sums over products; `options::candidate`, `intermediates` and `reuse`
/// force its choices.
struct eliminate {};
/// Accepted for compatibility: `decompose` costs bitmap intermediates by default (a kind of the
/// adaptive level, chosen at run time, no kernel of its own) since 2026-11-29.
struct bitmap_intermediates {};
/// Accepted for compatibility: `decompose` costs hashed intermediates by default (a kind of the
/// adaptive level, chosen at run time, no kernel of its own) since 2026-11-29.
struct hashed_intermediates {};
/// `decompose` also mixes dense and other formats over a candidate's one- and two-index
/// intermediates (a kernel per mix). Mixes of sorted, bitmap and hashed are costed without it:
/// they share the adaptive level's kernel.
struct format_per_step {};
}  // namespace opt

namespace detail {
template <class T> struct is_skip_tag : std::false_type {};
template <> struct is_skip_tag<opt::static_skips> : std::true_type {};
template <> struct is_skip_tag<opt::runtime_skips> : std::true_type {};
template <std::size_t N> struct is_skip_tag<opt::skip_candidates<N>> : std::true_type {};
template <class P> struct is_skip_tag<opt::fixed_skips<P>> : std::true_type {};

template <class T> struct is_option_tag : is_skip_tag<T> {};
template <> struct is_option_tag<opt::eliminate> : std::true_type {};
template <> struct is_option_tag<opt::bitmap_intermediates> : std::true_type {};
template <> struct is_option_tag<opt::hashed_intermediates> : std::true_type {};
template <> struct is_option_tag<opt::format_per_step> : std::true_type {};

template <class L> struct first_or_static {
  using type = opt::static_skips;
};
template <class T, class... Ts> struct first_or_static<boost::mp11::mp_list<T, Ts...>> {
  using type = T;
};

template <class T> struct fixed_skips_of {
  using type = void;
};
template <class PerLoop> struct fixed_skips_of<opt::fixed_skips<PerLoop>> {
  using type = PerLoop;
};

// "lead first, merge" for per_loop<lead<0>, merge>; "merge at every loop" for every_loop<merge>.
template <class L> struct skip_list_name;
template <class... Ps> struct skip_list_name<stream::skip::per_loop<Ps...>> {
  static std::string get() {
    std::string s;
    (..., (s += (s.empty() ? "" : ", ") + std::string(Ps::name)));
    return s.empty() ? std::string(stream::skip::standard::name) : s;
  }
};
template <class P> struct skip_list_name<stream::skip::every_loop<P>> {
  static std::string get() { return std::string(P::name) + " at every loop"; }
};

template <class T> struct skip_cap : std::integral_constant<std::size_t, 1> {};
template <std::size_t N>
struct skip_cap<opt::skip_candidates<N>> : std::integral_constant<std::size_t, N> {};
}  // namespace detail

/// What the optimizer may choose for one assignment: `Tags` from `loom::opt` (at most one skip
/// tag; none means `opt::static_skips`), plus run-time fields that force a choice, e.g.
/// `loom::assign(y(i), sum(j, A(i, j) * x(j)), loom::options<loom::opt::runtime_skips>{})`.
/// The tags are part of every kernel's type, so units with different options never share a
/// definition.
template <class... Tags> struct options {
  static_assert((... && detail::is_option_tag<Tags>::value),
                "loom::options<...>: every argument must be a tag from loom::opt");
  using skip_tags = boost::mp11::mp_copy_if<boost::mp11::mp_list<Tags...>, detail::is_skip_tag>;
  static_assert(boost::mp11::mp_size<skip_tags>::value <= 1,
                "loom::options<...>: give at most one skip tag (static_skips, runtime_skips, "
                "skip_candidates<N>, fixed_skips<...>)");
  /// The skip tag.
  using skips = typename detail::first_or_static<skip_tags>::type;
  /// How many skip-policy kernels per plan (skip_candidates<N>: N; otherwise 1).
  static constexpr std::size_t skip_cap = detail::skip_cap<skips>::value;
  static constexpr bool eliminate = (... || std::is_same_v<Tags, opt::eliminate>);
  static constexpr bool bitmap_intermediates =
      (... || std::is_same_v<Tags, opt::bitmap_intermediates>);
  static constexpr bool hashed_intermediates =
      (... || std::is_same_v<Tags, opt::hashed_intermediates>);
  static constexpr bool format_per_step = (... || std::is_same_v<Tags, opt::format_per_step>);

  /// Whether intermediates of format `f` are compiled in: every format, always (sorted, bitmap
  /// and hashed share the adaptive level's kernel).
  static constexpr bool compiles(intermediate_format) { return true; }

  /// runtime_skips: run these codes (one per loop, outermost first) instead of the chosen ones.
  std::optional<stream::skip::codes> skip_codes{};
  /// skip_candidates<N>: run this candidate (clamped to the last) instead of the chosen one.
  std::optional<std::size_t> skip_candidate{};
  /// eliminate: run this candidate of `decompose` (0: the fused kernel; c: elimination prefix
  /// c - 1) instead of the cheapest.
  std::optional<std::size_t> candidate{};
  /// eliminate with `candidate`: one format for every one- and two-index intermediate, or one per
  /// step (a mix of dense and other formats needs opt::format_per_step); empty: the planner's for
  /// that candidate.
  std::vector<intermediate_format> intermediates{};
  /// eliminate with `candidate`: bit t, step t reuses an earlier step's equal intermediate;
  /// empty: the planner's.
  std::optional<std::uint32_t> reuse{};
  /// An expression over loom::alternatives: run this variant (numbered as `explain` lists them,
  /// clamped to the last) instead of the cheapest.
  std::optional<std::size_t> alternative{};
};

/// The options of a plain `out(...) = e`.
using default_options = options<>;

template <class T> struct is_options : std::false_type {};
template <class... Tags> struct is_options<options<Tags...>> : std::true_type {};
/// A `loom::options<...>`.
template <class T>
concept options_type = is_options<std::remove_cvref_t<T>>::value;

}  // namespace loom

#endif  // LOOM_EXEC_OPTIONS_HPP
