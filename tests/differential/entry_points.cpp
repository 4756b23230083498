// Differential tests of loom's entry points other than `=` and loom::eval (issue 20, item 6):
// loom::la expressions, loom::decompose (and its forced candidates) and loom::matrix_chain against the dense
// reference (support/reference.hpp, on index notation written here by hand, not la's translation
// or the planner's), and small relational queries (key_by, join, selection, group-by, MIN, a
// triangle) against SQLite's sqlite3 shell, skipped with a message when it is not installed.
// Seeds × densities × a few format combinations; kept to few instantiations (CI compile budget).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <support/compare.hpp>
#include <unistd.h>  // getpid: a file name of this process for the SQL scripts

namespace {

namespace lt = loom::test;
namespace la = loom::la;
namespace rel = loom::rel;
using boost::mp11::mp_at_c;
using boost::mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;
constexpr loom::index<"m"> m;

// A case's description; `expression` is filled in per check.
template <class... Formats, class... Names>
lt::case_context context_of(std::uint64_t seed, const std::array<std::int64_t, 4>& e,
                            std::string densities, const Names&... names) {
  return lt::case_context{.expression = "",
                          .formats = lt::formats_text<Formats...>(names...),
                          .semiring = "double",
                          .densities = std::move(densities),
                          .seed = seed,
                          .extents = lt::show_coords(e)};
}

// la ---------------------------------------------------------------------------------------------

// la::eval(e) against `want`: a dense_result of the same order, or a scalar for rank 0.
template <class E, class Want>
void check_la(lt::case_context ctx, std::string_view text, const E& e, const Want& want,
              double tolerance = 0) {
  ctx.expression = lt::concat("la::eval(", text, ")");
  ctx.tolerance = tolerance;
  using R = decltype(la::eval(e));
  std::optional<R> got;
  if (!lt::run_guarded(ctx, [&] { got.emplace(la::eval(e)); })) return;
  if constexpr (std::is_arithmetic_v<R>)
    lt::check_scalar(*got, want, ctx);
  else
    lt::check_tensor(*got, want, ctx);
}

constexpr auto square = [](double v) { return v * v; };
constexpr auto divide = [](double a, double b) { return a / b; };
constexpr auto minus_one = [](double v) { return v - 1.0; };

// (X, Y): X and Y are m x n operands of the element-wise operations and products; U (m x r),
// V (n x r) and w (m, no zero) are dense and full, as in SPORES' factorisations.
using la_combos = std::tuple<mp_list<loom::csr, loom::dense_matrix>, mp_list<loom::dcsr, loom::csr>,
                             mp_list<loom::dense_matrix, loom::dcsr>>;

// Decompose --------------------------------------------------------------------------------------

// `decompose(lhs, rhs)` (the planner's choice) and, when `every_candidate`, each forced candidate of
// every candidate with sorted and with dense intermediates, each from the output's prior
// contents, against the reference.
template <bool every_candidate, class Lhs, class Rhs>
void check_decompose(const Lhs& lhs, const Rhs& rhs, lt::case_context ctx) {
  auto& out = *lhs.tensor;
  const auto prior = out;
  const auto expected = lt::reference_eval(lhs, rhs);
  const std::string text = ctx.expression;
  ctx.expression = lt::concat(text, "   [loom::decompose]");
  if (lt::run_guarded(ctx, [&] { loom::decompose(lhs, rhs); }))
    lt::check_tensor(out, expected, ctx);
  if constexpr (every_candidate) {
    loom::decomposition_choice plan;
    ctx.expression = lt::concat(text, "   [loom::plan_decomposition]");
    if (!lt::run_guarded(ctx, [&] { plan = loom::plan_decomposition(lhs, rhs); })) return;
    CHECK(plan.cost.size() >= 2);  // the fused kernel and at least one elimination
    for (std::size_t c = 0; c < plan.cost.size(); ++c)
      for (const auto f : {loom::intermediate_format::sorted, loom::intermediate_format::dense}) {
        if (c == 0 && f == loom::intermediate_format::dense) continue;  // no intermediate
        out = prior;
        ctx.expression = lt::concat(text, "   [loom::decompose, forced candidate ",
                                    std::to_string(c), ": ", plan.description[c], "; ",
                                    loom::intermediate_format_name(f), " intermediates]");
        // the plan's reuse mask given: decompose does not plan again (slow at -O0)
        if (lt::run_guarded(ctx, [&] {
              loom::decompose(lhs, rhs,
                              loom::options<loom::opt::eliminate>{
                                  .candidate = c, .intermediates = {f}, .reuse = plan.reuse[c]});
            }))
          lt::check_tensor(out, expected, ctx);
      }
  }
}

// SQLite -----------------------------------------------------------------------------------------

bool have_sqlite3() { return std::system("sqlite3 -version > /dev/null 2>&1") == 0; }

// Runs `script` in `sqlite3 :memory:`; its output (list mode: `a|b` per row). A failure of the
// shell fails the case and returns nothing.
std::optional<std::string> run_sqlite(const std::string& script) {
  namespace fs = std::filesystem;
  // one file name per process: ctest runs each differential source file in its own process
  const std::string stem = lt::concat("loom_entry_points_", std::to_string(::getpid()));
  const fs::path in = fs::temp_directory_path() / lt::concat(stem, ".sql");
  const fs::path out = fs::temp_directory_path() / lt::concat(stem, ".out");
  std::ofstream(in) << script;
  const std::string cmd =
      lt::concat("sqlite3 -batch :memory: < '", in.string(), "' > '", out.string(), "' 2>&1");
  const int rc = std::system(cmd.c_str());
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  fs::remove(in);
  fs::remove(out);
  if (rc != 0) {
    FAIL_CHECK("sqlite3 failed (exit " << rc << "): " << text.str());
    return std::nullopt;
  }
  return text.str();
}

// A table as CSV text (for rel::read_csv_text) and as SQL (CREATE TABLE, INSERT).
struct sql_table {
  std::string csv, sql;
};
sql_table make_table(const std::string& name, const std::vector<std::string>& columns,
                     const std::vector<std::array<std::int64_t, 2>>& ranges, int rows,
                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sql_table t;
  t.sql = lt::concat("CREATE TABLE ", name, "(");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    t.csv.append(c ? "," : "").append(columns[c]);
    t.sql.append(c ? ", " : "").append(columns[c]).append(" INTEGER");
  }
  t.csv += "\n";
  t.sql.append(");\nINSERT INTO ").append(name).append(" VALUES ");
  for (int r = 0; r < rows; ++r) {
    t.sql += r ? ",(" : "(";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string v = std::to_string(lt::draw(rng, ranges[c][0], ranges[c][1]));
      t.csv.append(c ? "," : "").append(v);
      t.sql.append(c ? "," : "").append(v);
    }
    t.csv += "\n";
    t.sql += ")";
  }
  t.sql += ";\n";
  return t;
}

