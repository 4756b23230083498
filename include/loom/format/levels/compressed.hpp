// Defines loom::compressed_level and loom::compressed: a pos/crd segment level (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_COMPRESSED_HPP
#define LOOM_FORMAT_LEVELS_COMPRESSED_HPP

#include <loom/format/levels/level_base.hpp>

namespace loom {

/// Stored coordinates of parent p are `crd[pos[p] .. pos[p+1])`, ascending.
/// Non-unique: a coordinate may repeat (COO's first level); its stream groups each run into one
/// segment so that it stays strictly monotone.
template <uniqueness U = uniqueness::unique, class Pos = std::int64_t, class Crd = std::int32_t>
struct compressed_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::compressed_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "compressed" : "compressed(non-unique)";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p_{k-1}], pos[p_{k-1}+1])
    // pos_access(p_k)     -> crd[p_k]
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
  };
};

/// The unique compressed level with int64 positions and int32 coordinates.
using compressed = compressed_level<>;
/// The non-unique compressed level (first level of COO).
using compressed_nonunique = compressed_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_COMPRESSED_HPP
