// Defines loom::compressed_level and loom::compressed: a pos/crd segment level (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_COMPRESSED_HPP
#define LOOM_FORMAT_LEVELS_COMPRESSED_HPP

#include <loom/format/levels/coordinate_cursor.hpp>
#include <loom/format/levels/level_base.hpp>

#include <string>

namespace loom {

/// Stored coordinates of parent p are `crd[pos[p] .. pos[p+1])`, ascending.
/// Non-unique: a coordinate may repeat (COO's first level); its stream groups each run into one
/// segment so that it stays strictly monotone.
template <uniqueness U = uniqueness::unique, class Pos = std::int64_t, class Crd = std::int32_t>
struct compressed_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::compressed_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique};
  static constexpr level_layout layout = level_layout::compressed;
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "compressed" : "compressed(non-unique)";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning> struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p_{k-1}], pos[p_{k-1}+1])
    // pos_access(p_k)     -> crd[p_k]
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
  };

  // iterate(p_{k-1}) -> crd[pos[p] .. pos[p+1]) ascending (an empty pos, a moved-from tensor's,
  // is caught where the root is iterated: detail::iterate_or_empty, not once per fiber)
  template <search_strategy P, bool Owning>
  static coordinate_cursor<Crd, U == uniqueness::unique, P> iterate(const storage<Owning>& st,
                                                                    std::int64_t begin,
                                                                    std::int64_t) {
    return {st.crd.data(), static_cast<std::int64_t>(st.pos[begin]),
            static_cast<std::int64_t>(st.pos[begin + 1])};
  }

  // check (O(1)): pos has parents + 1 entries, from 0 to the length of crd -> that many positions
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    const std::int64_t last = detail::check_pos(name, in, std::span<const Pos>(st.pos));
    detail::check_array_end(name, in, "pos", last, "crd", st.crd.size(), "entries");
    return last;
  }
  // validate (O(nnz)): pos does not decrease; each segment ascends (strictly when unique) in range
  template <bool Owning>
  static void validate_storage(const storage<Owning>& st, const level_check& in) {
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.pos));
    detail::check_segments(name, in, std::span<const Pos>(st.pos), std::span<const Crd>(st.crd),
                           U == uniqueness::unique);
  }

  // assemble: one position per distinct (parent, coordinate); per entry when non-unique
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    st.crd.reserve(nnz);
    st.pos.assign(static_cast<std::size_t>(in.parents) + 1, Pos(0));
    for (std::size_t e = 0; e < nnz; ++e) {
      const bool fresh = U == uniqueness::non_unique || e == 0 ||
                         in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1];
      if (fresh) {
        st.crd.push_back(static_cast<Crd>(in.coord[e]));
        ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      }
      position[e] = static_cast<std::int64_t>(st.crd.size()) - 1;
    }
    detail::check_fits<Pos>(static_cast<std::int64_t>(st.crd.size()), "number of positions");
    for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
    return static_cast<std::int64_t>(st.crd.size());
  }
};

/// The unique compressed level with int64 positions and int32 coordinates.
using compressed = compressed_level<>;
/// The non-unique compressed level (first level of COO).
using compressed_nonunique = compressed_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_COMPRESSED_HPP
