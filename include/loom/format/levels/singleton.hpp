// Defines loom::singleton_level and loom::singleton: one coordinate per parent position (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_SINGLETON_HPP
#define LOOM_FORMAT_LEVELS_SINGLETON_HPP

#include <loom/format/levels/coordinate_cursor.hpp>
#include <loom/format/levels/level_base.hpp>

#include <string>

namespace loom {

/// Position p holds exactly one coordinate `crd[p]`; it follows a non-unique level, whose
/// segment [begin, end) it iterates (COO). Non-unique when more singleton levels follow.
template <uniqueness U = uniqueness::unique, class Crd = std::int32_t> struct singleton_level {
  static_assert(std::is_integral_v<Crd>, "loom::singleton_level: coordinates must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique,
                                               .segmented = true};
  static constexpr level_layout layout = level_layout::singleton;
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "singleton" : "singleton(non-unique)";
  using crd_type = Crd;

  template <bool Owning> struct storage {
    // pos_access(p_k) -> crd[p_k], with p_k = p_{k-1}
    level_array<Crd, Owning> crd;
  };

  // iterate([begin, end)) -> crd[begin .. end), the run handed out by the non-unique parent
  template <search_strategy P, bool Owning>
  static coordinate_cursor<Crd, U == uniqueness::unique, P> iterate(const storage<Owning>& st,
                                                                    std::int64_t begin,
                                                                    std::int64_t end) {
    return {st.crd.data(), begin, end};
  }

  // check (O(1)): one coordinate per parent position
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    if (static_cast<std::int64_t>(st.crd.size()) != in.parents)
      detail::bad_storage(name, in,
                          "crd has " + std::to_string(st.crd.size()) + " entries, expected " +
                              std::to_string(in.parents));
    return in.parents;
  }
  // validate (O(nnz)): every coordinate in range
  template <bool Owning>
  static void validate_storage(const storage<Owning>& st, const level_check& in) {
    for (std::size_t q = 0; q < st.crd.size(); ++q)
      if (st.crd[q] < 0 || static_cast<std::int64_t>(st.crd[q]) >= in.extent)
        detail::bad_storage(name, in,
                            "coordinate " + std::to_string(st.crd[q]) + " at position " +
                                std::to_string(q) + " is outside [0, " + std::to_string(in.extent) +
                                ")");
  }

  // assemble: the parent's position, one coordinate per entry
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    st.crd.reserve(in.coord.size());
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      st.crd.push_back(static_cast<Crd>(in.coord[e]));
      position[e] = in.parent[e];
    }
    return static_cast<std::int64_t>(st.crd.size());
  }
};

using singleton = singleton_level<>;
using singleton_nonunique = singleton_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_SINGLETON_HPP