rel::table read_table(const sql_table& t, const std::string& name,
                      const std::vector<std::string>& columns) {
  std::vector<rel::column_spec> schema;
  for (const auto& c : columns) schema.push_back({c, rel::column_type::int64});
  return rel::read_csv_text(t.csv, lt::concat(name, ".csv"), schema);
}

// Rows `key|value`, as sqlite3 prints them.
template <class Rows> std::string rows_text(const Rows& rows) {
  std::string s;
  for (const auto& r : rows) {
    std::int64_t v = 0;
    if constexpr (requires { r.value.value; })
      v = r.value.value;  // min_plus<int64>
    else
      v = r.value;
    s.append(std::to_string(r.keys[0])).append("|").append(std::to_string(v)).append("\n");
  }
  return s;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// loom::la: products, transposes, element-wise operations, reductions and the SPORES patterns
// ------------------------------------------------------------------------------------------------

TEST_CASE_TEMPLATE_DEFINE("entry points: loom::la expressions against the dense reference", Combo,
                          la_expressions) {
  using FX = mp_at_c<Combo, 0>;
  using FY = mp_at_c<Combo, 1>;
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density dx, lt::density dy, lt::density) {
    const auto e = lt::extents_for_seed(seed);
    const std::int64_t rows = e[0], cols = e[1], rank = 3;
    const auto X = lt::random_tensor<double, FX>({rows, cols}, dx, lt::mix_seed(seed, 1));
    const auto Y = lt::random_tensor<double, FY>({rows, cols}, dy, lt::mix_seed(seed, 2));
    const auto U = lt::random_tensor<double, loom::dense_matrix>({rows, rank}, lt::density::full,
                                                                 lt::mix_seed(seed, 3));
    const auto V = lt::random_tensor<double, loom::dense_matrix>({cols, rank}, lt::density::full,
                                                                 lt::mix_seed(seed, 4));
    const auto w = lt::random_tensor<double, loom::dense_vector>({rows}, lt::density::full,
                                                                 lt::mix_seed(seed, 5));
    const auto ctx = context_of<FX, FY, loom::dense_matrix, loom::dense_matrix, loom::dense_vector>(
        seed, e,
        lt::densities_text({{"X", dx},
                            {"Y", dy},
                            {"U", lt::density::full},
                            {"V", lt::density::full},
                            {"w", lt::density::full}}),
        "X", "Y", "U", "V", "w");
    // outputs of the reference, for their shapes
    loom::tensor<double, loom::dense_matrix> mm({rows, rows}), mn({rows, cols}), mr({rows, rank});
    loom::tensor<double, loom::dense_vector> vm({rows}), vn({cols});
    const auto x = la::mat(X);
    const auto y = la::mat(Y);
    const auto u = la::mat(U);
    const auto v = la::mat(V);
    const auto p = la::mat(w);

    // every combination: a product with a transpose, element-wise merges, two SPORES patterns
    check_la(ctx, "X * transpose(Y)", x * la::transpose(y),
             lt::reference_eval(mm(i, j), loom::sum(k, X(i, k) * Y(j, k))));
    check_la(ctx, "hadamard(X, Y) + 2 * X - Y", la::hadamard(x, y) + 2.0 * x - y,
             lt::reference_eval(mn(i, j), X(i, j) * Y(i, j) + 2.0 * X(i, j) - Y(i, j)));
    check_la(ctx, "sum(pow2(X - U * transpose(V))) (SPORES flagship)",
             la::sum(la::pow2(x - u * la::transpose(v))),
             lt::reference_eval(
                 loom::sum(i, j, loom::map(square, X(i, j) - loom::sum(k, U(i, k) * V(j, k))))));
    check_la(ctx, "(U * transpose(V) - X) * V (ALS)", (u * la::transpose(v) - x) * v,
             lt::reference_eval(
                 mr(i, l), loom::sum(j, (loom::sum(k, U(i, k) * V(j, k)) - X(i, j)) * V(j, l))));
    // the other operations and patterns, on the first combination only (compile time)
    if constexpr (std::is_same_v<Combo, std::tuple_element_t<0, la_combos>>) {
      check_la(ctx, "transpose(X) * w", la::transpose(x) * p,
               lt::reference_eval(vn(j), loom::sum(i, X(i, j) * w(i))));
      check_la(ctx, "-X + pow2(Y)", -x + la::pow2(y),
               lt::reference_eval(mn(i, j), -X(i, j) + Y(i, j) * Y(i, j)));
      check_la(ctx, "Y / w (w broadcast along the columns)", y / p,
               lt::reference_eval(mn(i, j), loom::map(divide, Y(i, j), w(i))), 1e-12);
      check_la(ctx, "sum(X - 1)", la::sum(x - 1.0),
               lt::reference_eval(loom::sum(i, j, loom::map(minus_one, X(i, j)))));
      check_la(ctx, "row_sums(X)", la::row_sums(x),
               lt::reference_eval(vm(i), loom::sum(j, X(i, j))));
      check_la(ctx, "col_sums(2 * X + Y)", la::col_sums(2.0 * x + y),
               lt::reference_eval(vn(j), loom::sum(i, 2.0 * X(i, j) + Y(i, j))));
      check_la(ctx, "trace(X * transpose(Y))", la::trace(x * la::transpose(y)),
               lt::reference_eval(loom::sum(i, k, X(i, k) * Y(i, k))));
      check_la(ctx, "diag(X * transpose(Y))", la::diag(x * la::transpose(y)),
               lt::reference_eval(vm(i), loom::sum(k, X(i, k) * Y(i, k))));
      // sum(X o U V^T) is trace(U^T X V) (notes §8.4, the erratum of example 5)
      const double xuv = lt::reference_eval(loom::sum(i, j, k, X(i, j) * U(i, k) * V(j, k)));
      check_la(ctx, "sum(hadamard(X, U * transpose(V)))",
               la::sum(la::hadamard(x, u * la::transpose(v))), xuv);
      check_la(ctx, "trace(transpose(U) * X * V)", la::trace(la::transpose(u) * x * v), xuv);
      check_la(ctx, "sum(X * V) (PNMF)", la::sum(x * v),
               lt::reference_eval(loom::sum(i, l, loom::sum(j, X(i, j) * V(j, l)))));
      check_la(ctx, "hadamard(w, X) - hadamard(hadamard(w, row_sums(w)), X) (MLR)",
               la::hadamard(p, x) - la::hadamard(la::hadamard(p, la::row_sums(p)), x),
               lt::reference_eval(mn(i, j), w(i) * X(i, j) - w(i) * w(i) * X(i, j)));
    }
  });
}
TEST_CASE_TEMPLATE_APPLY(la_expressions, la_combos);

