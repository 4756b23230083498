// Defines the public level concept, loom::level_type, and its capability concepts (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_LEVEL_HPP
#define LOOM_FORMAT_LEVELS_LEVEL_HPP

#include <loom/format/levels/level_base.hpp>

#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace loom {

/// A cursor walks the coordinates of one parent: `valid()`, `index()` (ascending, each at most
/// once), `children()` (the child positions of the current coordinate), `seek(i)` (to the first
/// coordinate >= i, never backwards), `seek_past(i)` (> i) and `next()`. A default-constructed
/// cursor is empty. Optional: `ready()` (false on a state that emits nothing; default true).
template <class C>
concept level_cursor =
    std::default_initializable<C> && std::copyable<C> && requires(C c, const C cc, std::int64_t i) {
      { cc.valid() } -> std::same_as<bool>;
      { cc.index() } -> std::convertible_to<std::int64_t>;
      { cc.children() } -> std::same_as<level_range>;
      c.seek(i);
      c.seek_past(i);
      c.next();
    };

/// A storage level (docs/levels.md). Minimal complete definition:
/// - `properties` (a `level_properties`), `name`, `static_extent` (usually `dynamic_extent`);
/// - `storage<Owning>`: its arrays, `level_array<T, Owning>` (vectors, or spans in a view);
/// - `assemble(storage<true>&, const level_build&, std::span<std::int64_t> position)`: builds the
///   level from sorted unique entries and returns its number of positions;
/// - `iterate<P, Owning>(const storage<Owning>&, begin, end)`: a `level_cursor` over the
///   coordinates of the parent position `begin` (or of the run [begin, end) when segmented).
/// With `properties.random_access`, the cursor also has `locate(i) -> level_range` (empty when
/// absent) in O(1), and the planner may locate the level instead of iterating it. Optional:
/// `permutable = false` when the level cannot hold a copy with re-ordered modes (below).
template <class L>
concept level_type =
    requires(typename L::template storage<true>& st, const typename L::template storage<true>& cst,
             const level_build& in, std::span<std::int64_t> position) {
      { L::properties } -> std::convertible_to<level_properties>;
      { L::name } -> std::convertible_to<std::string_view>;
      { L::static_extent } -> std::convertible_to<std::size_t>;
      typename L::template storage<false>;
      { L::assemble(st, in, position) } -> std::same_as<std::int64_t>;
      {
        L::template iterate<search_strategy::linear>(cst, std::int64_t{}, std::int64_t{})
      } -> level_cursor;
      {
        L::template iterate<search_strategy::galloping>(cst, std::int64_t{}, std::int64_t{})
      } -> level_cursor;
    };

/// Whether a level can store the entries of any tensor in whichever mode it is given, so that a
/// copy with the modes re-ordered (an operand transposed for the loop order) may keep it. True
/// unless the level declares `static constexpr bool permutable = false;`, as the loops of a
/// storage mapping do: a guarded range holds one region of one mode order (a triangle) and an
/// offset formula is written for one mode order (format/mapping/mapped_level.hpp).
template <class L>
inline constexpr bool level_is_permutable_v = [] {
  if constexpr (requires { L::permutable; })
    return static_cast<bool>(L::permutable);
  else
    return true;
}();

/// A level whose cursor can locate a coordinate in O(1).
template <class L>
concept level_with_locate = level_type<L> && L::properties.random_access &&
                            requires(const typename L::template storage<true>& st, std::int64_t i) {
                              {
                                L::template iterate<search_strategy::linear>(st, i, i).locate(i)
                              } -> std::same_as<level_range>;
                            };

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_HPP
