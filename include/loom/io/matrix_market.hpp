// Defines loom::read_matrix_market and loom::write_matrix_market: Matrix Market files (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_MATRIX_MARKET_HPP
#define LOOM_IO_MATRIX_MARKET_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/io/detail/file_entries.hpp>
#include <loom/io/detail/line_reader.hpp>
#include <loom/io/detail/numbers.hpp>
#include <loom/io/detail/output.hpp>
#include <loom/io/matrix_market_options.hpp>
#include <loom/io/read_options.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <istream>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// The format (https://math.nist.gov/MatrixMarket/formats.html), as loom reads it:
//
//   %%MatrixMarket matrix <coordinate|array> <real|double|integer|pattern> <general|symmetric|skew-symmetric>
//   % comment lines and blank lines, anywhere after the banner
//   rows columns entries        (array: rows columns)
//   row column value            (1-based; pattern: row column; array: one value per line,
//   ...                          column by column, the lower triangle when symmetric)
//
// Keywords are case-insensitive. Symmetric files store one triangle (either, or both: loom
// mirrors every off-diagonal entry); skew-symmetric files mirror with negation and may not store
// the diagonal. Values are parsed as the value type T, whatever the field says; complex and
// hermitian files are rejected as not supported. Every malformed input throws loom::parse_error
// `file:line: what`.

