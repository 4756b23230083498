// Defines loom::optimize::choose_output_format: the format of a loom::auto_tensor output from
// its estimated entries and whether the kernel writes it in order (Galley's output formats,
// Galley) (optimize/choice/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_OUTPUT_FORMAT_CHOICE_HPP
#define LOOM_OPTIMIZE_CHOICE_OUTPUT_FORMAT_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/format/auto_tensor.hpp>

#include <cstdio>
#include <string>

namespace loom::optimize {

/// Galley's cut-offs on the estimated fill of the output (Galley §4.3, T14).
inline constexpr double dense_fill = 0.5, bitmap_fill = 0.05;

/// An output format and why.
struct output_format_choice {
  auto_format format = auto_format::sorted;
  double entries = 0;  // estimated
  double cells = 0;    // the product of the extents
  bool in_order = true;

  double fill() const { return cells > 0 ? entries / cells : 0; }
  /// "bitmap: estimated 1.2e+05 entries in 1e+06 cells (12% full; dense above 50%, bitmap
  /// above 5%)".
  LOOM_DECL std::string describe() const;
};

/// The format for `entries` estimated entries among `cells`, written in order or not.
LOOM_DECL output_format_choice choose_output_format(double entries, double cells, bool in_order);

#if LOOM_HEADER_ONLY
LOOM_DEF std::string output_format_choice::describe() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "estimated %.3g entries in %.3g cells (%.3g%% full; ", entries,
                cells, 100 * fill());
  std::string why =
      std::string(auto_format_name(format)) + ": " + buf + "dense above 50%, bitmap above 5%";
  if (format == auto_format::sorted) why += ", else sorted where the kernel writes in order";
  if (format == auto_format::hashed)
    why += ", else hashed where the kernel writes out of order, as here";
  return why + ")";
}

LOOM_DEF output_format_choice choose_output_format(double entries, double cells, bool in_order) {
  output_format_choice c{auto_format::sorted, entries, cells, in_order};
  const double f = c.fill();
  c.format = f > dense_fill    ? auto_format::dense
             : f > bitmap_fill ? auto_format::bitmap
             : in_order        ? auto_format::sorted
                               : auto_format::hashed;
  return c;
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_OUTPUT_FORMAT_CHOICE_HPP
