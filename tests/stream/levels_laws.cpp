// Stream-law tests for the hashed, bitmap and banded levels and a user-defined level (the gap
// level of tests/support/models): every skip policy, nested formats, locate, and the lookups
// the planner builds over locatable levels.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <type_traits>

#include "support/laws/indexed_stream.hpp"
#include "support/models/minimal_level.hpp"

namespace {

using namespace loom;
using boost::mp11::mp_list;
using I = loom::index<"i">;
using J = loom::index<"j">;
using order_i = mp_list<I>;
using order_ij = mp_list<I, J>;

template <class Tensor, class Order, search_strategy P = search_strategy::galloping, class... Is>
auto level0(const Tensor& t, Is...) {
  using layout = stream::access_layout<Tensor, Order, Is...>;
  return stream::make_level<layout, 0, P>(&t, 0, 1);
}

// random support of [0, n) (density d) with values in 1..9, as an independent map
std::map<test::path, double> random_entries(std::mt19937_64& rng, std::vector<std::int64_t> shape,
                                            double d) {
  std::map<test::path, double> m;
  std::bernoulli_distribution take(d);
  std::uniform_int_distribution<int> v(1, 9);
  test::path p(shape.size(), 0);
  auto rec = [&](auto& self, std::size_t k) -> void {
    if (k == shape.size()) {
      if (take(rng)) m[p] = v(rng);
      return;
    }
    for (p[k] = 0; p[k] < shape[k]; ++p[k]) self(self, k + 1);
  };
  rec(rec, 0);
  return m;
}

template <class Format, std::size_t N>
tensor<double, Format> build(const std::array<std::int64_t, N>& shape,
                             const std::map<test::path, double>& m) {
  std::vector<std::array<std::int64_t, N>> c;
  std::vector<double> v;
  for (auto& [p, x] : m) {
    std::array<std::int64_t, N> a{};
    for (std::size_t k = 0; k < N; ++k) a[k] = p[k];
    c.push_back(a);
    v.push_back(x);
  }
  return from_coo<Format>(shape, c, v);
}

// the adaptive level with low cut-offs (a bitmap from a third full, a table from two entries), so
// that these small fibers take every kind
using small_adaptive = adaptive_level<std::int64_t, std::int32_t, 3, 2>;

using vector_formats = std::tuple<format<hashed>, format<bitmap>, format<banded>,
                                  format<example::gap_level>, format<small_adaptive>>;
using matrix_formats =
    std::tuple<format<dense, hashed>, format<hashed, hashed>, format<dense, bitmap>,
               format<bitmap, bitmap>, format<dense, banded>, format<banded, banded>,
               format<hashed, banded>, format<bitmap, compressed>, example::gap_csr,
               format<example::gap_level, example::gap_level>, format<dense, small_adaptive>,
               format<small_adaptive, small_adaptive>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("new level streams obey the stream laws and denote the vector", Format,
                          vector_laws) {
  std::mt19937_64 rng(17);
  int checks = 0;
  for (double density : {0.0, 0.1, 0.5, 1.0}) {
    for (int seed = 0; seed < 3; ++seed) {
      auto want = random_entries(rng, {13}, density);
      auto t = build<Format, 1>({13}, want);
      auto run = [&]<search_strategy P>() {
        auto s = level0<decltype(t), order_i, P>(t, I{});
        checks += test::check_stream_laws(s, -1, 14);
        CHECK(test::denote(s) == want);
        if constexpr (std::remove_cvref_t<decltype(s)>::locatable) {
          for (std::int64_t i = 0; i < 13; ++i) {
            const double expected = want.count({i}) ? want.at({i}) : 0.0;
            CHECK(s.locate(i) == expected);
          }
        }
      };
      run.template operator()<search_strategy::linear>();
      run.template operator()<search_strategy::galloping>();
      run.template operator()<search_strategy::binary>();
    }
  }
  MESSAGE(checks << " law checks");
}
TEST_CASE_TEMPLATE_APPLY(vector_laws, vector_formats);

TEST_CASE_TEMPLATE_DEFINE(
    "nested new levels obey the stream laws; at(), nnz and for_each_stored agree", Format,
    matrix_laws) {
  std::mt19937_64 rng(23);
  for (double density : {0.0, 0.15, 0.6, 1.0}) {
    for (int seed = 0; seed < 3; ++seed) {
      auto want = random_entries(rng, {6, 9}, density);
      auto t = build<Format, 2>({6, 9}, want);
      auto s = level0<decltype(t), order_ij>(t, I{}, J{});
      test::check_stream_laws(s, -1, 9);
      CHECK(test::denote(s) == want);
      for (std::int64_t a = 0; a < 6; ++a)
        for (std::int64_t b = 0; b < 9; ++b) {
          const double expected = want.count({a, b}) ? want.at({a, b}) : 0.0;
          CHECK(t.at(a, b) == expected);
        }
      std::map<test::path, double> stored;
      t.for_each_stored([&](const auto& c, double v) {
        if (v != 0) stored[{c[0], c[1]}] = v;  // banded pads its band with zeros
      });
      CHECK(stored == want);
      constexpr bool counts_entries =
          !Format::properties[1].padded || std::is_same_v<Format, format<dense, bitmap>> ||
          std::is_same_v<Format, format<bitmap, bitmap>> ||
          std::is_same_v<Format, format<dense, small_adaptive>> ||
          std::is_same_v<Format, format<small_adaptive, small_adaptive>>;
      if constexpr (counts_entries)
        CHECK(t.nnz() == static_cast<std::int64_t>(want.size()));
      else
        CHECK(t.nnz() >= static_cast<std::int64_t>(want.size()));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(matrix_laws, matrix_formats);

TEST_CASE("the planner's lookup probes a locatable level: laws and denotation") {
  std::mt19937_64 rng(5);
  stream::kernel_context ctx{{15}};
  for (int trial = 0; trial < 12; ++trial) {
    const double da = 0.1 + 0.2 * (trial % 3), db = 0.15 + 0.25 * (trial % 4);
    auto wa = random_entries(rng, {15}, da), wb = random_entries(rng, {15}, db);
    auto a = build<sparse_vector, 1>({15}, wa);
    auto h = build<format<hashed>, 1>({15}, wb);
    auto m = build<format<bitmap>, 1>({15}, wb);
    auto d = build<format<banded>, 1>({15}, wb);
    auto x = level0<decltype(a), order_i>(a, I{});
    std::map<test::path, double> want_prod, want_sum = wa;
    for (auto& [p, v] : wa)
      if (wb.count(p)) want_prod[p] = v * wb.at(p);
    for (auto& [p, v] : wb) want_sum[p] += v;
    // a banded level also holds the zero padding inside its band
    std::size_t in_band = 0;
    if (!wb.empty())
      for (auto& [p, v] : wa) in_band += p >= wb.begin()->first && p <= wb.rbegin()->first;
    auto check = [&](const auto& y, std::size_t expect_emitted) {
      auto prod = stream::make_mul(stream::mul_op<double>{}, x, y, &ctx);
      auto flipped = stream::make_mul(stream::mul_op<double>{}, y, x, &ctx);
      // iterate the compressed operand, locate the other, on either side of the product
      static_assert(std::remove_cvref_t<decltype(prod)>::depth == 0);
      using Y = std::remove_cvref_t<decltype(y)>;
      static_assert(!std::is_same_v<decltype(prod),
                                    stream::mul_stream<decltype(x), Y, stream::mul_op<double>>>);
      test::check_stream_laws(prod, -1, 16);
      test::check_stream_laws(flipped, -1, 16);
      CHECK(test::denote(prod) == want_prod);
      CHECK(test::denote(flipped) == want_prod);
      // a probe of a non-full level steps over absent indices: no emitted zeros
      std::size_t emitted = 0;
      for (auto s = prod; s.valid(); s.next()) emitted += s.ready();
      CHECK(emitted == expect_emitted);
      auto uni = stream::make_union(stream::add_op<double>{}, x, y, &ctx);
      test::check_stream_laws(uni, -1, 16);
      CHECK(test::denote(uni) == want_sum);
    };
    check(level0<decltype(h), order_i>(h, I{}), want_prod.size());
    check(level0<decltype(m), order_i>(m, I{}), want_prod.size());
    check(level0<decltype(d), order_i>(d, I{}), in_band);
    // two locatable levels: one is iterated, the other probed
    auto both = stream::make_mul(stream::mul_op<double>{}, level0<decltype(h), order_i>(h, I{}),
                                 level0<decltype(m), order_i>(m, I{}), &ctx);
    test::check_stream_laws(both, -1, 16);
    std::map<test::path, double> squares;
    for (auto& [p, v] : wb) squares[p] = v * v;
    CHECK(test::denote(both) == squares);
  }
}

TEST_CASE("bitmap cursor crosses 64-bit words and parents sharing a word") {
  // 3 x 50 matrix: bit positions 0..149 span three words; row 1 starts inside word 0
  std::map<test::path, double> want{{{0, 0}, 1},  {{0, 49}, 2}, {{1, 14}, 3}, {{1, 13}, 4},
                                    {{1, 49}, 5}, {{2, 0}, 6},  {{2, 27}, 7}};
  auto t = build<format<dense, bitmap>, 2>({3, 50}, want);
  auto s = level0<decltype(t), order_ij>(t, I{}, J{});
  test::check_stream_laws(s, -1, 50);
  CHECK(test::denote(s) == want);
  CHECK(t.nnz() == 7);
}
