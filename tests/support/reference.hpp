// A dense reference evaluator for index notation (test support).
//
// It interprets an expression tree pointwise: every point of the output's index space is
// enumerated with plain nested loops, and each node is evaluated at that binding (an access reads
// a dense copy of its operand made through `tensor->at_coords`, a `sum` folds the semiring's +
// over the index's full extent, ...). It uses
// nothing of loom but the expression node types, the semiring traits and `at_coords`, so it is
// independent of the rewriter, the planner and the streams it checks.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_REFERENCE_HPP
#define LOOM_TESTS_SUPPORT_REFERENCE_HPP

#include <loom/core/semiring.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/tensor.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::test {

/// Concatenates strings by appending (never `"literal" + std::string&&`, whose inlined insert(0,
/// ...) trips GCC 12's -Wrestrict false positive at -O3).
template <class... Parts> std::string concat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

/// A dense result: one value per point of `shape`, row-major over the logical modes.
template <class T, std::size_t N> struct dense_result {
  std::array<std::int64_t, N> shape{};
  std::vector<T> values;

  std::size_t offset(const std::array<std::int64_t, N>& c) const {
    std::size_t off = 0;
    for (std::size_t m = 0; m < N; ++m)
      off = off * static_cast<std::size_t>(shape[m]) + static_cast<std::size_t>(c[m]);
    return off;
  }
  const T& at(const std::array<std::int64_t, N>& c) const { return values[offset(c)]; }
  T& at(const std::array<std::int64_t, N>& c) { return values[offset(c)]; }
  std::size_t size() const { return values.size(); }
};

/// Calls `f(coords)` for every point of `shape` in row-major order (nothing when an extent is 0).
template <std::size_t N, class F>
void for_each_point(const std::array<std::int64_t, N>& shape, F&& f) {
  std::array<std::int64_t, N> c{};
  if constexpr (N == 0) {
    f(c);
  } else {
    for (std::int64_t e : shape)
      if (e <= 0) return;
    while (true) {
      f(static_cast<const std::array<std::int64_t, N>&>(c));
      std::size_t m = N;
      while (m > 0) {
        --m;
        if (++c[m] < shape[m]) break;
        c[m] = 0;
        if (m == 0) return;
      }
    }
  }
}

/// Converts a value of one node's type to another node's value type (literals are plain
/// numbers; semiring wrappers such as `min_plus<double>` are built from their carrier).
template <class V, class X> constexpr V convert_value(const X& x) {
  if constexpr (std::is_same_v<V, X>)
    return x;
  else if constexpr (std::is_constructible_v<V, X>)
    return V(x);
  else if constexpr (requires { x.value; })
    return convert_value<V>(x.value);
  else
    static_assert(sizeof(X) == 0, "loom::test::convert_value: no conversion between types");
}