namespace loom {

namespace detail {

/// What the banner of a Matrix Market file declares.
struct matrix_market_header {
  enum class symmetry_kind { general, symmetric, skew };
  bool array = false;
  bool pattern = false;
  symmetry_kind symmetry = symmetry_kind::general;
};

LOOM_DECL bool iequals(std::string_view a, std::string_view b);

inline constexpr std::string_view matrix_market_banner_form =
    "'%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
    "<general|symmetric|skew-symmetric>'";

/// Reads and checks the banner (line 1).
LOOM_DECL matrix_market_header read_matrix_market_banner(line_reader& r);

/// Parses a 1-based index token and returns it 0-based; `what` is "row" or "column".
LOOM_DECL std::int64_t read_index(const line_reader& r, std::string_view token, std::int64_t extent,
                                  const char* what);

template <class T> T read_value(const line_reader& r, std::string_view token) {
  T v = semiring_traits<T>::zero();
  const std::string why = value_text<T>::parse(token, v);
  if (!why.empty()) r.fail(why);
  return v;
}

/// Stores entry (i, j) = v and, in symmetric and skew-symmetric files, its mirror.
template <class T>
void add_mirrored(const line_reader& r, file_entries<T, 2>& e, const matrix_market_header& h,
                  std::int64_t i, std::int64_t j, const T& v, std::string_view token) {
  using sym = matrix_market_header::symmetry_kind;
  const std::int64_t line = r.line_number();
  if (h.symmetry == sym::skew) {
    if (i == j)
      r.fail("entry (" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
             ") lies on the diagonal of a skew-symmetric matrix, whose diagonal is zero and "
             "must not be stored");
    T negated = v;
    if (!value_text<T>::negate(v, negated))
      r.fail("value " + excerpt(token) + " has no negation in the value type " +
             value_text<T>::type_name() + ", so the skew-symmetric mirror (" +
             std::to_string(j + 1) + "," + std::to_string(i + 1) + ") cannot be stored");
    e.add({i, j}, v, line);
    e.add({j, i}, negated, line);
    return;
  }
  e.add({i, j}, v, line);
  if (h.symmetry == sym::symmetric && i != j) e.add({j, i}, v, line);
}

template <class T, class Format>
tensor<T, Format> read_matrix_market_impl(line_reader& r, const read_options& options) {
  using sym = matrix_market_header::symmetry_kind;
  const matrix_market_header h = read_matrix_market_banner(r);
  const std::string size_form = h.array ? "'rows columns'" : "'rows columns entries'";
  if (!r.next_data("%")) r.fail("unexpected end of input: expected the size line " + size_form);
  const std::int64_t size_line = r.line_number();
  std::array<std::string_view, 4> w{};
  const std::size_t want = h.array ? 2 : 3;
  const std::size_t n_words = r.split(w);
  if (n_words < want)
    r.fail("the size line " + excerpt(r.line()) + " has " + std::to_string(n_words) +
           " number(s); expected " + size_form);
  if (n_words > want)
    r.fail("unexpected token " + excerpt(w[want]) + " on the size line; expected " + size_form);
  const std::array<std::int64_t, 2> shape = {r.count(w[0], "the number of rows"),
                                             r.count(w[1], "the number of columns")};
  const std::int64_t m = shape[0], n = shape[1];
  if (h.symmetry != sym::general && m != n)
    r.fail(std::string(h.symmetry == sym::skew ? "a skew-symmetric" : "a symmetric") +
           " matrix must be square, but the size line declares " + std::to_string(m) + " x " +
           std::to_string(n));

  std::int64_t declared = 0;  // entries (coordinate) or values (array) the file must hold
  if (!h.array) {
    declared = r.count(w[2], "the number of entries");
  } else if (h.symmetry == sym::general) {
    declared = saturating_mul(m, n);
  } else {  // n(n+1)/2 or n(n-1)/2 values
    const std::int64_t side = h.symmetry == sym::skew ? n - 1 : n + 1;
    declared = side <= 0 ? 0 : saturating_mul(n % 2 == 0 ? n / 2 : n, n % 2 == 0 ? side : side / 2);
  }
  if (h.array && declared == int64_max)
    r.fail("the array holds " + std::to_string(m) + " x " + std::to_string(n) +
           " values, more than 2^63");
  // an array lists every value, zeros included: its entries grow with the extents
  if (h.array && declared > std::max<std::int64_t>(options.max_dense_elements, 0)) {
    std::string why = std::string("the ") + shape_to_string(shape);  // appended: g++ 12's
    why.append(" array holds ").append(std::to_string(declared));    // -Wrestrict (assemble.hpp)
    why.append(" values, more than loom::read_options::max_dense_elements (");
    why.append(std::to_string(options.max_dense_elements));
    why.append("); raise the limit if the shape is right");
    r.fail(why);
  }
  const std::int64_t expanded = h.symmetry == sym::general ? declared : saturating_mul(declared, 2);
  if (const std::string why = check_storage<Format>(shape, expanded, options); !why.empty())
    r.fail(why);

  file_entries<T, 2> e;
  e.keep_lines = options.policy == duplicates::error;
  e.reserve(expanded);
  const std::string declared_where = " (line " + std::to_string(size_line) + ")";
  if (!h.array) {
    const std::size_t per_line = h.pattern ? 2 : 3;
    const char* entry_form = h.pattern ? "'row column'" : "'row column value'";
    for (std::int64_t k = 0; k < declared; ++k) {
      if (!r.next_data("%"))
        r.fail("unexpected end of input: the size line" + declared_where + " declares " +
               std::to_string(declared) + " entries, but the file holds only " + std::to_string(k));
      const std::size_t got = r.split(w);
      if (got < per_line)
        r.fail("expected an entry " + std::string(entry_form) + ", found " + excerpt(r.line()));
      if (got > per_line)
        r.fail("unexpected token " + excerpt(w[per_line]) + " after the entry " + entry_form);
      const std::int64_t i = read_index(r, w[0], m, "row");
      const std::int64_t j = read_index(r, w[1], n, "column");
      const T v = h.pattern ? semiring_traits<T>::one() : read_value<T>(r, w[2]);
      add_mirrored(r, e, h, i, j, v, h.pattern ? std::string_view{} : w[2]);
    }
  } else {
    std::int64_t k = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t first = h.symmetry == sym::general     ? 0
                                 : h.symmetry == sym::symmetric ? j
                                                                : j + 1;
      for (std::int64_t i = first; i < m; ++i, ++k) {
        if (!r.next_data("%"))
          r.fail("unexpected end of input: the " + std::to_string(m) + " x " + std::to_string(n) +
                 " array" + declared_where + " needs " + std::to_string(declared) +
                 " values, but the file holds only " + std::to_string(k));
        const std::size_t got = r.split(std::span(w).first(2));
        if (got > 1)
          r.fail("unexpected token " + excerpt(w[1]) +
                 " after the value (an array file holds one value per line)");
        add_mirrored(r, e, h, i, j, read_value<T>(r, w[0]), w[0]);
      }
    }
  }
  if (r.next_data("%"))
    r.fail("more " + std::string(h.array ? "values" : "entries") + " than the " +
           std::to_string(declared) + " the size line" + declared_where + " declares: found " +
           excerpt(r.line()));
  return entries_to_tensor<Format>(r.name(), r.where(size_line), shape, std::move(e), options);
}

template <class T, class Format> constexpr bool check_matrix_market_types() {
  constexpr bool is_matrix = Format::order == 2;
  static_assert(is_matrix,
                "loom::read_matrix_market/write_matrix_market: a Matrix Market file holds a "
                "matrix; use a 2-D format (csr, csc, dcsr, dcsc, coo, dense_matrix), or "
                "read_tns/write_tns for tensors of other orders");
  constexpr bool has_text = text_value<T>;
  static_assert(has_text,
                "loom::read_matrix_market/write_matrix_market: the value type has no text form; "
                "use an arithmetic type, loom::boolean or a semiring wrapper such as "
                "loom::min_plus<double>, or specialise loom::detail::value_text");
  return is_matrix && has_text;
}

}  // namespace detail

