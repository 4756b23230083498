// Defines the run loops that drive a stream tree into a destination: a dense array, or a
// coordinate sink that assembles a sparse output (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_RUN_HPP
#define LOOM_STREAM_RUN_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/stream/combinators.hpp>
#include <loom/stream/concepts.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::stream {

// The loop template of Etch (notes §5.3) specialised by stream kind: the δ step is `next()`,
// which always-ready levels turn into `++position`, so a compressed level becomes a plain
// counted loop and a dense level a `for`.

/// reduce with a flag telling whether any value was emitted (sparse outputs skip empty sums).
template <class X> LOOM_FORCE_INLINE auto reduce_touched(const X& x) {
  using leaf = leaf_t<X>;
  if constexpr (factors_scale_v<X>) {
    const auto [v, touched] = reduce_touched(x.a);
    return std::pair<leaf, bool>{static_cast<leaf>(x.combine(v)), touched};
  } else if constexpr (separable_sum<X>()) {
    const auto [va, ta] = reduce_touched(x.a);
    const auto [vb, tb] = reduce_touched(x.b);
    return std::pair<leaf, bool>{
        semiring_traits<leaf>::add(static_cast<leaf>(va), static_cast<leaf>(vb)), ta || tb};
  } else if constexpr (!is_stream_v<X>) {
    return std::pair<leaf, bool>{x, true};
  } else if constexpr (lane_reducible<X>) {  // every index of a dense range is emitted
    return std::pair<leaf, bool>{reduce(x), x.valid()};
  } else if constexpr (reads_policy_v<X>) {
    return with_compiled_policy(x, [](const auto& y) { return reduce_touched(y); });
  } else if constexpr (drives_itself_v<X>) {
    leaf acc = semiring_traits<leaf>::zero();
    bool touched = false;
    x.for_each_ready([&](std::int64_t, const auto& v) {
      if constexpr (is_stream_v<std::remove_cvref_t<decltype(v)>>) {
        auto [w, t] = reduce_touched(v);
        if (t) {
          acc = semiring_traits<leaf>::add(acc, w);
          touched = true;
        }
      } else {
        acc = semiring_traits<leaf>::add(acc, v);
        touched = true;
      }
    });
    return std::pair<leaf, bool>{acc, touched};
  } else {
    leaf acc = semiring_traits<leaf>::zero();
    bool touched = false;
    X s = x;
    while (s.valid()) {
      if (s.ready()) {
        if constexpr (is_stream_v<decltype(s.value())>) {
          auto [v, t] = reduce_touched(s.value());
          if (t) {
            acc = semiring_traits<leaf>::add(acc, v);
            touched = true;
          }
        } else {
          acc = semiring_traits<leaf>::add(acc, s.value());
          touched = true;
        }
      }
      s.next();
    }
    return std::pair<leaf, bool>{acc, touched};
  }
}

template <class Cell, class S>
LOOM_FORCE_INLINE void run_located_steps(const Cell& cell, const std::int64_t* strides, const S& s,
                                         std::int64_t off);

/// Whether the cell's output takes S's values on the vector path (a dense output's row).
template <class Cell, class S> constexpr bool writes_in_lanes() {
  if constexpr (requires { Cell::stores; })
    return lanes::writes_in_lanes<S, typename Cell::value_type>;
  else
    return false;
}

/// The walk of an output written in place: each value lands at cell `off + Σ index·stride[depth]`
/// through `cell(off, value)`. A sum that emits nothing reaches no cell when the cell records
/// presence (`Cell::presence`), as a sparse output would; otherwise it adds zero.
template <class Cell, class S>
LOOM_FORCE_INLINE void run_located(const Cell& cell, const std::int64_t* strides, const S& s,
                                   std::int64_t off) {
  if constexpr (!is_stream_v<S>) {
    LOOM_COUNT_WORK(writes);
    cell(off, s);
  } else if constexpr (reducible<S>() && Cell::presence) {
    const auto [v, touched] = reduce_touched(s);
    if (touched) {
      LOOM_COUNT_WORK(writes);
      cell(off, v);
    }
  } else if constexpr (reducible<S>()) {
    LOOM_COUNT_WORK(writes);
    cell(off, reduce(s));                             // local sum
  } else if constexpr (writes_in_lanes<Cell, S>()) {  // a unit-stride output row: vector lanes
    if (strides[S::depth] == 1) {
      [[maybe_unused]] const std::int64_t n =
          lanes::write<Cell::stores>(cell.vals + off, s, sequential_sums(s));
      LOOM_COUNT_WORK_N(writes, n);
    } else {
      run_located_steps(cell, strides, s, off);
    }
  } else {
    run_located_steps(cell, strides, s, off);
  }
}