namespace detail {

namespace mp = boost::mp11;

// The value type (semiring) of a node, without the const of a read-only view's element type.
template <class E> using value_of = std::remove_cv_t<expr::value_type_t<E>>;

// Visits every access node of an expression at run time (the tensors live in the nodes).
template <class F, class Tensor, class... Is>
void for_each_access(const expr::access<Tensor, Is...>& a, F& f) {
  f(a);
}
template <class F, class T> void for_each_access(const expr::literal<T>&, F&) {}
template <class F, class L, class R> void for_each_access(const expr::add<L, R>& e, F& f) {
  for_each_access(e.lhs, f);
  for_each_access(e.rhs, f);
}
template <class F, class L, class R> void for_each_access(const expr::mul<L, R>& e, F& f) {
  for_each_access(e.lhs, f);
  for_each_access(e.rhs, f);
}
template <class F, class I, class E> void for_each_access(const expr::sum<I, E>& e, F& f) {
  for_each_access(e.body, f);
}
template <class F, class I, class E> void for_each_access(const expr::expand<I, E>& e, F& f) {
  for_each_access(e.body, f);
}
template <class F, class P, class E> void for_each_access(const expr::where<P, E>& e, F& f) {
  for_each_access(e.pred, f);
  for_each_access(e.body, f);
}
template <class F, class Fn, class... Es>
void for_each_access(const expr::map<Fn, Es...>& e, F& f) {
  loom::detail::unpack([&](const auto&... args) { (for_each_access(args, f), ...); }, e.args);
}

// The interpreter. `Slots` is an MP11 list of every index variable that may be bound; the
// binding and the extents are arrays indexed by an index's position in that list.
template <class Slots> class interpreter {
  static constexpr std::size_t n_slots = mp::mp_size<Slots>::value;
  template <class I> static constexpr std::size_t slot = mp::mp_find<Slots, I>::value;
  template <class... Is>
  static constexpr std::array<std::string_view, sizeof...(Is)> names_of(mp::mp_list<Is...>) {
    return {Is::name...};
  }
  static constexpr std::array<std::string_view, n_slots> names = names_of(Slots{});

 public:
  std::array<std::int64_t, n_slots> extent{};
  std::array<bool, n_slots> known{};
  std::array<std::int64_t, n_slots> at{};

 private:
  // Each operand is read through at_coords once per cell of its own shape, not once per point of
  // the iteration space: a product summed over k otherwise searches each sparse fibre extent(k)
  // times per output point (90% of tests/differential/larger.cpp's time under the sanitizers).
  // Operands over max_copied_cells cells are read in place.
  static constexpr std::size_t max_copied_cells = std::size_t{1} << 22;
  struct copy {
    const void* tensor;
    std::shared_ptr<void> cells;  // a std::vector of the tensor's value type; null: read in place
  };
  std::vector<copy> copies_;

  template <class T, class Tensor> const std::vector<T>* dense_copy(const Tensor& t) {
    for (const copy& c : copies_)
      if (c.tensor == &t) return static_cast<const std::vector<T>*>(c.cells.get());
    constexpr std::size_t N = std::remove_cvref_t<Tensor>::order;
    std::size_t total = 1;
    for (const std::int64_t e : t.shape()) {
      if (e > 0 && total > max_copied_cells / static_cast<std::size_t>(e))
        total = max_copied_cells + 1;
      else
        total *= static_cast<std::size_t>(std::max<std::int64_t>(e, 0));
    }
    std::shared_ptr<std::vector<T>> cells;
    if (total <= max_copied_cells) {
      cells = std::make_shared<std::vector<T>>();
      cells->reserve(total);
      for_each_point(t.shape(), [&](const std::array<std::int64_t, N>& c) {
        cells->push_back(T(t.at_coords(c)));
      });
    }
    copies_.push_back({&t, cells});
    return cells.get();
  }

 public:
  void set_extent(std::size_t s, std::int64_t e, const std::string& from) {
    if (known[s] && extent[s] != e)
      throw std::logic_error(concat("loom::test::reference: index '", names[s], "' has extent ",
                                    std::to_string(extent[s]), " and extent ", std::to_string(e),
                                    " (", from, ")"));
    extent[s] = e;
    known[s] = true;
  }
  template <class I> void set_extent(std::int64_t e, const std::string& from) {
    set_extent(slot<I>, e, from);
  }

  template <class E> void collect_extents(const E& e) {
    auto visit = [&]<class Tensor, class... Is>(const expr::access<Tensor, Is...>& a) {
      std::size_t m = 0;
      const std::string from = a.tensor->name().empty() ? "an operand" : a.tensor->name();
      ((set_extent<Is>(a.tensor->shape()[m], from), ++m), ...);
    };
    for_each_access(e, visit);
  }

  void require_known() const {
    for (std::size_t s = 0; s < n_slots; ++s)
      if (!known[s])
        throw std::logic_error(concat("loom::test::reference: the extent of index '", names[s],
                                      "' is not given by any operand or output"));
  }

  template <class Tensor, class... Is> auto eval(const expr::access<Tensor, Is...>& a) {
    using T = std::remove_cv_t<typename std::remove_const_t<Tensor>::value_type>;
    const std::array<std::int64_t, sizeof...(Is)> c{at[slot<Is>]...};
    if (const std::vector<T>* cells = dense_copy<T>(*a.tensor)) {
      const auto& shape = a.tensor->shape();
      std::size_t off = 0;
      for (std::size_t m = 0; m < c.size(); ++m)
        off = off * static_cast<std::size_t>(shape[m]) + static_cast<std::size_t>(c[m]);
      return T((*cells)[off]);
    }
    return T(a.tensor->at_coords(c));
  }
  template <class T> T eval(const expr::literal<T>& l) { return l.value; }
  template <class L, class R> auto eval(const expr::add<L, R>& e) {
    using V = value_of<expr::add<L, R>>;
    return semiring_traits<V>::add(convert_value<V>(eval(e.lhs)), convert_value<V>(eval(e.rhs)));
  }
  template <class L, class R> auto eval(const expr::mul<L, R>& e) {
    using V = value_of<expr::mul<L, R>>;
    return semiring_traits<V>::mul(convert_value<V>(eval(e.lhs)), convert_value<V>(eval(e.rhs)));
  }
  template <class I, class E> auto eval(const expr::sum<I, E>& e) {
    using V = value_of<expr::sum<I, E>>;
    constexpr std::size_t s = slot<I>;
    const std::int64_t saved = at[s];
    V acc = semiring_traits<V>::zero();
    for (std::int64_t x = 0; x < extent[s]; ++x) {
      at[s] = x;
      acc = semiring_traits<V>::add(acc, convert_value<V>(eval(e.body)));
    }
    at[s] = saved;
    return acc;
  }
  template <class I, class E> auto eval(const expr::expand<I, E>& e) {
    return convert_value<value_of<expr::expand<I, E>>>(eval(e.body));
  }
  template <class P, class E> auto eval(const expr::where<P, E>& e) {
    using V = value_of<expr::where<P, E>>;
    const auto p = eval(e.pred);
    using PV = std::remove_cvref_t<decltype(p)>;
    if (p == semiring_traits<PV>::zero()) return semiring_traits<V>::zero();
    return convert_value<V>(eval(e.body));
  }
  template <class Fn, class... Es> auto eval(const expr::map<Fn, Es...>& e) {
    using V = value_of<expr::map<Fn, Es...>>;
    return loom::detail::unpack(
        [&](const auto&... args) { return convert_value<V>(e.f(convert_value<V>(eval(args))...)); },
        e.args);
  }
};

// (the visitor is declared in this namespace, so that the overloads of for_each_access above
// are found by argument-dependent lookup from the nodes' recursion)
template <class E> bool reads_tensor(const E& e, const void* t) {
  bool found = false;
  auto visit = [&](const auto& a) { found = found || static_cast<const void*>(a.tensor) == t; };
  for_each_access(e, visit);
  return found;
}

template <class OutIndices, class E>
using slots_t = mp::mp_unique<mp::mp_append<OutIndices, expr::all_indices_t<E>>>;

template <class Tensor, class... Is, class E>
auto reference_impl(const expr::access<Tensor, Is...>& out, const E& e, bool accumulate) {
  using T = std::remove_cv_t<typename std::remove_const_t<Tensor>::value_type>;
  constexpr std::size_t N = sizeof...(Is);
  using out_indices = mp::mp_list<Is...>;
  static_assert(mp::mp_is_set<out_indices>::value,
                "loom::test::reference_eval: an output index appears twice");
  static_assert(mp::mp_empty<mp::mp_set_difference<expr::free_indices_t<E>, out_indices>>::value,
                "loom::test::reference_eval: a free index of the right-hand side is not an "
                "output index; reduce over it with loom::sum");
  interpreter<slots_t<out_indices, E>> in;
  {
    std::size_t m = 0;
    ((in.template set_extent<Is>(out.tensor->shape()[m], "the output"), ++m), ...);
  }
  in.collect_extents(e);
  in.require_known();
  dense_result<T, N> result;
  result.shape = out.tensor->shape();
  std::size_t total = 1;
  for (std::int64_t x : result.shape) total *= static_cast<std::size_t>(x);
  result.values.assign(total, semiring_traits<T>::zero());
  for_each_point(result.shape, [&](const std::array<std::int64_t, N>& c) {
    std::size_t m = 0;
    ((in.at[mp::mp_find<slots_t<out_indices, E>, Is>::value] = c[m], ++m), ...);
    T v = convert_value<T>(in.eval(e));
    if (accumulate) v = semiring_traits<T>::add(out.tensor->at_coords(c), v);
    result.at(c) = v;
  });
  return result;
}

}  // namespace detail

