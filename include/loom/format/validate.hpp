// Defines loom::validate: the O(nnz) check of a tensor's or view's arrays (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_VALIDATE_HPP
#define LOOM_FORMAT_VALIDATE_HPP

#include <loom/core/error.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/tensor.hpp>

#include <string>

namespace loom {

/// Checks every array of `t` in O(nnz), beyond the O(1) checks its construction made: per level,
/// `pos` starts at 0, does not decrease and ends at the length of `crd`; the coordinates of each
/// segment are in range and ascending (strictly at a unique level); bands lie in their extent;
/// as many values as positions. Throws `shape_error` naming the tensor (or view), its shape, the
/// format, the level and what is wrong. Levels without storage checks (user levels, mappings)
/// and the levels below them are not checked. Use it on views over arrays from elsewhere, before
/// a kernel reads them: `loom::validate(loom::csr_view<const double>(m, n, pos, crd, vals));`
template <class T, storage_format Format, bool Owning>
void validate(const basic_tensor<T, Format, Owning>& t) {
  try {
    detail::check_level_storages<true, Format>(t.shape(), t.levels(), t.values().size());
  } catch (const shape_error& e) {
    throw shape_error(std::string("loom::validate: ") + (Owning ? "tensor " : "view ") +
                      (t.name().empty() ? "" : t.name() + " ") + "of shape " +
                      detail::extents_to_string(t.shape()) + " in " + format_name<Format>() + ": " +
                      e.what());
  }
}

}  // namespace loom

#endif  // LOOM_FORMAT_VALIDATE_HPP
