// The code blocks of README.md and docs/*.md, compiled and run: each doc block quotes a run of
// lines of one TEST_CASE here (`<!-- excerpt of tests/docs/snippets.cpp -->`, checked by
// tools/check_readme.py), and the test checks what the block computes.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using coords = std::vector<std::array<std::int64_t, 2>>;

// A 4 x 4 sparse matrix with its rows of different lengths, and its dense copy.
loom::tensor<double, loom::csr> small_csr() {
  return loom::from_coo<loom::csr>({4, 4}, coords{{0, 0}, {0, 2}, {1, 1}, {2, 0}, {2, 3}, {3, 3}},
                                   std::vector<double>{1, 2, 3, 4, 5, 6});
}

// A file in a fresh temporary folder, removed with it.
struct temp_file {
  std::filesystem::path dir, path;
  temp_file(const std::string& name, const std::string& text)
      : dir(std::filesystem::temp_directory_path() /
            ("loom_docs_" + std::to_string(std::hash<std::string>{}(name + text)))),
        path(dir / name) {
    std::filesystem::create_directories(dir);
    std::ofstream(path) << text;
  }
  ~temp_file() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

TEST_CASE("README: options are types") {
  const auto A = small_csr();
  loom::tensor<double, loom::dense_vector> x({4}), y({4});
  for (std::int64_t c = 0; c < 4; ++c) x.at(c) = 1;
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), loom::options<loom::opt::runtime_skips>{});
  CHECK(y.at(0) == 3);
  CHECK(y.at(2) == 9);
}

TEST_CASE("README: relations, the triangle query on an edge list with src < dst") {
  // triangles {0,1,2} and {1,2,3}; the largest src (2) is not the largest dst (3)
  const temp_file file("edges.csv", "src,dst\n0,1\n0,2\n1,2\n1,3\n2,3\n");
  const std::string edges_csv = file.path.string();
  constexpr loom::index<"a"> a;
  constexpr loom::index<"b"> b;
  constexpr loom::index<"c"> c;
  namespace rel = loom::rel;
  auto t = rel::read_csv(edges_csv,
                         {{"src", rel::column_type::int64}, {"dst", rel::column_type::int64}});
  const std::int64_t n = rel::extent_of(t["src"], t["dst"]);  // joined keys share one extent
  auto E = rel::key_by<2>(t, {"src", "dst"}, rel::exists(), {n, n});
  std::int64_t triangles = loom::eval(loom::sum(a, b, c, E(a, b) * E(b, c) * E(a, c)));
  CHECK(triangles == 2);
  // each key's own extent (3 and 4) cannot be joined: E(a, b) * E(b, c) reads b as src and dst
  auto F = rel::key_by<2>(t, {"src", "dst"}, rel::exists());
  CHECK_THROWS_AS(loom::eval(loom::sum(a, b, c, F(a, b) * F(b, c) * F(a, c))), loom::shape_error);
}

TEST_CASE("README: tiles") {
  const auto A = small_csr();
  auto T = loom::tra::to_tiled(A, {2, 2});                    // any loom format -> tiles
  auto C = loom::tra::einsum<"ij,jk->ik">(T.tiles, T.tiles);  // A*A, tile by tile
  auto D = loom::tra::from_tiled<loom::csr>(loom::tra::tiled_tensor<double, 2>{C, A.shape()});
  loom::tensor<double, loom::dense_matrix> want({4, 4});
  want(i, j) = loom::sum(k, A(i, k) * A(k, j));
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t s = 0; s < 4; ++s) CHECK(D.at(r, s) == want.at(r, s));
}

TEST_CASE("docs/parallel.md: the settings") {
  const auto A = small_csr();
  const auto B = small_csr();
  double s = 0;
  loom::set_num_threads(4);     // process-wide; 1 = the serial loops, unchanged; 0 = default
  int n = loom::num_threads();  // what a kernel started on this thread may use (>= 1)

  loom::set_deterministic(true);  // reductions bit-identical for every thread count
  bool d = loom::deterministic();

  // kernels with less work stay serial (default 32768; -1 = default)
  loom::set_parallel_min_work(0);

  {  // a per-thread override for a scope (RAII)
    loom::parallel_scope scope({.threads = 2, .deterministic = true});
    s = loom::eval(loom::sum(i, j, A(i, j) * B(i, j)));
  }
  loom::parallel_options o = loom::current_parallel_options();  // resolved: threads >= 1
  CHECK(n == 4);
  CHECK(d);
  CHECK(s == 91);
  CHECK(o.threads == 4);
  loom::set_num_threads(0);
  loom::set_deterministic(false);
  loom::set_parallel_min_work(-1);
}