// ------------------------------------------------------------------------------------------------
// loom::decompose: a chain (nested sums), a map at the root, a triangle, a sum over +
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: loom::decompose of a chain, every candidate, and of a map of it") {
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::csr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::dcsr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C =
        lt::random_tensor<double, loom::dense_matrix>({e[2], e[3]}, dc, lt::mix_seed(seed, 3));
    const lt::density dm = lt::rotated_density(2, seed);
    auto M = lt::random_tensor<double, loom::csr>({e[0], e[3]}, dm, lt::mix_seed(seed, 100));
    auto ctx = context_of<loom::csr, loom::dcsr, loom::dense_matrix, loom::csr>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}, {"M(before)", dm}}), "A", "B",
        "C", "M");
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    ctx.expression = "M(i,l) = sum(j, sum(k, A(i,j) * B(j,k) * C(k,l)))";
    check_decompose<true>(M(i, l), rhs, ctx);
    // the sums decomposed (the same instantiation), then f applied
    ctx.expression = "M(i,l) = map(square, sum(j, sum(k, A(i,j) * B(j,k) * C(k,l))))";
    check_decompose<false>(M(i, l), loom::map(square, rhs), ctx);
  });
}

TEST_CASE("entry points: loom::decompose of a triangle, every candidate") {
  // three summed indices: more elimination prefixes (15) than loom::limits::elimination_orders
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::dcsr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::csr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C =
        lt::random_tensor<double, loom::dense_matrix>({e[0], e[2]}, dc, lt::mix_seed(seed, 3));
    loom::tensor<double, loom::format<>> s;
    auto ctx = context_of<loom::dcsr, loom::csr, loom::dense_matrix>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}}), "A", "B", "C");
    ctx.expression = "s = sum(i, j, k, A(i,j) * B(j,k) * C(i,k))";
    check_decompose<true>(s(), loom::sum(i, j, k, A(i, j) * B(j, k) * C(i, k)), ctx);
  });
}

