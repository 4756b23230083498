// MPI tests of the TRA over distributed sparse tiles (tra/mpi/sparse_operators.hpp), run by ctest
// under mpirun with 1 to 4 ranks: BCAST and SHUF of compact tiles (the same ranks as the dense
// IA's SHUF, the bytes exact), SHUF with Σ on arrival, the four strategies of a sparse product
// from every placement, the einsum and chain plans costed from nnz (a choice that differs from
// the dense sizes' one), the einsum's four products and their transposed outputs from every
// partition, and the IA's plans run by ia::evaluate over sparse tiles, each result against the
// single-process product.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
using mpi_test::random_matrix;
using csr_matrix = loom::tensor<double, loom::csr>;

bool same_entries(const csr_matrix& a, const csr_matrix& b) {
  if (a.shape() != b.shape()) return false;
  for (std::int64_t r = 0; r < a.extent(0); ++r)
    for (std::int64_t c = 0; c < a.extent(1); ++c)
      if (a.at(r, c) != b.at(r, c)) return false;
  return true;
}

csr_matrix product(const csr_matrix& A, const csr_matrix& B) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  csr_matrix C({A.extent(0), B.extent(1)});
  C(i, j) = loom::sum(k, A(i, k) * B(k, j));
  return C;
}

// One entry every `every` rows, at a scattered column.
csr_matrix thin_matrix(std::int64_t m, std::int64_t n, std::int64_t every) {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < m; r += every) {
    coords.push_back({r, (r * 7 + 3) % n});
    values.push_back(static_cast<double>(r % 3) + 1);
  }
  return loom::from_coo<loom::csr>({m, n}, coords, values);
}

void test_moves(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(45, 38, 4, 3);
  const auto whole = to_sparse_tiles<loom::csr>(M, {8, 8});
  const auto A = lm::distribute(tr, whole, M.shape(), lm::tile_partition::row_blocks(s));
  // SHUF on the tile column: a tile lands where the dense IA's SHUF<1> puts the tile of its key
  for (const std::vector<std::size_t>& on : {std::vector<std::size_t>{1}, {0}, {0, 1}}) {
    const auto to = lm::tile_partition::cyclic(s, on);
    const auto leaving = lm::bytes_leaving(tr, A, to);
    const auto before = tr.sent();
    const auto S = lm::shuffle(tr, A, on);
    MPI_TEST_CHECK((tr.sent() - before).bytes == leaving);
    for (const auto& [key, t] : S.tiles) {
      MPI_TEST_CHECK(ia::site_of(key, whole.bounds(), on, s) == tr.rank());
      MPI_TEST_CHECK(t.nnz() == whole.find(key)->nnz());
    }
    MPI_TEST_CHECK(lm::global_nnz(tr, S) == whole.nnz());
  }
  // BCAST: every tile everywhere
  const auto all = lm::bcast(tr, A);
  MPI_TEST_CHECK(all.size() == whole.size());
  MPI_TEST_CHECK(same_entries(from_sparse_tiles<loom::csr>(all, M.shape()), M));
  // SHUF then Σ: every rank holds the whole matrix's tiles as partial sums; the owners add them
  const auto summed = lm::shuffle_sum<loom::csr>(tr, whole, lm::tile_partition::cyclic(s, {0, 1}));
  lm::distributed_matrix<double, loom::csr> D{M.shape(), lm::tile_partition::cyclic(s, {0, 1}),
                                              summed, "S"};
  const auto back = from_sparse_tiles<loom::csr>(lm::gather(tr, D), M.shape());
  for (std::int64_t r = 0; r < 45; ++r)
    for (std::int64_t c = 0; c < 38; ++c) MPI_TEST_CHECK(back.at(r, c) == s * M.at(r, c));
}

