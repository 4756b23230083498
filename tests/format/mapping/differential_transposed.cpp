// Differential tests of mapped tensors read against their storage order:
// L + L^T, L o L^T and the cycle sum(j, L(i,j) * L(j,k) * L(k,i)) over the triangular, band and
// symmetric mappings, into CSR and dense outputs, against the dense reference on a built-in CSR
// copy. No loop order follows every access of L, so one is read through a copy in general levels
// (plan/transposed_format.hpp), built once per call and named by explain().
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/explain.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "differential.hpp"

namespace {

namespace lt = loom::test;
using mapping_test::i;
using mapping_test::j;
using mapping_test::k;

/// Runs the three kernels, each into CSR and dense, for every density and seed: 24 x 6 cases.
/// One instantiation per format: the kernels are few (compile time, tests/CMakeLists.txt).
template <class Format>
int run_transposed(const std::string& name, const mapping_test::region& inside, bool symmetric) {
  int cases = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (const lt::density d : lt::all_densities) {
      const std::int64_t n =
          mapping_test::sizes[(seed + static_cast<std::uint64_t>(d)) % mapping_test::sizes.size()];
      const auto data = mapping_test::structured(n, d, lt::mix_seed(seed, 5), inside, symmetric);
      auto L = lt::build<Format>(data);
      const auto R = lt::build<loom::csr>(data);
      L.set_name("L");
      lt::case_context ctx{
          "", name, "double", std::string(lt::density_name(d)), seed, std::to_string(n)};
      auto compare = [&](const std::string& what, auto out, auto&& with_mapping, auto&& with_csr) {
        ctx.expression = what;
        const auto want = lt::reference_eval(out, with_csr);
        const bool ran = lt::run_guarded(ctx, [&] { out = with_mapping; });
        CHECK((ran && lt::check_tensor(*out.tensor, want, ctx)));
        ++cases;
      };
      loom::tensor<double, loom::csr> S({n, n});
      loom::tensor<double, loom::dense_matrix> G({n, n});
      compare("S(i,j) = L(i,j) + L(j,i)", S(i, j), L(i, j) + L(j, i), R(i, j) + R(j, i));
      compare("G(i,j) = L(i,j) + L(j,i)", G(i, j), L(i, j) + L(j, i), R(i, j) + R(j, i));
      compare("S(i,j) = L(i,j) * L(j,i)", S(i, j), L(i, j) * L(j, i), R(i, j) * R(j, i));
      compare("G(i,j) = L(i,j) * L(j,i)", G(i, j), L(i, j) * L(j, i), R(i, j) * R(j, i));
      // i above j, j above k, k above i: a cycle, so some access of L runs against any loop order
      compare("S(i,k) = sum(j, L(i,j) * L(j,k) * L(k,i))", S(i, k),
              loom::sum(j, L(i, j) * L(j, k) * L(k, i)), loom::sum(j, R(i, j) * R(j, k) * R(k, i)));
      compare("G(i,k) = sum(j, L(i,j) * L(j,k) * L(k,i))", G(i, k),
              loom::sum(j, L(i, j) * L(j, k) * L(k, i)), loom::sum(j, R(i, j) * R(j, k) * R(k, i)));
    }
  return cases;
}

bool lower(std::int64_t r, std::int64_t c) { return c <= r; }
bool upper(std::int64_t r, std::int64_t c) { return c >= r; }
bool band2(std::int64_t r, std::int64_t c) { return std::abs(r - c) <= 2; }
bool everywhere(std::int64_t, std::int64_t) { return true; }

}  // namespace

TEST_CASE("differential mapping read against its order: lower_packed") {
  CHECK(run_transposed<loom::mapping::lower_packed>("L=lower_packed", lower, false) == 144);
}
TEST_CASE("differential mapping read against its order: upper_packed") {
  CHECK(run_transposed<loom::mapping::upper_packed>("L=upper_packed", upper, false) == 144);
}
TEST_CASE("differential mapping read against its order: band<2>") {
  CHECK(run_transposed<loom::mapping::band<2>>("L=band<2>", band2, false) == 144);
}
TEST_CASE("differential mapping read against its order: symmetric_packed") {
  CHECK(run_transposed<loom::mapping::symmetric_packed>("L=symmetric_packed", everywhere, true) ==
        144);
}

TEST_CASE(
    "mapping read against its order: explain names the copy; only the output's region can fail") {
  // [1; 2 3; 0 4 5]
  auto L = loom::from_coo<loom::mapping::lower_packed>(
      {3, 3}, {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}}, std::vector<double>{1, 2, 3, 4, 5});
  L.set_name("L");
  loom::tensor<double, loom::csr> S({3, 3});
  S.set_name("S");
  const std::string plan = loom::explain(S(i, j), L(i, j) + L(j, i));
  CAPTURE(plan);
  CHECK(
      plan.find("transpose: L is copied from format<lower_packed,lower_packed> into csc before the "
                "loops: the mapping is materialised in the loop order") != std::string::npos);
  CHECK(plan.find("the copy is kept for the next calls while L is unchanged") != std::string::npos);
  S(i, j) = L(i, j) + L(j, i);
  CHECK(S.at(0, 1) == 2);
  CHECK(S.at(1, 0) == 2);
  CHECK(S.at(1, 1) == 6);
  CHECK(S.at(2, 2) == 10);
  CHECK(S.at(0, 2) == 0);
  // a triangular output cannot hold L^T's upper entries: its own mapping says so
  loom::tensor<double, loom::mapping::lower_packed> U({3, 3});
  U.set_name("U");
  std::string message = "no error";
  try {
    U(i, j) = L(j, i);
  } catch (const loom::error& e) {
    message = e.what();
  }
  CHECK(message.find("loom::mapping lower_packed: an entry with coordinate") == 0);
  CHECK(message.find("lies outside the stored region") != std::string::npos);
}
