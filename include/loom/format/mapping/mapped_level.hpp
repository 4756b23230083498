// Defines loom::mapping::mapped_level<Def, K>: loop K of a storage mapping compiled into a loom
// level, so that programs over a mapped tensor run through the ordinary planner and streams,
// their loops fused with the mapping's (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
#define LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/mapping/index_expr.hpp>
#include <loom/format/mapping/loops.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom::mapping {

namespace detail {

// Folds a guard on the loop's own index into a lower (kind 'L') or upper ('H') bound.
template <class Self, class G>
struct fold_guard {
  static_assert(sizeof(G) == 0,
                "loom::mapping::range: a guard must compare the loop's own index with an "
                "expression of outer indices, e.g. var(j) <= var(i)");
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, var_node<Self>, X>> {
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'H' : 'L';
  using bound = std::conditional_t<Op == 'l' || Op == '>', bin<'+', X, lit<1>>, X>;
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, X, var_node<Self>>> {
  // x < j is j > x, x <= j is j >= x, ...
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'L' : 'H';
  using bound = std::conditional_t<Op == '<' || Op == 'g', bin<'+', X, lit<1>>, X>;
};

template <class Self, class Acc, class Guards, char Kind>
struct fold_bounds {
  using type = Acc;
};
template <class Self, class Acc, class G, class... Gs, char Kind>
struct fold_bounds<Self, Acc, mp_list<G, Gs...>, Kind> {
  using f = fold_guard<Self, G>;
  using next = std::conditional_t<f::kind != Kind, Acc,
                                  bin<Kind == 'L' ? 'M' : 'm', Acc, typename f::bound>>;
  using type = typename fold_bounds<Self, next, mp_list<Gs...>, Kind>::type;
};

template <class E>
using arrays_t = typename arrays_of<E>::type;

// X of a canonical segment bound Pos(X) : Pos(X + 1); void otherwise.
template <class Lo, class Hi>
struct canonical_segment {
  using pos_array = void;
};
template <class P, class X>
struct canonical_segment<load<P, X>, load<P, bin<'+', X, lit<1>>>> {
  using pos_array = P;
  using parent = X;
};
template <class P>
struct canonical_segment<load<P, lit<0>>, load<P, lit<1>>> {  // the root: pos(0) : pos(1)
  using pos_array = P;
  using parent = lit<0>;
};

struct no_loop {
  using index = void;
};
template <class Loops, std::size_t K>
struct loop_above {
  using type = boost::mp11::mp_at_c<Loops, K - 1>;
  using index = typename type::index;
};
template <class Loops>
struct loop_above<Loops, 0> : no_loop {};

template <class Loop>
struct array_of_loop {
  using type = void;
};
template <class I, class Slice>
struct array_of_loop<each_loop<I, Slice>> {
  using type = typename Slice::array_type;
};

}  // namespace detail

/// Loop K of mapping Def as a level. Its position (what the next loop, or the value array,
/// receives) is the loop's index for a range at the root, `up * N + i` for a deeper range, the
/// stored position for a segment, and the `values(...)` offset at the innermost loop.
template <class Def, std::size_t K>
struct mapped_level {
  using definition = Def;
  static constexpr std::size_t loop_number = K;
  using loops = typename Def::loops;
  using loop = boost::mp11::mp_at_c<loops, K>;
  using self = typename loop::index;
  static constexpr bool is_range = loop::is_range;
  static constexpr bool is_last = K + 1 == boost::mp11::mp_size<loops>::value;
  using up = typename detail::loop_above<loops, K>::index;
  // the loop above is a root range: its position is its index, so `var(i)` is readable here
  static constexpr bool up_is_index = K == 1 && boost::mp11::mp_front<loops>::is_range;
  using scope = detail::scope<self, up, is_range, up_is_index>;

  using position_expr = typename boost::mp11::mp_cond<
      boost::mp11::mp_bool<is_last>, boost::mp11::mp_identity<typename Def::value_type::offset>,
      boost::mp11::mp_bool<!is_range>, boost::mp11::mp_identity<pos_node<self>>,
      boost::mp11::mp_bool<K == 0>, boost::mp11::mp_identity<var_node<self>>,
      boost::mp11::mp_true,
      boost::mp11::mp_identity<bin<'+', bin<'*', pos_node<up>, extent_node>, var_node<self>>>>::type;
  /// bounds after folding the guards (G: guard into bound)
  using lo_expr = typename detail::fold_bounds<self, typename loop::lo, typename loop::guards, 'L'>::type;
  using hi_expr = typename detail::fold_bounds<self, typename loop::hi, typename loop::guards, 'H'>::type;

  using array_list = boost::mp11::mp_unique<boost::mp11::mp_append<
      detail::arrays_t<lo_expr>, detail::arrays_t<hi_expr>, detail::arrays_t<position_expr>,
      boost::mp11::mp_if_c<is_range, mp_list<>, mp_list<typename detail::array_of_loop<loop>::type>>>>;

  static_assert(detail::resolvable<scope, lo_expr>::value && detail::resolvable<scope, hi_expr>::value &&
                    detail::resolvable<scope, position_expr>::value,
                "loom::mapping: a loop may use its own index and position, the position of the "
                "loop directly above, and the index of that loop when it is a range at the root");