/// The value `out = e` must give, as a dense result over `out`'s shape, in `out`'s value type.
/// Extents come from the operands and the output; a clash or a missing extent throws
/// std::logic_error (a bug in the test, not in loom).
template <class Tensor, class... Is, class E>
auto reference_eval(const expr::access<Tensor, Is...>& out, const E& e) {
  return detail::reference_impl(out, e, false);
}

/// The value `out += e` must give: the current contents of `out` plus `e` (call it before
/// running the accumulation under test).
template <class Tensor, class... Is, class E>
auto reference_eval_accumulate(const expr::access<Tensor, Is...>& out, const E& e) {
  return detail::reference_impl(out, e, true);
}

/// The value `out += e` must give, from the value of `out = e` computed beforehand (`assigned`, by
/// reference_eval on an output of the same shape): `out`'s current contents plus it, point by
/// point, as reference_eval_accumulate computes it, without interpreting `e` again.
template <class Tensor, class... Is, class T, std::size_t N>
dense_result<T, N> reference_accumulate(const expr::access<Tensor, Is...>& out,
                                        dense_result<T, N> assigned) {
  if (assigned.shape != out.tensor->shape())
    throw std::logic_error("loom::test::reference_accumulate: the output's shape differs");
  for_each_point(assigned.shape, [&](const std::array<std::int64_t, N>& c) {
    assigned.at(c) = semiring_traits<T>::add(out.tensor->at_coords(c), assigned.at(c));
  });
  return assigned;
}

