// The distributed einsum's plan search (tra/einsum_plans.hpp): each strategy run over simulated
// sites against the single-process einsum for products, transposed and batched specs; the
// choice against the cost model's arithmetic; explain.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace loom::tra;

namespace {
template <std::size_t K>
relation<double, K, 2> random_relation(const std::array<std::int64_t, K>& bounds,
                                       const shape_t<2>& tile_shape, std::uint64_t seed) {
  relation<double, K, 2> r(bounds, tile_shape);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::array<std::int64_t, K> key{};
  std::int64_t count = 1;
  for (auto b : bounds) count *= b;
  for (std::int64_t f = 0; f < count; ++f) {
    std::int64_t rest = f;
    for (std::size_t d = K; d-- > 0;) {
      key[d] = rest % bounds[d];
      rest /= bounds[d];
    }
    tile<double, 2> t(tile_shape);
    for (std::int64_t e = 0; e < tile_shape[0] * tile_shape[1]; ++e) t.data()[e] = u(g);
    r.insert(key, std::move(t));
  }
  return r;
}

template <std::size_t K>
bool close(const relation<double, K, 2>& a, const relation<double, K, 2>& b) {
  if (a.bounds() != b.bounds() || a.size() != b.size()) return false;
  for (const auto& [key, t] : a) {
    const auto& u = b.at(key);
    for (std::int64_t e = 0; e < t.shape()[0] * t.shape()[1]; ++e)
      if (std::abs(t.data()[e] - u.data()[e]) > 1e-9 * (1 + std::abs(u.data()[e]))) return false;
  }
  return true;
}

template <loom::fixed_string S, class L, class R> void every_strategy(const L& l, const R& r) {
  CAPTURE(std::string(S.view()));
  const auto want = einsum<S>(l, r);
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .policy = cost_policy::corrected};
  for (const std::int64_t s : {1, 3}) {
    const ia::local_sites sites(s);
    for (const auto st : all_einsum_strategies) {
      CAPTURE(std::string(name(st)));
      CHECK(close(distributed_einsum<S>(sites, l, r, cm, st), want));
    }
    einsum_choice c;
    CHECK(close(distributed_einsum<S>(sites, l, r, cm, std::nullopt, &c), want));
    for (const auto& e : c.costs) CHECK(c.chosen.total <= e.total);
  }
}
}  // namespace

TEST_CASE("distributed einsum: every strategy on simulated sites equals the einsum") {
  const auto A = random_relation<2>({3, 4}, {5, 6}, 1);
  const auto B = random_relation<2>({4, 2}, {6, 3}, 2);
  const auto Bt = random_relation<2>({2, 4}, {3, 6}, 3);
  every_strategy<"ij,jk->ik">(A, B);
  every_strategy<"ij,kj->ik">(A, Bt);
  every_strategy<"ij,jk->ki">(A, B);
  const auto X = random_relation<3>({2, 3, 4}, {5, 6}, 4);
  const auto Y = random_relation<3>({2, 4, 2}, {6, 3}, 5);
  every_strategy<"bij,bjk->bik">(X, Y);
  every_strategy<"bij,bjk->ik">(X, Y);
}

TEST_CASE("distributed einsum: the costs follow the model, and a skinny side is broadcast") {
  // A is one block-row: broadcasting it is cheap, B (8 x 8 blocks) is not
  const auto A = random_relation<2>({1, 8}, {4, 4}, 6);
  const auto B = random_relation<2>({8, 8}, {4, 4}, 7);
  const cost_model cm{.alpha = 1, .beta = 0, .sites = 4, .policy = cost_policy::corrected};
  const einsum_choice c = choose_einsum<"ij,jk->ik">(cm, A, B);
  CHECK(c.chosen.strategy == einsum_strategy::broadcast_left);
  // broadcast left moves A to the 3 other sites and shuffles the 64 joined tiles (3/4 of them)
  const double tile_bytes = 4 * 4 * 8;
  CHECK(c.costs[0].cn == doctest::Approx(3 * 8 * tile_bytes + 0.75 * 64 * tile_bytes));
  CHECK(c.costs[0].cc == doctest::Approx(64 * 2 * 64.0 + (64 - 8) * 16.0));
  const std::string text = c.explain();
  CAPTURE(text);
  CHECK(text.find("* broadcast left: Cn") != std::string::npos);
  CHECK(text.find("chosen: broadcast left") != std::string::npos);
  // both sides already partitioned on the join key: the shuffle join moves only the output
  const einsum_choice p =
      choose_einsum<"ij,jk->ik", ia::partitioned<ia::dims<1>>, ia::partitioned<ia::dims<0>>>(cm, B,
                                                                                             B);
  CHECK(p.costs[2].cn == doctest::Approx(0.75 * 512 * tile_bytes));
}
