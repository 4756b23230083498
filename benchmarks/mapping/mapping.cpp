// Storage mappings against built-in formats and Eigen: SpMV with CSR written as
// a mapping (a zero-copy view over the built-in CSR's arrays) vs built-in CSR; DCSR with hashed
// rows vs CSR (SpMV, the rows iterated in sorted order; x^T A with a sparse x, the rows probed:
// F1); lower-triangular and symmetric packed mat-vec (one mapping, two views, and the sum of
// mappings L + SL^T distributed) vs the full-storage kernel and Eigen's triangularView /
// selfadjointView; band mat-vec vs dense, CSR and the built-in banded level.
// SPDX-License-Identifier: BSL-1.0
#include "../runtime/support.hpp"
#include <Eigen/Dense>

namespace {

namespace lb = loom_bench;
namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
using vec = loom::tensor<double, loom::dense_vector>;

vec dense_vec(std::int64_t n, std::uint64_t seed) {
  vec x({n});
  const auto v = lb::dense_values(n, seed);
  std::copy(v.begin(), v.end(), x.values().begin());
  return x;
}

template <class Body>
void timed(benchmark::State& s, std::int64_t work, const std::string& label, const vec& y,
           Body&& body) {
  for (auto _ : s) {
    body();
    benchmark::DoNotOptimize(y.values().data());
    benchmark::ClobberMemory();
  }
  lb::label(s, work, label);
}

// CSR: built-in vs the CSR mapping viewing the same arrays -------------------------------------
using csr_view_t = loom::view<double, lm::csr>;
struct csr_input {
  loom::tensor<double, loom::csr> A;
  std::unique_ptr<csr_view_t> M;
  vec x, y;
};

void register_csr(const std::string& name, std::function<lb::entries<2>()> entries) {
  auto data = std::make_shared<lb::lazy<csr_input>>([=] {
    auto in = std::make_unique<csr_input>();
    in->A = lb::to_loom<loom::csr>(entries());
    const auto& lv = in->A.level<1>();
    auto vals = in->A.values();
    in->M = std::make_unique<csr_view_t>(lm::make_view<lm::csr>(
        in->A.shape(), vals, lm::bind(nm::pos2, std::span<const std::int64_t>(lv.pos)),
        lm::bind(nm::idx2, std::span<const std::int32_t>(lv.crd))));
    in->x = dense_vec(in->A.extent(1), 7);
    in->y = vec({in->A.extent(0)});
    vec want({in->A.extent(0)});
    want(i) = loom::sum(j, in->A(i, j) * in->x(j));
    in->y(i) = loom::sum(j, (*in->M)(i, j) * in->x(j));
    lb::check_values("csr/" + name + ": mapping vs built-in", in->y.values(), want.values());
    return in;
  });
  lb::add("mapping_csr_spmv", name, "builtin_csr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.A.nnz(), "built-in CSR", in.y,
          [&] { in.y(i) = loom::sum(j, in.A(i, j) * in.x(j)); });
  });
  lb::add("mapping_csr_spmv", name, "csr_mapping", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.A.nnz(), "CSR as a mapping (view)", in.y,
          [&] { in.y(i) = loom::sum(j, (*in.M)(i, j) * in.x(j)); });
  });
}

// Hashed rows: DCSR whose row level is a hash map, over the CSR's column and value arrays -------
using hashed_view_t = loom::view<double, lm::hashed_rows>;
struct hashed_input {
  loom::tensor<double, loom::csr> A;
  loom::tensor<double, loom::dcsr> D;
  lm::hash_table<> rows;
  std::vector<std::int64_t> pos;  // one segment per non-empty row
  std::unique_ptr<hashed_view_t> H;
  loom::tensor<double, loom::sparse_vector> xs;  // 1% of the rows
  vec x, y, w;
};

void register_hashed(const std::string& name, std::function<lb::entries<2>()> entries) {
  auto data = std::make_shared<lb::lazy<hashed_input>>([=] {
    auto in = std::make_unique<hashed_input>();
    in->A = lb::to_loom<loom::csr>(entries());
    in->D = loom::tensor<double, loom::dcsr>(in->A);
    const auto& lv = in->A.level<1>();
    std::vector<std::pair<std::int64_t, std::int64_t>> keys;
    in->pos.push_back(0);
    for (std::int64_t r = 0; r < in->A.extent(0); ++r)
      if (lv.pos[r + 1] > lv.pos[r]) {
        keys.emplace_back(r, static_cast<std::int64_t>(keys.size()));
        in->pos.push_back(lv.pos[r + 1]);
      }
    in->rows = lm::hash_table<>::from(keys);
    auto vals = in->A.values();
    in->H = std::make_unique<hashed_view_t>(
        lm::make_view<lm::hashed_rows>(in->A.shape(), vals, lm::bind(nm::rows, in->rows),
                                       lm::bind(nm::pos2, std::span<const std::int64_t>(in->pos)),
                                       lm::bind(nm::idx2, std::span<const std::int32_t>(lv.crd))));
    const std::int64_t m = in->A.extent(0), n = in->A.extent(1);
    std::vector<std::array<std::int64_t, 1>> picked;
    for (std::int64_t r = 0; r < m; r += 100) picked.push_back({r});
    in->xs =
        loom::from_coo<loom::sparse_vector>({m}, picked, std::vector<double>(picked.size(), 1.5));
    in->x = dense_vec(n, 7);
    in->y = vec({m});
    in->w = vec({n});
    vec want({m});
    want(i) = loom::sum(j, in->A(i, j) * in->x(j));
    in->y(i) = loom::sum(j, (*in->H)(i, j) * in->x(j));
    lb::check_values("hashed/" + name + ": spmv vs csr", in->y.values(), want.values());
    vec wwant({n});
    wwant(j) = loom::sum(i, in->xs(i) * in->A(i, j));
    in->w(j) = loom::sum(i, in->xs(i) * (*in->H)(i, j));
    lb::check_values("hashed/" + name + ": x^T A vs csr", in->w.values(), wwant.values());
    return in;
  });
  lb::add("mapping_hashed_spmv", name, "builtin_csr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.A.nnz(), "built-in CSR", in.y,
          [&] { in.y(i) = loom::sum(j, in.A(i, j) * in.x(j)); });
  });
  lb::add("mapping_hashed_spmv", name, "hashed_rows", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.A.nnz(), "hashed_rows mapping (rows sorted once, on demand)", in.y,
          [&] { in.y(i) = loom::sum(j, (*in.H)(i, j) * in.x(j)); });
  });
  lb::add("mapping_hashed_spmv", name, "builtin_dcsr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.A.nnz(), "built-in DCSR", in.y,
          [&] { in.y(i) = loom::sum(j, in.D(i, j) * in.x(j)); });
  });
  // w = xs^T A, xs holding 1% of the rows: the row level is located (CSR: dense; hashed: probed)
  lb::add("mapping_hashed_probe", name, "builtin_csr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.xs.nnz(), "built-in CSR (rows located)", in.w,
          [&] { in.w(j) = loom::sum(i, in.xs(i) * in.A(i, j)); });
  });
  lb::add("mapping_hashed_probe", name, "hashed_rows", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.xs.nnz(), "hashed_rows mapping (rows probed in O(1): F1)", in.w,
          [&] { in.w(j) = loom::sum(i, in.xs(i) * (*in.H)(i, j)); });
  });
  lb::add("mapping_hashed_probe", name, "builtin_dcsr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, in.xs.nnz(), "built-in DCSR (rows intersected)", in.w,
          [&] { in.w(j) = loom::sum(i, in.xs(i) * in.D(i, j)); });
  });
}

// Triangular and symmetric -----------------------------------------------------------------------
struct tri_input {
  std::int64_t n = 0;
  loom::tensor<double, lm::lower_packed> L;
  loom::tensor<double, lm::symmetric_packed> S;
  std::unique_ptr<loom::view<double, lm::strict_lower_packed>> SL;  // over L's array
  loom::tensor<double, loom::dense_matrix> Lfull, Sfull;
  Eigen::MatrixXd E;  // lower triangle filled, upper zero
  Eigen::VectorXd ex, ey;
  vec x, y;
};

