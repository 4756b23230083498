// Defines loom::program: several assignments run as one program, a sum that occurs more than
// once (in one statement or across them, reading the same tensors) computed once into a
// temporary and read by every statement that uses it (Galley's CSE) (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_STATEMENTS_HPP
#define LOOM_EXEC_STATEMENTS_HPP

#include <loom/core/unpack.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/transform.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/hoist.hpp>

#include <boost/mp11/algorithm.hpp>

#include <any>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

/// One statement of a program: `out(i...) = rhs` (`accumulate`: `+=`).
template <class Lhs, class Rhs> struct statement {
  Lhs lhs;
  Rhs rhs;
  bool accumulate = false;
};

/// `loom::let(y(i), e)`: the statement `y(i) = e` of a loom::program.
template <class OT, class... Os, expr::operand R>
auto let(expr::access<OT, Os...> lhs, const R& rhs) {
  const auto e = expr::as_expr(rhs);
  return statement<expr::access<OT, Os...>, std::remove_cvref_t<decltype(e)>>{lhs, e, false};
}
/// `loom::let_add(y(i), e)`: the statement `y(i) += e`.
template <class OT, class... Os, expr::operand R>
auto let_add(expr::access<OT, Os...> lhs, const R& rhs) {
  const auto e = expr::as_expr(rhs);
  return statement<expr::access<OT, Os...>, std::remove_cvref_t<decltype(e)>>{lhs, e, true};
}

namespace detail::prog {

template <class E> struct sums_in {
  using type = mp_list<>;
};
template <class E> using sums_in_t = typename sums_in<std::remove_cvref_t<E>>::type;
template <class... Es> using sums_of_all = boost::mp11::mp_append<mp_list<>, sums_in_t<Es>...>;
// every sum node type of E, outermost first, with repetitions
template <class I, class E> struct sums_in<expr::sum<I, E>> {
  using type = boost::mp11::mp_push_front<sums_in_t<E>, expr::sum<I, E>>;
};
template <class L, class R> struct sums_in<expr::add<L, R>> {
  using type = sums_of_all<L, R>;
};
template <class L, class R> struct sums_in<expr::mul<L, R>> {
  using type = sums_of_all<L, R>;
};
template <class P, class E> struct sums_in<expr::where<P, E>> {
  using type = sums_of_all<P, E>;
};
template <class I, class E> struct sums_in<expr::expand<I, E>> {
  using type = sums_in_t<E>;
};
template <class F, class... Es> struct sums_in<expr::map<F, Es...>> {
  using type = sums_of_all<Es...>;
};

/// The sum types that occur twice or more among `Rhs...` (by type: the same index names, operand
/// types and functions; whether they read the same tensors is checked at run time).
template <class... Rhs> struct shared_sums {
  using all = sums_of_all<Rhs...>;
  template <class S>
  using repeated = boost::mp11::mp_bool<(boost::mp11::mp_count<all, S>::value > 1)>;
  using type = boost::mp11::mp_unique<boost::mp11::mp_copy_if<all, repeated>>;
};

/// A shared sum's temporary: a scalar, a dense vector, a dense matrix (dcsr when it is statically
/// sparse) or csf.
template <class V, class S, std::size_t N>
using temporary_tensor =
    tensor<V,
           std::conditional_t<
               N == 0, format<>,
               std::conditional_t<
                   N == 1, dense_vector,
                   std::conditional_t<
                       N == 2, std::conditional_t<rewrite::hoisted_dense_v<S>, dense_matrix, dcsr>,
                       csf<N>>>>>;

template <class S> struct temporary_of {
  template <class... Is> static auto make(mp_list<Is...>) {
    return temporary_tensor<expr::value_type_t<S>, S, sizeof...(Is)>{};
  }
  using type = decltype(make(expr::free_indices_t<S>{}));
};

/// One shared sum computed: its node type, the tensors it reads, and its temporary.
struct computed {
  const void* type = nullptr;
  std::vector<const void*> reads;
  std::shared_ptr<void> value;  // the temporary tensor
  std::string text;             // the sum, for explain
  std::size_t uses = 0;
};

template <class S> inline constexpr char type_tag = 0;

template <class S> std::vector<const void*> reads_of(const S& s) {
  std::vector<const void*> out;
  expr::for_each_access(s, [&](const auto& a, std::size_t) { out.push_back(a.tensor); });
  return out;
}

/// The temporaries of one run, found by sum type and the tensors read.
template <class Options> struct temporaries {
  std::vector<computed> list;
  const Options* opts = nullptr;

  /// The temporary holding `s`, computed on first request.
  template <class S> const typename temporary_of<S>::type& get(const S& s) {
    using T = typename temporary_of<S>::type;
    const std::vector<const void*> reads = reads_of(s);
    for (computed& c : list)
      if (c.type == &type_tag<S> && c.reads == reads) {
        ++c.uses;
        return *static_cast<const T*>(c.value.get());
      }
    auto t = std::make_shared<T>(shape_of(s, expr::free_indices_t<S>{}));
    if constexpr (T::format_type::all_dense) LOOM_COUNT_WORK_N(writes, t->values().size());
    [&]<class... Is>(mp_list<Is...>) {
      expr::access<T, Is...> target{t.get()};
      loom::detail::assign_checked(target, s, std::false_type{}, *opts);
    }(expr::free_indices_t<S>{});
    std::size_t ordinal = 0;
    list.push_back({&type_tag<S>, reads, t, to_string(s, ordinal), 1});
    return *t;
  }
  template <class S, class... Is>
  static typename temporary_of<S>::type::shape_type shape_of(const S& s, mp_list<Is...>) {
    return {expr::extent_read<Is>(s)...};
  }
};

template <class Shared> struct in {
  template <class N> using fn = boost::mp11::mp_contains<Shared, N>;
};

/// `e` with every sum of a type in Shared read from its temporary (computed once per run).
template <class Shared, class E, class Temps> auto share(const E& e, Temps& temps) {
  return expr::replace_matching<in<Shared>::template fn>(e, [&](const auto& s) {
    using S = std::remove_cvref_t<decltype(s)>;
    const auto& t = temps.get(s);
    using T = std::remove_cvref_t<decltype(t)>;
    if constexpr (T::order == 0) {
      return expr::literal<expr::value_type_t<S>>{t.values()[0]};
    } else {
      return [&]<class... Is>(mp_list<Is...>) {
        return expr::access<const T, Is...>{&t};
      }(expr::free_indices_t<S>{});
    }
  });
}

}  // namespace detail::prog

