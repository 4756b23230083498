// Stream-law tests for every level stream and combinator.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <random>

#include "support/laws/indexed_stream.hpp"

namespace {

using namespace loom;
using boost::mp11::mp_list;
using I = loom::index<"i">;
using J = loom::index<"j">;
using order_i = mp_list<I>;
using order_ij = mp_list<I, J>;

template <class Format>
tensor<double, Format> vector_of(std::int64_t n, const std::vector<std::int64_t>& idx,
                                 const std::vector<double>& val) {
  std::vector<std::array<std::int64_t, 1>> c;
  for (auto x : idx) c.push_back({x});
  return from_coo<Format>({n}, c, val);
}

template <class Tensor, class Order, stream::search_strategy P = stream::search_strategy::galloping,
          class... Is>
auto level0(const Tensor& t, Is...) {
  using layout = stream::access_layout<Tensor, Order, Is...>;
  if constexpr (Tensor::format_type::all_dense)
    return stream::make_strided<layout, 0>(&t, 0);
  else
    return stream::make_level<layout, 0, P>(&t, 0, 1);
}

std::vector<std::int64_t> random_support(std::mt19937_64& rng, std::int64_t n, double density) {
  std::vector<std::int64_t> s;
  std::bernoulli_distribution take(density);
  for (std::int64_t k = 0; k < n; ++k)
    if (take(rng)) s.push_back(k);
  return s;
}

std::vector<double> values_for(std::mt19937_64& rng, std::size_t count) {
  std::uniform_int_distribution<int> v(1, 9);
  std::vector<double> out;
  for (std::size_t k = 0; k < count; ++k) out.push_back(v(rng));
  return out;
}

}  // namespace

TEST_CASE("T1: primitive skips of dense and compressed levels") {
  auto d = vector_of<dense_vector>(5, {}, {});
  auto s0 = level0<decltype(d), order_i>(d, I{});
  auto at = [&](std::int64_t pos, std::int64_t target, bool strict) {
    auto s = s0;
    s.i = pos;
    strict ? s.seek_past(target) : s.seek(target);
    return s.i;
  };
  CHECK(at(1, 3, false) == 3);
  CHECK(at(1, 3, true) == 4);
  CHECK(at(4, 2, true) == 4);  // never backwards

  auto sp = vector_of<sparse_vector>(10, {2, 4, 7, 9}, {1, 1, 1, 1});
  auto check_sparse = [&]<stream::search_strategy P>() {
    auto c0 = level0<decltype(sp), order_i, P>(sp, I{});
    auto from = [&](std::int64_t pos, std::int64_t target, bool strict) {
      auto c = c0;
      c.p = pos;
      strict ? c.seek_past(target) : c.seek(target);
      return c.p;
    };
    CHECK(from(0, 4, false) == 1);
    CHECK(from(0, 4, true) == 2);
    CHECK(from(0, 10, false) == 4);
    CHECK(from(0, 0, true) == 0);
    CHECK(from(2, 3, false) == 2);
  };
  check_sparse.template operator()<stream::search_strategy::linear>();
  check_sparse.template operator()<stream::search_strategy::galloping>();
  check_sparse.template operator()<stream::search_strategy::binary>();
}

TEST_CASE_TEMPLATE("every level stream obeys the stream laws", Format, dense_vector,
                   sparse_vector) {
  std::mt19937_64 rng(7);
  int checks = 0;
  for (double density : {0.0, 0.1, 0.5, 1.0}) {
    for (int seed = 0; seed < 3; ++seed) {
      auto supp = random_support(rng, 12, density);
      auto t = vector_of<Format>(12, supp, values_for(rng, supp.size()));
      checks += test::check_stream_laws(
          level0<decltype(t), order_i, stream::search_strategy::linear>(t, I{}), -1, 13);
      checks += test::check_stream_laws(
          level0<decltype(t), order_i, stream::search_strategy::galloping>(t, I{}), -1, 13);
      checks += test::check_stream_laws(
          level0<decltype(t), order_i, stream::search_strategy::binary>(t, I{}), -1, 13);
    }
  }
  MESSAGE(checks << " law checks");
}

