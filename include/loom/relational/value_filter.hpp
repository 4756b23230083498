// Defines value filters as a stream level: a zero-copy view of a sparse vector whose entries
// failing a comparison are not ready (Etch's valFilter), so a fused kernel never descends below
// them (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_VALUE_FILTER_HPP
#define LOOM_RELATIONAL_VALUE_FILTER_HPP

#include <loom/core/config.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/coordinate_cursor.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/tensor.hpp>

#include <boost/mp11/list.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::relational {

// Comparisons `value <op> bound` of a value filter.
struct greater {
  static constexpr std::string_view symbol = ">";
  template <class T> static constexpr bool test(const T& v, const T& b) { return b < v; }
};
struct greater_equal {
  static constexpr std::string_view symbol = ">=";
  template <class T> static constexpr bool test(const T& v, const T& b) { return !(v < b); }
};
struct less {
  static constexpr std::string_view symbol = "<";
  template <class T> static constexpr bool test(const T& v, const T& b) { return v < b; }
};
struct less_equal {
  static constexpr std::string_view symbol = "<=";
  template <class T> static constexpr bool test(const T& v, const T& b) { return !(b < v); }
};

/// A compressed level whose positions carry values (it is the last level) and whose cursor is
/// ready only on positions where `Cmp::test(value, bound)`: a value filter evaluated while the
/// kernel runs, with no copy of the data. With no values attached (an assembled tensor), it is a
/// plain compressed level.
template <class Cmp, class T, class Pos = std::int64_t, class Crd = std::int32_t>
struct value_filter_level {
  static constexpr level_properties properties{};  // ordered, unique
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "compressed with a value filter";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning> struct storage {
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
    std::span<const T> values;  // the values at this level's positions; empty: no filter
    T bound{};
  };

  template <search_strategy P> struct cursor : coordinate_cursor<Crd, true, P> {
    const T* values = nullptr;
    T bound{};
    // valFilter: a position whose value fails the test emits nothing; skips are unchanged
    LOOM_FORCE_INLINE bool ready() const {
      return values == nullptr || Cmp::test(values[this->p], bound);
    }
  };

  template <search_strategy P, bool Owning>
  static cursor<P> iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    cursor<P> c;
    c.crd = st.crd.data();
    c.p = static_cast<std::int64_t>(st.pos[begin]);
    c.end = static_cast<std::int64_t>(st.pos[begin + 1]);
    c.values = st.values.empty() ? nullptr : st.values.data();
    c.bound = st.bound;
    return c;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    using plain = compressed_level<uniqueness::unique, Pos, Crd>;
    typename plain::template storage<true> built;
    const std::int64_t n = plain::assemble(built, in, position);
    st.pos = std::move(built.pos);
    st.crd = std::move(built.crd);
    return n;
  }
};

/// The entries of sparse vector `v` with `value <Cmp> bound`, as a zero-copy view for use inside
/// a kernel: `y(j) = sum(i, value_filter<greater>(v, t)(i) * A(i, j))` never visits the rows
/// of A whose v(i) <= t. `v` must outlive the view.
template <class Cmp, class T, class Pos, class Crd, bool Owning>
auto value_filter(
    const basic_tensor<
        T, format_spec<boost::mp11::mp_list<compressed_level<uniqueness::unique, Pos, Crd>>, 0>,
        Owning>& v,
    std::type_identity_t<T> bound) {
  using level = value_filter_level<Cmp, T, Pos, Crd>;
  using fmt = format<level>;
  typename view<const T, fmt>::level_storages levels{};
  const auto& st = v.template level<0>();
  std::get<0>(levels).pos = std::span<const Pos>(st.pos.data(), st.pos.size());
  std::get<0>(levels).crd = std::span<const Crd>(st.crd.data(), st.crd.size());
  std::get<0>(levels).values = v.values();
  std::get<0>(levels).bound = bound;
  view<const T, fmt> out(v.shape(), levels, v.values());
  out.set_name(v.name().empty() ? "filtered"
                                : v.name() + " " + std::string(Cmp::symbol) + " bound");
  return out;
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_VALUE_FILTER_HPP
