// Defines loom::detail::appender: builds a tensor's levels online from entries that arrive
// sorted and unique in storage order (the sink of in-order sparse outputs) (format/assembly/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLY_APPENDER_HPP
#define LOOM_FORMAT_ASSEMBLY_APPENDER_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/append_arrays.hpp>
#include <loom/format/tensor.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace loom::detail {

// Levels the appender builds online (by their declared layout: docs/levels.md); a format with
// any other level (hashed, bitmap, banded, a user level of no layout) buffers its entries and
// assembles them through the levels' hooks at the end.
template <class L>
inline constexpr bool appends_online =
    layout_of<L> == level_layout::dense || layout_of<L> == level_layout::compressed ||
    layout_of<L> == level_layout::singleton;
// a level appended as compressed and laid out at the end (level_layout::appended), innermost only
template <class L>
inline constexpr bool appended_then_adapted = layout_of<L> == level_layout::appended;
template <class Levels> inline constexpr bool all_append_online = false;
template <class... Ls>
inline constexpr bool all_append_online<boost::mp11::mp_list<Ls...>> = [] {
  std::size_t nth = 0;
  return (... &&
          (++nth, appends_online<Ls> || (appended_then_adapted<Ls> && nth == sizeof...(Ls))));
}();

/// Whether a format is one dense level over one compressed unique level (csr, csc), which the
/// appender can fill by a counting sort on the row (`appender::fill_by_rows`).
template <class Format>
inline constexpr bool rows_of_columns = [] {
  if constexpr (Format::order == 2 && all_append_online<typename Format::levels>) {
    using outer = boost::mp11::mp_at_c<typename Format::levels, 0>;
    using inner = boost::mp11::mp_at_c<typename Format::levels, 1>;
    return outer::properties.full && !inner::properties.full && !inner::properties.segmented &&
           inner::properties.unique;
  } else {
    return false;
  }
}();

/// The position and coordinate types of a csr-like format's compressed level.
template <class Format, bool = rows_of_columns<Format>> struct row_arrays {
  using pos_type = std::int64_t;
  using crd_type = std::int64_t;
};
template <class Format> struct row_arrays<Format, true> {
  using pos_type = typename boost::mp11::mp_at_c<typename Format::levels, 1>::pos_type;
  using crd_type = typename boost::mp11::mp_at_c<typename Format::levels, 1>::crd_type;
};