TEST_CASE(
    "nested levels (csr, dcsr, coo, csc-as-ordered) obey the stream laws and denote the matrix") {
  std::mt19937_64 rng(11);
  for (double density : {0.0, 0.2, 0.6}) {
    std::vector<std::array<std::int64_t, 2>> c;
    std::vector<double> v;
    std::bernoulli_distribution take(density);
    for (std::int64_t r = 0; r < 5; ++r)
      for (std::int64_t k = 0; k < 6; ++k)
        if (take(rng)) {
          c.push_back({r, k});
          v.push_back(static_cast<double>(1 + (r * 7 + k) % 5));
        }
    auto check = [&]<class Format>(Format*) {
      auto t = from_coo<Format>({5, 6}, c, v);
      auto s = level0<decltype(t), order_ij>(t, I{}, J{});
      test::check_stream_laws(s, -1, 6);
      std::map<test::path, double> expected;
      for (std::size_t e = 0; e < c.size(); ++e) expected[{c[e][0], c[e][1]}] = v[e];
      CHECK(test::denote(s) == expected);
    };
    check(static_cast<csr*>(nullptr));
    check(static_cast<dcsr*>(nullptr));
    check(static_cast<coo*>(nullptr));
    check(static_cast<dense_matrix*>(nullptr));
  }
}

