// Hash-map loops and non-unique segments on the notes' matrix C (000-storel.md §8.2 tests 2, 4,
// 16, 21): DCSR with hashed rows, a trie of hash maps, a dictionary of keys and COO as mappings
// give the same tensor, Ax and BATAx; explain names F1 when a hash map is probed and the sorted walk when it is
// iterated (sorted once, on demand); COO's repeated rows accumulate. Part 2: sum_and_errors.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using entries2 = std::map<std::array<std::int64_t, 2>, double>;

template <class Tensor> auto stored(const Tensor& t) {
  std::map<std::array<std::int64_t, Tensor::order>, double> out;
  t.for_each_stored([&](const auto& c, double v) {
    if (v != 0) out[c] = v;
  });
  return out;
}

// C of Fig. 1(b): rows {0: 0->6, 2->9, 3->8}, {}, {0->5, 3->7}
const entries2 expected_c{{{0, 0}, 6}, {{0, 2}, 9}, {{0, 3}, 8}, {{2, 0}, 5}, {{2, 3}, 7}};

// rows 0 and 2 hashed to segments 0 and 1 (inserted in reverse: the map has no order)
auto c_as_hashed_rows() {
  return lm::make_tensor<lm::hashed_rows>(
      {3, 4}, std::vector<double>{6, 9, 8, 5, 7},
      lm::bind(nm::rows, lm::hash_table<>::from({{2, 1}, {0, 0}})),
      lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 5}),
      lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
}
// STOREL's TRIE T(M)(N): a table of rows, then one table of columns per row
auto c_as_hash_trie() {
  lm::hash_table<> cols;
  const std::int64_t row0 = cols.append({{3, 2}, {0, 0}, {2, 1}});
  const std::int64_t row2 = cols.append({{0, 3}, {3, 4}});
  const auto end = static_cast<std::int64_t>(cols.keys.size());
  return lm::make_tensor<lm::hash_trie>(
      {3, 4}, std::vector<double>{6, 9, 8, 5, 7},
      lm::bind(nm::rows, lm::hash_table<>::from({{0, 0}, {2, 1}})), lm::bind(nm::cols, cols),
      lm::bind(nm::slot2, std::vector<std::int64_t>{row0, row2, end}));
}
// STOREL's HASHMAP H(M,N) (DOK): one flat map from the pair (i, j), key i * 4 + j, to the
// value's position, inserted in no order
auto c_as_dok() {
  return lm::make_tensor<lm::dok>(
      {3, 4}, std::vector<double>{6, 9, 8, 5, 7},
      lm::bind(nm::entries, lm::hash_table<>::from({{11, 4}, {0, 0}, {8, 3}, {3, 2}, {2, 1}})));
}
// COO: the row array repeats row 0 three times and row 2 twice
auto c_as_coo() {
  return lm::make_tensor<lm::coo>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                  lm::bind(nm::pos1, std::vector<std::int64_t>{0, 5}),
                                  lm::bind(nm::idx1, std::vector<std::int32_t>{0, 0, 0, 2, 2}),
                                  lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
}

template <class T>
bool rows_sorted_yet(const T& t) {  // whether the hash map of rows has been sorted
  return !std::get<0>(t.template level<0>().arrays).sorted->keys.empty();
}

}  // namespace

TEST_CASE("mapping tests 2 and 4: C as hashed rows, a trie of hash maps and COO is one tensor") {
  CHECK(stored(c_as_hashed_rows()) == expected_c);
  CHECK(stored(c_as_hash_trie()) == expected_c);
  CHECK(stored(c_as_dok()) == expected_c);
  CHECK(stored(c_as_coo()) == expected_c);
  CHECK(c_as_dok().at(0, 3) == 8);
  CHECK(c_as_dok().at(1, 0) == 0);
  CHECK(c_as_hashed_rows().at(2, 3) == 7);
  CHECK(c_as_hashed_rows().at(1, 3) == 0);
  CHECK(c_as_hash_trie().at(0, 2) == 9);
  CHECK(c_as_coo().at(2, 0) == 5);
  // conversions both ways, through each mapping's assembly
  loom::tensor<double, loom::csr> builtin(c_as_hash_trie());
  CHECK(stored(builtin) == expected_c);
  CHECK(stored(loom::tensor<double, lm::hashed_rows>(builtin)) == expected_c);
  CHECK(stored(loom::tensor<double, lm::hash_trie>(builtin)) == expected_c);
  CHECK(stored(loom::tensor<double, lm::dok>(builtin)) == expected_c);
  CHECK(stored(loom::tensor<double, loom::csr>(c_as_dok())) == expected_c);
  CHECK(stored(loom::tensor<double, lm::coo>(builtin)) == expected_c);
}