void test_strategies(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto MA = random_matrix(41, 35, 5, 7), MB = random_matrix(35, 29, 4, 8);
  const auto want = product(MA, MB);
  const auto wa = to_sparse_tiles<loom::csr>(MA, {8, 6});
  const auto wb = to_sparse_tiles<loom::dcsr>(MB, {6, 7});
  const std::vector<lm::tile_partition> parts{
      lm::tile_partition::row_blocks(s), lm::tile_partition::col_blocks(s),
      lm::tile_partition::cyclic(s, {1}), lm::tile_partition::cyclic(s, {0}),
      lm::tile_partition::hashed(s)};
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11};
  for (const auto& pa : parts)
    for (const auto& pb : parts) {
      const auto A = lm::distribute(tr, wa, MA.shape(), pa, "A");
      const auto B = lm::distribute(tr, wb, MB.shape(), pb, "B");
      for (const matmul_strategy st : all_matmul_strategies) {
        lm::sparse_report rep;
        const auto C = lm::sparse_matmul<loom::csr>(tr, A, B, cm, st, &rep);
        MPI_TEST_CHECK(rep.chosen == static_cast<std::size_t>(st));
        // each output tile on one rank only
        MPI_TEST_CHECK(
            lm::detail::allreduce_sum(static_cast<std::int64_t>(C.tiles.size()), tr.comm()) ==
            static_cast<std::int64_t>(lm::gather(tr, C).size()));
        MPI_TEST_CHECK(
            same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, C), want.shape()), want));
        for (const auto& [key, t] : C.tiles)
          MPI_TEST_CHECK(C.partition.owner(key, {6, 5}) == tr.rank());
      }
      // whole operands: nothing to broadcast
      lm::sparse_report rep;
      const auto C = lm::sparse_matmul<loom::csr>(tr, lm::operand(wa, MA.shape(), s),
                                                  lm::operand(wb, MB.shape(), s), cm,
                                                  matmul_strategy::broadcast_left, &rep);
      MPI_TEST_CHECK(rep.sent.bytes == 0);
      MPI_TEST_CHECK(
          same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, C), want.shape()), want));
    }
  // the model's own choice is the cheapest candidate, and its result the same
  const auto A = lm::distribute(tr, wa, MA.shape(), lm::tile_partition::row_blocks(s), "A");
  const auto B = lm::distribute(tr, wb, MB.shape(), lm::tile_partition::hashed(s), "B");
  lm::sparse_report rep;
  const auto C = lm::sparse_matmul<loom::csr>(tr, A, B, cm, std::nullopt, &rep);
  for (const auto& c : rep.candidates) MPI_TEST_CHECK(rep.candidates[rep.chosen].cost <= c.cost);
  MPI_TEST_CHECK(same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, C), want.shape()), want));
}

void test_einsum(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  // A: one entry every 4 rows; B: half its cells. By dense tile sizes A (64 x 64) is 4 times B
  // (64 x 16), so broadcasting B is cheaper; by their arrays, A is far smaller.
  const auto MA = thin_matrix(64, 64, 4), MB = random_matrix(64, 16, 2, 21);
  const auto wa = to_sparse_tiles<loom::csr>(MA, {8, 8});
  const auto wb = to_sparse_tiles<loom::csr>(MB, {8, 8});
  const cost_model cm4{.alpha = 1e-9, .beta = 1e-11, .sites = 4, .policy = cost_policy::corrected};
  const auto dense_choice =
      choose_einsum<"ij,jk->ik">(cm4, to_tiled(MA, {8, 8}).tiles, to_tiled(MB, {8, 8}).tiles);
  const auto sparse_choice =
      choose_einsum<"ij,jk->ik">(cm4, stats_of(wa, MA.shape()), stats_of(wb, MB.shape()));
  MPI_TEST_CHECK(dense_choice.chosen.strategy == einsum_strategy::broadcast_right);
  MPI_TEST_CHECK(sparse_choice.chosen.strategy == einsum_strategy::broadcast_left);
  MPI_TEST_CHECK(choose_einsum<"ij,jk->ik">(cm4, wa, wb).explain() == sparse_choice.explain());
  const auto want = product(MA, MB);
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .policy = cost_policy::corrected};
  for (const auto& part : {lm::tile_partition::row_blocks(s), lm::tile_partition::hashed(s)}) {
    const auto A = lm::distribute(tr, wa, MA.shape(), part, "A");
    const auto B = lm::distribute(tr, wb, MB.shape(), part, "B");
    einsum_choice choice;
    const auto C = lm::sparse_einsum<"ij,jk->ik", loom::csr>(tr, A, B, cm, std::nullopt, &choice);
    if (s == 4) MPI_TEST_CHECK(choice.chosen.strategy == einsum_strategy::broadcast_left);
    MPI_TEST_CHECK(
        same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, C), want.shape()), want));
    for (const einsum_strategy st : all_einsum_strategies) {
      const auto F = lm::sparse_einsum<"ij,jk->ik", loom::csr>(tr, A, B, cm, st);
      MPI_TEST_CHECK(
          same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, F), want.shape()), want));
    }
  }
}