TEST_CASE("combinators obey the stream laws over random inputs") {
  std::mt19937_64 rng(3);
  stream::kernel_context ctx{{14}};
  int cases = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const double da = 0.1 + 0.3 * (trial % 3), db = 0.2 + 0.25 * (trial % 4);
    auto sa = random_support(rng, 14, da), sb = random_support(rng, 14, db);
    auto a = vector_of<sparse_vector>(14, sa, values_for(rng, sa.size()));
    auto b = vector_of<sparse_vector>(14, sb, values_for(rng, sb.size()));
    auto dvec = vector_of<dense_vector>(14, sb, values_for(rng, sb.size()));
    auto x = level0<decltype(a), order_i>(a, I{});
    auto y = level0<decltype(b), order_i>(b, I{});
    auto z = level0<decltype(dvec), order_i>(dvec, I{});
    using V = double;
    auto prod = stream::make_mul(stream::mul_op<V>{}, x, y, &ctx);   // intersection
    auto look = stream::make_mul(stream::mul_op<V>{}, x, z, &ctx);   // lookup
    auto uni = stream::make_union(stream::add_op<V>{}, x, y, &ctx);  // union
    auto uni_prod = stream::make_union(stream::add_op<V>{}, prod, x, &ctx);
    auto with_scalar = stream::make_union(stream::add_op<V>{}, x, 2.0, &ctx);  // expand
    auto scaled = stream::make_mul(stream::mul_op<V>{}, x, 3.0, &ctx);
    auto contracted = stream::contract_stream<decltype(x)>{x};
    auto csum = stream::make_union(stream::add_op<V>{}, contracted,
                                   stream::contract_stream<decltype(y)>{y}, &ctx);
    auto once = stream::make_union(stream::add_op<V>{}, contracted, 5.0, &ctx);
    auto neg = stream::apply_linear<fn::negate>{}(x);
    auto squared = stream::apply_nonlinear<decltype([](double v) { return v * v; })>{}(x);
    auto zero = stream::zero_stream<0, double>{};
    auto with_zero = stream::make_union(stream::add_op<V>{}, x, zero, &ctx);
    test::check_stream_laws(squared, -1, 15);
    test::check_stream_laws(zero, -1, 15);
    test::check_stream_laws(with_zero, -1, 15);
    CHECK(test::denote(zero).empty());
    CHECK(test::denote(with_zero) == test::denote(x));
    for (auto& [p, v] : test::denote(squared)) CHECK(v == test::denote(x)[p] * test::denote(x)[p]);
    test::check_stream_laws(prod, -1, 15);
    test::check_stream_laws(look, -1, 15);
    test::check_stream_laws(uni, -1, 15);
    test::check_stream_laws(uni_prod, -1, 15);
    test::check_stream_laws(with_scalar, -1, 15);
    test::check_stream_laws(scaled, -1, 15);
    test::check_stream_laws(contracted, -1, 15);
    test::check_stream_laws(csum, -1, 15);
    test::check_stream_laws(once, -1, 15);
    // the merge and the union of two levels drive their own loop, also under Σ and a map
    static_assert(stream::drives_itself_v<decltype(prod)> &&
                  stream::drives_itself_v<decltype(uni)>);
    auto summed_prod = stream::contract_stream<decltype(prod)>{prod};
    auto negated_prod = stream::apply_linear<fn::negate>{}(prod);
    static_assert(stream::drives_itself_v<decltype(summed_prod)> &&
                  stream::drives_itself_v<decltype(negated_prod)>);
    test::check_stream_laws(summed_prod, -1, 15);
    test::check_stream_laws(negated_prod, -1, 15);
    test::check_stream_laws(neg, -1, 15);
    // two dense fibers hold every index: their union is a zip (no comparison), stepped or driven
    auto dvec2 = vector_of<dense_vector>(14, sa, values_for(rng, sa.size()));
    auto w = level0<decltype(dvec2), order_i>(dvec2, I{});
    auto zipped = stream::make_union(stream::add_op<V>{}, z, w, &ctx);
    static_assert(decltype(zipped)::zipped && stream::drives_itself_v<decltype(zipped)>);
    test::check_stream_laws(zipped, -1, 15);
    test::check_drives_like_steps(zipped);
    std::map<test::path, double> want_zip = test::denote(z);
    for (auto& [p, v] : test::denote(w)) want_zip[p] += v;
    CHECK(test::denote(zipped) == want_zip);
    // denotations agree with the pointwise semantics
    auto va = test::denote(x), vb = test::denote(y), vz = test::denote(z);
    std::map<test::path, double> want_prod, want_look, want_uni;
    for (auto& [p, v] : va) {
      if (vb.count(p)) want_prod[p] = v * vb[p];
      if (vz.count(p)) want_look[p] = v * vz[p];
      want_uni[p] += v;
    }
    for (auto& [p, v] : vb) want_uni[p] += v;
    CHECK(test::denote(prod) == want_prod);
    CHECK(test::denote(look) == want_look);
    CHECK(test::denote(uni) == want_uni);
    double total_a = 0, total_b = 0;
    for (auto& [p, v] : va) total_a += v;
    for (auto& [p, v] : vb) total_b += v;
    CHECK(stream::reduce(csum) == total_a + total_b);
    CHECK(stream::reduce(once) == total_a + 5.0);
    cases += 10;
  }
  MESSAGE(cases << " combinator streams checked");
}

namespace {
// The artifact's index-only union (the indexed-streams paper), kept here as a counterexample: it compares
// indices alone, so a non-ready product state loses to a ready operand at the same index.
template <class A, class B> struct index_only_union {
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = false, strict = true, full = false, locatable = false;
  A a{};
  B b{};
  bool a_first() const { return !b.valid() || (a.valid() && a.index() <= b.index()); }
  bool b_first() const { return !a.valid() || (b.valid() && b.index() <= a.index()); }
  bool valid() const { return a.valid() || b.valid(); }
  std::int64_t index() const { return a_first() ? a.index() : b.index(); }
  bool ready() const {
    return (a_first() && a.valid() && a.ready()) || (b_first() && b.valid() && b.ready());
  }
  double value() const {
    return (a_first() && a.valid() && a.ready() ? a.value() : 0.0) +
           (b_first() && b.valid() && b.ready() ? b.value() : 0.0);
  }
  void seek(std::int64_t i) {
    if (a.valid()) a.seek(i);
    if (b.valid()) b.seek(i);
  }
  void seek_past(std::int64_t i) {
    if (a.valid()) a.seek_past(i);
    if (b.valid()) b.seek_past(i);
  }
  void next() {
    const auto i = index();
    if (ready())
      seek_past(i);
    else
      seek(i);
  }
};
}  // namespace

