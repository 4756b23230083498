// Tests the arrays a kernel appends to (format/assembly/append_arrays.hpp) and the appender's whole-row
// append (format/assembly/appender.hpp, append_row): growth past the reserved room by one entry and by a
// row longer than a growth chunk, writing over a recycled output's old entries, and the csr
// built row by row against from_coo.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/format/assembly/appender.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

TEST_CASE("append_array: push and extend grow past the room, close trims") {
  std::vector<int> v;
  loom::detail::append_array<int> out;
  out.attach(v);
  for (int x = 0; x < 10; ++x) out.push(x);  // from no room at all
  const std::size_t long_row = 3 * loom::detail::append_chunk + 5;
  int* at = out.extend(long_row);  // more than one growth chunk at once
  for (std::size_t e = 0; e < long_row; ++e) at[e] = static_cast<int>(100 + e);
  out.push(-1);
  CHECK(out.size() == 10 + long_row + 1);
  out.close();
  REQUIRE(v.size() == 10 + long_row + 1);
  for (int x = 0; x < 10; ++x) CHECK(v[static_cast<std::size_t>(x)] == x);
  CHECK(v[10] == 100);
  CHECK(v[10 + long_row - 1] == static_cast<int>(100 + long_row - 1));
  CHECK(v.back() == -1);
}

TEST_CASE("append_array: extend over a recycled vector writes from its start") {
  std::vector<int> v(50, 7);
  const auto capacity = v.capacity();
  loom::detail::append_array<int> out;
  out.attach_over(v);
  int* at = out.extend(20);  // within the old elements: no growth
  for (int e = 0; e < 20; ++e) at[e] = e;
  out.close();
  CHECK(v.size() == 20);
  CHECK(v.capacity() == capacity);
  CHECK(v[19] == 19);
  out.attach_over(v);
  at = out.extend(60);  // past them
  for (int e = 0; e < 60; ++e) at[e] = -e;
  out.close();
  REQUIRE(v.size() == 60);
  CHECK(v[0] == 0);
  CHECK(v[59] == -59);
}

TEST_CASE("appender: append_row builds the csr that from_coo builds, fresh and recycled") {
  using csr_t = loom::tensor<double, loom::csr>;
  const std::int64_t rows = 6, cols = 9000;
  // row r holds columns r, r + 3, r + 6, ... (row 2 empty; row 4 longer than a growth chunk)
  std::vector<std::vector<std::int64_t>> columns(rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    if (r == 2) continue;
    const std::int64_t step = r == 4 ? 1 : 3;
    for (std::int64_t c = r; c < cols; c += step) columns[r].push_back(c);
  }
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < rows; ++r)
    for (const std::int64_t c : columns[r]) {
      coords.push_back({r, c});
      values.push_back(static_cast<double>(r * cols + c));
    }
  const csr_t want = loom::from_coo<loom::csr>({rows, cols}, coords, values);
  const auto append_all = [&](csr_t* recycled) {
    loom::detail::appender<double, loom::csr> out({rows, cols}, recycled);
    out.reserve(16);  // far too little: every long row grows the arrays
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto& row = columns[r];
      out.append_row(r, row.size(), [&](std::size_t e) {
        return std::pair<std::int64_t, double>{row[e], static_cast<double>(r * cols + row[e])};
      });
    }
    return std::move(out).finish();
  };
  csr_t fresh = append_all(nullptr);
  CHECK(fresh.level<1>().pos == want.level<1>().pos);
  CHECK(fresh.level<1>().crd == want.level<1>().crd);
  CHECK(std::ranges::equal(fresh.values(), want.values()));
  csr_t recycled = append_all(&fresh);  // fresh's arrays, written again from their start
  CHECK(recycled.level<1>().pos == want.level<1>().pos);
  CHECK(recycled.level<1>().crd == want.level<1>().crd);
  CHECK(std::ranges::equal(recycled.values(), want.values()));
}