// The transpose of a matrix, built from its coordinates here (not by the code under test).
csr_matrix flipped(const csr_matrix& m) {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  m.for_each_stored([&](const auto& c, double v) {
    coords.push_back({c[1], c[0]});
    values.push_back(v);
  });
  return loom::from_coo<loom::csr>({m.extent(1), m.extent(0)}, coords, values);
}

// einsum S with A (M x K as the product reads it) and B (K x N) stored as the spec names them,
// spread in every pair of partitions, by every strategy and the model's own: C (or Cᵀ for
// "->ki") against the single-process product, each output tile on one rank.
template <loom::fixed_string S>
void check_transposed_einsum(const lm::transport& tr, const csr_matrix& MA, const csr_matrix& MB) {
  const int s = static_cast<int>(tr.sites());
  constexpr auto t = detail::einsum_spec<S>::transposes;
  const auto want = t.out ? flipped(product(MA, MB)) : product(MA, MB);
  const auto stored_a = t.left ? flipped(MA) : MA;
  const auto stored_b = t.right ? flipped(MB) : MB;
  const std::array<std::int64_t, 2> ta{8, 6}, tb{6, 7};
  const auto wa = to_sparse_tiles<loom::csr>(stored_a, t.left ? std::array{ta[1], ta[0]} : ta);
  const auto wb = to_sparse_tiles<loom::dcsr>(stored_b, t.right ? std::array{tb[1], tb[0]} : tb);
  const std::vector<lm::tile_partition> parts{
      lm::tile_partition::row_blocks(s), lm::tile_partition::col_blocks(s),
      lm::tile_partition::cyclic(s, {0}), lm::tile_partition::grid(s),
      lm::tile_partition::hashed(s)};
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .policy = cost_policy::corrected};
  for (std::size_t pa = 0; pa < parts.size(); ++pa) {
    const auto A = lm::distribute(tr, wa, stored_a.shape(), parts[pa], "A");
    const auto B = lm::distribute(tr, wb, stored_b.shape(), parts[(pa + 1) % parts.size()], "B");
    auto check = [&](const auto& C) {
      const auto whole = lm::gather(tr, C);
      MPI_TEST_CHECK(same_entries(from_sparse_tiles<loom::csr>(whole, want.shape()), want));
      MPI_TEST_CHECK(
          lm::detail::allreduce_sum(static_cast<std::int64_t>(C.tiles.size()), tr.comm()) ==
          static_cast<std::int64_t>(whole.size()));
      for (const auto& [key, tile] : C.tiles)
        MPI_TEST_CHECK(C.partition.owner(key, C.tiles.bounds()) == tr.rank());
      MPI_TEST_CHECK(C.shape == want.shape());
    };
    // each strategy once over the partitions, the model's own choice from the first pair
    einsum_choice forced;
    check(lm::sparse_einsum<S, loom::csr>(tr, A, B, cm, all_einsum_strategies[pa % 3], &forced));
    // the transposes' moves are charged: nothing where mpi::transpose sends nothing (blocks,
    // cyclic keys), else the SHUF of the operand, within a factor 2 of the bytes it sends
    cost_model here = cm;
    here.sites = s;
    const auto unmoved = choose_einsum<S>(here, lm::detail::global_stats(tr, lm::operand(A)),
                                          lm::detail::global_stats(tr, lm::operand(B)));
    const double charged = forced.costs[0].cn - unmoved.costs[0].cn;
    for (std::size_t k = 1; k < 3; ++k)
      MPI_TEST_CHECK(std::abs(forced.costs[k].cn - unmoved.costs[k].cn - charged) <=
                     1e-9 * forced.costs[k].cn);
    const auto before = tr.sent();
    if constexpr (t.left) (void)lm::transpose(tr, A);
    if constexpr (t.right) (void)lm::transpose(tr, B);
    const auto sent = static_cast<double>(lm::detail::allreduce_sum(
        static_cast<std::int64_t>((tr.sent() - before).bytes), tr.comm()));
    if (sent == 0)
      MPI_TEST_CHECK(charged == 0);
    else
      MPI_TEST_CHECK(charged > sent / 2 && charged < sent * 2);
    if (pa == 0) {
      einsum_choice choice;
      check(lm::sparse_einsum<S, loom::csr>(tr, A, B, cm, std::nullopt, &choice));
      for (const auto& c : choice.costs) MPI_TEST_CHECK(choice.chosen.total <= c.total);
    }
  }
}