/// run_located's loop over a free stream's states, one value at a time.
template <class Cell, class S>
LOOM_FORCE_INLINE void run_located_steps(const Cell& cell, const std::int64_t* strides, const S& s,
                                         std::int64_t off) {
  if constexpr (reads_policy_v<S>) {
    with_compiled_policy(s, [&](const auto& y) { run_located(cell, strides, y, off); });
  } else if constexpr (drives_itself_v<S>) {
    s.for_each_ready([&](std::int64_t pos, const auto& v) {
      if constexpr (S::contracted)
        run_located(cell, strides, v, off);
      else
        run_located(cell, strides, v, off + pos * strides[S::depth]);
    });
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (S::contracted)
          run_located(cell, strides, st.value(), off);
        else
          run_located(cell, strides, st.value(), off + st.index() * strides[S::depth]);
      }
      st.next();
    }
  }
}

/// A dense output's cell: `vals[off] += value`.
template <class T> struct dense_cell {
  static constexpr bool presence = false, stores = false;  // stores: on the vector path
  using value_type = T;
  T* vals;
  LOOM_FORCE_INLINE void operator()(std::int64_t off, const auto& v) const {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(v));
  }
};

/// A dense output's cell written once: `vals[off] = value`, for loops that reach every cell
/// exactly once (writes_each_cell_once), so the output need not be zeroed first.
template <class T> struct store_cell {
  static constexpr bool presence = false, stores = true;
  using value_type = T;
  T* vals;
  LOOM_FORCE_INLINE void operator()(std::int64_t off, const auto& v) const {
    vals[off] = static_cast<T>(v);
  }
};

/// Whether run_located(cell, strides, s, off) over a dense output of order N calls `cell` exactly
/// once per cell: the first N loops are full (every index of the extent) and none of them is
/// summed, so they are the output's indices, and below them each cell gets one value (a scalar,
/// or a sum reduced to one). Then `=` stores instead of zeroing the output and adding.
template <class S, std::size_t N> constexpr bool writes_each_cell_once() {
  if constexpr (N == 0)
    return reducible<S>();
  else if constexpr (!is_stream_v<S>)
    return false;
  else if constexpr (!S::full || S::contracted)
    return false;
  else
    return writes_each_cell_once<std::remove_cvref_t<decltype(std::declval<const S&>().value())>,
                                 N - 1>();
}

/// A `format<dense..., bitmap>` output's cell (Galley's bytemap): the value accumulated like a
/// dense one, and the presence bit at the same position set.
template <class T> struct bitmap_cell {
  static constexpr bool presence = true;
  T* vals;
  std::uint64_t* bits;
  LOOM_FORCE_INLINE void operator()(std::int64_t off, const auto& v) const {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(v));
    bits[off >> 6] |= std::uint64_t{1} << (off & 63);
  }
};

/// run_located of an outer loop over the rows of a dense output of `size` cells (its first
/// stored mode, rows of strides[S::depth] cells), zeroing each row just before its loop runs
/// and the rows it skips, so that `=` needs no pass over the whole output first.
template <class T, class S>
LOOM_FORCE_INLINE void run_located_by_rows(const dense_cell<T>& cell, const std::int64_t* strides,
                                           const S& s, std::int64_t size) {
  if constexpr (reads_policy_v<S>) {
    with_compiled_policy(s, [&](const auto& y) { run_located_by_rows(cell, strides, y, size); });
  } else {
    const std::int64_t row = strides[S::depth];
    std::int64_t zeroed = 0;  // cells [0, zeroed) are zero or written
    auto one = [&](std::int64_t outer, const auto& v) {
      const std::int64_t end = (outer + 1) * row;
      if constexpr (std::is_floating_point_v<T>)
        lanes::zero(cell.vals + zeroed, end - zeroed);
      else
        std::fill(cell.vals + zeroed, cell.vals + end, semiring_traits<T>::zero());
      zeroed = end;
      run_located(cell, strides, v, outer * row);
    };
    if constexpr (drives_itself_v<S>) {
      s.for_each_ready(one);
    } else {
      for (S st = s; st.valid(); st.next())
        if (st.ready()) one(st.index(), st.value());
    }
    std::fill(cell.vals + zeroed, cell.vals + size, semiring_traits<T>::zero());
  }
}

/// Accumulates a stream into a dense array: `vals[off + Σ index·stride[depth]] += value`.
template <class T, class S>
LOOM_FORCE_INLINE void run_dense(T* vals, const std::int64_t* strides, const S& s,
                                 std::int64_t off) {
  run_located(dense_cell<T>{vals}, strides, s, off);
}

