// Defines loom::singleton_level and loom::singleton: one coordinate per parent position (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_SINGLETON_HPP
#define LOOM_FORMAT_LEVELS_SINGLETON_HPP

#include <loom/format/levels/level_base.hpp>

namespace loom {

/// Position p holds exactly one coordinate `crd[p]`; it follows a non-unique level, whose
/// segment [begin, end) it iterates (COO). Non-unique when more singleton levels follow.
template <uniqueness U = uniqueness::unique, class Crd = std::int32_t>
struct singleton_level {
  static_assert(std::is_integral_v<Crd>, "loom::singleton_level: coordinates must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique,
                                               .segmented = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "singleton" : "singleton(non-unique)";
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_access(p_k) -> crd[p_k], with p_k = p_{k-1}
    level_array<Crd, Owning> crd;
  };
};

using singleton = singleton_level<>;
using singleton_nonunique = singleton_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_SINGLETON_HPP