TEST_CASE("mapping test 16: Ax and BATAx over hashed rows, the hash trie and COO") {
  loom::tensor<double, loom::dense_vector> x({4}), ax({3}), q({4});
  for (int p = 0; p < 4; ++p) x.at(p) = p + 1;
  auto check = [&](const auto& A) {
    ax(i) = loom::sum(j, A(i, j) * x(j));
    CHECK(ax.at(0) == 65);
    CHECK(ax.at(1) == 0);
    CHECK(ax.at(2) == 33);
    q(j) = loom::sum(i, loom::sum(k, 2.0 * A(i, j) * A(i, k) * x(k)));
    CHECK(q.at(0) == 1110);
    CHECK(q.at(1) == 0);
    CHECK(q.at(2) == 1170);
    CHECK(q.at(3) == 1502);
  };
  check(c_as_hashed_rows());
  check(c_as_hash_trie());
  check(c_as_dok());
  check(c_as_coo());
}

TEST_CASE("mapping: a hash map probed when another operand leads (F1), sorted only when iterated") {
  auto H = c_as_hashed_rows();
  H.set_name("H");
  auto xs = loom::from_coo<loom::sparse_vector>({3}, {{2}}, std::vector<double>{1.0});
  xs.set_name("xs");
  loom::tensor<double, loom::dense_vector> w({4}), x({4}), y({3});
  w(j) = loom::sum(i, xs(i) * H(i, j));  // w = row 2 of C
  CHECK(w.at(0) == 5);
  CHECK(w.at(3) == 7);
  CHECK(!rows_sorted_yet(H));  // located only: never sorted
  const std::string probe = loom::explain(w(j), loom::sum(i, xs(i) * H(i, j)));
  CAPTURE(probe);
  CHECK(probe.find("loop i [summed]: iterate xs (compressed); locate H (hashed_rows)") !=
        std::string::npos);
  CHECK(probe.find("fused i (program index i): F1 (iteration -> lookup): i comes from xs; the hash "
                   "map rows is probed for it in O(1) (never iterated, never sorted)") !=
        std::string::npos);
  CHECK(
      probe.find(
          "for i in keys(rows) @unique @hash, j in idx2(pos2(i_pos) : pos2(i_pos + 1)) @unique") !=
      std::string::npos);
  for (int p = 0; p < 4; ++p) x.at(p) = p + 1;
  y(i) = loom::sum(j, H(i, j) * x(j));  // H leads: its rows are walked in order
  CHECK(y.at(0) == 65);
  CHECK(y.at(2) == 33);
  CHECK(rows_sorted_yet(H));
  const std::string walk = loom::explain(y(i), loom::sum(j, H(i, j) * x(j)));
  CAPTURE(walk);
  CHECK(
      walk.find("F3 (@unique i): the program's loop over i is the loop over the keys of rows; the "
                "map is unordered, so its keys are sorted on demand (once per tensor)") !=
      std::string::npos);
  // both levels of the trie probed while a DCSR operand leads
  auto T = c_as_hash_trie();
  T.set_name("T");
  auto B =
      loom::from_coo<loom::dcsr>({3, 4}, {{0, 2}, {2, 1}, {2, 3}}, std::vector<double>{1, 1, 2});
  B.set_name("B");
  loom::tensor<double, loom::dcsr> P({3, 4});
  P(i, j) = B(i, j) * T(i, j);
  CHECK(stored(P) == entries2{{{0, 2}, 9}, {{2, 3}, 14}});
  const std::string trie = loom::explain(P(i, j), B(i, j) * T(i, j));
  CAPTURE(trie);
  CHECK(
      trie.find("fused i (program index i): F1 (iteration -> lookup): i comes from B; the hash map "
                "rows is probed") != std::string::npos);
  CHECK(
      trie.find("fused j (program index j): F1 (iteration -> lookup): j comes from B; the hash map "
                "cols.table(slot2(i_pos) : slot2(i_pos + 1)) is probed") != std::string::npos);
}

