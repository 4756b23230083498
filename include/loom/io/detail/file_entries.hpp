// Defines loom::detail::file_entries: entries read from a file, checked and assembled (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_FILE_ENTRIES_HPP
#define LOOM_IO_DETAIL_FILE_ENTRIES_HPP

#include <loom/core/error.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/io/read_options.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace loom::detail {

/// Coordinates (0-based, logical order), values and source lines of the entries of a file.
template <class T, std::size_t N> struct file_entries {
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
  std::vector<std::int64_t> lines;  // kept only when duplicates are errors
  bool keep_lines = false;

  /// Reserves for `expected` entries, at most 2^24: a declared count may be a lie.
  void reserve(std::int64_t expected) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(expected, 1 << 24));
    coords.reserve(n);
    values.reserve(n);
    if (keep_lines) lines.reserve(n);
  }
  void add(const std::array<std::int64_t, N>& c, const T& v, std::int64_t line) {
    coords.push_back(c);
    values.push_back(v);
    if (keep_lines) lines.push_back(line);
  }
  std::int64_t size() const { return static_cast<std::int64_t>(coords.size()); }
};

/// Empty when `shape` makes `Format` allocate at most `options.max_dense_elements` positions
/// and values beyond what `nnz` entries need; else what is wrong.
template <class Format>
std::string check_storage(const std::array<std::int64_t, Format::order>& shape, std::int64_t nnz,
                          const read_options& options) {
  constexpr auto N = static_cast<std::int64_t>(Format::order);
  const std::int64_t needed = format_storage_bound<Format>(shape, nnz);
  const std::int64_t allowed =
      saturating_add(saturating_add(std::max<std::int64_t>(options.max_dense_elements, 0),
                                    saturating_mul(N + 1, nnz)),
                     N + 1);
  if (needed <= allowed) return {};
  return "the shape " + shape_to_string(shape) + " needs " +
         (needed == int64_max ? "more than 2^63" : std::to_string(needed)) +
         " positions and values in this format, more than "
         "loom::read_options::max_dense_elements (" +
         std::to_string(options.max_dense_elements) +
         "); choose a sparser format, or raise the limit if the shape is right";
}

/// Throws `parse_error` naming both lines when two entries share coordinates.
template <class T, std::size_t N>
void reject_duplicates(const std::string& file, const file_entries<T, N>& e) {
  std::vector<std::size_t> perm(e.coords.size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::size_t a, std::size_t b) { return e.coords[a] < e.coords[b]; });
  for (std::size_t k = 1; k < perm.size(); ++k) {
    if (e.coords[perm[k]] != e.coords[perm[k - 1]]) continue;
    std::array<std::int64_t, N> one_based = e.coords[perm[k]];
    for (auto& c : one_based) ++c;
    std::int64_t first = e.lines[perm[k - 1]], second = e.lines[perm[k]];
    if (second < first) std::swap(first, second);
    throw parse_error(file + ":" + std::to_string(second) + ": duplicate entry " +
                      coords_to_string(one_based) + ", first given at line " +
                      std::to_string(first) + " (loom::duplicates::error rejects duplicates)");
  }
}

/// Assembles the entries into a `tensor<T, Format>` named `file`; errors of the format (a
/// coordinate width too small, say) are rethrown with `where` in front, and a shape that needs
/// too much storage is a `shape_error` when the caller gave it, else a `parse_error`.
///
/// The storage allowed beyond `max_dense_elements` grows with the entries kept after merging
/// duplicates whose value is not the semiring's zero: exactly what `write_tns` and
/// `write_matrix_market` write back, so whatever is read can be read again after writing.
template <class Format, class T>
tensor<T, Format> entries_to_tensor(const std::string& file, const std::string& where,
                                    const std::array<std::int64_t, Format::order>& shape,
                                    file_entries<T, Format::order>&& e, const read_options& options,
                                    bool shape_given = false) {
  if (options.policy == duplicates::error) reject_duplicates(file, e);
  try {
    auto sorted = sort_coo<Format>(shape, e.coords, e.values, options.policy);
    e = {};
    const auto kept = static_cast<std::int64_t>(
        std::count_if(sorted.values.begin(), sorted.values.end(),
                      [](const T& v) { return !(v == semiring_traits<T>::zero()); }));
    if (const std::string why = check_storage<Format>(shape, kept, options); !why.empty()) {
      if (shape_given) throw shape_error(why);
      throw parse_error(where + why);
    }
    // a level that pads (dense, bitmap, banded) may add max_dense_elements positions to the
    // entries: a band's width depends on the entries, so it is checked as it is built
    const std::int64_t max_positions =
        saturating_add(std::max<std::int64_t>(options.max_dense_elements, 0), kept);
    auto t =
        assemble_sorted<T, Format>(shape, sorted.coords, std::move(sorted.values), max_positions);
    t.set_name(file);
    return t;
  } catch (const parse_error&) {
    throw;
  } catch (const overflow_error& x) {
    throw overflow_error(where + x.what());
  } catch (const shape_error& x) {
    throw shape_error(where + x.what());
  } catch (const duplicate_error& x) {
    throw duplicate_error(where + x.what());
  } catch (const error& x) {
    throw error(where + x.what());
  } catch (const std::bad_alloc&) {
    throw error(where + "out of memory while building the " + shape_to_string(shape) + " tensor");
  } catch (const std::length_error&) {
    throw error(where + "out of memory while building the " + shape_to_string(shape) + " tensor");
  }
}

}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_FILE_ENTRIES_HPP