void register_triangular(std::int64_t n) {
  const std::string name = "n" + std::to_string(n);
  auto data = std::make_shared<lb::lazy<tri_input>>([=] {
    auto in = std::make_unique<tri_input>();
    in->n = n;
    std::vector<double> packed(static_cast<std::size_t>(n * (n + 1) / 2));
    lb::rng g(3);
    for (auto& v : packed) v = g.value();
    in->L = lm::make_tensor<lm::lower_packed>({n, n}, packed);
    in->S = lm::make_tensor<lm::symmetric_packed>({n, n}, packed);
    in->SL = std::make_unique<loom::view<double, lm::strict_lower_packed>>(
        lm::make_view<lm::strict_lower_packed>({n, n}, in->L.values()));
    in->Lfull = loom::tensor<double, loom::dense_matrix>({n, n});
    in->Sfull = loom::tensor<double, loom::dense_matrix>({n, n});
    in->E = Eigen::MatrixXd::Zero(n, n);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c <= r; ++c) {
        const double v = packed[static_cast<std::size_t>(r * (r + 1) / 2 + c)];
        in->Lfull.at(r, c) = v;
        in->Sfull.at(r, c) = v;
        in->Sfull.at(c, r) = v;
        in->E(r, c) = v;
      }
    in->x = dense_vec(n, 5);
    in->y = vec({n});
    in->ex = Eigen::Map<const Eigen::VectorXd>(in->x.values().data(), n);
    in->ey = Eigen::VectorXd::Zero(n);
    vec want({n});
    want(i) = loom::sum(j, in->Lfull(i, j) * in->x(j));
    in->y(i) = loom::sum(j, in->L(i, j) * in->x(j));
    lb::check_values("lower/" + name + ": packed vs full", in->y.values(), want.values(), 1e-10);
    in->ey.noalias() = in->E.triangularView<Eigen::Lower>() * in->ex;
    lb::check_values("lower/" + name + ": eigen vs full", in->ey, want.values(), 1e-10);
    want(i) = loom::sum(j, in->Sfull(i, j) * in->x(j));
    in->y(i) = loom::sum(j, in->S(i, j) * in->x(j));
    lb::check_values("symmetric/" + name + ": packed vs full", in->y.values(), want.values(),
                     1e-10);
    in->y(i) = loom::sum(j, in->L(i, j) * in->x(j));
    in->y(j) += loom::sum(i, (*in->SL)(i, j) * in->x(i));
    lb::check_values("symmetric/" + name + ": two kernels vs full", in->y.values(), want.values(),
                     1e-10);
    const auto S = lm::make_sum("S", lm::as_is(in->L), lm::transposed(*in->SL));
    lm::assign_distributed(
        in->y(i), [&](const auto& A) { return loom::sum(j, A(i, j) * in->x(j)); }, S);
    lb::check_values("symmetric/" + name + ": sum of mappings vs full", in->y.values(),
                     want.values(), 1e-10);
    in->ey.noalias() = in->E.selfadjointView<Eigen::Lower>() * in->ex;
    lb::check_values("symmetric/" + name + ": eigen vs full", in->ey, want.values(), 1e-10);
    return in;
  });
  const std::int64_t tri = n * (n + 1) / 2, full = n * n;
  lb::add("mapping_lower_mv", name, "lower_packed", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, tri, "lower_packed mapping", in.y,
          [&] { in.y(i) = loom::sum(j, in.L(i, j) * in.x(j)); });
  });
  lb::add("mapping_lower_mv", name, "full_dense", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, full, "dense_matrix, zeros stored", in.y,
          [&] { in.y(i) = loom::sum(j, in.Lfull(i, j) * in.x(j)); });
  });
  lb::add("mapping_lower_mv", name, "eigen_triangularView", [=](benchmark::State& s) {
    auto& in = data->get();
    for (auto _ : s) {
      in.ey.noalias() = in.E.triangularView<Eigen::Lower>() * in.ex;
      benchmark::DoNotOptimize(in.ey.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, tri, "Eigen dense triangularView<Lower>");
  });
  lb::add("mapping_symmetric_mv", name, "symmetric_packed", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, full, "symmetric_packed mapping", in.y,
          [&] { in.y(i) = loom::sum(j, in.S(i, j) * in.x(j)); });
  });
  lb::add("mapping_symmetric_mv", name, "lower_packed_two_kernels", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, full, "y = L x, then y += (strict L)^T x: two mappings of one array", in.y, [&] {
      in.y(i) = loom::sum(j, in.L(i, j) * in.x(j));
      in.y(j) += loom::sum(i, (*in.SL)(i, j) * in.x(i));
    });
  });
  lb::add("mapping_symmetric_mv", name, "sum_of_mappings", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto S = lm::make_sum("S", lm::as_is(in.L), lm::transposed(*in.SL));
    const auto program = [&](const auto& A) { return loom::sum(j, A(i, j) * in.x(j)); };
    timed(s, full, "S = L + SL^T (sum of two mappings of one array), distributed", in.y,
          [&] { lm::assign_distributed(in.y(i), program, S); });
  });
  lb::add("mapping_symmetric_mv", name, "full_dense", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, full, "dense_matrix, both triangles", in.y,
          [&] { in.y(i) = loom::sum(j, in.Sfull(i, j) * in.x(j)); });
  });
  lb::add("mapping_symmetric_mv", name, "eigen_selfadjointView", [=](benchmark::State& s) {
    auto& in = data->get();
    for (auto _ : s) {
      in.ey.noalias() = in.E.selfadjointView<Eigen::Lower>() * in.ex;
      benchmark::DoNotOptimize(in.ey.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, full, "Eigen dense selfadjointView<Lower>");
  });
}

