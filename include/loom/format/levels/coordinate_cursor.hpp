// Defines loom::coordinate_cursor: the cursor over an ascending coordinate segment, shared by
// the compressed, singleton and hashed levels (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP
#define LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/level_base.hpp>

#include <cstdint>

namespace loom {

/// Positions [p, end) of `crd`, ascending. A non-unique segment emits each run of equal
/// coordinates once, its children spanning the run, so the stream stays strictly monotone.
template <class Crd, bool Unique, search_strategy P> struct coordinate_cursor {
  const Crd* crd = nullptr;
  std::int64_t p = 0, end = 0;

  LOOM_FORCE_INLINE bool valid() const { return p < end; }
  LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
  LOOM_FORCE_INLINE std::int64_t run_end() const {
    if constexpr (Unique) {
      return p + 1;
    } else {
      std::int64_t q = p + 1;
      while (q < end && crd[q] == crd[p]) ++q;
      return q;
    }
  }
  LOOM_FORCE_INLINE level_range children() const { return {p, run_end()}; }
  LOOM_FORCE_INLINE void next() { p = run_end(); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { p = detail::search_first<P>(crd, p, end, i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if (i == detail::top_coordinate)
      p = end;
    else
      p = detail::search_first<P>(crd, p, end, i + 1);
  }
};

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP
