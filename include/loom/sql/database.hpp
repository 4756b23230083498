// Defines loom::sql_compiler::database: the tables a query's FROM names, and the key indexes of
// those tables that the joins build, kept so that every later query keyed the same way reuses
// them (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_DATABASE_HPP
#define LOOM_SQL_DATABASE_HPP

#include <loom/core/sync.hpp>
#include <loom/parallel/thread_pool.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/table.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loom::sql_compiler {

/// Rows of a table chained by key, for the hash joins. A key whose first column is an integer
/// spanning at most about eight times the table's rows (TPC-H's keys, most primary keys) indexes
/// an array by that column alone, as a trie's dense level does; other keys go through a hash map
/// of up to `max_keys` columns. Key columns past the indexed ones are compared by the probe.
struct key_index {
  static constexpr std::int64_t none = -1;
  static constexpr int max_keys = 4;
  using key_type = std::array<double, max_keys>;
  /// An entry or a table row: 32 bits, half the memory (and the page faults) of a 64-bit one,
  /// since building an index over a large table is mostly writing fresh memory.
  using slot = std::int32_t;
  using row_list = std::vector<std::uint32_t>;
  static constexpr std::size_t max_rows = 0x7fffffff;
  struct key_hash {
    std::size_t operator()(const key_type& k) const {
      std::size_t h = 0;
      for (double v : k) h = h * 1000003u ^ std::hash<double>{}(v);
      return h;
    }
  };

  int keys = 0;  // the leading key columns the index is keyed on
  bool direct = false;
  std::int64_t low = 0;
  std::vector<slot> first;  // direct: the first entry of key `low + k` (-1: none)
  std::unordered_map<key_type, slot, key_hash> first_of;
  row_list row;            // entry -> the table's row; empty when entry e is row e
  std::vector<slot> next;  // entry -> the next entry of the same key
  std::size_t entries = 0;
  // A direct index of every row of a table whose key never decreases down the table (lineitem
  // on l_orderkey) keeps neither array: entry e is row e, and a key's rows follow each other
  // (built in one pass, walked in table order).
  bool runs = false;
  const std::int64_t* run_keys = nullptr;  // the key column, while the table lives
  // Runs without the `first` array either, for probes that come in ascending key order (a
  // scan of orders probing lineitem on l_orderkey): a probe moves a cursor forward through the
  // key column (`seek`), so building the index is only checking that the column ascends.
  bool merge = false;
  double rows_per_key = 1;  // merge: rows over the span of keys, for a probe's first guess

  std::size_t size() const { return entries; }
  bool empty() const { return entries == 0; }
  /// The table's row of entry e.
  std::size_t row_of(std::int64_t e) const {
    return row.empty() ? static_cast<std::size_t>(e) : row[static_cast<std::size_t>(e)];
  }
  /// The entry after e with e's key, or `none`.
  std::int64_t next_of(std::int64_t e) const {
    if (!runs) return next[static_cast<std::size_t>(e)];
    const auto n = static_cast<std::size_t>(e) + 1;
    return n < entries && run_keys[n] == run_keys[n - 1] ? static_cast<std::int64_t>(n) : none;
  }

  /// Whether integer values from `low` to `high` index an array for a table of `rows` rows.
  static bool dense(std::int64_t low, std::int64_t high, std::size_t rows) {
    return high >= low && static_cast<std::uint64_t>(high - low) < 8 * rows + 1024;
  }

  /// The first entry whose key is `k`, or `none`.
  std::int64_t find(const key_type& k) const {
    if (merge) {
      const auto key = static_cast<std::int64_t>(k[0]);
      std::size_t cursor = 0;
      return static_cast<double>(key) == k[0] ? seek(key, cursor) : none;
    }
    if (!direct) {
      const auto at = first_of.find(k);
      return at == first_of.end() ? none : at->second;
    }
    const double offset = k[0] - static_cast<double>(low);
    if (!(offset >= 0 && offset < static_cast<double>(first.size()))) return none;
    const auto at = static_cast<std::size_t>(offset);
    return static_cast<double>(at) == offset ? first[at] : none;
  }

  /// A merge index's first entry of key `k`, or `none`. From `cursor` (where the last probe
  /// left it) forward: a first guess where `k` should be if keys spread evenly over the rows,
  /// then galloping from the guess and a binary search of the last stride; a key before the
  /// cursor is sought the same way from the first entry (probes in no order cost a guess and a
  /// short gallop each, not a binary search of the table). Leaves the cursor at the first entry
  /// not below `k`.
  std::int64_t seek(std::int64_t k, std::size_t& cursor) const {
    const std::int64_t* v = run_keys;
    const std::size_t n = entries;
    std::size_t at = std::min(cursor, n);
    if (at > 0 && v[at - 1] >= k) at = 0;
    if (at < n && v[at] < k) {
      // v[lo] < k; the entry sought is in (lo, hi], hi == n or v[hi] >= k
      std::size_t lo = at, hi = n;
      const double ahead = (static_cast<double>(k) - static_cast<double>(v[at])) * rows_per_key;
      const std::size_t guess =
          ahead < static_cast<double>(n - at) ? at + 1 + static_cast<std::size_t>(ahead) : n;
      if (guess >= n || v[guess] >= k) {
        hi = std::min(guess, n);
        for (std::size_t step = 1; hi - lo > step; step *= 2) {
          if (v[hi - step] < k) {
            lo = hi - step;
            break;
          }
          hi -= step;
        }
      } else {
        lo = guess;
        for (std::size_t step = 1;; step *= 2) {
          hi = std::min(n, lo + step);
          if (hi == n || v[hi] >= k) break;
          lo = hi;
        }
      }
      at = static_cast<std::size_t>(std::lower_bound(v + lo + 1, v + hi, k) - v);
    }
    cursor = at;
    return at < n && v[at] == k ? static_cast<std::int64_t>(at) : none;
  }

  /// The merge index of every row of a table of `table_rows` rows on integer column `c`, when
  /// `c` never decreases down the table (checked in `parts` ranges on loom's threads); else the
  /// index `build_all` makes.
  static key_index build_merge(const relational::column& c, std::size_t table_rows,
                               std::size_t parts = 1) {
    const std::int64_t* v = c.ints().data();
    std::atomic<bool> falls{table_rows > max_rows};
    parts = std::max<std::size_t>(1, std::min(parts, table_rows / 4096));
    parallel::parallel_for(parts, static_cast<unsigned>(parts), [&](std::size_t k, unsigned) {
      const std::size_t end = table_rows * (k + 1) / parts;
      for (std::size_t r = std::max<std::size_t>(1, table_rows * k / parts); r < end;) {
        const std::size_t block = std::min(end, r + 4096);
        bool fell = false;
        for (; r < block; ++r) fell |= v[r] < v[r - 1];
        if (fell || falls.load(std::memory_order_relaxed)) {
          falls.store(true, std::memory_order_relaxed);
          return;
        }
      }
    });
    if (falls.load() || table_rows == 0) return build_all({&c}, true, table_rows);
    key_index h;
    h.entries = table_rows;
    h.direct = h.runs = h.merge = true;
    h.keys = 1;
    h.low = v[0];
    h.run_keys = v;
    h.rows_per_key =
        static_cast<double>(table_rows - 1) /
        std::max(1.0, static_cast<double>(v[table_rows - 1]) - static_cast<double>(v[0]));
    return h;
  }

  /// The index of `rows` (rows of a table of `table_rows` rows, in increasing order) keyed on
  /// `columns`: by an array over `columns[0]` when `try_direct` and its values are dense, else
  /// by a hash map of the first `max_keys` columns. Each key's chain lists its rows in order.
  static key_index build(const std::vector<const relational::column*>& columns, row_list rows,
                         bool try_direct, std::size_t table_rows) {
    return build(columns, &rows, try_direct, table_rows);
  }
  /// The index of every row of a table of `table_rows` rows (see `build`).
  static key_index build_all(const std::vector<const relational::column*>& columns, bool try_direct,
                             std::size_t table_rows) {
    return build(columns, nullptr, try_direct, table_rows);
  }

 private:
  /// Indexes every row of a table by runs when `c` never decreases down it and spans densely
  /// from its first to its last value: one pass, which writes the first row of each key and
  /// stops at the first value that falls (false: nothing kept).
  bool runs_of(const relational::column& c) {
    const std::int64_t* v = c.ints().data();
    const std::int64_t lo = v[0], hi = v[entries - 1];
    if (!dense(lo, hi, entries)) return false;
    first.assign(static_cast<std::size_t>(hi - lo) + 1, static_cast<slot>(none));
    first[0] = 0;
    for (std::size_t r = 1; r < entries; ++r) {
      if (v[r] == v[r - 1]) continue;
      if (v[r] < v[r - 1] || v[r] > hi) {  // falls, or will (and is outside the array)
        first = {};
        return false;
      }
      first[static_cast<std::size_t>(v[r] - lo)] = static_cast<slot>(r);
    }
    direct = runs = true;
    low = lo;
    run_keys = v;
    keys = 1;
    return true;
  }

  /// `rows` null: every row, entry e being row e (no row array).
  static key_index build(const std::vector<const relational::column*>& columns, row_list* rows,
                         bool try_direct, std::size_t table_rows) {
    if (table_rows > max_rows)
      throw relational::column_error(
          "loom::sql: a join indexes tables of at most 2147483647 "
          "rows; this one has " +
          std::to_string(table_rows));
    if (rows && rows->size() == table_rows) rows = nullptr;  // increasing: every row
    key_index h;
    if (rows) h.row = std::move(*rows);
    h.entries = rows ? h.row.size() : table_rows;
    auto row_at = [&](std::size_t e) { return rows ? std::size_t{h.row[e]} : e; };
    const relational::column& single = *columns.front();
    if (try_direct && single.is_integer() && !rows && h.entries > 0 && h.runs_of(single)) return h;
    if (try_direct && single.is_integer() && h.entries > 0) {
      const std::int64_t* v = single.ints().data();
      std::int64_t lo = v[row_at(0)], hi = lo;
      for (std::size_t e = 0; e < h.entries; ++e) {
        const std::int64_t x = v[row_at(e)];
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      h.direct = dense(lo, hi, table_rows);
      if (h.direct) {
        h.low = lo;
        h.first.assign(static_cast<std::size_t>(hi - lo) + 1, static_cast<slot>(none));
      }
    }
    h.next.assign(h.entries, static_cast<slot>(none));
    h.keys = h.direct ? 1 : static_cast<int>(std::min<std::size_t>(columns.size(), max_keys));
    // Inserted backwards, so each key's chain lists its rows in table order.
    for (std::size_t e = h.entries; e-- > 0;) {
      const std::size_t r = row_at(e);
      slot* head = nullptr;
      if (h.direct) {
        head = &h.first[static_cast<std::size_t>(single.ints()[r] - h.low)];
      } else {
        key_type k{};
        for (int j = 0; j < h.keys; ++j) {
          const relational::column& c = *columns[static_cast<std::size_t>(j)];
          k[static_cast<std::size_t>(j)] =
              c.is_integer() ? static_cast<double>(c.ints()[r]) : c.reals()[r];
        }
        head = &h.first_of.try_emplace(k, static_cast<slot>(none)).first->second;
      }
      h.next[e] = *head;
      *head = static_cast<slot>(e);
    }
    return h;
  }
};

/// What the join planner knows of a column, from a sample of rows (no pass over the column, so
/// that a query's first run does not pay for statistics): whether it ascends down the table, and
/// an estimate of its distinct values.
struct column_profile {
  double distinct = 0;
  bool sorted = false;                             // nine in ten sampled neighbours ascend
  bool rising = false;                             // every sampled neighbour pair ascends
  std::int64_t low = 0, high = -1;                 // integer columns: the sampled ends
  static constexpr std::size_t samples = 4096;     // values sampled for distinct counts
  static constexpr std::size_t neighbours = 1024;  // neighbour pairs sampled for the order
  static constexpr std::size_t run = 16;           // rows read in a row at each sampled place

  /// Integer columns: a column sampled as ascending counts the changes between sampled
  /// neighbours (distinct ≈ 1 + changes' share × (rows − 1)); another one counts the distinct
  /// values d among `samples` rows, read `run` at a time at scattered places (a few pages of a
  /// large column touched, not thousands), and takes the number D of equally frequent values
  /// that would leave d of them in such a sample, D(1 − e^(−m/D)) = d. A sample of all distinct
  /// values, and every other column, estimates one value a row. Tables of at most `samples`
  /// rows are counted exactly.
  static column_profile of(const relational::column& c) {
    column_profile p;
    const std::size_t n = c.size();
    p.distinct = static_cast<double>(n);
    if (n < 2) {
      p.sorted = p.rising = true;
      if (n == 1 && c.is_integer()) p.low = p.high = c.ints()[0];
      return p;
    }
    const std::size_t pairs = std::min<std::size_t>(n - 1, neighbours);
    std::size_t ascending = 0, changes = 0;
    for (std::size_t k = 0; k < pairs; ++k) {
      const std::size_t r = k * (n - 1) / pairs;
      ascending += c.number(r) <= c.number(r + 1) ? 1 : 0;
      changes += c.number(r) != c.number(r + 1) ? 1 : 0;
    }
    p.sorted = ascending * 10 >= pairs * 9;
    p.rising = ascending == pairs;
    if (!c.is_integer()) return p;
    const std::int64_t* v = c.ints().data();
    if (p.rising) {
      p.low = v[0];
      p.high = v[n - 1];
      p.distinct = pairs == n - 1
                       ? static_cast<double>(changes + 1)
                       : 1.0 + static_cast<double>(changes) / static_cast<double>(pairs) *
                                   static_cast<double>(n - 1);
      return p;
    }
    const std::size_t m = std::min(n, samples);
    std::vector<std::int64_t> seen(m);
    for (std::size_t k = 0; k < m; k += run) {
      const std::size_t at = m == n ? k : scattered(k / run) % (n - run + 1);
      for (std::size_t j = 0; j < run && k + j < m; ++j) seen[k + j] = v[at + j];
    }
    std::sort(seen.begin(), seen.end());
    p.low = seen.front();
    p.high = seen.back();
    const auto d = static_cast<double>(std::unique(seen.begin(), seen.end()) - seen.begin());
    if (m == n) {
      p.distinct = d;
    } else if (d < static_cast<double>(m)) {
      p.distinct = equally_frequent(d, static_cast<double>(m), static_cast<double>(n));
    }
    return p;
  }

  /// The k-th sampled place (splitmix64): evenly spaced rows would follow a table's layout
  /// (partsupp lists four suppliers a part in a pattern).
  static std::uint64_t scattered(std::uint64_t k) {
    std::uint64_t z = k * 0x9e3779b97f4a7c15u + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }

  /// The D in [d, n] with D(1 − e^(−m/D)) = d (increasing in D), by bisection.
  static double equally_frequent(double d, double m, double n) {
    double low = d, high = n;
    for (int k = 0; k < 60 && high - low > 0.5; ++k) {
      const double mid = 0.5 * (low + high);
      (mid * -std::expm1(-m / mid) < d ? low : high) = mid;
    }
    return 0.5 * (low + high);
  }
};

/// The smallest and largest value of an integer column (0, -1 when it has no rows).
struct column_span {
  std::int64_t low = 0, high = -1;
  static column_span of(const relational::column& c) {
    if (c.ints().empty()) return {};
    const auto [lo, hi] = std::minmax_element(c.ints().begin(), c.ints().end());
    return {*lo, *hi};
  }
  /// For the planner, which only chooses an array index by it (the index finds its own range
  /// and hashes a key that spans too widely): the ends of the profile's sample, no pass over the
  /// column. A column whose sampled neighbours all ascend spans its first to its last value.
  static column_span of(const relational::column& c, const column_profile& p) {
    if (c.ints().empty()) return {};
    return {p.low, p.high};
  }
};

/// The tables a query may name in FROM, by name, and the key indexes the joins built over them.
/// **Example**: `loom::sql_database db; db.add("lineitem", lineitem);`
///
/// A join that hashes a table asks the database for the table's index on its key columns: the
/// first query builds it over all the rows, every later one (and every repeated call) reuses it.
/// Adding a table under a name already used replaces it and drops its indexes; an index is also
/// rebuilt when its table's object, row count or key columns are not the ones it was built over.
/// Copies of a database start with a copy of its indexes (shared, read only). Queries may run on
/// one database from several threads.
class database {
 public:
  /// What the joins did with the key indexes: `built` indexes over whole tables, kept; `reused`
  /// such an index already kept; `filtered` an index of a table's rows that pass its own WHERE
  /// terms, built for one query and dropped (see `loom::sql_compiler::run`); `narrowed` an index
  /// of the rows that have a partner in the next joined table (a semi-join), built for one query;
  /// `reduced` an index of the rows whose key the scanned table probes, built for a query that
  /// asks for an index no query asked for before (see `asked_for`); `searched` a key column
  /// found to ascend and searched by each probe instead, for such a query.
  struct index_counts {
    std::size_t built = 0, reused = 0, filtered = 0, narrowed = 0, reduced = 0, searched = 0;
  };

