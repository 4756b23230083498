// Defines the einsum front end (the TRA paper): "ij,jk->ik" over key indices lowers to
// Σ(gbk, mat_add)(⋈(jl, jr, mat_mul)) — as an IA plan type (einsum_plan_t) and as a call on two
// relations (einsum<"...">(l, r)); batch indices kept in the output stay group-by keys; a tile
// whose letters run the other way from the kernel's C(x,z) = A(x,y) B(y,z) is transposed (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_EINSUM_HPP
#define LOOM_TRA_EINSUM_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/operators.hpp>
#include <loom/tra/relation.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra {

namespace detail {
constexpr bool has(std::string_view s, char c) { return s.find(c) != std::string_view::npos; }

// The spec's three letter strings ---------------------------------------------------------------
struct einsum_text {
  std::string_view left, right, out;
  bool parsed = false;
};
constexpr einsum_text split_einsum(std::string_view s) {
  const std::size_t comma = s.find(','), arrow = s.find("->");
  if (comma == std::string_view::npos || arrow == std::string_view::npos || comma > arrow)
    return {};
  return {s.substr(0, comma), s.substr(comma + 1, arrow - comma - 1), s.substr(arrow + 2), true};
}

// Letter roles: the last two letters of an operand (and of the output) are its tiles' rows and
// columns; the letters before them are batch letters, key-only (their tile extent is 1).
constexpr bool is_tile_letter(std::string_view s, char c) {
  const std::size_t p = s.find(c);
  return p != std::string_view::npos && p + 2 >= s.size();
}
/// The letter of `a`'s tile that `b`'s tile also has (the contracted one); 0 if none.
constexpr char shared_tile_letter(std::string_view a, std::string_view b) {
  for (std::size_t p = a.size() - 2; p < a.size(); ++p)
    if (is_tile_letter(b, a[p])) return a[p];
  return 0;
}
/// The other letter of `s`'s tile.
constexpr char other_tile_letter(std::string_view s, char c) {
  return s[s.size() - 2] == c ? s[s.size() - 1] : s[s.size() - 2];
}

/// What keeps loom from running an einsum spec (none: it runs).
enum class einsum_problem {
  none,
  malformed,                    ///< not "<left>,<right>-><out>" with one letter per key position
  repeated_letter,              ///< "ii,...": a diagonal or a trace
  output_letter_not_in_inputs,  ///< "ij,jk->iz"
  fewer_than_two_letters,       ///< a vector or scalar operand or output ("ij,j->i")
  tiles_not_a_matrix_product,   ///< the tiles share no letter or both ("ij,ij->ij")
  contracted_letter_kept,       ///< the shared tile letter is in the output ("ij,jk->ijk")
  letter_with_two_roles,        ///< a tile letter in one place, a batch letter in another
};

constexpr einsum_problem einsum_check(std::string_view spec) {
  const einsum_text t = split_einsum(spec);
  if (!t.parsed) return einsum_problem::malformed;
  const std::string_view parts[3] = {t.left, t.right, t.out};
  for (std::string_view s : parts)
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return einsum_problem::malformed;
  for (std::string_view s : parts)
    for (std::size_t p = 0; p < s.size(); ++p)
      if (s.find(s[p], p + 1) != std::string_view::npos) return einsum_problem::repeated_letter;
  for (char c : t.out)
    if (!has(t.left, c) && !has(t.right, c)) return einsum_problem::output_letter_not_in_inputs;
  for (std::string_view s : parts)
    if (s.size() < 2) return einsum_problem::fewer_than_two_letters;
  const char y = shared_tile_letter(t.left, t.right);
  if (y == 0 || is_tile_letter(t.right, other_tile_letter(t.left, y)))
    return einsum_problem::tiles_not_a_matrix_product;
  if (has(t.out, y)) return einsum_problem::contracted_letter_kept;
  for (std::string_view s : parts)
    for (char c : s)
      for (std::string_view u : parts)
        if (has(u, c) && is_tile_letter(u, c) != is_tile_letter(s, c))
          return einsum_problem::letter_with_two_roles;
  // Now the left tile is {x, y}, the right one {y, z}, x is not in the right operand, z not in
  // the left one, and the output's tile letters (tile letters of the operands, without y) are
  // {x, z}: a matrix product, up to the order of each tile's letters.
  return einsum_problem::none;
}

/// Which tiles are transposed so that each pair multiplies as C(x,z) = A(x,y) B(y,z): the left
/// tile when it is (y, x), the right one when it is (z, y), the output's when it is (z, x).
struct einsum_transposes {
  bool left = false, right = false, out = false;
};
constexpr einsum_transposes einsum_orientation(std::string_view spec) {
  const einsum_text t = split_einsum(spec);
  if (einsum_check(spec) != einsum_problem::none) return {};
  const char y = shared_tile_letter(t.left, t.right);
  const char z = other_tile_letter(t.right, y);
  return {t.left[t.left.size() - 2] == y, t.right[t.right.size() - 1] == y,
          t.out[t.out.size() - 2] == z};
}

/// The parsed spec "<left>,<right>-><out>": one letter per key position.
template <fixed_string S> struct einsum_spec {
  static constexpr std::string_view text = S.view();
  static constexpr einsum_problem problem = einsum_check(text);
  static constexpr bool valid = problem == einsum_problem::none;
  static constexpr std::string_view left = split_einsum(text).left;
  static constexpr std::string_view right = split_einsum(text).right;
  static constexpr std::string_view out = split_einsum(text).out;
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
      if (has(right, left[p]) && n < g) a[n++] = p;
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
      if (!has(right, c) && n < ko) a[n++] = c;
    for (std::size_t p : jl)
      if (n < ko) a[n++] = left[p];
    for (char c : right)
      if (!has(left, c) && n < ko) a[n++] = c;
    return a;
  }();
  static constexpr std::array<std::size_t, gb> gbk = [] {
    std::array<std::size_t, gb> a{};
    for (std::size_t n = 0; n < gb; ++n)
      for (std::size_t p = 0; p < ko; ++p)
        if (joined[p] == out[n]) a[n] = p;
    return a;
  }();
  static constexpr einsum_transposes transposes = einsum_orientation(text);
};

