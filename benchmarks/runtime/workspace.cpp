// Workspaces of sparse outputs written out of order (optimize/choice/workspace_choice.hpp): a
// transpose B(j,i) = A(i,j) into csr (one workspace over the whole output), a group-by y(j) =
// sum(i, A(i,j) * x(i)) into a sparse vector (a million rows, keys drawn from a few of a large
// key space), and SpGEMM into a wide or a narrow csr result (a row per i). Every input runs with
// the workspace chosen from statistics, with each kind forced (loom::scoped_workspace), and
// hand-written: a counting-sort transpose, a hash-table group-by with its keys sorted, and
// Gustavson with a dense accumulator; and the per-call cost of the cached choice
// (choice_cached, rewriting included). Before the choice, loom always used the dense workspace
// up to 2^26 cells and the sorted one past it.
// SPDX-License-Identifier: BSL-1.0
#include <bit>

#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using csr_t = loom::tensor<double, loom::csr>;

// the implementations: loom as the optimizer chooses, loom with each kind forced, hand-written
const char* const impl_names[] = {"chosen", "dense", "hashed", "sorted"};
template <class Run> void with_impl(int impl, Run&& run) {
  if (impl == 0) return run();
  loom::scoped_workspace forced(loom::workspace_kinds[static_cast<std::size_t>(impl - 1)]);
  run();
}

// What the evaluator does per call to find the workspace kind once it is cached.
template <class Lhs, class Rhs> loom::workspace_kind choice_cost(const Lhs& lhs, const Rhs& rhs) {
  const auto kernel = loom::rewrite::for_kernel(loom::expr::as_expr(rhs)).expr;
  using P = loom::plan::order_plan<Lhs, std::remove_cvref_t<decltype(kernel)>>;
  return loom::optimize::cached_workspace_choice<P>(lhs, kernel).kind;
}

// Hand-written baselines ------------------------------------------------------------------------
// B = A^T by counting sort: count the entries per column, prefix sums, scatter in row order
lb::csr_arrays hand_transpose(const csr_t& A) {
  const auto& a = A.level<1>();
  lb::csr_arrays b;
  b.rows = A.extent(1);
  b.cols = A.extent(0);
  b.pos.assign(static_cast<std::size_t>(b.rows) + 1, 0);
  for (std::int32_t c : a.crd) ++b.pos[static_cast<std::size_t>(c) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(b.rows); ++r) b.pos[r + 1] += b.pos[r];
  b.crd.resize(a.crd.size());
  b.val.resize(a.crd.size());
  std::vector<std::int64_t> next(b.pos.begin(), b.pos.end() - 1);
  for (std::int64_t r = 0; r < A.extent(0); ++r)
    for (std::int64_t p = a.pos[r]; p < a.pos[r + 1]; ++p) {
      const auto q = static_cast<std::size_t>(next[static_cast<std::size_t>(a.crd[p])]++);
      b.crd[q] = static_cast<std::int32_t>(r);
      b.val[q] = A.values()[static_cast<std::size_t>(p)];
    }
  return b;
}