TEST_CASE("docs/optimizer.md: formats held as alternatives, auto_tensor, program, max and min") {
  const auto A = small_csr();
  const auto M = small_csr();
  loom::tensor<double, loom::dense_vector> x({4}), u({4}), y({4}), z({4}), b({4}), w({4});
  for (std::int64_t c = 0; c < 4; ++c) x.at(c) = 1, u.at(c) = 1, b.at(c) = 1;
  loom::tensor<double, loom::csr> S({4, 4});

  loom::tensor<double, loom::csc> Ac(A);
  loom::tensor<double, loom::mapping::dok> Ad(A);
  loom::alternatives A3(A, Ac, Ad);      // references: the tensors must outlive A3
  y(i) = loom::sum(j, A3(i, j) * x(j));  // reads A as csr
  z(j) = loom::sum(i, A3(i, j) * u(i));  // reads A as csc
  S(i, j) = M(i, j) * A3(i, j);          // M sparse: reads A as csr
  CHECK(y.at(2) == 9);
  CHECK(z.at(0) == 5);
  CHECK(S.at(2, 3) == 25);

  const auto B = small_csr();
  const std::int64_t m = 4, n = 4;
  loom::auto_tensor<double, 2> C({m, n});  // order 1 or 2
  C(i, j) = loom::sum(k, A(i, k) * B(k, j));
  C.held_format();                      // loom::auto_format::sorted, hashed, bitmap or dense
  C.reason();                           // why, from the estimated fill
  y(i) = loom::sum(j, C(i, j) * x(j));  // reads C in the format it holds

  CHECK(y.at(0) == 21);  // row 0 of A A is (9, 0, 2, 10)
  CHECK(!C.reason().empty());

  const auto s = loom::sum(j, A(i, j) * x(j));
  auto p = loom::program(loom::let(y(i), s + b(i)),      // y = Ax + b
                         loom::let(z(i), s * s),         // z = (Ax)∘(Ax)
                         loom::let_add(w(i), 2.0 * s));  // w += 2Ax

  p.run();      // A x computed once, read four times
  p.explain();  // the shared sums, then each statement's plan
  CHECK(y.at(2) == 10);
  CHECK(z.at(2) == 81);
  CHECK(w.at(2) == 18);

  y(i) = loom::max(k, loom::sum(j, A(i, j) * B(j, k)));  // the largest entry of each row of AB
  y(i) = 2.0 * loom::min(j, A(i, j) * x(j)) + b(i);      // inside a larger expression
  double largest = loom::eval(loom::max(i, loom::sum(j, A(i, j))));  // the largest row sum
  CHECK(largest == 9);
  CHECK(y.at(1) == 1);  // row 1 has absent entries, which count as zero
}

TEST_CASE("docs/optimizer.md: the decision as a value, the plan log") {
  auto A = small_csr();
  loom::tensor<double, loom::dense_vector> x({4}), y({4});
  for (std::int64_t c = 0; c < 4; ++c) x.at(c) = 1;
  A.set_name("A"), x.set_name("x"), y.set_name("y");

  const auto d = loom::decide(y(i), loom::sum(j, A(i, j) * x(j)));
  loom::run(d);  // y = A x
  x.at(0) = 10;
  loom::run(d);  // again, with the new x: no statistics, no costing

  CHECK(y.at(0) == 12);  // 1 * 10 + 2 * 1
  CHECK(y.at(2) == 45);  // 4 * 10 + 5 * 1

  std::vector<std::string> lines;
  loom::set_plan_log([&](const loom::kernel_report& r) { lines.push_back(loom::to_line(r)); });
  y(i) = loom::sum(j, A(i, j) * x(j));
  loom::set_plan_log({});
  // lines[0]: "loom: y(i) = sum(j, A(i,j) * x(j)): candidate 0 of 1 (order i,j), 1 thread, ..."
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("loom: y(i) = sum(j, A(i,j) * x(j)): candidate 0 of 1 (order i,j), ", 0) ==
        0);
}

