// MPI tests of tra/mpi/ (run by ctest under mpirun with 1, 2 and 4 ranks): the IA operators,
// the four matmul strategies and the cost model's choice, a planned chain of products, SpMV and a dense layer, each compared
// with the single-process result; plus a mismatch check and the progress of a broadcast. A
// failed check or exception on any rank ends the whole job with a message naming the rank (never
// a hang; the watchdog bounds it).
//   --fail-on-rank R : rank R throws mid-run (ctest expects the clear error)
//   --hang-on-rank R : rank R skips a collective (ctest expects the watchdog's message)
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {

relation<double, 2, 2> random_tiles(std::int64_t rows, std::int64_t cols, std::int64_t bm,
                                    std::int64_t bn, unsigned seed) {
  std::mt19937 gen(seed);  // the same on every rank: inputs are given whole everywhere
  std::uniform_int_distribution<int> v(-4, 4);
  relation<double, 2, 2> r({rows, cols}, {bm, bn});
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      tile<double, 2> t({bm, bn});
      for (auto& x : t.data()) x = v(gen);
      r.insert({i, j}, std::move(t));
    }
  return r;
}
relation<double, 2, 2> reference_matmul(const relation<double, 2, 2>& X,
                                        const relation<double, 2, 2>& Y) {
  return aggregate(
      join(X, Y, std::array<std::size_t, 1>{1}, std::array<std::size_t, 1>{0}, mat_mul{}),
      std::array<std::size_t, 2>{0, 2}, mat_add{});
}

void test_ia_operators(const lm::transport& tr) {
  const auto R = random_tiles(3, 5, 2, 3, 7);
  const auto S = random_tiles(5, 2, 3, 2, 8);
  // BCAST then collect gives the input back; SHUF on each key position too
  using bc = ia::bcast<ia::leaf<0, 2>>;
  MPI_TEST_CHECK(ia::evaluate<bc>(tr, R) == R);
  const auto b = ia::execute<bc>(tr, R);
  MPI_TEST_CHECK(b == R);  // every rank holds everything after a broadcast
  using sh0 = ia::shuf<ia::dims<0>, ia::leaf<0, 2>>;
  const auto part = ia::execute<sh0>(tr, R);
  for (const auto& [key, t] : part)
    MPI_TEST_CHECK(ia::site_of(key, R.bounds(), std::array<std::size_t, 1>{0}, tr.sites()) ==
                   tr.rank());
  MPI_TEST_CHECK(ia::evaluate<sh0>(tr, R) == R);
  // local join (one side broadcast) and local aggregation after a shuffle on the group keys
  using lj =
      ia::ljoin<ia::dims<1>, ia::dims<0>, mat_mul, ia::leaf<0, 2>, ia::bcast<ia::leaf<1, 2>>>;
  const auto single = ia::evaluate<lj>(ia::local_sites(1), R, S);
  MPI_TEST_CHECK(ia::evaluate<lj>(tr, R, S) == single);
  using la = ia::lagg<ia::dims<1>, mat_add, ia::shuf<ia::dims<1>, ia::leaf<0, 2>>>;
  MPI_TEST_CHECK(ia::evaluate<la>(tr, R) == ia::evaluate<la>(ia::local_sites(1), R));
  // R2-5's combiner plan gives the same sums
  using two = ia::rewrite_t<la, boost::mp11::mp_list<rules::two_phase_aggregation>>;
  static_assert(!std::is_same_v<two, la>);
  MPI_TEST_CHECK(ia::evaluate<two>(tr, R) == ia::evaluate<la>(ia::local_sites(1), R));
  // the UT-5 plan rewritten by R1-6 and R1-7
  using X = ia::leaf<0, 2, ia::partitioned<ia::dims<0, 1>>>;
  using Y = ia::leaf<1, 2, ia::partitioned<ia::dims<0, 1>>>;
  using d =
      ia::lmap<project<0>, diag_extract,
               ia::lfilter<eq<0, 1>, ia::ljoin<ia::dims<0, 1>, ia::dims<0, 1>, mat_add, X, Y>>>;
  const auto A = random_tiles(4, 4, 3, 3, 9), B = random_tiles(4, 4, 3, 3, 10);
  MPI_TEST_CHECK(ia::evaluate<ia::rewrite_t<d, rules::all>>(tr, A, B) ==
                 ia::evaluate<d>(ia::local_sites(1), A, B));
}