/// Several statements run in order as one program; a sum that occurs twice or more (the same
/// expression over the same tensors, in one statement or several) is computed once, into a
/// temporary (dense for one index, a dense matrix or dcsr for two, csf beyond), which every
/// statement reading it then reads, e.g.
/// `loom::program(loom::let(y(i), s + b(i)), loom::let(z(i), s * c(i))).run();` with
/// `s = sum(j, A(i, j) * x(j))` computes A x once. Statements run in the order given, so a
/// statement may read what an earlier one wrote; a shared sum is computed where it is first
/// used, so it reads the tensors as they are at that point.
template <class... Statements> class program {
 public:
  explicit program(Statements... s) : statements_(std::move(s)...) {}

  /// The sum types shared by type; at run time those that read different tensors get one
  /// temporary each.
  using shared =
      typename detail::prog::shared_sums<decltype(std::declval<Statements>().rhs)...>::type;

  /// Runs every statement under `opts`.
  template <options_type O = default_options> void run(const O& opts = {}) {
    detail::prog::temporaries<O> temps{{}, &opts};
    loom::detail::unpack([&](auto&... s) { (run_one(s, temps, opts), ...); }, statements_);
    last_ = std::move(temps.list);
  }

  /// The temporaries the last run made: the sum and how many reads it served.
  std::string explain_shared() const {
    std::string out;
    for (std::size_t k = 0; k < last_.size(); ++k)
      out += "shared t" + std::to_string(k) + " = " + last_[k].text + ": computed once, read " +
             std::to_string(last_[k].uses) + " times\n";
    return out;
  }
  /// How many temporaries the last run computed.
  std::size_t shared_computed() const { return last_.size(); }

  /// The program's plan: the shared sums (by type), then each statement's plan with its shared
  /// sums read from temporaries (the temporaries are computed to explain the statements).
  template <options_type O = default_options> std::string explain(const O& opts = {}) {
    detail::prog::temporaries<O> temps{{}, &opts};
    std::string body;
    std::size_t k = 0;
    loom::detail::unpack(
        [&](auto&... s) {
          (..., [&] {
            const auto e = detail::prog::share<shared>(s.rhs, temps);
            body += "statement " + std::to_string(k++) + (s.accumulate ? " (+=)" : " (=)") + ":\n" +
                    loom::explain(s.lhs, e, opts);
          }());
        },
        statements_);
    last_ = std::move(temps.list);
    return "program: " + std::to_string(sizeof...(Statements)) + " statements, " +
           std::to_string(last_.size()) + " shared sums\n" + explain_shared() + body;
  }

 private:
  template <class S, class Temps, class O> static void run_one(S& s, Temps& temps, const O& opts) {
    const auto e = detail::prog::share<shared>(s.rhs, temps);
    auto lhs = s.lhs;
    if (s.accumulate)
      loom::accumulate(lhs, e, opts);
    else
      loom::assign(lhs, e, opts);
  }

  std::tuple<Statements...> statements_;
  std::vector<detail::prog::computed> last_;
};

}  // namespace loom

#endif  // LOOM_EXEC_STATEMENTS_HPP