// y(j) = sum of x(i) over the entries (i, j): an open-addressing table that doubles past half
// full, then its keys sorted
struct keyed {
  std::vector<std::int64_t> key;
  std::vector<double> val;
};
keyed hand_group_by(const csr_t& A, const std::vector<double>& x) {
  std::vector<std::int64_t> slot_key(1024, -1);
  std::vector<double> slot_val(1024);
  std::size_t used = 0;
  auto slot_of = [&](std::int64_t key) {
    std::uint64_t s = (static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 20;
    for (s &= slot_key.size() - 1; slot_key[s] != -1 && slot_key[s] != key;
         s = (s + 1) & (slot_key.size() - 1)) {
    }
    return s;
  };
  const auto& a = A.level<1>();
  for (std::int64_t r = 0; r < A.extent(0); ++r)
    for (std::int64_t p = a.pos[r]; p < a.pos[r + 1]; ++p) {
      const std::int64_t key = a.crd[p];
      const double v = A.values()[static_cast<std::size_t>(p)] * x[static_cast<std::size_t>(r)];
      std::uint64_t s = slot_of(key);
      if (slot_key[s] == key) {
        slot_val[s] += v;
        continue;
      }
      if (2 * (used + 1) > slot_key.size()) {  // grow, then find the key's new slot
        std::vector<std::int64_t> ok(slot_key.size() * 2, -1);
        std::vector<double> ov(ok.size());
        ok.swap(slot_key);
        ov.swap(slot_val);
        for (std::size_t t = 0; t < ok.size(); ++t)
          if (ok[t] != -1) {
            const auto u = slot_of(ok[t]);
            slot_key[u] = ok[t];
            slot_val[u] = ov[t];
          }
        s = slot_of(key);
      }
      slot_key[s] = key;
      slot_val[s] = v;
      ++used;
    }
  std::vector<std::pair<std::int64_t, double>> entries;
  entries.reserve(used);
  for (std::size_t t = 0; t < slot_key.size(); ++t)
    if (slot_key[t] != -1) entries.emplace_back(slot_key[t], slot_val[t]);
  std::sort(entries.begin(), entries.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  keyed out;
  for (const auto& [key, v] : entries) {
    out.key.push_back(key);
    out.val.push_back(v);
  }
  return out;
}

// Inputs ----------------------------------------------------------------------------------------
void register_transpose(const std::string& name, std::int64_t n, std::int64_t per_row) {
  struct input {
    csr_t A, B;
  };
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 41));
    in->B = csr_t({n, n});
    const lb::csr_arrays want = hand_transpose(in->A);
    for (int impl = 0; impl < 4; ++impl) {
      with_impl(impl, [&] { in->B(j, i) = in->A(i, j); });
      lb::check_csr("workspace transpose/" + name + ": loom " + impl_names[impl] + " vs hand",
                    in->B, want);
    }
    std::fprintf(stderr, "%s", loom::explain(in->B(j, i), in->A(i, j)).c_str());
    return in;
  });
  const std::string what = "csr -> csr transposed";
  for (int impl = 0; impl < 4; ++impl)
    lb::add("workspace", name, impl_names[impl], [=](benchmark::State& s) {
      input& in = data->get();
      for (auto _ : s) {
        with_impl(impl, [&] { in.B(j, i) = in.A(i, j); });
        benchmark::DoNotOptimize(in.B.values().data());
      }
      lb::label(s, in.A.nnz(), what);
    });
  lb::add("workspace", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(hand_transpose(in.A).val.data());
    lb::label(s, in.A.nnz(), what);
  });
}

void register_group_by(const std::string& name, std::int64_t keys, std::int64_t distinct) {
  struct input {
    csr_t A;
    loom::tensor<double, loom::dense_vector> x;
    loom::tensor<double, loom::sparse_vector> y;
    std::vector<double> xv;
  };
  constexpr std::int64_t rows = 1000000;
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    lb::rng g(43);
    std::vector<std::int64_t> pool(static_cast<std::size_t>(distinct));
    for (auto& key : pool) key = g.below(keys);
    lb::entries<2> e;
    e.shape = {rows, keys};
    for (std::int64_t r = 0; r < rows; ++r) {
      e.crd.push_back({r, pool[static_cast<std::size_t>(g.below(distinct))]});
      e.val.push_back(g.value());
    }
    in->A = lb::to_loom<loom::csr>(e);
    in->xv = lb::dense_values(rows, 44);
    in->x = loom::tensor<double, loom::dense_vector>({rows});
    std::copy(in->xv.begin(), in->xv.end(), in->x.values().begin());
    in->y = loom::tensor<double, loom::sparse_vector>({keys});
    const keyed want = hand_group_by(in->A, in->xv);
    for (int impl = 0; impl < 4; ++impl) {
      with_impl(impl, [&] { in->y(j) = loom::sum(i, in->A(i, j) * in->x(i)); });
      const std::string what =
          "workspace group-by/" + name + ": loom " + impl_names[impl] + " vs hand";
      std::vector<std::int64_t> got(in->y.level<0>().crd.begin(), in->y.level<0>().crd.end());
      lb::check_exact(what + " (keys)", got, want.key);
      lb::check_values(what + " (values)", in->y.values(), want.val, 1e-9);
    }
    std::fprintf(stderr, "%s",
                 loom::explain(in->y(j), loom::sum(i, in->A(i, j) * in->x(i))).c_str());
    return in;
  });
  const std::string what = "csr^T * dense_vector -> sparse_vector, 1M rows";
  for (int impl = 0; impl < 4; ++impl)
    lb::add("workspace", name, impl_names[impl], [=](benchmark::State& s) {
      input& in = data->get();
      for (auto _ : s) {
        with_impl(impl, [&] { in.y(j) = loom::sum(i, in.A(i, j) * in.x(i)); });
        benchmark::DoNotOptimize(in.y.values().data());
      }
      lb::label(s, in.A.nnz(), what);
    });
  lb::add("workspace", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(hand_group_by(in.A, in.xv).val.data());
    lb::label(s, in.A.nnz(), what);
  });
  lb::add("workspace", name, "choice_cached", [=](benchmark::State& s) {
    input& in = data->get();
    const auto lhs = in.y(j);
    const auto rhs = loom::sum(i, in.A(i, j) * in.x(i));
    benchmark::DoNotOptimize(choice_cost(lhs, rhs));
    for (auto _ : s) benchmark::DoNotOptimize(choice_cost(lhs, rhs));
    lb::label(s, in.A.nnz(), what);
  });
}

