// TPC-H Q5 and Q9 as loom programs: the tables keyed into tries (the "load" step, once), then
// each query one fused sum-product expression (the "query" step) and its result as rows.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXAMPLES_TPCH_QUERIES_HPP
#define LOOM_EXAMPLES_TPCH_QUERIES_HPP

#include <loom/loom.hpp>

#include <filesystem>
#include <string>
#include <tuple>

namespace tpch {

namespace rel = loom::relational;
using rel::column_type;

/// The columns Q5 and Q9 read, from the CSV files of `generate` (or any files with these
/// header names).
struct database {
  rel::table region, nation, supplier, customer, orders, lineitem, part, partsupp;
};

inline database load(const std::filesystem::path& dir) {
  auto read = [&](const char* file, std::vector<rel::column_spec> schema) {
    return rel::read_csv((dir / file).string(), schema);
  };
  database db;
  db.region =
      read("region.csv", {{"r_regionkey", column_type::int64}, {"r_name", column_type::string}});
  db.nation = read("nation.csv", {{"n_nationkey", column_type::int64},
                                  {"n_name", column_type::string},
                                  {"n_regionkey", column_type::int64}});
  db.supplier = read("supplier.csv",
                     {{"s_suppkey", column_type::int64}, {"s_nationkey", column_type::int64}});
  db.customer = read("customer.csv",
                     {{"c_custkey", column_type::int64}, {"c_nationkey", column_type::int64}});
  db.orders = read("orders.csv", {{"o_orderkey", column_type::int64},
                                  {"o_custkey", column_type::int64},
                                  {"o_orderdate", column_type::date}});
  db.orders.derive("o_year", "o_orderdate", rel::year_of);  // Q9's derived attribute
  db.lineitem = read("lineitem.csv", {{"l_orderkey", column_type::int64},
                                      {"l_partkey", column_type::int64},
                                      {"l_suppkey", column_type::int64},
                                      {"l_quantity", column_type::decimal},
                                      {"l_extendedprice", column_type::decimal},
                                      {"l_discount", column_type::decimal}});
  db.part = read("part.csv", {{"p_partkey", column_type::int64}, {"p_name", column_type::string}});
  db.partsupp = read("partsupp.csv", {{"ps_partkey", column_type::int64},
                                      {"ps_suppkey", column_type::int64},
                                      {"ps_supplycost", column_type::decimal}});
  return db;
}

namespace idx {
inline constexpr loom::index<"o"> o;    // orderkey
inline constexpr loom::index<"d"> d;    // orderdate
inline constexpr loom::index<"y"> y;    // year of orderdate
inline constexpr loom::index<"c"> c;    // custkey
inline constexpr loom::index<"s"> s;    // suppkey
inline constexpr loom::index<"p"> p;    // partkey
inline constexpr loom::index<"n"> n;    // nationkey
inline constexpr loom::index<"nm"> nm;  // nation name (code)
inline constexpr loom::index<"r"> r;    // regionkey
inline constexpr loom::index<"rn"> rn;  // region name (code)
inline constexpr loom::index<"pn"> pn;  // part name (code)
}  // namespace idx

// Per-row value l_extendedprice * (1 - l_discount), evaluated when lineitem is keyed.
inline auto revenue_of(const rel::table& lineitem) {
  return rel::sum_of<double>([price = lineitem.reals("l_extendedprice"),
                              disc = lineitem.reals("l_discount")](std::size_t row) {
    return price[row] * (1 - disc[row]);
  });
}

/// Q5 (local supplier volume): revenue per nation of ASIA from orders of 1994 whose customer
/// and supplier are in the same nation. Two kernels: the nations of ASIA (25 rows), then
///
///   asia_nations(n, nm) = Σ_{r,rn} N(n,r,nm) · R(r,rn) · [ASIA](rn)
///   revenue(nm) = Σ_{d,o,c,n,s} [1994](d) · O(d,o,c) · C(c,n) · asia_nations(n,nm) · S(n,s) · L(o,s)
///
/// Attribute order d, o, c, n, nm, s: orders are keyed by date first, so the date range selects
/// the orders of 1994 by seeking; the customer's nation is checked against ASIA before any line
/// is read, so the other orders never touch lineitem; suppliers are keyed by nation, so the last
/// level intersects an order's suppliers with those of the customer's nation. Tables keyed by a
/// primary key get a dense first level (located in O(1), like Etch's `orderkey ↠ₐ`).
struct q5 {
  using by_key2 = loom::tensor<double, loom::csr>;
  using by_key3 =
      loom::tensor<double, loom::format<loom::dense, loom::compressed, loom::compressed>>;
  using vec = loom::tensor<double, loom::sparse_vector>;
  const database& db;
  loom::tensor<double, loom::csf<3>> O;
  by_key3 N;
  by_key2 L, C, S, R;
  loom::view<const double, loom::format<rel::interval_level>> in_1994;  // no storage, jumps
  vec asia;