void test_matmul(const lm::transport& tr) {
  const auto X = random_tiles(4, 3, 8, 5, 1), Y = random_tiles(3, 5, 5, 6, 2);
  const auto expect = reference_matmul(X, Y);
  cost_model cm{.alpha = 1, .beta = 0, .policy = cost_policy::corrected};
  const std::array parts{partitioning::none, partitioning::rows, partitioning::cols};
  for (auto xp : parts)
    for (auto yp : parts)
      for (auto st : all_matmul_strategies) {
        lm::matmul_report rep;
        const auto C = lm::matmul(tr, X, Y, cm, xp, yp, st, &rep);
        MPI_TEST_CHECK(C == expect);
        lm::verify_same(C, "the matmul result");
        MPI_TEST_CHECK(rep.chosen.strategy == st);
        if (tr.sites() == 1) MPI_TEST_CHECK(rep.bytes_sent == 0);
      }
  lm::matmul_report rep;
  const auto C =
      lm::matmul(tr, X, Y, cm, partitioning::none, partitioning::cols, std::nullopt, &rep);
  // kept where computed: the shares are disjoint and their union is the product
  const auto share = lm::matmul(tr, X, Y, cm, partitioning::none, partitioning::cols, std::nullopt,
                                nullptr, lm::result_on::owner_rank);
  std::int64_t tuples = share.size(), all = 0;
  MPI_Allreduce(&tuples, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_TEST_CHECK(all == expect.size());
  for (const auto& [key, t] : share) MPI_TEST_CHECK(expect.at(key) == t);
  MPI_TEST_CHECK(C == expect);
  MPI_TEST_CHECK(rep.explain.find("chosen: ") != std::string::npos);
  if (tr.sites() > 1) MPI_TEST_CHECK(rep.chosen.strategy == matmul_strategy::broadcast_left);
  // the dense reference: a triple loop over the untiled matrices
  const std::int64_t m = 32, k = 15, n = 30;
  std::vector<double> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      a[static_cast<std::size_t>(i * k + p)] = X.at({i / 8, p / 5})(i % 8, p % 5);
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j)
      b[static_cast<std::size_t>(p * n + j)] = Y.at({p / 5, j / 6})(p % 5, j % 6);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p)
        s += a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
      MPI_TEST_CHECK(C.at({i / 8, j / 6})(i % 8, j % 6) == s);
    }
}

void test_matmul_chain(const lm::transport& tr) {
  // a skinny last operand: the plan multiplies X1 X2 first; the result equals the
  // single-process product in the left-to-right order
  const auto X0 = random_tiles(3, 4, 6, 5, 7), X1 = random_tiles(4, 4, 5, 5, 8),
             X2 = random_tiles(4, 1, 5, 3, 9);
  const std::vector<relation<double, 2, 2>> xs{X0, X1, X2};
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .policy = cost_policy::corrected};
  chain_plan plan;
  const auto C = lm::matmul_chain(tr, xs, cm, {partitioning::rows}, &plan);
  const auto expect = reference_matmul(reference_matmul(X0, X1), X2);
  MPI_TEST_CHECK(C.bounds() == expect.bounds());
  for (const auto& [key, t] : expect)
    for (std::int64_t r = 0; r < t.shape()[0]; ++r)
      for (std::int64_t c = 0; c < t.shape()[1]; ++c)
        MPI_TEST_CHECK(std::abs(C.at(key)(r, c) - t(r, c)) <= 1e-9 * (1 + std::abs(t(r, c))));
  lm::verify_same(C, "the chain's product");
  MPI_TEST_CHECK(plan.order == "(X0 (X1 X2))");
  MPI_TEST_CHECK(plan.steps.size() == 2);
}

