// Defines the einsum of two block-sparse matrices (tra/): the four products "ij,jk->ik",
// "ji,jk->ik", "ij,kj->ik", "ji,kj->ik" and their transposed outputs ("->ki"), with any letters,
// run as the fused sparse join-aggregate after transposing the operands whose letters run the
// other way (keys and tile contents, in any loom format; the transposes are sparse_maps.hpp's).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_SPARSE_EINSUM_HPP
#define LOOM_TRA_SPARSE_EINSUM_HPP

#include <loom/core/error.hpp>
#include <loom/core/fixed_string.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/einsum.hpp>
#include <loom/tra/sparse_maps.hpp>
#include <loom/tra/sparse_operators.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace loom::tra {

namespace detail {
// The einsums of two block-sparse matrices: a valid spec of two letters per side (no batch
// letters, which a matrix of tiles has no key for).
template <fixed_string S>
inline constexpr bool sparse_einsum_supported_v =
    einsum_spec<S>::valid && einsum_spec<S>::kl == 2 && einsum_spec<S>::kr == 2;

// An operand as the product reads it: transposed when its letters run the other way.
template <bool Transpose, class T, storage_format F>
decltype(auto) oriented(const sparse_relation<T, F>& r) {
  if constexpr (Transpose)
    return transpose(r);
  else
    return (r);
}
}  // namespace detail

/// einsum S over two block-sparse matrices, the result's tiles in `Out`: S is a product of two
/// matrices with two letters per side, each side's letters in either order ("ij,jk->ik",
/// "ji,jk->ik", "ij,kj->ik", "ji,kj->ik", and each with "->ki"; any letters). An operand whose
/// letters run the other way from C(x, z) = A(x, y) B(y, z) is transposed first (keys and tiles),
/// then the fused join-aggregate multiplies the tiles that meet; a transposed output is
/// transposed last. The result's bounds are those of the output's letters.
template <fixed_string S, storage_format Out, class T, storage_format FA, storage_format FB>
sparse_relation<T, Out> einsum(const sparse_relation<T, FA>& l, const sparse_relation<T, FB>& r) {
  using spec = detail::einsum_spec<S>;
  constexpr bool valid = detail::einsum_diagnostic<spec::problem>::ok;
  constexpr bool supported = detail::sparse_einsum_supported_v<S>;
  static_assert(!valid || supported,
                "loom::tra::einsum over sparse tiles: give two letters per side (a product of two "
                "matrices, as \"ij,jk->ik\" or \"ji,kj->ki\"); batch letters are not supported "
                "over sparse relations yet");
  if constexpr (!valid || !supported) {
    return sparse_relation<T, Out>({0, 0}, {1, 1});  // placeholder after the error above
  } else {
    constexpr auto t = spec::transposes;
    const auto& a = detail::oriented<t.left>(l);
    const auto& b = detail::oriented<t.right>(r);
    if (a.tile_shape()[1] != b.tile_shape()[0])
      throw shape_error(std::string("loom::tra::einsum<\"") + std::string(spec::text) +
                        "\">: the tiles' extents of the contracted letter differ (" +
                        std::to_string(a.tile_shape()[1]) + " and " +
                        std::to_string(b.tile_shape()[0]) + "); cut both operands alike");
    auto c = join_aggregate<Out>(a, b, std::array<std::size_t, 1>{1}, std::array<std::size_t, 1>{0},
                                 std::array<std::size_t, 2>{0, 2});
    if constexpr (t.out)
      return transpose(c);
    else
      return c;
  }
}

}  // namespace loom::tra

#endif  // LOOM_TRA_SPARSE_EINSUM_HPP
