// Defines loom::read_tns and loom::write_tns: FROSTT coordinate text files of any order (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_TNS_HPP
#define LOOM_IO_TNS_HPP

#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/io/detail/file_entries.hpp>
#include <loom/io/detail/line_reader.hpp>
#include <loom/io/detail/numbers.hpp>
#include <loom/io/detail/output.hpp>
#include <loom/io/read_options.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// The format (http://frostt.io/tensors/file-formats.html): one entry per line, N 1-based
// coordinates and a value, separated by blanks. Blank lines and lines starting with `#` or `%`
// are skipped. The shape is the largest coordinate of each mode unless the caller gives it.

namespace loom {

namespace detail {

template <class T, class Format>
tensor<T, Format> read_tns_impl(line_reader& r,
                                const std::optional<std::array<std::int64_t, Format::order>>& given,
                                const read_options& options) {
  constexpr std::size_t N = Format::order;
  if (given)
    for (std::size_t m = 0; m < N; ++m)
      if ((*given)[m] < 0)
        throw shape_error("loom::read_tns: extent " + std::to_string((*given)[m]) + " of mode " +
                          std::to_string(m) + " of the given shape is negative");
  std::array<std::int64_t, N> largest{};       // largest coordinate seen per mode (1-based)
  std::array<std::int64_t, N> largest_line{};  // where it was seen
  file_entries<T, N> e;
  e.keep_lines = options.policy == duplicates::error;
  std::array<std::string_view, N + 2> w{};
  const std::string form = "an order-" + std::to_string(N) + " tensor has " + std::to_string(N) +
                           " coordinates and a value per line";
  while (r.next_data("#%")) {
    const std::size_t got = r.split(w);
    if (got < N + 1)
      r.fail("expected " + std::to_string(N + 1) + " tokens, found " + excerpt(r.line()) + ": " +
             form);
    if (got > N + 1) r.fail("unexpected token " + excerpt(w[N + 1]) + " after the value: " + form);
    std::array<std::int64_t, N> c{};
    for (std::size_t m = 0; m < N; ++m) {
      std::int64_t v = 0;
      const parse_status st = parse_integer(w[m], v);
      const std::string what = "coordinate " + std::to_string(m + 1) + " " + excerpt(w[m]);
      if (st == parse_status::not_a_number) r.fail(what + " is not an integer");
      if (st == parse_status::out_of_range) r.fail(what + " does not fit a 64-bit integer");
      if (v < 1) r.fail(what + " is below 1 (coordinates are 1-based)");
      if (given && v > (*given)[m])
        r.fail(what + " is outside 1.." + std::to_string((*given)[m]) + ", the given extent");
      if (v > largest[m]) {
        largest[m] = v;
        largest_line[m] = r.line_number();
      }
      c[m] = v - 1;
    }
    T value = semiring_traits<T>::zero();
    if (const std::string why = value_text<T>::parse(w[N], value); !why.empty()) r.fail(why);
    e.add(c, value, r.line_number());
  }
  const std::array<std::int64_t, N> shape = given ? *given : largest;
  // Errors about the shape point at the largest coordinate of the widest mode, which set it.
  std::size_t widest = 0;
  for (std::size_t m = 1; m < N; ++m)
    if (largest[m] > largest[widest]) widest = m;
  const std::string where = given ? "loom::read_tns: " + r.name() + ": "
                                  : r.where(largest_line[widest] > 0 ? largest_line[widest] : 0);
  return entries_to_tensor<Format>(r.name(), where, shape, std::move(e), options,
                                   given.has_value());
}

template <class T, class Format> constexpr bool check_tns_types() {
  constexpr bool has_text = text_value<T>;
  static_assert(has_text,
                "loom::read_tns/write_tns: the value type has no text form; use an arithmetic "
                "type, loom::boolean or a semiring wrapper such as loom::min_plus<double>, or "
                "specialise loom::detail::value_text");
  constexpr bool has_modes = Format::order >= 1;
  static_assert(has_modes, "loom::read_tns/write_tns: the format needs at least one mode");
  return has_text && has_modes;
}

template <class T, class Format>
tensor<T, Format> read_tns_checked(
    std::istream& in, const std::string& name,
    const std::optional<std::array<std::int64_t, Format::order>>& shape,
    const read_options& options) {
  if constexpr (check_tns_types<T, Format>()) {
    line_reader r(in, name);
    r.report_progress("reading");
    try {
      tensor<T, Format> t = read_tns_impl<T, Format>(r, shape, options);
      r.finish_progress();  // once assembled: the bytes parsed are not all the work
      return t;
    } catch (const std::bad_alloc&) {
      throw error(r.where() + "out of memory while reading the tensor");
    }
  } else {
    return {};
  }
}

}  // namespace detail

// read_tns ----------------------------------------------------------------------------------------

/// Reads a FROSTT `.tns` tensor of order `Format::order` from `in`; the shape is the largest
/// coordinate of each mode. `name` stands for the file in messages and names the tensor.
/// Throws `parse_error` (`name:line: what`) for malformed input and `io_error` when the stream
/// fails; `overflow_error` (prefixed too) when a coordinate does not fit the format's widths.
template <class T, storage_format Format>
tensor<T, Format> read_tns(std::istream& in, const std::string& name,
                           const read_options& options = {}) {
  return detail::read_tns_checked<T, Format>(in, name, std::nullopt, options);
}

/// Reads a FROSTT `.tns` tensor of the given `shape` from `in`; a coordinate outside it is a
/// `parse_error`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(std::istream& in, const std::string& name,
                           const std::array<std::int64_t, Format::order>& shape,
                           const read_options& options = {}) {
  return detail::read_tns_checked<T, Format>(in, name, shape, options);
}

