// Defines execute/evaluate: runs an IA plan over a transport, on relations of dense tiles
// (relation) or of sparse tiles in any loom format (sparse_relation). `local_sites` simulates s
// sites in one process (BCAST copies, SHUF re-buckets); tra/mpi/ provides the MPI transport
// (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_EXECUTE_HPP
#define LOOM_TRA_IA_EXECUTE_HPP

#include <loom/core/error.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/ia/placement.hpp>
#include <loom/tra/operators.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/sparse_maps.hpp>
#include <loom/tra/sparse_operators.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra::ia {

namespace detail {
// The elements a tile holds as it moves: a dense tile's every cell, a sparse tile's stored
// entries.
template <class Tile> double tile_elements(const Tile& t) {
  if constexpr (requires { t.nnz(); })
    return static_cast<double>(t.nnz());
  else
    return static_cast<double>(volume(t.shape()));
}
template <class Rel> double elements_of(const Rel& r) {
  double n = 0;
  for (const auto& [key, t] : r) n += tile_elements(t);
  return n;
}
}  // namespace detail

/// s sites in one process: a physical relation is one relation per site. `moved` counts the
/// elements that changed site (tuples x tile volume; stored entries for sparse tiles), for
/// comparison with the cost model.
class local_sites {
 public:
  template <class Rel> using phys = std::vector<Rel>;

  explicit local_sites(std::int64_t sites) : sites_(sites < 1 ? 1 : sites) {}
  std::int64_t sites() const { return sites_; }
  double moved() const { return moved_; }

  template <class Rel>
  phys<Rel> place(const Rel& r, placement_kind kind, std::span<const std::size_t> d) const {
    phys<Rel> out(static_cast<std::size_t>(sites_), Rel(r.bounds(), r.tile_shape()));
    std::int64_t ordinal = 0;
    for (const auto& [key, t] : r) {
      switch (kind) {
        case placement_kind::replicated:
          for (auto& site : out) site.insert(key, t);
          break;
        case placement_kind::single:
          out[0].insert(key, t);
          break;
        case placement_kind::partitioned:
          out[static_cast<std::size_t>(site_of(key, r.bounds(), d, sites_))].insert(key, t);
          break;
        case placement_kind::arbitrary:
          out[static_cast<std::size_t>(ordinal % sites_)].insert(key, t);
          break;
      }
      ++ordinal;
    }
    return out;
  }
  template <class Rel> phys<Rel> broadcast(const phys<Rel>& p) const {
    Rel all = union_of(p, false);
    phys<Rel> out(static_cast<std::size_t>(sites_), all);
    const double everything = detail::elements_of(all);
    for (std::size_t s = 0; s < p.size(); ++s) moved_ += everything - detail::elements_of(p[s]);
    return out;
  }
  /// SHUF(d); an empty d gathers everything on site 0.
  template <class Rel> phys<Rel> shuffle(const phys<Rel>& p, std::span<const std::size_t> d) const {
    phys<Rel> out(static_cast<std::size_t>(sites_), Rel(p[0].bounds(), p[0].tile_shape()));
    for (std::size_t s = 0; s < p.size(); ++s)
      for (const auto& [key, t] : p[s]) {
        const std::int64_t to = d.empty() ? 0 : site_of(key, p[s].bounds(), d, sites_);
        auto& dst = out[static_cast<std::size_t>(to)];
        if (dst.find(key)) continue;  // a replica already arrived
        dst.insert(key, t);
        if (to != static_cast<std::int64_t>(s)) moved_ += detail::tile_elements(t);
      }
    return out;
  }
  template <class Rel, class F> auto local(const phys<Rel>& p, F f) const {
    using Out = std::remove_cvref_t<decltype(f(p[0]))>;
    phys<Out> out;
    for (const auto& site : p) out.push_back(f(site));
    return out;
  }
  /// f(site, rel) on every site.
  template <class Rel, class F> auto local_site(const phys<Rel>& p, F f) const {
    using Out = std::remove_cvref_t<decltype(f(std::int64_t{0}, p[0]))>;
    phys<Out> out;
    for (std::size_t s = 0; s < p.size(); ++s) out.push_back(f(static_cast<std::int64_t>(s), p[s]));
    return out;
  }
  template <class A, class B, class F> auto local2(const phys<A>& a, const phys<B>& b, F f) const {
    using Out = std::remove_cvref_t<decltype(f(a[0], b[0]))>;
    phys<Out> out;
    for (std::size_t s = 0; s < a.size(); ++s) out.push_back(f(a[s], b[s]));
    return out;
  }
  /// Π_{key,array} of every site: replicas collapse; two different tiles under one key mean a
  /// local join or aggregation ran on incomplete data, which is reported, never hidden.
  template <class Rel> Rel collect(const phys<Rel>& p) const { return union_of(p, true); }

 private:
  template <class Rel> static Rel union_of(const phys<Rel>& p, bool check) {
    Rel all(p[0].bounds(), p[0].tile_shape());
    for (std::size_t s = 0; s < p.size(); ++s)
      for (const auto& [key, t] : p[s]) {
        if (const auto* have = all.find(key)) {
          if (check && !tiles_equal(*have, t))
            throw shape_error("loom::tra::ia: key " + to_string(key) +
                              " holds different tiles on two sites (a local join or aggregation "
                              "ran on incomplete data; shuffle on its keys first)");
          continue;
        }
        all.insert(key, t);
      }
    return all;
  }
  std::int64_t sites_;
  mutable double moved_ = 0;
};

