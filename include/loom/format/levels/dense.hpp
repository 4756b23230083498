// Defines loom::dense_level and loom::dense: a level storing every coordinate (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_DENSE_HPP
#define LOOM_FORMAT_LEVELS_DENSE_HPP

#include <loom/format/levels/level_base.hpp>

namespace loom {

/// Every coordinate in [0, extent) is present; positions are `parent * extent + i`.
/// `Extent` is static when given (it takes part in compile-time extent checks).
template <std::size_t Extent = dynamic_extent>
struct dense_level {
  static constexpr level_properties properties{.full = true, .random_access = true};
  static constexpr std::size_t static_extent = Extent;
  static constexpr std::string_view name = "dense";

  template <bool Owning>
  struct storage {
    // locate(p_{k-1}, i) -> p_{k-1} * extent + i
    std::int64_t extent = 0;
  };
};

/// The dense level with a run-time extent.
using dense = dense_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_DENSE_HPP