// read_matrix_market ------------------------------------------------------------------------------

/// Reads a Matrix Market matrix from `in`; `name` stands for the file in error messages and
/// becomes the tensor's name. Throws `parse_error` (`name:line: what`) for malformed input,
/// `io_error` when the stream fails, and `overflow_error`/`shape_error` (also prefixed with
/// `name:line:`) when the matrix does not fit `Format`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(std::istream& in, const std::string& name,
                                     const read_options& options) {
  if constexpr (detail::check_matrix_market_types<T, Format>()) {
    detail::line_reader r(in, name);
    r.report_progress("reading");
    try {
      tensor<T, Format> t = detail::read_matrix_market_impl<T, Format>(r, options);
      r.finish_progress();  // once assembled: the bytes parsed are not all the work
      return t;
    } catch (const std::bad_alloc&) {
      throw error(r.where() + "out of memory while reading the matrix");
    }
  } else {
    return {};
  }
}

/// Reads a Matrix Market matrix from `in`, combining repeated entries by `policy`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(std::istream& in, const std::string& name,
                                     duplicates policy = duplicates::sum) {
  return read_matrix_market<T, Format>(in, name, read_options{.policy = policy});
}

/// Reads the Matrix Market file at `path`: `loom::read_matrix_market<double, loom::csr>("A.mtx")`.
/// Throws `io_error` when the file cannot be opened, else as the stream overload.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(const std::string& path, const read_options& options) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_matrix_market");
  return read_matrix_market<T, Format>(in, path, options);
}

/// Reads the Matrix Market file at `path`, combining repeated entries by `policy`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(const std::string& path, duplicates policy = duplicates::sum) {
  return read_matrix_market<T, Format>(path, read_options{.policy = policy});
}

// write_matrix_market -----------------------------------------------------------------------------