// One static_assert per problem: only the spec's own problem fires (no cascade).
template <einsum_problem P> struct einsum_diagnostic {
  static_assert(P != einsum_problem::malformed,
                "loom::tra::einsum: the spec is not \"<left>,<right>-><out>\" with one letter "
                "(a-z, A-Z) per key position; write it like \"ij,jk->ik\"");
  static_assert(P != einsum_problem::repeated_letter,
                "loom::tra::einsum: a letter repeats within an operand or the output (a diagonal "
                "or a trace), which is not supported yet; use distinct letters in each");
  static_assert(P != einsum_problem::output_letter_not_in_inputs,
                "loom::tra::einsum: an output letter appears in neither operand; take every "
                "output letter from the operands");
  static_assert(P != einsum_problem::fewer_than_two_letters,
                "loom::tra::einsum: an operand or the output has fewer than two letters, but its "
                "tiles are matrices whose rows and columns are its last two letters; vector and "
                "scalar operands or results are not supported yet (store a vector as an n x 1 "
                "matrix)");
  static_assert(P != einsum_problem::tiles_not_a_matrix_product,
                "loom::tra::einsum: the operands' tile letters (the last two of each) must share "
                "exactly one letter, because tile pairs multiply as matrices; element-wise, outer "
                "and double contractions of tiles are not supported yet");
  static_assert(P != einsum_problem::contracted_letter_kept,
                "loom::tra::einsum: the letter shared by the operands' tiles is kept in the "
                "output, but the tile product sums over it; drop it from the output (a letter "
                "kept from both operands must be a batch letter, as b in \"bij,bjk->bik\")");
  static_assert(P != einsum_problem::letter_with_two_roles,
                "loom::tra::einsum: a letter is a tile row or column (one of the last two "
                "letters) in one operand or the output but a batch letter (an earlier one) in "
                "another; give every letter the same role everywhere, batch letters first");
  static constexpr bool ok = P == einsum_problem::none;
};

