// A user-defined level that keeps loom's compressed arrays (`pos`, `crd`) and declares that
// layout, with a cursor of its own (a linear seek, for short rows): loom's fast paths, keyed by
// the layout, treat it as the built-in compressed level (docs/levels.md, "Layouts").
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_MODELS_LAYOUT_LEVEL_HPP
#define LOOM_TESTS_SUPPORT_MODELS_LAYOUT_LEVEL_HPP

#include <loom/loom.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace example {

struct scan_level {
  static constexpr loom::level_properties properties{};  // ordered, unique
  static constexpr loom::level_layout layout = loom::level_layout::compressed;
  static constexpr std::size_t static_extent = loom::dynamic_extent;
  static constexpr std::string_view name = "scan";
  using pos_type = std::int64_t;
  using crd_type = std::int32_t;

  template <bool Owning> struct storage {
    loom::level_array<pos_type, Owning> pos;
    loom::level_array<crd_type, Owning> crd;
  };

  struct cursor {
    const crd_type* crd = nullptr;
    std::int64_t q = 0, end = 0;
    bool valid() const { return q < end; }
    std::int64_t index() const { return crd[q]; }
    loom::level_range children() const { return {q, q + 1}; }
    void next() { ++q; }
    void seek(std::int64_t j) {
      while (q < end && crd[q] < j) ++q;
    }
    void seek_past(std::int64_t j) {
      while (q < end && crd[q] <= j) ++q;
    }
  };

  template <loom::search_strategy, bool Owning>
  static cursor iterate(const storage<Owning>& st, std::int64_t parent, std::int64_t) {
    return {st.crd.data(), static_cast<std::int64_t>(st.pos[parent]),
            static_cast<std::int64_t>(st.pos[parent + 1])};
  }

  static std::int64_t assemble(storage<true>& st, const loom::level_build& in,
                               std::span<std::int64_t> position) {
    st.pos.assign(static_cast<std::size_t>(in.parents) + 1, 0);
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      if (e > 0 && in.parent[e] == in.parent[e - 1] && in.coord[e] == in.coord[e - 1]) {
        position[e] = position[e - 1];
        continue;
      }
      st.crd.push_back(static_cast<crd_type>(in.coord[e]));
      ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      position[e] = static_cast<std::int64_t>(st.crd.size()) - 1;
    }
    for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
    return static_cast<std::int64_t>(st.crd.size());
  }
};
static_assert(loom::level_type<scan_level>);

/// CSR whose column level is the user's.
using scan_csr = loom::format<loom::dense, scan_level>;

}  // namespace example

#endif  // LOOM_TESTS_SUPPORT_MODELS_LAYOUT_LEVEL_HPP