/// Writes `A` as a Matrix Market `general` matrix: coordinate (one line per stored entry, in
/// storage order; the zero padding of dense, banded and bitmap levels is skipped) or array.
/// Floating values are written in the shortest form that reads back exactly. Throws `io_error`
/// when `out` fails.
template <class T, storage_format Format, bool Owning>
void write_matrix_market(std::ostream& out, const basic_tensor<T, Format, Owning>& A,
                         const matrix_market_options& options = {}) {
  if constexpr (detail::check_matrix_market_types<T, Format>()) {
    using text = detail::value_text<T>;
    // the zero padding of a dense, banded or bitmap innermost level is not written (as convert)
    constexpr bool skip_zeros =
        Format::properties[Format::order - 1].full || Format::properties[Format::order - 1].padded;
    const bool array = options.layout == matrix_market_layout::array;
    std::int64_t count = 0;
    bool all_one = true;
    A.for_each_stored([&](const auto&, const T& v) {
      if (skip_zeros && v == semiring_traits<T>::zero()) return;
      ++count;
      if (!(v == semiring_traits<T>::one())) all_one = false;
    });
    matrix_market_field field = options.field;
    if (field == matrix_market_field::automatic) {
      if constexpr (std::same_as<T, boolean>)
        field = all_one && !array ? matrix_market_field::pattern : matrix_market_field::integer;
      else
        field = text::integral ? matrix_market_field::integer : matrix_market_field::real;
    }
    if (field == matrix_market_field::integer && !text::integral)
      throw error(
          "loom::write_matrix_market: the integer field needs an integral value type "
          "or loom::boolean, not " +
          text::type_name() + "; use the real field");
    if (field == matrix_market_field::pattern && array)
      throw error(
          "loom::write_matrix_market: a pattern cannot be written in the array layout; "
          "use the coordinate layout or a valued field");
    const char* field_name = field == matrix_market_field::real      ? "real"
                             : field == matrix_market_field::integer ? "integer"
                                                                     : "pattern";

    // the array layout buffers every value: refused before anything is written
    const std::int64_t m = A.shape()[0], n = A.shape()[1];
    const std::int64_t cells = detail::saturating_mul(m, n);
    // messages are appended to one string: g++ 12's false -Wrestrict (see assemble.hpp)
    std::string matrix = std::string("the ") + detail::shape_to_string(A.shape());
    matrix.append(" matrix");
    if (!A.name().empty()) matrix.append(" ").append(A.name());
    if (array && cells > std::max<std::int64_t>(options.max_dense_elements, 0)) {
      std::string why("loom::write_matrix_market: the array layout of ");
      why.append(matrix).append(" needs ");
      why.append(cells == detail::int64_max ? std::string("more than 2^63")
                                            : std::to_string(cells));
      why.append(" values, more than loom::matrix_market_options::max_dense_elements (");
      why.append(std::to_string(options.max_dense_elements));
      why.append("); use the coordinate layout, or raise the limit");
      throw error(why);
    }
    detail::output_buffer buf(out, "loom::write_matrix_market");
    buf.text += "%%MatrixMarket matrix ";
    buf.text += array ? "array " : "coordinate ";
    buf.text += field_name;
    buf.text += " general\n";
    detail::append_comment(buf.text, options.comment, '%');
    if (!array) {
      buf.text += std::to_string(m) + " " + std::to_string(n) + " " + std::to_string(count) + "\n";
      const bool pattern = field == matrix_market_field::pattern;
      A.for_each_stored([&](const std::array<std::int64_t, 2>& c, const T& v) {
        if (skip_zeros && v == semiring_traits<T>::zero()) return;
        detail::append_number(buf.text, c[0] + 1);
        buf.text += ' ';
        detail::append_number(buf.text, c[1] + 1);
        if (!pattern) {
          buf.text += ' ';
          text::append(buf.text, v);
        }
        buf.text += '\n';
        buf.flush_if_full();
      });
    } else {
      buf.text += std::to_string(m) + " " + std::to_string(n) + "\n";
      std::vector<T> column_major;
      try {
        column_major.assign(static_cast<std::size_t>(cells), semiring_traits<T>::zero());
      } catch (const std::bad_alloc&) {
        std::string why("loom::write_matrix_market: out of memory buffering the ");
        why.append(std::to_string(cells)).append(" values of ").append(matrix);
        why.append(" (")
            .append(std::to_string(sizeof(T)))
            .append(" bytes each) for the array layout");
        throw error(why);
      }
      A.for_each_stored([&](const std::array<std::int64_t, 2>& c, const T& v) {
        T& slot = column_major[static_cast<std::size_t>(c[1] * m + c[0])];
        slot = semiring_traits<T>::add(slot, v);
      });
      for (const T& v : column_major) {
        text::append(buf.text, v);
        buf.text += '\n';
        buf.flush_if_full();
      }
    }
    buf.finish();
  }
}