TEST_CASE("mapping test 21: COO rows are not @unique, so no F3; repeated rows accumulate") {
  // (0,1) (0,3) (1,0) (1,2) (1,3) (3,3): row 1 is a run of three positions
  auto A =
      lm::make_tensor<lm::coo>({4, 4}, std::vector<double>{1, 2, 3, 4, 5, 6},
                               lm::bind(nm::pos1, std::vector<std::int64_t>{0, 6}),
                               lm::bind(nm::idx1, std::vector<std::int32_t>{0, 0, 1, 1, 1, 3}),
                               lm::bind(nm::idx2, std::vector<std::int32_t>{1, 3, 0, 2, 3, 3}));
  A.set_name("A");
  loom::tensor<double, loom::dense_vector> r({4});
  r(i) = loom::sum(j, A(i, j));
  CHECK(r.at(0) == 3);
  CHECK(r.at(1) == 12);
  CHECK(r.at(2) == 0);
  CHECK(r.at(3) == 6);
  loom::tensor<double, loom::sparse_vector> rs({4});
  rs(i) = loom::sum(j, A(i, j) * A(i, j));
  CHECK(stored(rs) ==
        std::map<std::array<std::int64_t, 1>, double>{{{0}, 5}, {{1}, 50}, {{3}, 36}});
  const std::string plan = loom::explain(r(i), loom::sum(j, A(i, j)));
  CAPTURE(plan);
  CHECK(plan.find("no F3 (i not @unique): idx1(pos1(0) : pos1(1)) may repeat a coordinate") !=
        std::string::npos);
  CHECK(plan.find("j in idx2(i_pos : i_pos + 1) @unique") != std::string::npos);
}

TEST_CASE(
    "mapping: a dictionary of keys is probed in O(1) when another operand leads, and "
    "sorted once, row by row, when it leads") {
  auto D = c_as_dok();
  D.set_name("D");
  auto pairs_sorted_yet = [&] {
    return !std::get<0>(D.template level<1>().arrays).sorted->run_start.empty();
  };
  auto B =
      loom::from_coo<loom::dcsr>({3, 4}, {{0, 2}, {2, 1}, {2, 3}}, std::vector<double>{1, 1, 2});
  B.set_name("B");
  loom::tensor<double, loom::dcsr> P({3, 4});
  P(i, j) = B(i, j) * D(i, j);
  CHECK(stored(P) == entries2{{{0, 2}, 9}, {{2, 3}, 14}});
  CHECK(!pairs_sorted_yet());  // located only
  const std::string probe = loom::explain(P(i, j), B(i, j) * D(i, j));
  CAPTURE(probe);
  CHECK(probe.find("for i in 0 : N, j in keys(entries) paired with i @unique @hash") !=
        std::string::npos);
  CHECK(probe.find("fused j (program index j): F1 (iteration -> lookup): j comes from B; the hash "
                   "map entries is probed for it in O(1) (never iterated, never sorted)") !=
        std::string::npos);
  loom::tensor<double, loom::dense_vector> x({4}), y({3});
  for (int p = 0; p < 4; ++p) x.at(p) = p + 1;
  y(i) = loom::sum(j, D(i, j) * x(j));  // D leads: its pairs are sorted once, then walked by row
  CHECK(pairs_sorted_yet());
  CHECK(y.at(0) == 65);
  CHECK(y.at(1) == 0);
  CHECK(y.at(2) == 33);
  // a wider matrix than its row count, every row but one empty, rows past the last stored one
  auto W = loom::from_coo<lm::dok>({5, 1000}, {{3, 999}, {3, 0}}, std::vector<double>{2, 3});
  loom::tensor<double, loom::dense_vector> z({1000}), w({5});
  for (int p = 0; p < 1000; ++p) z.at(p) = 1;
  w(i) = loom::sum(j, W(i, j) * z(j));
  CHECK(w.at(3) == 5);
  CHECK(w.at(4) == 0);
  CHECK(W.at(3, 999) == 2);
}

TEST_CASE("mapping: a dictionary of keys built from arrays is checked, and errors name the pair") {
  auto make = [](std::vector<std::pair<std::int64_t, std::int64_t>> keys, std::size_t values) {
    return lm::make_tensor<lm::dok>({3, 4}, std::vector<double>(values, 1.0),
                                    lm::bind(nm::entries, lm::hash_table<>::from(keys)));
  };
  CHECK_THROWS_WITH_AS(make({{12, 0}}, 1),
                       doctest::Contains("key 12 of mode 1 names the pair (3, 0), outside the 3 "
                                         "parent positions x extent 4"),
                       loom::shape_error);
  CHECK_THROWS_AS(make({{5, 0}, {5, 1}}, 2), loom::duplicate_error);
  lm::hash_table<> odd;
  odd.keys = {1, -1, -1};  // three slots: not a table hash_table builds
  odd.vals = {0, 0, 0};
  CHECK_THROWS_WITH_AS(
      lm::make_tensor<lm::dok>({3, 4}, std::vector<double>{1.0}, lm::bind(nm::entries, odd)),
      doctest::Contains("not a power of two"), loom::shape_error);
}