/// Whether `e` reads the tensor `t` (then a reference computed for one output cannot serve
/// another).
template <class E> bool reads_tensor(const E& e, const void* t) {
  return detail::reads_tensor(e, t);
}

/// The scalar `loom::eval(e)` must give (e has no free index).
template <class E> auto reference_eval(const E& e) {
  static_assert(boost::mp11::mp_empty<expr::free_indices_t<E>>::value,
                "loom::test::reference_eval(e): e has free indices; pass an output access");
  detail::interpreter<expr::all_indices_t<E>> in;
  in.collect_extents(e);
  in.require_known();
  return in.eval(e);
}

/// The contents of a tensor of any format as a dense result (absent entries are zero). Throws
/// std::logic_error when a coordinate is stored twice.
template <class T, class Format, bool Owning>
dense_result<T, Format::order> to_dense(const basic_tensor<T, Format, Owning>& t) {
  constexpr std::size_t N = Format::order;
  dense_result<T, N> r;
  r.shape = t.shape();
  std::size_t total = 1;
  for (std::int64_t x : r.shape) total *= static_cast<std::size_t>(x);
  r.values.assign(total, semiring_traits<T>::zero());
  std::vector<bool> seen(total, false);
  t.for_each_stored([&](const std::array<std::int64_t, N>& c, const T& v) {
    const std::size_t off = r.offset(c);
    if (seen[off]) throw std::logic_error("loom::test::to_dense: a coordinate is stored twice");
    seen[off] = true;
    r.values[off] = v;
  });
  return r;
}

}  // namespace loom::test

#endif  // LOOM_TESTS_SUPPORT_REFERENCE_HPP
