// Robustness: views validate in O(1) when made (extents, products, array lengths) and
// in O(nnz) with loom::validate; each error names the view and the values.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {
template <class F> std::string message_of(F&& f) {
  try {
    f();
  } catch (const loom::error& e) {
    return e.what();
  }
  return "no error";
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("csr_view and csc_view refuse negative extents and short arrays") {
  std::vector<std::int64_t> pos;
  std::vector<std::int32_t> crd;
  std::vector<double> vals;
  const auto what = message_of([&] { (void)loom::csr_view<double>(-1, 3, pos, crd, vals); });
  CHECK(contains(what, "loom::csr_view (-1 x 3)"));
  CHECK(contains(what, "negative"));
  CHECK_THROWS_AS((void)loom::csc_view<double>(3, -2, pos, crd, vals), loom::shape_error);
  CHECK_THROWS_AS((void)loom::csr_view<double>(2, 3, pos, crd, vals), loom::shape_error);
  std::vector<std::int64_t> one{0};
  CHECK(loom::csr_view<double>(0, 3, one, crd, vals).nnz() == 0);  // 0 rows: pos = {0}
  std::vector<std::int64_t> bad_last{0, 5};
  CHECK(contains(message_of([&] { (void)loom::csr_view<double>(1, 3, bad_last, crd, vals); }),
                 "pos[last] = 5"));
}

TEST_CASE("dense_matrix_view refuses extents whose product overflows") {
  std::vector<double> none;
  const std::int64_t big = std::int64_t{1} << 32;
  const auto what = message_of([&] { (void)loom::dense_matrix_view<double>(big, big, none); });
  CHECK(contains(what, "loom::dense_matrix_view (4294967296 x 4294967296, 0 values)"));
  CHECK(contains(what, "overflows"));
  CHECK_THROWS_AS((void)loom::dense_matrix_view<double>(-2, -3, none), loom::shape_error);
  std::vector<double> six(6);
  CHECK_THROWS_AS((void)loom::dense_matrix_view<double>(4, 2, six), loom::shape_error);
  CHECK(loom::dense_matrix_view<double>(2, 3, six).nnz() == 6);
}

TEST_CASE("a view made from its parts is checked in O(1), and by loom::validate in O(nnz)") {
  using V = loom::view<const double, loom::dcsr>;
  std::vector<std::int64_t> pos0{0, 2}, pos1{0, 1, 3};
  std::vector<std::int32_t> crd0{0, 2}, crd1{1, 0, 3};
  std::vector<double> vals{1, 2, 3};
  auto levels = [&] {
    V::level_storages l{};
    std::get<0>(l).pos = pos0;
    std::get<0>(l).crd = crd0;
    std::get<1>(l).pos = pos1;
    std::get<1>(l).crd = crd1;
    return l;
  };
  const V ok({3, 4}, levels(), vals);
  loom::validate(ok);
  CHECK(ok.at(2, 3) == 3);

  // O(1): lengths
  auto short_pos = levels();
  std::get<1>(short_pos).pos = std::span<const std::int64_t>(pos1).first(2);
  CHECK(contains(message_of([&] { V({3, 4}, short_pos, vals); }), "pos has 2 entries, expected 3"));
  CHECK(contains(message_of([&] {
                   V({3, 4}, levels(), std::span<const double>(vals).first(2));
                 }),
                 "values has 2 entries"));
  CHECK_THROWS_AS(V({-1, 4}, levels(), vals), loom::shape_error);

  // O(nnz): unsorted and out-of-range coordinates pass construction, not validate
  std::vector<std::int32_t> unsorted{1, 3, 0}, outside{1, 0, 4};
  auto l2 = levels();
  std::get<1>(l2).crd = unsorted;
  const V u({3, 4}, l2, vals);
  const auto what = message_of([&] { loom::validate(u); });
  CHECK(contains(what, "loom::validate: view of shape 3 x 4 in dcsr"));
  CHECK(contains(what, "not strictly ascending"));
  std::get<1>(l2).crd = outside;
  CHECK(contains(message_of([&] {
                   loom::validate(V({3, 4}, l2, vals));
                 }),
                 "coordinate 4 at position 2 is outside [0, 4)"));
  std::vector<std::int64_t> decreasing{0, 3, 3};
  std::vector<std::int64_t> pos1_bad{0, 2, 1};
  auto l3 = levels();
  std::get<1>(l3).pos = pos1_bad;
  std::get<1>(l3).crd = std::span<const std::int32_t>(crd1).first(1);
  CHECK(contains(message_of([&] {
                   loom::validate(V({3, 4}, l3, std::span<const double>(vals).first(1)));
                 }),
                 "pos decreases"));
}