/// Reads the FROSTT file at `path`: `loom::read_tns<double, loom::csf<3>>("nell-2.tns")`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(const std::string& path, const read_options& options = {}) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_tns");
  return read_tns<T, Format>(in, path, options);
}

/// Reads the FROSTT file at `path` as a tensor of the given `shape`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(const std::string& path,
                           const std::array<std::int64_t, Format::order>& shape,
                           const read_options& options = {}) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_tns");
  return read_tns<T, Format>(in, path, shape, options);
}

// write_tns ---------------------------------------------------------------------------------------

/// Writes every stored entry of `A` as `i_1 ... i_N value` (1-based, storage order; the zero
/// padding of dense, banded and bitmap levels is skipped). The format has no header, so the
/// shape is not kept: pass it to `read_tns` when trailing slices are empty. Throws `io_error`
/// when `out` fails.
template <class T, storage_format Format, bool Owning>
void write_tns(std::ostream& out, const basic_tensor<T, Format, Owning>& A) {
  if constexpr (detail::check_tns_types<T, Format>()) {
    constexpr std::size_t N = Format::order;
    constexpr bool skip_zeros = Format::properties[N - 1].full || Format::properties[N - 1].padded;
    detail::output_buffer buf(out, "loom::write_tns");
    A.for_each_stored([&](const std::array<std::int64_t, N>& c, const T& v) {
      if (skip_zeros && v == semiring_traits<T>::zero()) return;
      for (std::size_t m = 0; m < N; ++m) {
        detail::append_number(buf.text, c[m] + 1);
        buf.text += ' ';
      }
      detail::value_text<T>::append(buf.text, v);
      buf.text += '\n';
      buf.flush_if_full();
    });
    buf.finish();
  }
}

/// Writes `A` to the file at `path`, all or nothing, as `write_matrix_market` does: a failed
/// write leaves an existing file as it was, and the error names the path and the OS reason.
template <class T, storage_format Format, bool Owning>
void write_tns(const std::string& path, const basic_tensor<T, Format, Owning>& A) {
  detail::write_file(path, "loom::write_tns", [&](std::ostream& out) { write_tns(out, A); });
}

}  // namespace loom

#endif  // LOOM_IO_TNS_HPP