/// Writes `A` to the file at `path`, all or nothing: through a temporary file beside it, renamed
/// over `path` once complete, so a failed write (full disk, file-size limit) leaves an existing
/// file as it was; the error names the path and the OS reason. See the stream overload for the
/// text, docs/io.md "Writing files safely" for the details (permissions, links, devices).
template <class T, storage_format Format, bool Owning>
void write_matrix_market(const std::string& path, const basic_tensor<T, Format, Owning>& A,
                         const matrix_market_options& options = {}) {
  detail::write_file(path, "loom::write_matrix_market",
                     [&](std::ostream& out) { write_matrix_market(out, A, options); });
}

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    char x = a[k], y = b[k];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

LOOM_DEF matrix_market_header read_matrix_market_banner(line_reader& r) {
  if (!r.next())
    r.fail("the input is empty; expected the banner " + std::string(matrix_market_banner_form));
  std::array<std::string_view, 6> w{};
  const std::size_t n = r.split(w);
  if (n == 0 || !iequals(w[0], "%%MatrixMarket"))
    r.fail("expected the banner " + std::string(matrix_market_banner_form) + ", found " +
           excerpt(r.line()) + " (is this a Matrix Market file?)");
  static constexpr std::array<std::string_view, 4> parts = {"object", "format", "field",
                                                            "symmetry"};
  if (n < 5)
    r.fail("the banner ends before its " + std::string(parts[n - 1]) + "; expected " +
           std::string(matrix_market_banner_form));
  if (n > 5) r.fail("unexpected word " + excerpt(w[5]) + " after the symmetry in the banner");

  matrix_market_header h;
  if (!iequals(w[1], "matrix"))
    r.fail("unknown object " + excerpt(w[1]) + " in the banner (expected 'matrix')");

  if (iequals(w[2], "array"))
    h.array = true;
  else if (!iequals(w[2], "coordinate"))
    r.fail("unknown format " + excerpt(w[2]) + " in the banner (expected 'coordinate' or 'array')");

  if (iequals(w[3], "pattern"))
    h.pattern = true;
  else if (iequals(w[3], "complex"))
    r.fail("the complex field is not supported yet; store the real part in a 'real' file");
  else if (!iequals(w[3], "real") && !iequals(w[3], "double") && !iequals(w[3], "integer"))
    r.fail("unknown field " + excerpt(w[3]) +
           " in the banner (expected 'real', 'double', 'integer', 'pattern' or 'complex')");

  using sym = matrix_market_header::symmetry_kind;
  if (iequals(w[4], "symmetric"))
    h.symmetry = sym::symmetric;
  else if (iequals(w[4], "skew-symmetric"))
    h.symmetry = sym::skew;
  else if (iequals(w[4], "hermitian"))
    r.fail("the hermitian symmetry is not supported yet (it needs complex values)");
  else if (!iequals(w[4], "general"))
    r.fail("unknown symmetry " + excerpt(w[4]) +
           " in the banner (expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian')");

  if (h.array && h.pattern)
    r.fail(
        "'array pattern' is not a valid combination: an array lists values; use "
        "'coordinate pattern'");
  if (h.pattern && h.symmetry == sym::skew)
    r.fail(
        "'pattern skew-symmetric' is not a valid combination: a pattern has no values to "
        "negate");
  return h;
}

LOOM_DEF std::int64_t read_index(const line_reader& r, std::string_view token, std::int64_t extent,
                                 const char* what) {
  std::int64_t v = 0;
  const parse_status st = parse_integer(token, v);
  if (st == parse_status::not_a_number)
    r.fail(std::string(what) + " index " + excerpt(token) + " is not an integer");
  if (st == parse_status::out_of_range || v < 1 || v > extent)
    r.fail(std::string(what) + " index " + excerpt(token) +
           (extent == 0 ? " is out of range: the matrix has no " + std::string(what) + "s"
                        : " is outside 1.." + std::to_string(extent) + " (indices are 1-based)"));
  return v - 1;
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom

#endif  // LOOM_IO_MATRIX_MARKET_HPP