  static constexpr bool plain_range = is_range && std::is_same_v<typename loop::lo, lit<0>> &&
                                      std::is_same_v<typename loop::hi, extent_node> &&
                                      boost::mp11::mp_empty<typename loop::guards>::value;
  // a plain range holds every coordinate; all-plain mappings stay "sparse" for the planner,
  // since loom walks all-full formats by row-major strides, which a mapping need not follow
  static constexpr bool full = plain_range && !Def::all_plain;

  static constexpr level_properties properties{
      .ordered = true, .unique = true, .full = full, .random_access = is_range, .padded = is_range};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = Def::name;

  template <bool Owning>
  struct array_storage {
    template <class Arr>
    using fn = level_array<typename Arr::value_type, Owning>;
  };

  template <bool Owning>
  struct storage {
    std::int64_t extent = 0;  // of the mode this loop stores
    boost::mp11::mp_rename<boost::mp11::mp_transform_q<array_storage<Owning>, array_list>, std::tuple>
        arrays;
  };

  template <class E, class St>
  static LOOM_FORCE_INLINE std::int64_t eval(const St& st, const detail::eval_env& env) {
    return detail::eval<scope, array_list, E>::template run(st, env);
  }

  /// Counted loop over [lo, hi) (guards folded); locate is the range test of rule T4.
  template <bool Owning>
  struct range_cursor {
    const storage<Owning>* st = nullptr;
    std::int64_t up = 0, lo = 0, i = 0, hi = 0;

    LOOM_FORCE_INLINE bool valid() const { return i < hi; }
    LOOM_FORCE_INLINE std::int64_t index() const { return i; }
    LOOM_FORCE_INLINE std::int64_t position(std::int64_t j) const {
      return eval<position_expr>(*st, {up, j, j, st->extent});
    }
    LOOM_FORCE_INLINE level_range children() const {
      const std::int64_t p = position(i);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
      if (j < lo || j >= hi) return {};
      const std::int64_t p = position(j);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
    LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
    LOOM_FORCE_INLINE void next() { ++i; }
  };

  /// The stored coordinates crd[lo, hi), ascending; skips search them by policy P.
  template <skip_policy P, bool Owning>
  struct segment_cursor {
    using crd_type = typename detail::array_of_loop<loop>::type::value_type;
    const storage<Owning>* st = nullptr;
    const crd_type* crd = nullptr;
    std::int64_t up = 0, p = 0, end = 0;

    LOOM_FORCE_INLINE bool valid() const { return p < end; }
    LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
    LOOM_FORCE_INLINE level_range children() const {
      if constexpr (std::is_same_v<position_expr, pos_node<self>>) {
        return {p, p + 1};
      } else {
        const std::int64_t q = eval<position_expr>(*st, {up, crd[p], p, st->extent});
        return {q, q + 1};
      }
    }
    LOOM_FORCE_INLINE void next() { ++p; }
    LOOM_FORCE_INLINE void seek(std::int64_t i) { p = loom::detail::search_first<P>(crd, p, end, i); }
    LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
      if (i == loom::detail::top_coordinate) p = end;
      else p = loom::detail::search_first<P>(crd, p, end, i + 1);
    }
  };

  // iterate(up) -> the loop's coordinates under the parent position up
  template <skip_policy P, bool Owning>
  static LOOM_FORCE_INLINE auto iterate(const storage<Owning>& st, std::int64_t up, std::int64_t) {
    const detail::eval_env env{up, 0, 0, st.extent};
    const std::int64_t lo = eval<lo_expr>(st, env), hi = eval<hi_expr>(st, env);
    if constexpr (is_range) {
      return range_cursor<Owning>{&st, up, lo, lo, std::max(lo, hi)};
    } else {
      using arr = typename detail::array_of_loop<loop>::type;
      const auto& crd = std::get<boost::mp11::mp_find<array_list, arr>::value>(st.arrays);
      return segment_cursor<P, Owning>{&st, crd.data(), up, lo, std::max(lo, hi)};
    }
  }