/// Collects the entries of a sparse output in order (coordinates in the output's storage
/// order): the loop order emits each output coordinate once, ascending.
/// Where sinks put finished entries: a plain list (merged later with existing entries).
template <class T, std::size_t N> struct entry_list {
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<T> vals;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) {
    crd.push_back(c);
    vals.push_back(v);
  }
};

/// What an append sink writes through: the output's row writer, held by value, when it has one
/// (a csr-like appender), else nothing (entries go to `out.push`).
struct no_writer {};
template <class Out> struct writer_of {
  using type = no_writer;
};
template <class Out>
  requires requires(Out& o) { o.take_writer(); }
struct writer_of<Out> {
  using type = decltype(std::declval<Out&>().take_writer());
};
template <class Out> typename writer_of<Out>::type take_writer(Out& out) {
  if constexpr (std::is_same_v<typename writer_of<Out>::type, no_writer>)
    return {};
  else
    return out.take_writer();
}

/// `DepthOfLevel[k]`: the loop depth that iterates output level k, a constant, so that the
/// current indices stay in registers rather than in an array read through a runtime map.
template <class T, std::size_t N, class Out, std::array<std::size_t, N> DepthOfLevel>
struct append_sink {
  using value_type = T;
  static constexpr std::array<std::size_t, N> depth_of_level = DepthOfLevel;
  static constexpr bool writes_rows = !std::is_same_v<typename writer_of<Out>::type, no_writer>;
  Out& out;
  std::array<std::int64_t, 32> at_depth{};  // current index of each depth
  [[no_unique_address]] typename writer_of<Out>::type writer = take_writer(out);

  LOOM_FORCE_INLINE void push(const T& v) {
    if constexpr (writes_rows) {
      writer.push(at_depth[DepthOfLevel[1]], v);
    } else {
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        out.push(std::array<std::int64_t, N>{at_depth[DepthOfLevel[Ks]]...}, v);
      }(std::make_index_sequence<N>{});
    }
  }
  /// Ends the loop at `depth` for the current index; true when that index's entries did not
  /// fit and must be pushed again (the row writer has grown its arrays).
  LOOM_FORCE_INLINE bool end_of(std::size_t depth) {
    if constexpr (writes_rows)
      if (depth == DepthOfLevel[0]) return writer.end_row(at_depth[DepthOfLevel[0]]);
    return false;
  }
  void finish() {
    if constexpr (writes_rows) out.return_writer(writer);
  }
  /// Takes the writer again, from `out` as it is now (a sink serving several chunks in turn).
  void restart() {
    if constexpr (writes_rows) writer = out.take_writer();
  }
};

/// A sink that writes values only, in order: the output's pattern is an operand's
/// (plan::pattern_of), copied beforehand. The value array is held by value (in registers).
template <class T, class Values> struct values_sink {
  using value_type = T;
  Values values;
  std::array<std::int64_t, 32> at_depth{};
  LOOM_FORCE_INLINE void push(const T& v) { values.push(v); }
  LOOM_FORCE_INLINE bool end_of(std::size_t) { return false; }
  void finish() {}
};

/// Drives a stream into a sink (append or workspace).
template <class Sink, class S> LOOM_FORCE_INLINE void run_sparse(Sink& sink, const S& s) {
  using T = typename Sink::value_type;
  if constexpr (!is_stream_v<S>) {
    LOOM_COUNT_WORK(writes);
    sink.push(static_cast<T>(s));
  } else if constexpr (reducible<S>()) {
    auto [v, touched] = reduce_touched(s);
    if (touched) {
      LOOM_COUNT_WORK(writes);
      sink.push(static_cast<T>(v));
    }
  } else if constexpr (reads_policy_v<S>) {
    with_compiled_policy(s, [&](const auto& y) { run_sparse(sink, y); });
  } else if constexpr (drives_itself_v<S>) {
    s.for_each_ready([&](std::int64_t pos, const auto& v) {
      if constexpr (!S::contracted) {
        sink.at_depth[S::depth] = pos;
        do run_sparse(sink, v);
        while (sink.end_of(S::depth));  // again when its entries did not fit
      } else {
        run_sparse(sink, v);
      }
    });
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (!S::contracted) {
          sink.at_depth[S::depth] = st.index();
          do run_sparse(sink, st.value());
          while (sink.end_of(S::depth));  // again when its entries did not fit
        } else {
          run_sparse(sink, st.value());
        }
      }
      st.next();
    }
  }
}

}  // namespace loom::stream

#endif  // LOOM_STREAM_RUN_HPP