  explicit q5(const database& data)
      : db(data),
        in_1994(rel::interval<double>(rel::date("1994-01-01"), rel::date("1995-01-01"),
                                      rel::extent_of(data.orders["o_orderdate"]))) {
    const auto no = rel::extent_of(db.orders["o_orderkey"], db.lineitem["l_orderkey"]);
    const auto nd = rel::extent_of(db.orders["o_orderdate"]);
    const auto nc = rel::extent_of(db.orders["o_custkey"], db.customer["c_custkey"]);
    const auto ns = rel::extent_of(db.lineitem["l_suppkey"], db.supplier["s_suppkey"]);
    const auto nn = rel::extent_of(db.customer["c_nationkey"], db.supplier["s_nationkey"],
                                   db.nation["n_nationkey"]);
    const auto nr = rel::extent_of(db.nation["n_regionkey"], db.region["r_regionkey"]);
    const auto one = rel::exists<double>();
    O = rel::key_by<3>(db.orders, {"o_orderdate", "o_orderkey", "o_custkey"}, one, {nd, no, nc});
    L = rel::key_by<loom::csr>(db.lineitem, {"l_orderkey", "l_suppkey"}, revenue_of(db.lineitem),
                               {no, ns});
    C = rel::key_by<loom::csr>(db.customer, {"c_custkey", "c_nationkey"}, one, {nc, nn});
    S = rel::key_by<loom::csr>(db.supplier, {"s_nationkey", "s_suppkey"}, one, {nn, ns});
    N = rel::key_by<by_key3::format_type>(db.nation, {"n_nationkey", "n_regionkey", "n_name"}, one,
                                          {nn, nr, rel::extent_of(db.nation["n_name"])});
    R = rel::key_by<loom::csr>(db.region, {"r_regionkey", "r_name"}, one,
                               {nr, rel::extent_of(db.region["r_name"])});
    asia = rel::string_equal<double>(db.region["r_name"], "ASIA");
  }

  /// The first kernel: nation key -> nation name, for the nations of ASIA.
  by_key2 asia_nations() const {
    using namespace idx;
    by_key2 an({N.shape()[0], N.shape()[2]});
    an(n, nm) = loom::sum(r, rn, N(n, r, nm) * R(r, rn) * asia(rn));
    return an;
  }
  /// The main kernel, for `run` and for `loom::explain`.
  auto expression(const by_key2& an) const {
    using namespace idx;
    return loom::sum(d, o, c, n, s,
                     in_1994(d) * O(d, o, c) * C(c, n) * an(n, nm) * S(n, s) * L(o, s));
  }
  loom::tensor<double, loom::dense_vector> output() const {
    return loom::tensor<double, loom::dense_vector>({N.shape()[2]});
  }

  /// n_name, revenue; by revenue descending.
  rel::table run() const {
    const by_key2 an = asia_nations();
    auto revenue = output();
    revenue(idx::nm) = expression(an);
    return rel::sort_rows(rel::to_table(revenue, {db.nation["n_name"]}, "revenue"), {"revenue"},
                          {true});
  }
};

/// Q9 (product type profit): profit per nation and year on parts whose name contains "green".
///
///   green(p)          = Σ_pn P(p,pn) · [%green%](pn)
///   supplier_nation(s, nm) = Σ_n S(s,n) · N(n,nm)
///   profit(nm, y) = Σ_{p,s,o} green(p) · supplier_nation(s,nm) · O(o,y)
///                   · (Lrev(p,s,o) · PS1(p,s) − Lqty(p,s,o) · PScost(p,s))
///
/// Three kernels: the green parts (a sparse vector, about 5% of the parts) and each supplier's
/// nation name (small), then the main one with lineitem keyed part → supplier → order, so the
/// filter prunes whole subtries; the other tables are keyed by their primary key with a dense
/// first level (located).
struct q9 {
  using by_key2 = loom::tensor<double, loom::csr>;
  using trie3 = loom::tensor<double, loom::csf<3>>;
  using vec = loom::tensor<double, loom::sparse_vector>;
  const database& db;
  by_key2 O, P, S, N, PS1, PScost;
  trie3 Lrev, Lqty;
  vec green_names;