// Band -------------------------------------------------------------------------------------------
constexpr std::int64_t half_width = 4;
using band_t = lm::band<half_width>;
using banded_t = loom::format<loom::dense, loom::banded>;
struct band_input {
  loom::tensor<double, band_t> B;
  loom::tensor<double, loom::csr> C;
  loom::tensor<double, banded_t> K;
  loom::tensor<double, loom::dense_matrix> D;
  bool with_dense = false;
  vec x, y;
};

void register_band(std::int64_t n) {
  const std::string name = "n" + std::to_string(n) + "_w" + std::to_string(half_width);
  auto data = std::make_shared<lb::lazy<band_input>>([=] {
    auto in = std::make_unique<band_input>();
    lb::entries<2> e;
    e.shape = {n, n};
    lb::rng g(9);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = std::max<std::int64_t>(0, r - half_width);
           c <= std::min(n - 1, r + half_width); ++c) {
        e.crd.push_back({r, c});
        e.val.push_back(g.value());
      }
    in->B = lb::to_loom<band_t>(e);
    in->C = lb::to_loom<loom::csr>(e);
    in->K = lb::to_loom<banded_t>(e);
    in->with_dense = n <= 8192;
    if (in->with_dense) in->D = lb::to_loom<loom::dense_matrix>(e);
    in->x = dense_vec(n, 4);
    in->y = vec({n});
    vec want({n});
    want(i) = loom::sum(j, in->C(i, j) * in->x(j));
    in->y(i) = loom::sum(j, in->B(i, j) * in->x(j));
    lb::check_values("band/" + name + ": mapping vs csr", in->y.values(), want.values(), 1e-12);
    in->y(i) = loom::sum(j, in->K(i, j) * in->x(j));
    lb::check_values("band/" + name + ": banded vs csr", in->y.values(), want.values(), 1e-12);
    return in;
  });
  const std::int64_t work = n * (2 * half_width + 1);
  lb::add("mapping_band_mv", name, "band_mapping", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, work, "band<4> mapping", in.y, [&] { in.y(i) = loom::sum(j, in.B(i, j) * in.x(j)); });
  });
  lb::add("mapping_band_mv", name, "csr", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, work, "built-in CSR", in.y, [&] { in.y(i) = loom::sum(j, in.C(i, j) * in.x(j)); });
  });
  lb::add("mapping_band_mv", name, "banded_level", [=](benchmark::State& s) {
    auto& in = data->get();
    timed(s, work, "built-in format<dense, banded>", in.y,
          [&] { in.y(i) = loom::sum(j, in.K(i, j) * in.x(j)); });
  });
  if (n <= 8192)
    lb::add("mapping_band_mv", name, "dense", [=](benchmark::State& s) {
      auto& in = data->get();
      timed(s, n * n, "dense_matrix", in.y, [&] { in.y(i) = loom::sum(j, in.D(i, j) * in.x(j)); });
    });
}

}  // namespace

int main(int argc, char** argv) {
  // 1M x 1M, 10 uniform entries per row (10M entries)
  register_csr("uniform_1Mx1M_10M", [] { return lb::random_matrix(1'000'000, 1'000'000, 10, 1); });
  for (const auto& [name, path] : lb::real_matrices())
    register_csr(name, [path = path] { return lb::load_matrix(path); });
  register_hashed("uniform_1Mx1M_10M",
                  [] { return lb::random_matrix(1'000'000, 1'000'000, 10, 1); });
  for (const auto& [name, path] : lb::real_matrices())
    register_hashed(name, [path = path] { return lb::load_matrix(path); });
  register_triangular(3000);
  register_band(4000);
  register_band(2'000'000);
  return lb::run(argc, argv);
}
