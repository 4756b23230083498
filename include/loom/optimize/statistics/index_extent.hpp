// Defines loom::index_extent and loom::index_set, runtime index names with extents
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_INDEX_EXTENT_HPP
#define LOOM_OPTIMIZE_STATISTICS_INDEX_EXTENT_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace loom {

/// One named index of an estimate and its extent (`{"i", 1000}`).
struct index_extent {
  std::string name;
  std::int64_t extent = 0;
  friend bool operator==(const index_extent&, const index_extent&) = default;
};

/// The indices a sparsity estimate ranges over, in first-appearance order; names are unique.
using index_set = std::vector<index_extent>;

namespace detail {

inline bool has_index(const index_set& s, const std::string& name) {
  return std::any_of(s.begin(), s.end(), [&](const index_extent& x) { return x.name == name; });
}

inline double dense_size(const index_set& s) {
  double p = 1;
  for (const index_extent& x : s) p *= static_cast<double>(x.extent);
  return p;
}

/// Throws `shape_error` on a repeated name or a negative extent.
LOOM_DECL void check_index_set(const index_set& s, const char* who);

/// `a` followed by the indices of `b` not in `a`; throws `shape_error` when a shared name has
/// different extents.
LOOM_DECL index_set index_union(const index_set& a, const index_set& b, const char* who);

/// The indices of `s` named in `names` (`keep = true`) or not named there (`keep = false`).
LOOM_DECL index_set index_filter(const index_set& s, const std::vector<std::string>& names,
                                 bool keep);

/// The index set of a tensor of extents `shape` whose mode m is named `names[m]`; throws
/// `shape_error` naming `who` when the counts differ.
LOOM_DECL index_set named_modes(const std::vector<std::int64_t>& shape,
                                const std::vector<std::string>& names, const char* who);

#if LOOM_HEADER_ONLY
LOOM_DEF void check_index_set(const index_set& s, const char* who) {
  for (std::size_t a = 0; a < s.size(); ++a) {
    if (s[a].extent < 0)
      throw shape_error(std::string(who) + ": index '" + s[a].name + "' has negative extent");
    for (std::size_t b = a + 1; b < s.size(); ++b)
      if (s[a].name == s[b].name)
        throw shape_error(std::string(who) + ": index '" + s[a].name +
                          "' appears twice; give every mode its own index name");
  }
}

LOOM_DEF index_set index_union(const index_set& a, const index_set& b, const char* who) {
  index_set out = a;
  for (const index_extent& x : b) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const index_extent& y) { return y.name == x.name; });
    if (it == out.end()) {
      out.push_back(x);
    } else if (it->extent != x.extent) {
      throw shape_error(std::string(who) + ": index '" + x.name + "' has extent " +
                        std::to_string(it->extent) + " in one operand and " +
                        std::to_string(x.extent) + " in another; use one extent per index name");
    }
  }
  return out;
}

LOOM_DEF index_set index_filter(const index_set& s, const std::vector<std::string>& names,
                                bool keep) {
  index_set out;
  for (const index_extent& x : s)
    if ((std::find(names.begin(), names.end(), x.name) != names.end()) == keep) out.push_back(x);
  return out;
}

LOOM_DEF index_set named_modes(const std::vector<std::int64_t>& shape,
                               const std::vector<std::string>& names, const char* who) {
  if (names.size() != shape.size())
    throw shape_error(std::string(who) + ": " + std::to_string(names.size()) +
                      " index names for a tensor of order " + std::to_string(shape.size()));
  index_set out;
  for (std::size_t m = 0; m < names.size(); ++m) out.push_back({names[m], shape[m]});
  return out;
}
#endif  // LOOM_HEADER_ONLY

}  // namespace detail
}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_INDEX_EXTENT_HPP