  database() = default;
  database(const database& other) : tables_(other.tables_) { other.cache_->copy_to(*cache_); }
  database& operator=(const database& other) {
    if (this != &other) {
      tables_ = other.tables_;
      cache_ = std::make_shared<cache>();
      other.cache_->copy_to(*cache_);
    }
    return *this;
  }
  database(database&& other) : tables_(std::move(other.tables_)), cache_(std::move(other.cache_)) {
    other.tables_.clear();
    other.cache_ = std::make_shared<cache>();
  }
  database& operator=(database&& other) {
    if (this != &other) {
      tables_ = std::move(other.tables_);
      cache_ = std::move(other.cache_);
      other.tables_.clear();
      other.cache_ = std::make_shared<cache>();
    }
    return *this;
  }
  ~database() = default;

  /// Adds `t` (not copied: it must outlive the database's use) as `name`, replacing a table of
  /// that name and its indexes.
  database& add(std::string name, const relational::table& t) {
    return put(std::move(name), &t, {});
  }
  /// Adds `t`, which the database keeps, as `name`, replacing a table of that name.
  database& add(std::string name, relational::table&& t) {
    auto owned = std::make_shared<const relational::table>(std::move(t));
    const relational::table* p = owned.get();
    return put(std::move(name), p, std::move(owned));
  }

  /// The table called `name`; throws `relational::column_error` listing the tables when none.
  const relational::table& operator[](std::string_view name) const {
    for (const auto& e : tables_)
      if (e.name == name) return *e.table;
    std::string known;
    for (const auto& e : tables_) known += (known.empty() ? "" : ", ") + e.name;
    throw relational::column_error("loom::sql: no table " + std::string(name) +
                                   " in the database (tables: " + known + ")");
  }
  bool has(std::string_view name) const {
    return std::any_of(tables_.begin(), tables_.end(),
                       [&](const auto& e) { return e.name == name; });
  }