  /// Walks every coordinate of every parent, calling f(up, index, position); throws when a
  /// segment leaves its array or is not strictly ascending. Returns 1 + the largest position.
  template <bool Owning, class F>
  static std::int64_t walk(const storage<Owning>& st, std::int64_t parents, const std::string& who,
                           std::size_t mode, F&& f) {
    std::int64_t count = 0;
    for (std::int64_t up = 0; up < parents; ++up) {
      auto cur = iterate<skip_policy::linear>(st, up, up + 1);
      if constexpr (!is_range) {
        const auto size = static_cast<std::int64_t>(
            std::get<boost::mp11::mp_find<array_list, typename detail::array_of_loop<loop>::type>::value>(st.arrays).size());
        const detail::eval_env env{up, 0, 0, st.extent};
        const std::int64_t lo = eval<lo_expr>(st, env), hi = eval<hi_expr>(st, env);
        if (lo < 0 || hi < lo || hi > size)
          throw shape_error(who + ": the segment [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + ") of mode " + std::to_string(mode) +
                            " under parent position " + std::to_string(up) +
                            " is not a range inside its index array of " + std::to_string(size) + " entries");
      }
      std::int64_t last = -1;
      for (; cur.valid(); cur.next()) {
        const std::int64_t i = cur.index();
        if (i < 0 || i >= st.extent || i <= last)
          throw shape_error(who + ": coordinate " + std::to_string(i) + " of mode " +
                            std::to_string(mode) + " (extent " + std::to_string(st.extent) +
                            ") under parent position " + std::to_string(up) +
                            (i <= last ? " is not strictly ascending (the loop is unique and sorted)"
                                       : " is outside the extent"));
        last = i;
        const std::int64_t p = cur.children().begin;
        if (p < 0)
          throw shape_error(who + ": coordinate " + std::to_string(i) + " of mode " +
                            std::to_string(mode) + " under parent position " + std::to_string(up) +
                            " maps to the negative offset " + std::to_string(p));
        f(up, i, p);
        count = std::max(count, p + 1);
      }
    }
    return count;
  }

  // assemble: a range checks each entry lies in its bounds and places it at its offset; a
  // canonical segment crd(pos(x) : pos(x + 1)) is built like a compressed level
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    const std::string who = "loom::mapping " + std::string(Def::name);
    if constexpr (is_range) {
      if constexpr (!boost::mp11::mp_empty<array_list>::value) {
        throw shape_error(who + ": loop " + std::string(self::name) +
                           " reads physical arrays; build the tensor from its arrays");
      } else {
        for (std::size_t e = 0; e < in.coord.size(); ++e) {
          const auto cur = iterate<skip_policy::linear>(st, in.parent[e], in.parent[e] + 1);
          const level_range r = cur.locate(in.coord[e]);
          if (r.empty())
            throw shape_error(who + ": an entry with coordinate " + std::to_string(in.coord[e]) +
                              " in mode " + std::to_string(in.mode) + " (extent " +
                              std::to_string(in.extent) + ") under parent position " +
                              std::to_string(in.parent[e]) + " lies outside the stored region " +
                              std::string(self::name) + " in " + bounds_text());
          position[e] = r.begin;
        }
        return walk(st, in.parents, who, in.mode, [](auto...) {});
      }
    } else {
      using canon = detail::canonical_segment<typename loop::lo, typename loop::hi>;
      using crd_array = typename detail::array_of_loop<loop>::type;
      if constexpr (std::is_void_v<typename canon::pos_array> ||
                    !std::is_same_v<position_expr, pos_node<self>>) {
        throw shape_error(who + ": loop " + std::string(self::name) +
                           " is not of the form crd(pos(x) : pos(x + 1)) with values at its "
                           "position; build the tensor from its arrays");
      } else {
        using pos_array = typename canon::pos_array;
        constexpr bool root = std::is_same_v<typename canon::parent, lit<0>>;
        auto& pos = std::get<boost::mp11::mp_find<array_list, pos_array>::value>(st.arrays);
        auto& crd = std::get<boost::mp11::mp_find<array_list, crd_array>::value>(st.arrays);
        using P = typename pos_array::value_type;
        using C = typename crd_array::value_type;
        if (in.extent > 0)
          loom::detail::check_fits<C>(in.extent - 1, "largest coordinate of mode " + std::to_string(in.mode));
        const std::int64_t segments = root ? 1 : in.parents;
        pos.assign(static_cast<std::size_t>(segments) + 1, P(0));
        crd.clear();
        for (std::size_t e = 0; e < in.coord.size(); ++e) {
          const bool fresh = e == 0 || in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1];
          if (fresh) {
            crd.push_back(static_cast<C>(in.coord[e]));
            ++pos[root ? 1 : static_cast<std::size_t>(in.parent[e]) + 1];
          }
          position[e] = static_cast<std::int64_t>(crd.size()) - 1;
        }
        loom::detail::check_fits<P>(static_cast<std::int64_t>(crd.size()), "number of positions");
        for (std::size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
        return static_cast<std::int64_t>(crd.size());
      }
    }
  }

  /// "max(0, i - 1) : min(N, i + 2)" (after folding) or "crd(pos(i) : pos(i + 1))".
  static std::string bounds_text() {
    if constexpr (is_range) {
      return detail::show<lo_expr>::text() + " : " + detail::show<hi_expr>::text();
    } else {
      using arr = typename detail::array_of_loop<loop>::type;
      return std::string(arr::name) + "(" + detail::show<typename loop::lo>::text() + " : " +
             detail::show<typename loop::hi>::text() + ")";
    }
  }
  /// The loop as declared: "j in 0 : N where j <= i".
  static std::string declared_text() {
    std::string s = std::string(self::name) + " in ";
    if constexpr (is_range) {
      s += detail::show<typename loop::lo>::text() + " : " + detail::show<typename loop::hi>::text();
      std::string g;
      boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename loop::guards>>(
          [&](auto x) { g += (g.empty() ? " where " : " && ") + detail::show<typename decltype(x)::type>::text(); });
      return s + g;
    } else {
      return s + bounds_text() + " @unique";
    }
  }
};

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