TEST_CASE("entry points: loom::decompose of a sum over a product with + in it") {
  // distributed into one sum-product per term, the second accumulated into the output
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density dx, lt::density dz) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::dcsr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto x =
        lt::random_tensor<double, loom::sparse_vector>({e[1]}, dx, lt::mix_seed(seed, 2));
    const auto z = lt::random_tensor<double, loom::dense_vector>({e[1]}, dz, lt::mix_seed(seed, 3));
    const lt::density dy = lt::rotated_density(4, seed);
    auto y = lt::random_tensor<double, loom::sparse_vector>({e[0]}, dy, lt::mix_seed(seed, 100));
    auto ctx = context_of<loom::dcsr, loom::sparse_vector, loom::dense_vector, loom::sparse_vector>(
        seed, e, lt::densities_text({{"A", da}, {"x", dx}, {"z", dz}, {"y(before)", dy}}), "A", "x",
        "z", "y");
    ctx.expression = "y(i) = sum(j, A(i,j) * (x(j) + z(j)))";
    check_decompose<false>(y(i), loom::sum(j, A(i, j) * (x(j) + z(j))), ctx);
  });
}

// ------------------------------------------------------------------------------------------------
// loom::matrix_chain: every order, factors of several formats and densities
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: loom::matrix_chain in every order against the dense reference") {
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const lt::density dd = lt::rotated_density(5, seed);
    const auto A =
        lt::random_tensor<double, loom::dense_matrix>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::dcsr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C = lt::random_tensor<double, loom::csr>({e[2], e[3]}, dc, lt::mix_seed(seed, 3));
    // D has 3 columns, so the orders differ: ((AB)C)D, A(B(CD)) and (AB)(CD) all occur
    const auto D = lt::random_tensor<double, loom::csc>({e[3], 3}, dd, lt::mix_seed(seed, 4));
    loom::tensor<double, loom::dense_matrix> shape({e[0], 3});
    const auto expected =
        lt::reference_eval(shape(i, m), loom::sum(j, k, l, A(i, j) * B(j, k) * C(k, l) * D(l, m)));
    auto ctx = context_of<loom::dense_matrix, loom::dcsr, loom::csr, loom::csc>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}, {"D", dd}}), "A", "B", "C",
        "D");
    for (const auto order : {loom::chain_order::optimized, loom::chain_order::greedy,
                             loom::chain_order::left_to_right}) {
      ctx.expression = lt::concat("matrix_chain(",
                                  order == loom::chain_order::optimized ? "optimized"
                                  : order == loom::chain_order::greedy  ? "greedy"
                                                                        : "left_to_right",
                                  ", A, B, C, D)");
      std::optional<loom::tensor<double, loom::csr>> M;
      if (lt::run_guarded(ctx, [&] { M.emplace(loom::matrix_chain(order, A, B, C, D)); }))
        lt::check_tensor(*M, expected, ctx);
    }
  });
}