namespace detail {
template <class P> struct placement_of {
  static constexpr placement_kind kind = placement_kind::arbitrary;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <> struct placement_of<replicated> {
  static constexpr placement_kind kind = placement_kind::replicated;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <> struct placement_of<single> {
  static constexpr placement_kind kind = placement_kind::single;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <class D> struct placement_of<partitioned<D>> {
  static constexpr placement_kind kind = placement_kind::partitioned;
  static constexpr auto dims = D::values;
};

template <class KM, class Rel> auto apply_key_map(const Rel& r) {
  if constexpr (std::is_same_v<KM, same_key>)
    return r;
  else
    return rekey<KM>(r);
}
template <class A, class Rel> auto apply_tile_map(const Rel& r) {
  if constexpr (std::is_same_v<A, same_tile>)
    return r;
  else
    return transform(r, A{});
}

template <class Plan> struct exec;

template <std::size_t I, std::size_t K, class P> struct exec<leaf<I, K, P>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    const auto& r = std::get<I>(in);
    static_assert(std::remove_cvref_t<decltype(r)>::key_arity == K,
                  "loom::tra::ia::execute: a leaf's key-arity differs from its input's");
    using pl = placement_of<P>;
    return tr.place(r, pl::kind, std::span<const std::size_t>(pl::dims));
  }
};
template <class C> struct exec<bcast<C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    return tr.broadcast(exec<C>::run(tr, in));
  }
};
template <class D, class C> struct exec<shuf<D, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    return tr.shuffle(exec<C>::run(tr, in), std::span<const std::size_t>(D::values));
  }
};
template <class F, class C> struct exec<lfilter<F, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in), [](const auto& r) { return filter(r, F{}); });
  }
};
template <class KM, class A, class C> struct exec<lmap<KM, A, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in),
                    [](const auto& r) { return apply_tile_map<A>(apply_key_map<KM>(r)); });
  }
};
template <class G, class Op, class C> struct exec<lagg<G, Op, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in),
                    [](const auto& r) { return aggregate(r, G::values, Op{}); });
  }
};
template <class G, class Op, class C> struct exec<lpartial<G, Op, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    const std::int64_t sites = tr.sites();
    return tr.local_site(exec<C>::run(tr, in), [sites](std::int64_t site, const auto& r) {
      const auto a = aggregate(r, G::values, Op{});
      using A = std::remove_cvref_t<decltype(a)>;
      constexpr std::size_t K = A::key_arity;
      key_array<K + 1> bounds{};
      for (std::size_t d = 0; d < K; ++d) bounds[d] = a.bounds()[d];
      bounds[K] = sites;
      typename A::template with_key_arity<K + 1> out(bounds, a.tile_shape());
      for (const auto& [key, t] : a) {
        key_array<K + 1> k{};
        for (std::size_t d = 0; d < K; ++d) k[d] = key[d];
        k[K] = site;
        out.insert(k, t);
      }
      return out;
    });
  }
};
template <class JL, class JR, class Op, class L, class R> struct exec<ljoin<JL, JR, Op, L, R>> {
  static constexpr bool complete = join_complete<partition_t<L>, partition_t<R>, JL, JR>::value;
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    static_assert(complete,
                  "loom::tra::ia::execute: a local join whose inputs are not co-located would "
                  "lose pairs; broadcast one side, or shuffle both on matching join keys");
    return tr.local2(exec<L>::run(tr, in), exec<R>::run(tr, in), [](const auto& a, const auto& b) {
      return join(a, b, JL::values, JR::values, Op{});
    });
  }
};
// Σᴸ directly over ⋈ᴸ: one fused local operator (join_aggregate decides whether it can fuse).
template <class G, class Op, class JL, class JR, class P, class L, class R>
struct exec<lagg<G, Op, ljoin<JL, JR, P, L, R>>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    static_assert(exec<ljoin<JL, JR, P, L, R>>::complete,
                  "loom::tra::ia::execute: a local join whose inputs are not co-located would "
                  "lose pairs; broadcast one side, or shuffle both on matching join keys");
    return tr.local2(exec<L>::run(tr, in), exec<R>::run(tr, in), [](const auto& a, const auto& b) {
      if constexpr (std::remove_cvref_t<decltype(a)>::rank == 2 &&
                    std::remove_cvref_t<decltype(b)>::rank == 2)
        return join_aggregate(a, b, JL::values, JR::values, P{}, G::values, Op{});
      else
        return aggregate(join(a, b, JL::values, JR::values, P{}), G::values, Op{});
    });
  }
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct exec<ldup<P, From, Dim, C>> {
  template <class Tr, class In> static auto run(const Tr& tr, const In& in) {
    const std::int64_t n = std::get<From>(in).bounds()[Dim];
    return tr.local(exec<C>::run(tr, in), [n](const auto& r) { return duplicate<P>(r, n); });
  }
};
}  // namespace detail

/// Runs `Plan` over the transport; the result stays distributed (one relation per site).
template <class Plan, class Transport, class... Inputs>
auto execute(const Transport& tr, const Inputs&... inputs) {
  return detail::exec<Plan>::run(tr, std::forward_as_tuple(inputs...));
}

/// Runs `Plan` and collects the logical result (the union of every site's tuples).
template <class Plan, class Transport, class... Inputs>
auto evaluate(const Transport& tr, const Inputs&... inputs) {
  return tr.collect(execute<Plan>(tr, inputs...));
}

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_EXECUTE_HPP