  explicit q9(const database& data) : db(data) {
    const auto no = rel::extent_of(db.orders["o_orderkey"], db.lineitem["l_orderkey"]);
    const auto np =
        rel::extent_of(db.lineitem["l_partkey"], db.part["p_partkey"], db.partsupp["ps_partkey"]);
    const auto ns = rel::extent_of(db.lineitem["l_suppkey"], db.supplier["s_suppkey"],
                                   db.partsupp["ps_suppkey"]);
    const auto nn = rel::extent_of(db.supplier["s_nationkey"], db.nation["n_nationkey"]);
    const auto ny = rel::extent_of(db.orders["o_year"]);
    const auto one = rel::exists<double>();
    O = rel::key_by<loom::csr>(db.orders, {"o_orderkey", "o_year"}, one, {no, ny});
    P = rel::key_by<loom::csr>(db.part, {"p_partkey", "p_name"}, one,
                               {np, rel::extent_of(db.part["p_name"])});
    S = rel::key_by<loom::csr>(db.supplier, {"s_suppkey", "s_nationkey"}, one, {ns, nn});
    N = rel::key_by<loom::csr>(db.nation, {"n_nationkey", "n_name"}, one,
                               {nn, rel::extent_of(db.nation["n_name"])});
    // one sort of partsupp and one of lineitem serve both tensors keyed alike
    std::tie(PS1, PScost) =
        rel::key_by<loom::csr>(db.partsupp, {"ps_partkey", "ps_suppkey"},
                               std::tuple{one, rel::sum_of<double>("ps_supplycost")}, {np, ns});
    std::tie(Lrev, Lqty) = rel::key_by<3>(
        db.lineitem, {"l_partkey", "l_suppkey", "l_orderkey"},
        std::tuple{revenue_of(db.lineitem), rel::sum_of<double>("l_quantity")}, {np, ns, no});
    green_names = rel::like<double>(db.part["p_name"], "%green%");
  }

  vec green_parts() const {
    vec g({P.shape()[0]});
    g(idx::p) = loom::sum(idx::pn, P(idx::p, idx::pn) * green_names(idx::pn));
    return g;
  }
  by_key2 supplier_nation() const {
    by_key2 sn({S.shape()[0], N.shape()[1]});
    sn(idx::s, idx::nm) = loom::sum(idx::n, S(idx::s, idx::n) * N(idx::n, idx::nm));
    return sn;
  }
  auto expression(const vec& green, const by_key2& sn) const {
    using namespace idx;
    return loom::sum(p, s, o,
                     green(p) * sn(s, nm) * O(o, y) *
                         (Lrev(p, s, o) * PS1(p, s) - Lqty(p, s, o) * PScost(p, s)));
  }
  loom::tensor<double, loom::dense_matrix> output() const {
    return loom::tensor<double, loom::dense_matrix>({N.shape()[1], O.shape()[1]});
  }

  /// nation, o_year, sum_profit; by nation, then year descending.
  rel::table run() const {
    const vec green = green_parts();
    const by_key2 sn = supplier_nation();
    auto profit = output();
    profit(idx::nm, idx::y) = expression(green, sn);
    return rel::sort_rows(
        rel::to_table(
            profit,
            {rel::key_column("nation", column_type::string, db.nation["n_name"].dict()), "o_year"},
            "sum_profit"),
        {"nation", "o_year"}, {false, true});
  }
};

}  // namespace tpch

#endif  // LOOM_EXAMPLES_TPCH_QUERIES_HPP
