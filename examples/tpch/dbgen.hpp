// A deterministic TPC-H data generator for the tables of Q5 and Q9 (region, nation, supplier,
// customer, orders, lineitem, part, partsupp), at any scale factor, writing CSV with a header.
// It follows the specification (TPC-H 3.0.1, clause 4.2.3): cardinalities, key ranges (sparse
// order keys, custkey mod 3 != 0 for orders, the partsupp supplier formula), and the value
// distributions of the columns the queries read (dates, prices, discounts, quantities, the
// 92-word part names, the fixed nation and region lists). The random streams are our own (a
// SplitMix64 per table), so the values are not dbgen's, and text columns (comments, addresses)
// are simplified random words of the specified lengths.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXAMPLES_TPCH_DBGEN_HPP
#define LOOM_EXAMPLES_TPCH_DBGEN_HPP

#include <loom/relational/date.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpch {

/// SplitMix64: small, fast, and the same sequence on every platform.
class random_stream {
 public:
  explicit random_stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

 private:
  std::uint64_t state_;
};

inline constexpr std::array<std::string_view, 5> region_names{"AFRICA", "AMERICA", "ASIA", "EUROPE",
                                                              "MIDDLE EAST"};
struct nation_row {
  std::string_view name;
  int region;
};
inline constexpr std::array<nation_row, 25> nations{{
    {"ALGERIA", 0},       {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
    {"EGYPT", 4},         {"ETHIOPIA", 0},  {"FRANCE", 3}, {"GERMANY", 3},
    {"INDIA", 2},         {"INDONESIA", 2}, {"IRAN", 4},   {"IRAQ", 4},
    {"JAPAN", 2},         {"JORDAN", 4},    {"KENYA", 0},  {"MOROCCO", 0},
    {"MOZAMBIQUE", 0},    {"PERU", 1},      {"CHINA", 2},  {"ROMANIA", 3},
    {"SAUDI ARABIA", 4},  {"VIETNAM", 2},   {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
    {"UNITED STATES", 1},
}};
/// The 92 words of P_NAME (clause 4.2.3).
inline constexpr std::array<std::string_view, 92> part_name_words{
    "almond",   "antique",   "aquamarine", "azure",      "beige",     "bisque",    "black",
    "blanched", "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse",
    "chiffon",  "chocolate", "coral",      "cornflower", "cornsilk",  "cream",     "cyan",
    "dark",     "deep",      "dim",        "dodger",     "drab",      "firebrick", "floral",
    "forest",   "frosted",   "gainsboro",  "ghost",      "goldenrod", "green",     "grey",
    "honeydew", "hot",       "indian",     "ivory",      "khaki",     "lace",      "lavender",
    "lawn",     "lemon",     "light",      "lime",       "linen",     "magenta",   "maroon",
    "medium",   "metallic",  "midnight",   "mint",       "misty",     "moccasin",  "navajo",
    "navy",     "olive",     "orange",     "orchid",     "pale",      "papaya",    "peach",
    "peru",     "pink",      "plum",       "powder",     "puff",      "purple",    "red",
    "rose",     "rosy",      "royal",      "saddle",     "salmon",    "sandy",     "seashell",
    "sienna",   "sky",       "slate",      "smoke",      "snow",      "spring",    "steel",
    "tan",      "thistle",   "tomato",     "turquoise",  "violet",    "wheat",     "white",
    "yellow"};
inline constexpr std::array<std::string_view, 6> type_s1{"STANDARD", "SMALL",   "MEDIUM",
                                                         "LARGE",    "ECONOMY", "PROMO"};
inline constexpr std::array<std::string_view, 5> type_s2{"ANODIZED", "BURNISHED", "PLATED",
                                                         "POLISHED", "BRUSHED"};
inline constexpr std::array<std::string_view, 5> type_s3{"TIN", "NICKEL", "BRASS", "STEEL",
                                                         "COPPER"};
inline constexpr std::array<std::string_view, 5> container_s1{"SM", "LG", "MED", "JUMBO", "WRAP"};
inline constexpr std::array<std::string_view, 8> container_s2{"CASE", "BOX",  "BAG", "JAR",
                                                              "PKG",  "PACK", "CAN", "DRUM"};
inline constexpr std::array<std::string_view, 5> segments{"AUTOMOBILE", "BUILDING", "FURNITURE",
                                                          "MACHINERY", "HOUSEHOLD"};
inline constexpr std::array<std::string_view, 5> priorities{"1-URGENT", "2-HIGH", "3-MEDIUM",
                                                            "4-NOT SPECIFIED", "5-LOW"};
inline constexpr std::array<std::string_view, 4> instructions{"DELIVER IN PERSON", "COLLECT COD",
                                                              "NONE", "TAKE BACK RETURN"};
inline constexpr std::array<std::string_view, 7> ship_modes{"REG AIR", "AIR",  "RAIL", "SHIP",
                                                            "TRUCK",   "MAIL", "FOB"};
inline constexpr std::array<std::string_view, 24> text_words{
    "furiously", "quickly",  "carefully", "blithely",    "slyly",   "ironic", "final",  "regular",
    "express",   "bold",     "pending",   "special",     "unusual", "even",   "silent", "deposits",
    "requests",  "packages", "accounts",  "theodolites", "pinto",   "beans",  "foxes",  "ideas"};

inline constexpr std::int64_t start_date = loom::relational::date("1992-01-01");
inline constexpr std::int64_t current_date = loom::relational::date("1995-06-17");
inline constexpr std::int64_t end_date = loom::relational::date("1998-12-31");

/// Table cardinalities at scale factor `sf` (clause 4.2.5), at least one row each.
struct sizes {
  std::int64_t suppliers, parts, customers, orders;
  explicit sizes(double sf)
      : suppliers(scaled(sf, 10000)),
        parts(scaled(sf, 200000)),
        customers(scaled(sf, 150000)),
        orders(scaled(sf, 1500000)) {}
  static std::int64_t scaled(double sf, std::int64_t base) {
    return std::max<std::int64_t>(1, std::llround(sf * static_cast<double>(base)));
  }
};

/// The k-th order key (k >= 1): only the first 8 of every 32 keys are used (dbgen's mk_sparse).
constexpr std::int64_t order_key(std::int64_t k) { return ((k >> 3) << 5) | (k & 7); }

/// P_RETAILPRICE in cents (clause 4.2.3).
constexpr std::int64_t retail_price_cents(std::int64_t partkey) {
  return 90000 + ((partkey / 10) % 20001) + 100 * (partkey % 1000);
}

/// The i-th supplier (i in 0..3) of a part: PS_SUPPKEY, and L_SUPPKEY with a random i.
constexpr std::int64_t part_supplier(std::int64_t partkey, std::int64_t i, std::int64_t s) {
  return (partkey + (i * ((s / 4) + (partkey - 1) / s))) % s + 1;
}

namespace detail {

// A buffered CSV writer; fields are written in column order, kept ones only.
class csv_writer {
 public:
  csv_writer(const std::filesystem::path& path, std::vector<std::pair<std::string, bool>> columns)
      : columns_(std::move(columns)) {
    f_ = std::fopen(path.string().c_str(), "wb");
    if (!f_) throw std::runtime_error("tpch: cannot write " + path.string());
    bool first = true;
    for (const auto& [name, keep] : columns_)
      if (keep) buf_ += (first ? "" : ",") + name, first = false;
    buf_ += '\n';
  }
  ~csv_writer() {
    flush();
    std::fclose(f_);
  }
  csv_writer(const csv_writer&) = delete;
  csv_writer& operator=(const csv_writer&) = delete;

  // Each put* writes the next column of the row if it is kept.
  void put(std::string_view s) {
    if (keep_next()) text(s);
  }
  void put_int(std::int64_t v) {
    if (keep_next()) text(std::to_string(v));
  }
  void put_cents(std::int64_t cents) {
    if (!keep_next()) return;
    char b[48];  // a sign, two 64-bit numbers and a point
    const std::int64_t a = cents < 0 ? -cents : cents;
    std::snprintf(b, sizeof b, "%s%lld.%02lld", cents < 0 ? "-" : "", (long long)(a / 100),
                  (long long)(a % 100));
    text(b);
  }
  void put_date(std::int64_t days) {
    if (keep_next()) text(loom::relational::format_date(days));
  }
  void end_row() {
    buf_ += '\n';
    col_ = 0;
    first_ = true;
    if (buf_.size() > (1 << 20)) flush();
  }

 private:
  bool keep_next() { return columns_[col_++].second; }
  void text(std::string_view s) {
    if (!first_) buf_ += ',';
    first_ = false;
    buf_ += s;
  }
  void flush() {
    std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
  }
  std::FILE* f_;
  std::vector<std::pair<std::string, bool>> columns_;
  std::string buf_;
  std::size_t col_ = 0;
  bool first_ = true;
};

inline std::string words(random_stream& rng, std::int64_t min_len, std::int64_t max_len) {
  const std::int64_t len = rng.uniform(min_len, max_len);
  std::string s;
  while (static_cast<std::int64_t>(s.size()) < len) {
    if (!s.empty()) s += ' ';
    s += text_words[static_cast<std::size_t>(rng.uniform(0, text_words.size() - 1))];
  }
  s.resize(static_cast<std::size_t>(len));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
inline std::string v_string(random_stream& rng, std::int64_t min_len, std::int64_t max_len) {
  static constexpr std::string_view alphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ. ";
  std::string s(static_cast<std::size_t>(rng.uniform(min_len, max_len)), ' ');
  for (char& ch : s) ch = alphabet[static_cast<std::size_t>(rng.uniform(0, alphabet.size() - 1))];
  return s;
}
inline std::string phone(random_stream& rng, std::int64_t nation) {
  char b[96];  // room for any four 64-bit numbers (g++ -O0 cannot see the ranges below)
  std::snprintf(b, sizeof b, "%lld-%03lld-%03lld-%04lld", (long long)(nation + 10),
                (long long)rng.uniform(100, 999), (long long)rng.uniform(100, 999),
                (long long)rng.uniform(1000, 9999));
  return b;
}
inline std::string numbered(std::string_view prefix, std::int64_t k) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*s%09lld", (int)prefix.size(), prefix.data(), (long long)k);
  return b;
}

}  // namespace detail

/// Writes region.csv, nation.csv, supplier.csv, customer.csv, orders.csv, lineitem.csv,
/// part.csv and partsupp.csv into `dir` at scale factor `sf`. With `all_columns` false (the
/// default) only the columns Q5 and Q9 read are written, as in the paper's setup ("irrelevant
/// columns deleted"); with true, every column of the specification's schema.
inline void generate(const std::filesystem::path& dir, double sf, bool all_columns = false) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const sizes n(sf);
  const bool all = all_columns;
  using detail::csv_writer;

  {
    random_stream rng(1);
    random_stream txt(101);  // text columns: the other columns do not depend on them
    csv_writer w(dir / "region.csv", {{"r_regionkey", true}, {"r_name", true}, {"r_comment", all}});
    for (std::size_t r = 0; r < region_names.size(); ++r) {
      w.put_int(static_cast<std::int64_t>(r));
      w.put(region_names[r]);
      w.put(all ? detail::words(txt, 31, 115) : "");
      w.end_row();
    }
  }
  {
    random_stream rng(2);
    random_stream txt(102);  // text columns: the other columns do not depend on them
    csv_writer w(
        dir / "nation.csv",
        {{"n_nationkey", true}, {"n_name", true}, {"n_regionkey", true}, {"n_comment", all}});
    for (std::size_t k = 0; k < nations.size(); ++k) {
      w.put_int(static_cast<std::int64_t>(k));
      w.put(nations[k].name);
      w.put_int(nations[k].region);
      w.put(all ? detail::words(txt, 31, 114) : "");
      w.end_row();
    }
  }
  {
    random_stream rng(3);
    random_stream txt(103);  // text columns: the other columns do not depend on them
    csv_writer w(dir / "supplier.csv", {{"s_suppkey", true},
                                        {"s_name", all},
                                        {"s_address", all},
                                        {"s_nationkey", true},
                                        {"s_phone", all},
                                        {"s_acctbal", all},
                                        {"s_comment", all}});
    for (std::int64_t s = 1; s <= n.suppliers; ++s) {
      const std::int64_t nation = rng.uniform(0, 24);
      w.put_int(s);
      w.put(all ? detail::numbered("Supplier#", s) : "");
      w.put(all ? detail::v_string(txt, 10, 40) : "");
      w.put_int(nation);
      w.put(all ? detail::phone(txt, nation) : "");
      w.put_cents(rng.uniform(-99999, 999999));
      w.put(all ? detail::words(txt, 25, 100) : "");
      w.end_row();
    }
  }
  {
    random_stream rng(4);
    random_stream txt(104);  // text columns: the other columns do not depend on them
    csv_writer w(dir / "customer.csv", {{"c_custkey", true},
                                        {"c_name", all},
                                        {"c_address", all},
                                        {"c_nationkey", true},
                                        {"c_phone", all},
                                        {"c_acctbal", all},
                                        {"c_mktsegment", all},
                                        {"c_comment", all}});
    for (std::int64_t c = 1; c <= n.customers; ++c) {
      const std::int64_t nation = rng.uniform(0, 24);
      w.put_int(c);
      w.put(all ? detail::numbered("Customer#", c) : "");
      w.put(all ? detail::v_string(txt, 10, 40) : "");
      w.put_int(nation);
      w.put(all ? detail::phone(txt, nation) : "");
      w.put_cents(rng.uniform(-99999, 999999));
      w.put(segments[static_cast<std::size_t>(rng.uniform(0, 4))]);
      w.put(all ? detail::words(txt, 29, 116) : "");
      w.end_row();
    }
  }
  {
    random_stream rng(5);
    random_stream txt(105);  // text columns: the other columns do not depend on them
    csv_writer wp(dir / "part.csv", {{"p_partkey", true},
                                     {"p_name", true},
                                     {"p_mfgr", all},
                                     {"p_brand", all},
                                     {"p_type", all},
                                     {"p_size", all},
                                     {"p_container", all},
                                     {"p_retailprice", all},
                                     {"p_comment", all}});
    csv_writer ws(dir / "partsupp.csv", {{"ps_partkey", true},
                                         {"ps_suppkey", true},
                                         {"ps_availqty", all},
                                         {"ps_supplycost", true},
                                         {"ps_comment", all}});
    for (std::int64_t p = 1; p <= n.parts; ++p) {
      // five distinct words of the 92
      std::array<std::size_t, 5> pick{};
      for (std::size_t k = 0; k < 5; ++k) {
        bool fresh;
        do {
          pick[k] = static_cast<std::size_t>(rng.uniform(0, part_name_words.size() - 1));
          fresh = true;
          for (std::size_t q = 0; q < k; ++q) fresh = fresh && pick[q] != pick[k];
        } while (!fresh);
      }
      std::string name;
      for (std::size_t k = 0; k < 5; ++k) (name += k ? " " : "") += part_name_words[pick[k]];
      const std::int64_t m = rng.uniform(1, 5);
      wp.put_int(p);
      wp.put(name);
      wp.put("Manufacturer#" + std::to_string(m));
      wp.put("Brand#" + std::to_string(m) + std::to_string(rng.uniform(1, 5)));
      wp.put(std::string(type_s1[static_cast<std::size_t>(rng.uniform(0, 5))]) + " " +
             std::string(type_s2[static_cast<std::size_t>(rng.uniform(0, 4))]) + " " +
             std::string(type_s3[static_cast<std::size_t>(rng.uniform(0, 4))]));
      wp.put_int(rng.uniform(1, 50));
      wp.put(std::string(container_s1[static_cast<std::size_t>(rng.uniform(0, 4))]) + " " +
             std::string(container_s2[static_cast<std::size_t>(rng.uniform(0, 7))]));
      wp.put_cents(retail_price_cents(p));
      wp.put(all ? detail::words(txt, 5, 22) : "");
      wp.end_row();
      for (std::int64_t i = 0; i < 4; ++i) {
        ws.put_int(p);
        ws.put_int(part_supplier(p, i, n.suppliers));
        ws.put_int(rng.uniform(1, 9999));
        ws.put_cents(rng.uniform(100, 100000));
        ws.put(all ? detail::words(txt, 49, 198) : "");
        ws.end_row();
      }
    }
  }
  {
    random_stream rng(6);
    random_stream txt(106);  // text columns: the other columns do not depend on them
    csv_writer wo(dir / "orders.csv", {{"o_orderkey", true},
                                       {"o_custkey", true},
                                       {"o_orderstatus", all},
                                       {"o_totalprice", all},
                                       {"o_orderdate", true},
                                       {"o_orderpriority", all},
                                       {"o_clerk", all},
                                       {"o_shippriority", all},
                                       {"o_comment", all}});
    csv_writer wl(dir / "lineitem.csv", {{"l_orderkey", true},
                                         {"l_partkey", true},
                                         {"l_suppkey", true},
                                         {"l_linenumber", all},
                                         {"l_quantity", true},
                                         {"l_extendedprice", true},
                                         {"l_discount", true},
                                         {"l_tax", all},
                                         {"l_returnflag", all},
                                         {"l_linestatus", all},
                                         {"l_shipdate", all},
                                         {"l_commitdate", all},
                                         {"l_receiptdate", all},
                                         {"l_shipinstruct", all},
                                         {"l_shipmode", all},
                                         {"l_comment", all}});
    struct line {
      std::int64_t part, supp, qty, price, discount, tax, ship, commit, receipt;
    };
    std::vector<line> lines;
    const std::int64_t clerks = sizes::scaled(sf, 1000);
    for (std::int64_t k = 1; k <= n.orders; ++k) {
      const std::int64_t key = order_key(k);
      std::int64_t cust;
      do cust = rng.uniform(1, n.customers);
      while (cust % 3 == 0 && n.customers >= 3);  // a third of the customers have no orders
      const std::int64_t date = rng.uniform(start_date, end_date - 151);
      lines.resize(static_cast<std::size_t>(rng.uniform(1, 7)));
      std::int64_t total = 0, shipped = 0;  // total in 1/10^6 units, summed exactly
      for (line& l : lines) {
        l.part = rng.uniform(1, n.parts);
        l.supp = part_supplier(l.part, rng.uniform(0, 3), n.suppliers);
        l.qty = rng.uniform(1, 50);
        l.price = l.qty * retail_price_cents(l.part);
        l.discount = rng.uniform(0, 10);
        l.tax = rng.uniform(0, 8);
        l.ship = date + rng.uniform(1, 121);
        l.commit = date + rng.uniform(30, 90);
        l.receipt = l.ship + rng.uniform(1, 30);
        total += l.price * (100 + l.tax) * (100 - l.discount);
        shipped += l.ship > current_date ? 0 : 1;
      }
      const char* status = shipped == 0                                         ? "O"
                           : shipped == static_cast<std::int64_t>(lines.size()) ? "F"
                                                                                : "P";
      wo.put_int(key);
      wo.put_int(cust);
      wo.put(status);
      wo.put_cents((total + 5000) / 10000);
      wo.put_date(date);
      wo.put(priorities[static_cast<std::size_t>(rng.uniform(0, 4))]);
      wo.put(all ? detail::numbered("Clerk#", txt.uniform(1, clerks)) : "");
      wo.put_int(0);
      wo.put(all ? detail::words(txt, 19, 78) : "");
      wo.end_row();
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const line& l = lines[i];
        wl.put_int(key);
        wl.put_int(l.part);
        wl.put_int(l.supp);
        wl.put_int(static_cast<std::int64_t>(i) + 1);
        wl.put_int(l.qty);
        wl.put_cents(l.price);
        wl.put_cents(l.discount);
        wl.put_cents(l.tax);
        wl.put(l.receipt <= current_date ? (rng.uniform(0, 1) ? "R" : "A") : "N");
        wl.put(l.ship > current_date ? "O" : "F");
        wl.put_date(l.ship);
        wl.put_date(l.commit);
        wl.put_date(l.receipt);
        wl.put(instructions[static_cast<std::size_t>(rng.uniform(0, 3))]);
        wl.put(ship_modes[static_cast<std::size_t>(rng.uniform(0, 6))]);
        wl.put(all ? detail::words(txt, 10, 43) : "");
        wl.end_row();
      }
    }
  }
}

}  // namespace tpch

#endif  // LOOM_EXAMPLES_TPCH_DBGEN_HPP
