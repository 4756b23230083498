// Defines the arrays a kernel's hot loop appends to (format/assembly/): append_array (the end of a growing
// vector), fill_array (values of a known length) and row_writer (a csr-like output's rows, held
// in registers); the appender and parallel::row_target hand them to the run loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLY_APPEND_ARRAYS_HPP
#define LOOM_FORMAT_ASSEMBLY_APPEND_ARRAYS_HPP

#include <loom/core/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::detail {

/// Entries an append grows its arrays by when they are full, value-initialised just before they
/// are written (the pages are touched once either way).
inline constexpr std::size_t append_chunk = 4096;

/// Stores a row's `n` entries at `crd` and `values`: `entry(e)` gives the e-th column and value.
/// The appender's and a parallel chunk's `append_row`, once their room is made.
template <class Crd, class T, class Entry>
LOOM_FORCE_INLINE void store_row(Crd* crd, T* values, std::size_t n, Entry& entry) {
  for (std::size_t e = 0; e < n; ++e) {
    const auto [column, value] = entry(e);
    crd[e] = static_cast<Crd>(column);
    values[e] = value;
  }
}

/// The end of a vector that a hot loop appends to: `push` is a compare and a store, inlined
/// (std::vector::push_back stayed out of line in the kernels' loops; docs/optimizer.md). The
/// vector's size runs ahead of the entries by at most one chunk, value-initialised just before
/// it is written (the pages are touched once either way); `close` trims it. Capacity is kept,
/// so a kernel that writes the same output again allocates nothing.
template <class X> struct append_array {
  std::vector<X>* v = nullptr;
  X* cur = nullptr;
  X* lim = nullptr;

  /// Appends after the vector's current elements.
  void attach(std::vector<X>& vec) {
    v = &vec;
    cur = vec.data() + vec.size();
    lim = cur;
  }
  /// Appends after the vector's first `n` elements, over the rest of its current elements.
  void attach_at(std::vector<X>& vec, std::size_t n) {
    v = &vec;
    cur = vec.data() + n;
    lim = vec.data() + vec.size();
  }
  /// Writes from the vector's start over its current elements (an output written again): no
  /// element is value-initialised before it is overwritten, unlike growing from an empty vector
  /// (`grow` zero-fills each chunk, a second store per element). `close` drops what is left.
  void attach_over(std::vector<X>& vec) {
    v = &vec;
    cur = vec.data();
    lim = cur + vec.size();
  }
  LOOM_FORCE_INLINE void push(const X& x) {
    if (cur == lim) [[unlikely]] {
      const auto [c, l] = grow(v, cur);
      cur = c;
      lim = l;
    }
    *cur++ = x;
  }
  /// Room for `n` more elements, made with one compare: returns where they go; the caller
  /// writes all n (a workspace's row, whose length is known before it is written).
  LOOM_FORCE_INLINE X* extend(std::size_t n) {
    if (static_cast<std::size_t>(lim - cur) < n) [[unlikely]] {
      const auto [c, l] = grow(v, cur, n);
      cur = c;
      lim = l;
    }
    X* at = cur;
    cur += n;
    return at;
  }
  std::size_t size() const { return static_cast<std::size_t>(cur - v->data()); }
  /// The vector holds exactly the pushed elements.
  void close() { v->resize(size()); }

 private:
  // out of line, and given values rather than `this`, so that a writer held in a kernel's
  // local sink stays in registers
  // room for at least `more` elements after `cur` (fewer than that are left)
  [[gnu::noinline]] static std::pair<X*, X*> grow(std::vector<X>* v, X* cur, std::size_t more = 1) {
    constexpr std::size_t chunk = append_chunk;
    const auto n = static_cast<std::size_t>(cur - v->data());
    const std::size_t size = n + std::max(more, chunk);
    if (n + more > v->capacity()) v->reserve(std::max(2 * v->capacity(), size));
    v->resize(std::min(v->capacity(), size));
    return {v->data() + n, v->data() + v->size()};
  }
};

/// Writes the values of an array whose length is known (an output on an operand's pattern): a
/// compare and a store, and no call, since nothing grows, so the value written never has to
/// survive a call (append_array's growth made SDDMM's values go through the stack). Pushes past
/// the end are counted, not written: the caller compares the count with the length.
template <class X> struct fill_array {
  X* cur = nullptr;
  X* lim = nullptr;
  LOOM_FORCE_INLINE void push(const X& x) {
    if (cur < lim) [[likely]]
      *cur = x;
    ++cur;
  }
};

/// The appends of a csr-like output, held by value: the count of entries per row, the starts of
/// `crd` and the values, the room they have, and the entries written. An in-order kernel's sink
/// holds it from its first entry to its last (`take_writer`, `return_writer` of the appender and
/// of parallel::row_target), so that it lives in registers. An append is a compare and two
/// stores, never a call: with a growth call in the loop the compilers kept the ends and the
/// value on the stack (measured in docs/optimizer.md, "Outputs"). A row that did not fit
/// is counted, not written: at its end the arrays grow and `end_row` asks for the row again
/// (stream::run_sparse).
/// `Relative`: row r's count is at counts[r - first_row] (a chunk's rows); otherwise at
/// counts[r], and `first_row` is unused (the serial loop: one subtraction and one live value
/// fewer per row, which the hand-loop benchmark sees on short rows).
template <class T, class Pos, class Crd, bool Relative = false> struct row_writer {
  Pos* counts;
  std::int64_t first_row;
  Crd* crd;
  T* values;
  std::int64_t written;    // entries pushed, those past `room` included
  std::int64_t room;       // entries the arrays hold
  std::int64_t row_start;  // entries written before the current row
  std::vector<Crd>* crd_array;
  std::vector<T>* value_array;
  LOOM_FORCE_INLINE void push(std::int64_t column, const T& v) {
    if (written < room) [[likely]] {
      crd[written] = static_cast<Crd>(column);
      values[written] = v;
    }
    ++written;
  }
  /// Ends a row's run; true when it did not fit and must be written again (the arrays have
  /// grown). A row's count is added once at its end (a row may arrive in several runs).
  LOOM_FORCE_INLINE bool end_row(std::int64_t row) {
    if (written > room) [[unlikely]] {
      const auto [c, v, r] = grow(crd_array, value_array, written);
      crd = c;
      values = v;
      room = r;
      written = row_start;
      return true;
    }
    if constexpr (Relative)
      counts[row - first_row] += static_cast<Pos>(written - row_start);
    else
      counts[row] += static_cast<Pos>(written - row_start);
    row_start = written;
    return false;
  }

 private:
  struct grown {
    Crd* crd;
    T* values;
    std::int64_t room;
  };
  // out of line, and given values rather than `this`, so that the writer stays in registers
  [[gnu::noinline]] static grown grow(std::vector<Crd>* c, std::vector<T>* v, std::int64_t needed) {
    constexpr std::size_t chunk = append_chunk;
    const auto n = static_cast<std::size_t>(needed);
    const std::size_t reserved = std::min(c->capacity(), v->capacity());
    std::size_t room = n + chunk;
    if (n <= reserved) {
      room = std::min(room, reserved);  // within the reservation: no copy
    } else {
      c->reserve(std::max(2 * reserved, room));
      v->reserve(std::max(2 * reserved, room));
    }
    c->resize(room);
    v->resize(room);
    return {c->data(), v->data(), static_cast<std::int64_t>(room)};
  }
};

}  // namespace loom::detail

#endif  // LOOM_FORMAT_ASSEMBLY_APPEND_ARRAYS_HPP