void test_transposed_einsum(const lm::transport& tr) {
  for (const unsigned one_in : {2u, 9u}) {  // half the cells, a ninth of them
    const unsigned seed = one_in;
    const auto MA = random_matrix(41, 35, one_in, 40 + seed),
               MB = random_matrix(35, 29, one_in, 50 + seed);
    check_transposed_einsum<"ij,jk->ik">(tr, MA, MB);
    check_transposed_einsum<"ji,jk->ik">(tr, MA, MB);
    check_transposed_einsum<"ij,kj->ik">(tr, MA, MB);
    check_transposed_einsum<"ji,kj->ik">(tr, MA, MB);
    check_transposed_einsum<"ij,jk->ki">(tr, MA, MB);
    check_transposed_einsum<"ji,jk->ki">(tr, MA, MB);
    check_transposed_einsum<"ij,kj->ki">(tr, MA, MB);
    check_transposed_einsum<"ji,kj->ki">(tr, MA, MB);
  }
  // a transpose keeps each tile on its rank where the partition has a transposed counterpart
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(45, 38, 4, 3);
  const auto whole = to_sparse_tiles<loom::csr>(M, {8, 8});
  for (const auto& part : {lm::tile_partition::row_blocks(s), lm::tile_partition::cyclic(s, {0, 1}),
                           lm::tile_partition::hashed(s)}) {
    const auto A = lm::distribute(tr, whole, M.shape(), part, "A");
    const auto before = tr.sent();
    const auto T = lm::transpose(tr, A);
    if (part.layout() != lm::tile_layout::hashed) MPI_TEST_CHECK((tr.sent() - before).bytes == 0);
    MPI_TEST_CHECK(T.tiles.size() == A.tiles.size() || part.layout() == lm::tile_layout::hashed);
    for (const auto& [key, tile] : T.tiles)
      MPI_TEST_CHECK(T.partition.owner(key, T.tiles.bounds()) == tr.rank());
    MPI_TEST_CHECK(
        same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, T), {38, 45}), flipped(M)));
  }
}