void test_spmv(const lm::transport& tr) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  std::mt19937 gen(3);
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> vals;
  const std::int64_t m = 101, n = 77;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      if (gen() % 9 == 0) {
        coords.push_back({r, c});
        vals.push_back(static_cast<double>(gen() % 7) - 3);
      }
  const auto A = loom::from_coo<loom::csr>({m, n}, coords, vals);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t c = 0; c < n; ++c)
    x[static_cast<std::size_t>(c)] = static_cast<double>(c % 5) - 2;
  const auto y = lm::spmv(tr, A, x);
  loom::tensor<double, loom::dense_vector> xv({n}), yv({m});
  for (std::int64_t c = 0; c < n; ++c) xv.at(c) = x[static_cast<std::size_t>(c)];
  yv(i) = loom::sum(j, A(i, j) * xv(j));
  for (std::int64_t r = 0; r < m; ++r) MPI_TEST_CHECK(y[static_cast<std::size_t>(r)] == yv.at(r));
}

void test_dense_layer(const lm::transport& tr) {
  const auto X = random_tiles(6, 4, 4, 8, 4);  // a batch of 24 rows, 32 features
  const auto W = random_tiles(4, 3, 8, 5, 5);  // 32 -> 15
  const auto bias = random_tiles(1, 3, 1, 5, 6);
  const auto H = lm::dense_layer(tr, X, W, bias);
  const auto Z = reference_matmul(X, W);
  MPI_TEST_CHECK(H.size() == Z.size());
  for (const auto& [key, z] : Z) {
    const auto& h = H.at(key);
    for (std::int64_t p = 0; p < 4; ++p)
      for (std::int64_t q = 0; q < 5; ++q)
        MPI_TEST_CHECK(h(p, q) == std::max(0.0, z(p, q) + bias.at({0, key[1]})(0, q)));
  }
}

void test_mismatch_is_reported(const lm::transport& tr) {
  auto R = random_tiles(2, 2, 2, 2, 11);
  lm::verify_same(R, "the input");
  if (tr.sites() == 1) return;
  if (tr.rank() == 1) R.find({0, 0})->data()[0] += 1;
  bool thrown = false;
  try {
    lm::verify_same(R, "the perturbed input");
  } catch (const loom::error& e) {
    thrown = std::string(e.what()).find("differs across ranks") != std::string::npos;
  }
  MPI_TEST_CHECK(thrown);  // on every rank, not only the perturbed one
}
// BCAST reports the tiles this rank sends (none with one rank: nothing moves), 0 to all of them.
void test_progress(const lm::transport& tr) {
  const auto R = random_tiles(4, 5, 2, 2, 12);
  std::vector<loom::progress> calls;
  {
    const loom::scoped_progress scope([&](const loom::progress& p) { calls.push_back(p); });
    MPI_TEST_CHECK(tr.broadcast(R) == R);
  }
  if (tr.sites() == 1) {
    MPI_TEST_CHECK(calls.empty());
    return;
  }
  MPI_TEST_CHECK(calls.size() >= 2);
  MPI_TEST_CHECK(calls.front().done == 0);
  for (std::size_t c = 1; c < calls.size(); ++c) MPI_TEST_CHECK(calls[c].done > calls[c - 1].done);
  MPI_TEST_CHECK(calls.back().done == R.size() && calls.back().total == R.size());
  for (const loom::progress& p : calls)
    MPI_TEST_CHECK(p.phase == "distributing" && std::string(p.unit) == "tiles");
}
}  // namespace

int main(int argc, char** argv) {
  int fail_rank = -1, hang_rank = -1, timeout = 60;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--fail-on-rank")) fail_rank = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--hang-on-rank")) hang_rank = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--timeout")) timeout = std::atoi(argv[a + 1]);
  }
  lm::environment env(argc, argv, std::chrono::seconds(timeout));
  return lm::run_or_abort([&] {
    lm::transport tr;
    if (tr.rank() == fail_rank) throw std::runtime_error("injected failure (--fail-on-rank)");
    if (tr.rank() == hang_rank) std::this_thread::sleep_for(std::chrono::hours(1));
    test_ia_operators(tr);
    test_matmul(tr);
    test_matmul_chain(tr);
    test_spmv(tr);
    test_dense_layer(tr);
    test_mismatch_is_reported(tr);
    test_progress(tr);
    if (tr.rank() == 0)
      std::printf("tests.mpi.tra: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