/// Appends entries in storage order (coordinates per level, ascending, no repeats) straight
/// into level arrays, as TACO's assembly does: no intermediate coordinate list. Given the
/// output it replaces, it refills that output's arrays (cleared, capacity kept).
template <class T, class Format> class appender {
 public:
  static constexpr std::size_t N = Format::order;
  using tensor_type = basic_tensor<T, Format, true>;

  static constexpr bool online = all_append_online<typename Format::levels>;
  /// csr-like (one dense level over one compressed unique level): an entry is a count in its
  /// row's `pos` slot and a store in `crd` and the values, like the hand-written loop.
  static constexpr bool by_rows = loom::detail::rows_of_columns<Format>;

  explicit appender(const std::array<std::int64_t, N>& shape, tensor_type* recycled = nullptr)
      : shape_(shape) {
    if constexpr (online) {
      if (recycled != nullptr) {  // take the old arrays, keep their capacity
        levels_ = std::move(recycled->levels_);
        values_ = std::move(recycled->values_);
        recycled->version_.bump();
        if constexpr (by_rows) {  // crd and values are overwritten in place (attach_rows)
          clear_level(std::get<0>(levels_));
          std::get<1>(levels_).pos.clear();
        } else {
          [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
            (clear_level(std::get<Ks>(levels_)), ...);
          }(std::make_index_sequence<N>{});
          values_.clear();
        }
      }
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        ((level_extent_[Ks] = shape_[Format::modes[Ks]]), ...);
        (init_level<Ks>(), ...);
      }(std::make_index_sequence<N>{});
      if constexpr (by_rows) attach_rows();
    }
  }

  /// Reserves room for about `expected` entries (an estimate; capacity already held is kept).
  /// Called before the first entry is appended.
  void reserve(std::size_t expected) {
    if constexpr (!online) {
      buffer_.crd.reserve(expected);
      buffer_.vals.reserve(expected);
      return;
    } else
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        (
            [&] {
              if constexpr (!level<Ks>::properties.full)
                std::get<Ks>(levels_).crd.reserve(expected);
            }(),
            ...);
      }(std::make_index_sequence<N>{});
    if constexpr (online && !Format::properties[N - 1].full) values_.reserve(expected);
    if constexpr (by_rows) attach_rows();
  }

  /// Appends one entry; `c[k]` is the coordinate of level k.
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) {
    if constexpr (!online) {
      buffer_.crd.push_back(c);
      buffer_.vals.push_back(v);
    } else if constexpr (by_rows) {
      ++row_counts_[c[0] + 1];
      crd_out_.push(static_cast<typename level<1>::crd_type>(c[1]));
      values_out_.push(v);
    } else {
      push_online(c, v);
    }
  }

  /// Appends row `row`'s `n` entries, columns ascending: `entry(e)` gives the e-th column and
  /// value. The row's count is added once and the room made once, so each entry is two stores,
  /// as in the hand-written loop (a count per entry chained its stores through one address: a
  /// workspace's flush spent a fifth of SpGEMM's time in `push`).
  template <class Entry>
  LOOM_FORCE_INLINE void append_row(std::int64_t row, std::size_t n, Entry&& entry)
    requires by_rows
  {
    row_counts_[row + 1] += static_cast<typename level<1>::pos_type>(n);
    loom::detail::store_row(crd_out_.extend(n), values_out_.extend(n), n, entry);
  }

  using row_writer = loom::detail::row_writer<T, typename row_arrays<Format>::pos_type,
                                              typename row_arrays<Format>::crd_type>;
  /// The writer starts where the appends stopped (the start, unless `fill_by_rows` ran) and
  /// has the arrays' current length as room: an output written again with the same pattern
  /// value-initialises nothing.
  row_writer take_writer()
    requires by_rows
  {
    auto& crd = *crd_out_.v;
    const auto n = static_cast<std::int64_t>(crd_out_.size());
    const auto room = static_cast<std::int64_t>(std::min(crd.size(), values_.size()));
    return {row_counts_ + 1, 0, crd.data(), values_.data(), n, room, n, &crd,
            &values_};  // pos[r + 1]
  }
  void return_writer(const row_writer& w)
    requires by_rows
  {
    if (w.written > w.room)
      throw std::logic_error(
          "loom internal error: a row writer left a row unwritten; please report");
    const auto kept = static_cast<std::size_t>(w.written);
    crd_out_.attach_at(*crd_out_.v, kept);
    values_out_.attach_at(values_, kept);
  }

  /// `out` takes `pattern`'s levels (copied into its own arrays, capacity kept; not copied again
  /// while neither tensor has changed since, pattern_memo) and its values
  /// are refilled by `run(values)`, which pushes one value per entry of `pattern`, in order, to
  /// the `fill_array<T>` it is given (sized once: a kernel run again touches no new memory).
  /// False, with `out` to be rebuilt by the caller, when the count differs (a reduction that
  /// emitted nothing).
  template <class Run>
  static bool fill_values_on_pattern(tensor_type& out, const tensor_type& pattern, Run&& run) {
    const bool copied =
        out.pattern_memo_ == detail::pattern_memo{&pattern, pattern.version(), out.version()};
    out.version_.bump();
    out.pattern_memo_ = {};
    if (!copied) out.levels_ = pattern.levels_;  // else unchanged since the last call: equal
    const std::size_t n = pattern.values_.size();
    out.values_.resize(n);
    fill_array<T> values{out.values_.data(), out.values_.data() + n};
    run(values);
    if (values.cur != values.lim) return false;
    out.pattern_memo_ = {&pattern, pattern.version(), out.version()};
    return true;
  }

  /// Moves `t`'s level arrays and values out (capacity kept) for a writer that refills them;
  /// `t` is left to be assigned.
  static std::pair<typename tensor_type::level_storages, std::vector<T>> take_arrays(
      tensor_type& t) {
    t.version_.bump();
    return {std::move(t.levels_), std::move(t.values_)};
  }

  /// Whether `fill_by_rows` can fill the format.
  static constexpr bool rows_of_columns = loom::detail::rows_of_columns<Format>;

  /// Fills an appender that holds nothing yet with `n` entries: entry e is at `row(e)`,
  /// `column(e)` with value `value(e)`. Rows come in any order; within a row, columns ascend
  /// and repeat only next to each other (repeats are added). A counting sort on the row writes
  /// straight into the level arrays, as a hand-written CSR transpose does: no sort and no
  /// per-entry bookkeeping (a transpose's flush spent 5 ns per entry in `push`).
  template <class Row, class Column, class Value>
  void fill_by_rows(std::size_t n, Row row, Column column, Value value, bool may_repeat)
    requires rows_of_columns
  {
    using pos_type = typename level<1>::pos_type;
    auto& st = std::get<1>(levels_);
    // Positions are counted in the level's own type only when n entries fit it; else in 64 bits,
    // and the entries kept (repeats merged) are checked before a narrow position is written.
    if (fits_in<pos_type>(static_cast<std::int64_t>(n))) {
      fill_rows(st.pos, n, row, column, value, may_repeat);
    } else {
      if (!may_repeat) check_fits<pos_type>(static_cast<std::int64_t>(n), "number of positions");
      std::vector<std::int64_t> wide;
      fill_rows(wide, n, row, column, value, may_repeat);
      check_fits<pos_type>(count_, "number of positions");
      st.pos.assign(wide.begin(), wide.end());  // per-row counts, each at most count_
    }
    attach_rows(true);  // the arrays now hold the entries: later appends go after them
  }

 private:
  // fill_by_rows into `pos` (rows + 1 counts of any integer type wide enough for n)
  template <class PosArray, class Row, class Column, class Value>
  void fill_rows(PosArray& pos, std::size_t n, Row row, Column column, Value value,
                 bool may_repeat) {
    using P = typename PosArray::value_type;
    auto& st = std::get<1>(levels_);
    const auto rows = static_cast<std::size_t>(level_extent_[0]);
    pos.assign(rows + 1, 0);
    for (std::size_t e = 0; e < n; ++e) ++pos[static_cast<std::size_t>(row(e)) + 1];
    P start = 0;  // pos[r + 1]: where row r starts, then its end
    for (std::size_t r = 1; r <= rows; ++r) start += std::exchange(pos[r], start);
    st.crd.resize(n);
    values_.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
      const auto q = static_cast<std::size_t>(pos[static_cast<std::size_t>(row(e)) + 1]++);
      st.crd[q] = static_cast<typename level<1>::crd_type>(column(e));
      values_[q] = value(e);
    }
    // back to counts per row (finish_level sums them), merging repeats on the way
    std::size_t kept = n;
    if (!may_repeat) {
      for (std::size_t r = rows; r >= 1; --r) pos[r] -= pos[r - 1];
    } else {
      kept = 0;
      for (std::size_t r = 1, begin = 0; r <= rows; ++r) {
        const auto end = static_cast<std::size_t>(pos[r]);
        const std::size_t first = kept;
        for (std::size_t q = begin; q < end; ++q) {
          if (kept > first && st.crd[kept - 1] == st.crd[q]) {
            values_[kept - 1] = semiring_traits<T>::add(values_[kept - 1], values_[q]);
          } else {
            st.crd[kept] = st.crd[q];
            values_[kept++] = values_[q];
          }
        }
        pos[r] = static_cast<P>(kept - first);
        begin = end;
      }
      st.crd.resize(kept);
      values_.resize(kept);
    }
    count_ = static_cast<std::int64_t>(kept);
  }

 public:
  /// The finished tensor (dense levels padded, `pos` arrays completed).
  tensor_type finish() && {
    if constexpr (!online) {
      return assemble_sorted<T, Format>(shape_, buffer_.crd, std::move(buffer_.vals));
    } else {
      return std::move(*this).finish_online();
    }
  }

 private:
  LOOM_FORCE_INLINE void push_online(const std::array<std::int64_t, N>& c, const T& v) {
    std::size_t first = 0;  // first level whose coordinate differs from the previous entry
    if (count_ > 0)
      while (first < N && c[first] == last_[first]) ++first;
    push_levels<0>(c, first);
    last_ = c;
    ++count_;
    const std::int64_t p = position_[N - 1];
    if constexpr (Format::properties[N - 1].full) {
      if (static_cast<std::int64_t>(values_.size()) <= p)
        values_.resize(static_cast<std::size_t>(p) + 1, semiring_traits<T>::zero());
      values_[static_cast<std::size_t>(p)] = v;
    } else {
      values_.push_back(v);
    }
  }

  tensor_type finish_online() && {
    if constexpr (by_rows) {
      crd_out_.close();
      values_out_.close();
    }
    std::int64_t parents = 1;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (finish_level<Ks>(parents), ...);
    }(std::make_index_sequence<N>{});
    if (Format::properties[N - 1].full)
      values_.resize(static_cast<std::size_t>(parents), semiring_traits<T>::zero());
    if constexpr (N > 0) {
      if constexpr (appended_then_adapted<level<N - 1>>)
        level<N - 1>::adapt(std::get<N - 1>(levels_), values_, level_extent_[N - 1],
                            semiring_traits<T>::zero());
    }
    return tensor_type(shape_, std::move(levels_), std::move(values_));
  }

  template <std::size_t K> using level = boost::mp11::mp_at_c<typename Format::levels, K>;

  template <class Storage> static void clear_level(Storage& st) {
    if constexpr (requires { st.pos.clear(); }) st.pos.clear();
    if constexpr (requires { st.crd.clear(); }) st.crd.clear();
  }
  // the row counts sized once (rows + 1), the appends aimed at the arrays' starts (before the
  // first entry: a recycled output's old entries are overwritten, an empty array is the same)
  // or, with `append`, at their ends
  void attach_rows(bool append = false)
    requires by_rows
  {
    auto& st = std::get<1>(levels_);
    const auto slots = static_cast<std::size_t>(level_extent_[0]) + 1;
    if (st.pos.size() != slots) st.pos.assign(slots, 0);
    row_counts_ = st.pos.data();
    if (append) {
      crd_out_.attach(st.crd);
      values_out_.attach(values_);
    } else {
      crd_out_.attach_over(st.crd);
      values_out_.attach_over(values_);
    }
  }

  template <std::size_t K> void init_level() {
    if constexpr (level<K>::properties.full) {
      std::get<K>(levels_).extent = level_extent_[K];
    } else if (level_extent_[K] > 0 &&
               !fits_in<typename level<K>::crd_type>(level_extent_[K] - 1)) {
      check_fits<typename level<K>::crd_type>(
          level_extent_[K] - 1, "largest coordinate of mode " + std::to_string(Format::modes[K]));
    }
  }

  template <std::size_t K>
  LOOM_FORCE_INLINE void push_levels(const std::array<std::int64_t, N>& c, std::size_t first) {
    if constexpr (K < N) {
      const std::int64_t parent = K == 0 ? 0 : position_[K - 1];
      auto& st = std::get<K>(levels_);
      if constexpr (level<K>::properties.full) {
        position_[K] = parent * level_extent_[K] + c[K];
      } else if constexpr (level<K>::properties.segmented) {
        st.crd.push_back(static_cast<typename level<K>::crd_type>(c[K]));
        position_[K] = static_cast<std::int64_t>(st.crd.size()) - 1;
      } else {
        // a new position when this level or one above changed (non-unique: always)
        if (K >= first || !level<K>::properties.unique || count_ == 0) {
          st.crd.push_back(static_cast<typename level<K>::crd_type>(c[K]));
          const auto slot = static_cast<std::size_t>(parent) + 1;
          if (st.pos.size() <= slot) st.pos.resize(slot + 1, 0);
          ++st.pos[slot];
        }
        position_[K] = static_cast<std::int64_t>(st.crd.size()) - 1;
      }
      push_levels<K + 1>(c, first);
    }
  }

  template <std::size_t K> void finish_level(std::int64_t& parents) {
    auto& st = std::get<K>(levels_);
    if constexpr (level<K>::properties.full) {
      parents *= level_extent_[K];
    } else if constexpr (level<K>::properties.segmented) {
      parents = static_cast<std::int64_t>(st.crd.size());
    } else {
      check_fits<typename level<K>::pos_type>(static_cast<std::int64_t>(st.crd.size()),
                                              "number of positions");
      st.pos.resize(static_cast<std::size_t>(parents) + 1, 0);
      for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
      parents = static_cast<std::int64_t>(st.crd.size());
    }
  }

  std::array<std::int64_t, N> shape_{};
  std::array<std::int64_t, N> level_extent_{};
  typename tensor_type::level_storages levels_{};
  std::vector<T> values_;
  std::array<std::int64_t, N> last_{};
  std::array<std::int64_t, N> position_{};
  std::int64_t count_ = 0;
  // by_rows: the rows' counts (pos + 1) and the ends of crd and the values
  struct no_cursor {};
  typename row_arrays<Format>::pos_type* row_counts_ = nullptr;
  [[no_unique_address]] std::conditional_t<
      by_rows, append_array<typename row_arrays<Format>::crd_type>, no_cursor>
      crd_out_{};
  [[no_unique_address]] std::conditional_t<by_rows, append_array<T>, no_cursor> values_out_{};
  struct entries {
    std::vector<std::array<std::int64_t, N>> crd;
    std::vector<T> vals;
  } buffer_;  // used when !online
};

}  // namespace loom::detail

#endif  // LOOM_FORMAT_ASSEMBLY_APPENDER_HPP