void test_chain(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto X0 = thin_matrix(48, 40, 2), X1 = random_matrix(40, 40, 2, 31),
             X2 = random_matrix(40, 24, 2, 32);
  const auto want = product(product(X0, X1), X2);
  const std::vector<csr_matrix> ms{X0, X1, X2};
  std::vector<lm::distributed_matrix<double, loom::csr>> xs;
  std::vector<sparse_stats> stats;
  for (const auto& m : ms) {
    const auto w = to_sparse_tiles<loom::csr>(m, {8, 8});
    stats.push_back(stats_of(w, m.shape()));
    xs.push_back(lm::distribute(tr, w, m.shape(), lm::tile_partition::hashed(s)));
  }
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .policy = cost_policy::corrected};
  chain_plan plan;
  const auto C = lm::sparse_matmul_chain<loom::csr>(tr, xs, cm, &plan);
  if (tr.rank() == 0) std::printf("%s", plan.explain().c_str());
  MPI_TEST_CHECK(plan.order == "((X0 X1) X2)");
  cost_model here = cm;
  here.sites = s;
  MPI_TEST_CHECK(plan_sparse_chain(here, stats).explain() == plan.explain());
  MPI_TEST_CHECK(same_entries(from_sparse_tiles<loom::csr>(C, want.shape()), want));
}
// The IA's own plans (tra/plans.hpp's four matmul strategies, a two-phase aggregation) run by
// ia::evaluate over sparse relations with the MPI transport: each equals the plan at one site,
// and a broadcast sends every rank's tiles in their compact form to each other rank.
void test_ia_plans(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto MA = random_matrix(37, 30, 4, 11);
  const auto MB = random_matrix(30, 26, 5, 12);
  const auto A = to_sparse_tiles<loom::csr>(MA, {8, 7});
  const auto B = to_sparse_tiles<loom::dcsr>(MB, {7, 6});
  const auto want = product(MA, MB);
  for (auto st : all_matmul_strategies) {
    const auto C = with_matmul_plan<ia::partitioned<ia::dims<0>>, ia::partitioned<ia::dims<1>>>(
        st, [&](auto plan) { return ia::evaluate<decltype(plan)>(tr, A, B); });
    MPI_TEST_CHECK(same_entries(from_sparse_tiles<loom::csr>(C, want.shape()), want));
  }
  // BCAST of a round-robin placement: this rank's packed tiles to each of the others
  using placed = ia::leaf<0, 2>;
  const auto mine = ia::execute<placed>(tr, A);
  double packed = 0;
  for (const auto& [key, t] : mine) packed += static_cast<double>(lm::packed_bytes(t));
  const double before = tr.moved();
  const auto everywhere = ia::execute<ia::bcast<placed>>(tr, A);
  MPI_TEST_CHECK(tr.moved() - before == packed * (s - 1));
  MPI_TEST_CHECK(everywhere.size() == A.size());
  for (const auto& [key, t] : A)
    MPI_TEST_CHECK(everywhere.find(key) && tiles_equal(*everywhere.find(key), t));
  // R2-5: pre-aggregated on each rank (a third key: the rank), shuffled, summed on arrival
  using two = ia::rewrite_t<ia::lagg<ia::dims<1>, mat_add, ia::shuf<ia::dims<1>, placed>>,
                            boost::mp11::mp_list<rules::two_phase_aggregation>>;
  const auto sums = ia::evaluate<two>(tr, A);
  const auto one = ia::evaluate<two>(ia::local_sites(1), A);
  MPI_TEST_CHECK(sums.size() == one.size());
  for (const auto& [key, t] : one)
    MPI_TEST_CHECK(sums.find(key) && tiles_equal(*sums.find(key), t));
}
}  // namespace

int main(int argc, char** argv) {
  int timeout = 60;
  for (int a = 1; a + 1 < argc; a += 2)
    if (!std::strcmp(argv[a], "--timeout")) timeout = std::atoi(argv[a + 1]);
  lm::environment env(argc, argv, std::chrono::seconds(timeout));
  return lm::run_or_abort([&] {
    lm::transport tr;
    test_moves(tr);
    test_strategies(tr);
    test_einsum(tr);
    test_transposed_einsum(tr);
    test_chain(tr);
    test_ia_plans(tr);
    if (tr.rank() == 0)
      std::printf("tests.mpi.sparse_plans: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