// ------------------------------------------------------------------------------------------------
// Relational queries against SQLite
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: relational joins, selections and group-bys against SQLite") {
  if (!have_sqlite3()) {
    MESSAGE("skipped: sqlite3 is not installed (apt-get install sqlite3)");
    return;
  }
  for (const std::uint64_t seed : lt::seeds) {
    CAPTURE(seed);
    // R(a, b, v), S(b, c, w): bags (repeated keys), positive values; E(src, dst): a multigraph
    const sql_table r = make_table("R", {"a", "b", "v"}, {{{0, 24}}, {{0, 19}}, {{1, 9}}}, 300,
                                   lt::mix_seed(seed, 1));
    const sql_table s = make_table("S", {"b", "c", "w"}, {{{0, 19}}, {{0, 9}}, {{1, 9}}}, 200,
                                   lt::mix_seed(seed, 2));
    const sql_table g =
        make_table("E", {"src", "dst"}, {{{0, 19}}, {{0, 19}}}, 120, lt::mix_seed(seed, 3));
    const rel::table R = read_table(r, "R", {"a", "b", "v"});
    const rel::table S = read_table(s, "S", {"b", "c", "w"});
    const rel::table E = read_table(g, "E", {"src", "dst"});
    const std::int64_t nb = rel::extent_of(R["b"], S["b"]);
    constexpr loom::index<"a"> a;
    constexpr loom::index<"b"> b;
    constexpr loom::index<"c"> c;

    {  // SUM over a join with a range selection, grouped
      const auto sql = run_sqlite(r.sql + s.sql +
                                  "SELECT R.a, SUM(R.v * S.w) FROM R JOIN S ON R.b = S.b "
                                  "WHERE S.c >= 2 AND S.c < 6 GROUP BY R.a ORDER BY R.a;\n");
      REQUIRE(sql.has_value());
      REQUIRE(!sql->empty());  // groups exist: the comparison is not vacuous
      const auto Rv =
          rel::key_by<loom::dcsr>(R, {"a", "b"}, rel::sum_of<std::int64_t>("v"), {0, nb});
      const auto Sw = rel::key_by<2>(S, {"b", "c"}, rel::sum_of<std::int64_t>("w"), {nb, 0});
      const auto in_range = rel::range<std::int64_t>(2, 6, Sw.shape()[1]);
      loom::tensor<std::int64_t, loom::sparse_vector> q({Rv.shape()[0]});
      q(a) = loom::sum(b, c, Rv(a, b) * Sw(b, c) * in_range(c));
      CHECK(rows_text(rel::to_rows(q)) == *sql);
    }
    {  // MIN over a join, grouped: the (min, +) semiring
      const auto sql = run_sqlite(r.sql + s.sql +
                                  "SELECT R.a, MIN(R.v + S.w) FROM R JOIN S ON R.b = S.b "
                                  "GROUP BY R.a ORDER BY R.a;\n");
      REQUIRE(sql.has_value());
      REQUIRE(!sql->empty());
      const auto Rmin = rel::key_by<2>(R, {"a", "b"}, rel::min_of<std::int64_t>("v"), {0, nb});
      const auto Smin = rel::key_by<1>(S, {"b"}, rel::min_of<std::int64_t>("w"), {nb});
      loom::tensor<loom::min_plus<std::int64_t>, loom::sparse_vector> q({Rmin.shape()[0]});
      q(a) = loom::sum(b, Rmin(a, b) * Smin(b));
      CHECK(rows_text(rel::to_rows(q)) == *sql);
    }
    {  // COUNT(*) of the triangles of a multigraph (bag semantics: repeated edges count)
      const auto sql = run_sqlite(g.sql +
                                  "SELECT COUNT(*) FROM E e1, E e2, E e3 WHERE e1.dst = e2.src "
                                  "AND e2.dst = e3.src AND e3.dst = e1.src;\n");
      REQUIRE(sql.has_value());
      const std::int64_t n = rel::extent_of(E["src"], E["dst"]);
      const auto Ef = rel::key_by<loom::csr>(E, {"src", "dst"}, rel::count(), {n, n});
      const auto Eb = rel::key_by<loom::dcsr>(E, {"dst", "src"}, rel::count(), {n, n});
      // e3 = (c, a) is Eb(a, c): every factor is read in the order a, b, c
      const std::int64_t triangles = loom::eval(loom::sum(a, b, c, Ef(a, b) * Ef(b, c) * Eb(a, c)));
      CHECK(std::to_string(triangles) + "\n" == *sql);
    }
  }
}