TEST_CASE("docs/la.md: the flagship and SPORES' programs") {
  const std::int64_t m = 6, n = 5, r = 2;
  auto X = loom::from_coo<loom::csr>({m, n}, coords{{0, 1}, {2, 3}, {5, 4}},
                                     std::vector<double>{1, 2, 3});
  loom::tensor<double, loom::dense_matrix> U({m, r}), V({n, r});
  for (double& v : U.values()) v = 0.5;
  for (double& v : V.values()) v = 0.25;
  using namespace loom::la;
  double loss = eval(sum(pow2(mat(X) - mat(U) * transpose(mat(V)))));
  std::string plan = explain(sum(pow2(mat(X) - mat(U) * transpose(mat(V)))));
  // every cell of U V^T is 2 * 0.5 * 0.25 = 0.25
  CHECK(loss == doctest::Approx((1 - 0.25) * (1 - 0.25) + (2 - 0.25) * (2 - 0.25) +
                                (3 - 0.25) * (3 - 0.25) + (m * n - 3) * 0.0625));
  CHECK(!plan.empty());

  loom::tensor<double, loom::dense_matrix> w_({n, 1}), y_({m, 1}), W_({n, 3}), Y_({m, 3});
  for (double& v : w_.values()) v = 0.1;
  for (std::int64_t row = 0; row < m; ++row) y_.at(row, 0) = row % 2, Y_.at(row, row % 3) = 1;
  const auto w = mat(w_), y = mat(y_), W = mat(W_), Y = mat(Y_);
  auto gradient = transpose(mat(X)) * (sigmoid(mat(X) * w) - y);
  auto hinge = sum(max(0.0, 1.0 - hadamard(y, mat(X) * w)));
  auto scores = exp(mat(X) * W);  // MLR: softmax, then the gradient
  auto mlr = transpose(mat(X)) * (scores / row_sums(scores) - Y);
  CHECK(eval(gradient).shape()[0] == n);
  CHECK(eval(hinge) == doctest::Approx(5.7));  // only row 5 has y = 1 and X w > 0 (0.3)
  CHECK(eval(mlr).shape()[1] == 3);
}

TEST_CASE("docs/relational.md: orders of 1994 per customer") {
  const temp_file file("orders.csv",
                       "o_orderkey,o_custkey,o_orderstatus,o_orderdate,o_comment\n"
                       "1,7,O,1994-03-01,\"quick, quiet\"\n"
                       "2,7,F,1993-12-31,late\n"
                       "3,2,O,1994-12-31,ok\n"
                       "4,7,O,1994-06-15,ok\n");
  const std::string orders_csv = file.path.string();
  std::ostringstream out;
  namespace rel = loom::rel;
  using rel::column_type;
  constexpr loom::index<"o"> o;
  constexpr loom::index<"d"> d;
  constexpr loom::index<"c"> c;

  // 1. typed columns from CSV (other columns of the file are skipped)
  rel::table orders = rel::read_csv(orders_csv, {{"o_orderkey", column_type::int64},
                                                 {"o_custkey", column_type::int64},
                                                 {"o_orderdate", column_type::date},
                                                 {"o_comment", column_type::string}});
  // 2. keyed into a trie: orderkey → orderdate → custkey, value = number of rows
  auto O = rel::key_by<3>(orders, {"o_orderkey", "o_orderdate", "o_custkey"}, rel::count());
  // 3. a key predicate, multiplied in: orders of 1994, per customer
  auto in_1994 = rel::range(rel::date("1994-01-01"), rel::date("1995-01-01"), O.shape()[1]);
  loom::tensor<std::int64_t, loom::sparse_vector> per_customer({O.shape()[2]});
  per_customer(c) = loom::sum(o, d, O(o, d, c) * in_1994(d));
  // 4. back to rows
  rel::to_table(per_customer, {orders["o_custkey"]}, "orders").write_csv(out);
  CHECK(out.str() == "o_custkey,orders\n2,1\n7,2\n");

  const rel::table lineitem = rel::read_csv_text(
      "l_orderkey,l_partkey,l_suppkey,l_quantity,l_extendedprice\n1,5,2,3,10.5\n1,5,2,4,1.5\n",
      "lineitem.csv",
      {{"l_orderkey", column_type::int64},
       {"l_partkey", column_type::int64},
       {"l_suppkey", column_type::int64},
       {"l_quantity", column_type::decimal},
       {"l_extendedprice", column_type::decimal}});
  const auto revenue = rel::sum_of<double>("l_extendedprice");
  loom::tensor<double, loom::csf<3>> Lrev, Lqty;
  std::tie(Lrev, Lqty) = rel::key_by<3>(lineitem, {"l_partkey", "l_suppkey", "l_orderkey"},
                                        std::tuple{revenue, rel::sum_of<double>("l_quantity")});
  CHECK(Lrev.at(5, 2, 1) == 12);
  CHECK(Lqty.at(5, 2, 1) == 7);
}

TEST_CASE("docs/rewriting.md: equality saturation") {
  loom::tensor<double, loom::csr> X({1000, 800});
  loom::tensor<double, loom::dense_matrix> U({1000, 8}), V({800, 8});
  const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
  const auto loss = loom::sum(i, j, d * d);

  // the static choice: the cheapest term under the default extents and densities
  const double a = loom::eval(loom::rewrite::saturate(loss));
  // the alternatives ranked on these tensors (shape, nnz), the cheapest evaluated
  const double b = loom::rewrite::with_cheapest(loss, [](const auto& e) { return loom::eval(e); });
  std::printf("%g %g\n%s\n", a, b, loom::rewrite::explain_saturation(loss).c_str());
  CHECK(a == 0);
  CHECK(b == 0);
}
