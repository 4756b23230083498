// libFuzzer target of the view factories (format/view.hpp): from fuzzed extents and arrays,
// csr_view, csc_view, dense_matrix_view and dense_vector_view either make a view that is safe to
// read and compute with, or throw loom::error; they never crash.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (tests/fuzz/CMakeLists.txt, docs/testing.md "Fuzzing"):
//   ./fuzz_view -max_total_time=120 -max_len=4096 corpus/ tests/fuzz/corpus/view
// The bytes are read as: the factory (byte 0 mod 4: csr, csc, dense matrix, dense vector), the
// widths (byte 1 bit 0: 64-bit positions and 32-bit coordinates of double values, or 32-bit
// unsigned positions and 16-bit coordinates of int values), the rows and columns (an `extent`:
// a byte b read as b - 4 when below 0xf8, else an edge value such as -2^63, 2^31, 2^32 or 8 raw
// bytes), then for compressed views the lengths of pos, crd and values (a byte each) and their
// entries (extents, cast to the array's type), for dense views the length of values. The values
// are small integers. A view that is made must report its shape, visit only coordinates inside
// it (nnz of them, strictly ascending within each outer slice), and give the same SpMV
// y(i) = sum(j, A(i,j) * x(j)) as a loop over its entries when it has at most 2^12 rows and
// columns. Without LOOM_FUZZ_LIBFUZZER, a doctest of tests.fuzz replays tests/fuzz/corpus/view.
#include <loom/loom.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "fuzz_support.hpp"

namespace {

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

// The fuzzer's bytes, read front to back; past the end every read gives 0.
class byte_reader {
 public:
  byte_reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::size_t left() const { return size_ - at_; }
  std::int64_t extent() {
    const std::uint8_t b = byte();
    if (b < 0xf8) return std::int64_t{b} - 4;
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
    constexpr std::array<std::int64_t, 7> edges = {lo,
                                                   hi,
                                                   std::int64_t{1} << 31,
                                                   std::int64_t{1} << 32,
                                                   -(std::int64_t{1} << 32),
                                                   std::int64_t{1} << 62,
                                                   65536};
    if (b - 0xf8 < 7) return edges[b - 0xf8];
    std::uint64_t raw = 0;
    for (int k = 0; k < 8; ++k) raw = raw << 8 | byte();
    std::int64_t v = 0;
    std::memcpy(&v, &raw, sizeof v);
    return v;
  }
  // `n` entries read as extents and cast to T.
  template <class T> std::vector<T> array(std::size_t n) {
    std::vector<T> out;
    for (std::size_t k = 0; k < n && left() > 0; ++k) out.push_back(static_cast<T>(extent()));
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

constexpr std::int64_t max_spmv_extent = 1 << 12;

// A made view: its entries are inside its shape, ascending per outer slice, nnz() of them; and
// (when small) its SpMV agrees with a loop over the entries.
template <class View>
void check_view(const View& A, std::int64_t rows, std::int64_t cols, bool column_major) {
  using T = std::remove_const_t<typename View::value_type>;
  if (A.shape() != std::array<std::int64_t, 2>{rows, cols}) std::abort();
  const bool small = rows <= max_spmv_extent && cols <= max_spmv_extent;
  std::vector<T> expected(small ? static_cast<std::size_t>(rows) : 0, T{});
  std::int64_t count = 0;
  std::array<std::int64_t, 2> last = {-1, -1};
  A.for_each_stored([&](const std::array<std::int64_t, 2>& c, const T& v) {
    if (c[0] < 0 || c[0] >= rows || c[1] < 0 || c[1] >= cols) std::abort();
    const std::int64_t outer = column_major ? c[1] : c[0], inner = column_major ? c[0] : c[1];
    const std::int64_t last_outer = column_major ? last[1] : last[0];
    const std::int64_t last_inner = column_major ? last[0] : last[1];
    if (outer < last_outer || (outer == last_outer && inner <= last_inner)) std::abort();
    last = c;
    ++count;
    if (small) expected[static_cast<std::size_t>(c[0])] += v * static_cast<T>(c[1] % 7 + 1);
  });
  if (count != static_cast<std::int64_t>(A.nnz())) std::abort();
  if (!small) return;
  std::vector<T> x_vals(static_cast<std::size_t>(cols));
  for (std::size_t k = 0; k < x_vals.size(); ++k) x_vals[k] = static_cast<T>(k % 7 + 1);
  const auto x = loom::dense_vector_view<const T>(x_vals);
  loom::tensor<T, loom::dense_vector> y({rows});
  y(i) = loom::sum(j, A(i, j) * x(j));
  if (!std::equal(expected.begin(), expected.end(), y.values().begin(), y.values().end()))
    std::abort();
}

template <class T, class Pos, class Crd> void compressed_view(byte_reader& in, bool csc) {
  const std::int64_t rows = in.extent(), cols = in.extent();
  const std::size_t n_pos = in.byte(), n_crd = in.byte(), n_vals = in.byte();
  const std::vector<Pos> pos = in.array<Pos>(n_pos);
  const std::vector<Crd> crd = in.array<Crd>(n_crd);
  std::vector<T> vals;
  for (std::size_t k = 0; k < n_vals; ++k) vals.push_back(static_cast<T>(in.byte() % 16));
  try {
    if (csc)
      check_view(loom::csc_view<const T, Pos, Crd>(rows, cols, pos, crd, vals), rows, cols, true);
    else
      check_view(loom::csr_view<const T, Pos, Crd>(rows, cols, pos, crd, vals), rows, cols, false);
  } catch (const loom::error&) {
  }
}

void dense_views(byte_reader& in, bool matrix) {
  const std::int64_t rows = matrix ? in.extent() : 0, cols = matrix ? in.extent() : 0;
  std::vector<double> vals(in.byte(), 1.0);
  try {
    if (matrix) {
      const auto A = loom::dense_matrix_view<const double>(rows, cols, vals);
      // rows x 0 (or 0 x cols) over no values is a valid view; walking 2^31 empty rows is not
      // what this target is for
      if (rows <= max_spmv_extent)
        check_view(A, rows, cols, false);
      else if (A.shape() != std::array<std::int64_t, 2>{rows, cols})
        std::abort();
    } else {
      const auto v = loom::dense_vector_view<double>(vals);
      if (v.shape()[0] != static_cast<std::int64_t>(vals.size())) std::abort();
    }
  } catch (const loom::error&) {
  }
}

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  byte_reader in(data, size);
  const int factory = in.byte() % 4;
  const bool wide = (in.byte() & 1) == 0;
  if (factory < 2) {
    if (wide)
      compressed_view<double, std::int64_t, std::int32_t>(in, factory == 1);
    else
      compressed_view<int, std::uint32_t, std::int16_t>(in, factory == 1);
  } else {
    dense_views(in, factory == 2);
  }
  return 0;
}

}  // namespace

LOOM_FUZZ_ENTRY("view", fuzz_one)