  /// The counts since the database was made (or `reset_counts`).
  index_counts counts() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    return cache_->counts;
  }
  void reset_counts() {
    const loom::detail::scoped_lock lock(cache_->mutex);
    cache_->counts = {};
  }
  /// The number of key indexes kept.
  std::size_t index_count() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    return cache_->indexes.size();
  }
  /// Frees the kept indexes (queries running hold theirs until they finish).
  void drop_indexes() {
    const loom::detail::scoped_lock lock(cache_->mutex);
    cache_->indexes.clear();
    cache_->profiles.clear();
    cache_->asked.clear();
  }

  /// For the joins: the kept index of table `name` (that is `t`) keyed on `columns` (see
  /// `key_index::build`), built over all its rows the first time.
  /// `merge`: for probes in ascending key order, a merge index when the key column ascends
  /// (`key_index::build_merge`, its check split in `parts`; one integer column).
  std::shared_ptr<const key_index> index(std::string_view name, const relational::table& t,
                                         const std::vector<const relational::column*>& columns,
                                         bool try_direct, bool merge = false,
                                         std::size_t parts = 1) const {
    merge = merge && try_direct && columns.size() == 1 && columns.front()->is_integer();
    cache_key key{std::string(name), {}};
    key.second.push_back(merge ? "merge" : try_direct ? "direct" : "hashed");
    for (const auto* c : columns) key.second.push_back(c->name());
    const loom::detail::scoped_lock lock(cache_->mutex);
    auto& entry = cache_->indexes[key];
    if (entry.index && entry.source == source_of(t, columns)) {
      ++cache_->counts.reused;
      return entry.index;
    }
    entry.index = std::make_shared<const key_index>(
        merge ? key_index::build_merge(*columns.front(), t.rows(), parts)
              : key_index::build_all(columns, try_direct, t.rows()));
    entry.source = source_of(t, columns);
    ++cache_->counts.built;
    return entry.index;
  }
  /// For the joins: whether the index `index(name, t, columns, try_direct)` is kept, or a
  /// query asked for it before; `record`: counts this as asking (a query's first run builds
  /// something cheaper, the kept index waits for a second query that wants it).
  bool asked_for(std::string_view name, const relational::table& t,
                 const std::vector<const relational::column*>& columns, bool try_direct,
                 bool record) const {
    cache_key key{std::string(name), {}};
    key.second.push_back(try_direct ? "direct" : "hashed");
    for (const auto* c : columns) key.second.push_back(c->name());
    const loom::detail::scoped_lock lock(cache_->mutex);
    const auto kept = cache_->indexes.find(key);
    if (kept != cache_->indexes.end() && kept->second.index &&
        kept->second.source == source_of(t, columns))
      return true;
    const auto source = source_of(t, columns);
    const auto asked = cache_->asked.find(key);
    if (asked != cache_->asked.end() && asked->second == source) return true;
    if (record) cache_->asked[key] = source;
    return false;
  }
  /// For the join planner: the sampled span of integer column `c` of table `name` (that is `t`).
  column_span span(std::string_view name, const relational::table& t,
                   const relational::column& c) const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    return column_span::of(c, profile_locked(name, t, c));
  }
  /// For the join planner: the profile of column `c` of table `name` (that is `t`), kept.
  column_profile profile(std::string_view name, const relational::table& t,
                         const relational::column& c) const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    return profile_locked(name, t, c);
  }
  /// For the join planner: whether an index of table `name` (that is `t`) keyed first on
  /// column `c` is kept.
  bool keeps_index_on(std::string_view name, const relational::table& t,
                      const relational::column& c) const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    for (const auto& [key, kept] : cache_->indexes)
      if (key.first == name && key.second.size() >= 2 && key.second[1] == c.name() && kept.index &&
          kept.source.first == std::pair{&t, t.rows()})
        return true;
    return false;
  }
  /// For the joins: counts an index of filtered rows built for one query.
  void count_filtered() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    ++cache_->counts.filtered;
  }
  /// For the joins: counts an index of the rows the scanned table probes.
  void count_reduced() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    ++cache_->counts.reduced;
  }
  /// For the joins: counts an ascending key column searched instead of indexed.
  void count_searched() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    ++cache_->counts.searched;
  }
  /// For the joins: counts an index narrowed to the rows with a partner in the next table.
  void count_narrowed() const {
    const loom::detail::scoped_lock lock(cache_->mutex);
    ++cache_->counts.narrowed;
  }

 private:
  struct entry {
    std::string name;
    const relational::table* table = nullptr;
    std::shared_ptr<const relational::table> owned;  // when the database keeps the table
  };
  /// What an index was built over: the table object, its rows and its key columns' data.
  using source_key =
      std::pair<std::pair<const relational::table*, std::size_t>, std::vector<const void*>>;
  static source_key source_of(const relational::table& t,
                              const std::vector<const relational::column*>& columns) {
    source_key s{{&t, t.rows()}, {}};
    for (const auto* c : columns)
      s.second.push_back(c->is_integer() ? static_cast<const void*>(c->ints().data())
                                         : static_cast<const void*>(c->reals().data()));
    return s;
  }
  using cache_key = std::pair<std::string, std::vector<std::string>>;
  column_profile profile_locked(std::string_view name, const relational::table& t,
                                const relational::column& c) const {
    auto& entry = cache_->profiles[cache_key{std::string(name), {c.name()}}];
    const auto source = source_of(t, {&c});
    if (entry.first != source) entry = {source, column_profile::of(c)};
    return entry.second;
  }
  struct kept_index {
    source_key source;
    std::shared_ptr<const key_index> index;
  };
  struct cache {
    loom::detail::mutex mutex;
    std::map<cache_key, kept_index> indexes;
    std::map<cache_key, std::pair<source_key, column_profile>> profiles;
    std::map<cache_key, source_key> asked;  // indexes a query asked for, not built yet
    index_counts counts;
    void copy_to(cache& out) {
      const loom::detail::scoped_lock lock(mutex);
      out.indexes = indexes;
      out.profiles = profiles;
      out.asked = asked;
    }
    void drop(const std::string& table) {
      const loom::detail::scoped_lock lock(mutex);
      std::erase_if(asked, [&](const auto& kv) { return kv.first.first == table; });
      std::erase_if(indexes, [&](const auto& kv) { return kv.first.first == table; });
      std::erase_if(profiles, [&](const auto& kv) { return kv.first.first == table; });
    }
  };

  database& put(std::string name, const relational::table* t,
                std::shared_ptr<const relational::table> owned) {
    cache_->drop(name);
    for (auto& e : tables_)
      if (e.name == name) {
        e.table = t;
        e.owned = std::move(owned);
        return *this;
      }
    tables_.push_back({std::move(name), t, std::move(owned)});
    return *this;
  }

  std::vector<entry> tables_;
  std::shared_ptr<cache> cache_ = std::make_shared<cache>();
};

}  // namespace loom::sql_compiler

#endif  // LOOM_SQL_DATABASE_HPP