TEST_CASE("a product driving its own loop gallops over a skewed pair as stepping it does") {
  std::mt19937_64 rng(11);
  int galloped = 0;
  for (int trial = 0; trial < 20; ++trial) {
    // 3 entries against about 150: past skip::gallop_ratio, so the operand behind seeks
    const std::int64_t n = 300;
    auto sa = random_support(rng, n, 0.01 + 0.005 * (trial % 3)), sb = random_support(rng, n, 0.5);
    auto a = vector_of<sparse_vector>(n, sa, values_for(rng, sa.size()));
    auto b = vector_of<sparse_vector>(n, sb, values_for(rng, sb.size()));
    stream::kernel_context ctx{{n}};
    auto x = level0<decltype(a), order_i>(a, I{});
    auto y = level0<decltype(b), order_i>(b, I{});
    auto prod = stream::make_mul(stream::mul_op<double>{}, x, y, &ctx);
    static_assert(stream::drives_itself_v<decltype(prod)>);
    galloped += prod.gallop ? 1 : 0;
    test::check_drives_like_steps(prod);
    test::check_drives_like_steps(stream::make_mul(stream::mul_op<double>{}, y, x, &ctx));
    test::check_drives_like_steps(stream::make_union(stream::add_op<double>{}, x, y, &ctx));
  }
  CHECK(galloped >= 10);  // the skewed pairs did gallop
}

TEST_CASE("T4 counterexample: an index-only union loses values, the lexicographic one does not") {
  auto x = vector_of<sparse_vector>(10, {5}, {2});
  auto y = vector_of<sparse_vector>(10, {3, 5}, {10, 3});
  auto z = vector_of<sparse_vector>(10, {5}, {7});
  stream::kernel_context ctx{{10}};
  auto sx = level0<decltype(x), order_i>(x, I{});
  auto sy = level0<decltype(y), order_i>(y, I{});
  auto sz = level0<decltype(z), order_i>(z, I{});
  // a leapfrog product: it passes through a non-ready state at index 5 (x there, y behind at 3),
  // which is what the index-only union mishandles; the default (skip::adaptive) product of two
  // such short fibers rests on matches only and would hide the bug
  auto product = stream::make_mul(
      stream::mul_op<double, stream::skip::per_loop<stream::skip::leapfrog>>{}, sx, sy, &ctx);
  auto right = stream::make_union(stream::add_op<double>{}, product, sz, &ctx);
  index_only_union<decltype(product), decltype(sz)> wrong{product, sz};
  CHECK(test::denote(right) == std::map<test::path, double>{{{5}, 13.0}});
  CHECK(test::denote(wrong) == std::map<test::path, double>{{{5}, 7.0}});  // the bug, reproduced
}

TEST_CASE("deep maps place a sum at the right depth (apply_sum through an outer level)") {
  auto A = from_coo<csr>({3, 4}, {{0, 1}, {0, 3}, {2, 0}}, std::vector<double>{1, 2, 3});
  stream::kernel_context ctx{{3, 4}};
  auto s = level0<decltype(A), order_ij>(A, I{}, J{});
  auto row_sums = stream::apply_sum<1>{&ctx}(s);  // Σ_j below the i level
  test::check_stream_laws(row_sums, -1, 4);
  CHECK(test::denote(row_sums) == std::map<test::path, double>{{{0, -1}, 3.0}, {{2, -1}, 3.0}});
  auto scaled = stream::apply_sum<1>{&ctx}(2.0);  // Σ_j of a constant = extent · constant
  CHECK(scaled == 8.0);
}