template <class Seq, const auto& A> struct dims_of;
template <std::size_t... I, const auto& A> struct dims_of<std::index_sequence<I...>, A> {
  using type = ia::dims<A[I]...>;
};
template <const auto& A>
using dims_of_t = typename dims_of<std::make_index_sequence<A.size()>, A>::type;

template <bool Transpose, class C>
using transposed_if = std::conditional_t<Transpose, ia::lmap<ia::same_key, transpose_tile, C>, C>;

template <fixed_string S, class LeftPart, class RightPart, bool Valid = einsum_spec<S>::valid>
struct einsum_plan : einsum_diagnostic<einsum_spec<S>::problem> {
  using type = void;
};
template <fixed_string S, class LeftPart, class RightPart>
struct einsum_plan<S, LeftPart, RightPart, true> {
  using spec = einsum_spec<S>;
  using type = transposed_if<
      spec::transposes.out,
      ia::lagg<dims_of_t<spec::gbk>, mat_add,
               ia::ljoin<dims_of_t<spec::jl>, dims_of_t<spec::jr>, mat_mul,
                         transposed_if<spec::transposes.left, ia::leaf<0, spec::kl, LeftPart>>,
                         transposed_if<spec::transposes.right, ia::leaf<1, spec::kr, RightPart>>>>>;
};

// The checked einsum: transposes where a tile runs the other way, then Σ∘⋈ (fused).
template <class T, std::size_t KL, std::size_t KR, std::size_t G, std::size_t GB>
relation<T, GB, 2> einsum_run(const relation<T, KL, 2>& l, const relation<T, KR, 2>& r,
                              const std::array<std::size_t, G>& jl,
                              const std::array<std::size_t, G>& jr,
                              const std::array<std::size_t, GB>& gbk, einsum_transposes t) {
  relation<T, KL, 2> lt;
  relation<T, KR, 2> rt;
  if (t.left) lt = transform(l, transpose_tile{});
  if (t.right) rt = transform(r, transpose_tile{});
  relation<T, GB, 2> out =
      join_aggregate(t.left ? lt : l, t.right ? rt : r, jl, jr, mat_mul{}, gbk, mat_add{});
  if (t.out) return transform(out, transpose_tile{});
  return out;
}
}  // namespace detail

/// The IA plan of einsum S over inputs 0 and 1, placed as LeftPart and RightPart (to run it,
/// one side must be replicated or both co-partitioned on the join keys). A tile transposed by
/// einsum is a λᴸ(_, transpose) over its leaf, or over the whole plan for the output's.
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary>
using einsum_plan_t = typename detail::einsum_plan<S, LeftPart, RightPart>::type;

/// einsum over the keys of two relations of matrix tiles: letters name key positions; the last
/// two letters of each operand and of the output also name its tiles' rows and columns (each
/// such index is split into a key part and a tile part, notes §2.3), earlier letters are batch
/// letters (key only). Each tile pair contracts as a matrix product over the one letter the two
/// tiles share; tiles whose letters run the other way are transposed. See docs/tra.md.
template <fixed_string S, class T, std::size_t KL, std::size_t KR>
auto einsum(const relation<T, KL, 2>& l, const relation<T, KR, 2>& r) {
  using spec = detail::einsum_spec<S>;
  constexpr bool supported = detail::einsum_diagnostic<spec::problem>::ok;
  constexpr bool arities_match = spec::kl == KL && spec::kr == KR;
  static_assert(!supported || arities_match,
                "loom::tra::einsum: an operand's letters are not as many as its relation's key "
                "positions; give one letter per key position of each relation");
  if constexpr (supported && arities_match)
    return detail::einsum_run(l, r, spec::jl, spec::jr, spec::gbk, spec::transposes);
  else
    return relation<T, spec::gb, 2>{};  // placeholder after the error above
}

}  // namespace loom::tra

#endif  // LOOM_TRA_EINSUM_HPP