void register_spgemm(const std::string& name, std::int64_t rows, std::int64_t cols,
                     std::int64_t per_row) {
  struct input {
    csr_t A, B, C;
  };
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(rows, rows, per_row, 45));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(rows, cols, per_row, 46));
    in->C = csr_t({rows, cols});
    const lb::csr_arrays want = lb::hand_spgemm(in->A, in->B);
    for (int impl = 0; impl < 4; ++impl) {
      with_impl(impl, [&] { in->C(i, j) = loom::sum(k, in->A(i, k) * in->B(k, j)); });
      lb::check_csr("workspace spgemm/" + name + ": loom " + impl_names[impl] + " vs hand", in->C,
                    want);
    }
    std::fprintf(stderr, "%s",
                 loom::explain(in->C(i, j), loom::sum(k, in->A(i, k) * in->B(k, j))).c_str());
    return in;
  });
  const std::string what = "csr x csr -> csr";
  for (int impl = 0; impl < 4; ++impl)
    lb::add("workspace", name, impl_names[impl], [=](benchmark::State& s) {
      input& in = data->get();
      for (auto _ : s) {
        with_impl(impl, [&] { in.C(i, j) = loom::sum(k, in.A(i, k) * in.B(k, j)); });
        benchmark::DoNotOptimize(in.C.values().data());
      }
      lb::label(s, in.A.nnz() + in.B.nnz(), what);
    });
  lb::add("workspace", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(lb::hand_spgemm(in.A, in.B).val.data());
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  lb::add("workspace", name, "choice_cached", [=](benchmark::State& s) {  // per call, once cached
    input& in = data->get();
    const auto lhs = in.C(i, j);
    const auto rhs = loom::sum(k, in.A(i, k) * in.B(k, j));
    benchmark::DoNotOptimize(choice_cost(lhs, rhs));
    for (auto _ : s) benchmark::DoNotOptimize(choice_cost(lhs, rhs));
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_transpose("transpose_8000_96K", 8000, 12);
  register_transpose("transpose_20000_100K", 20000, 5);
  register_group_by("group_by_100_of_16M", std::int64_t{1} << 24, 100);
  register_group_by("group_by_10K_of_1M", std::int64_t{1} << 20, 10000);
  register_group_by("group_by_600K_of_16M", std::int64_t{1} << 24, 1000000);
  register_spgemm("spgemm_20000_to_16M_cols", 20000, std::int64_t{1} << 24, 8);
  register_spgemm("spgemm_2000_to_4096_cols", 2000, 4096, 64);
  return lb::run(argc, argv);
}
