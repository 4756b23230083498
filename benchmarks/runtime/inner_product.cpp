// Sparse inner products: s = sum(i, x(i) * z(i)) of two sparse vectors (loom, a two-pointer merge,
// Eigen's SparseVector::dot), s = sum(i, j, A(i,j) * B(i,j)) of two CSR matrices on the real
// matrices (B = A transposed, so the patterns differ unless A is symmetric; Eigen:
// A.cwiseProduct(B).sum()), and SpMSpV y(i) = sum(j, A(i,j) * x(j)) with A in CSC, x sparse and
// y dense (loom, a column-scatter loop, Eigen's SparseMatrix * SparseVector into a VectorXd).
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"
#include <Eigen/Dense>

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

// sparse vector . sparse vector ------------------------------------------------------------------
struct dot_input {
  loom::tensor<double, loom::sparse_vector> x, z;
  Eigen::SparseVector<double> ex, ez;
};

// The baseline: a two-pointer merge over loom's own crd/values arrays.
double hand_dot(const std::int32_t* xc, const double* xv, std::int64_t xn, const std::int32_t* zc,
                const double* zv, std::int64_t zn) {
  double s = 0;
  std::int64_t p = 0, q = 0;
  while (p < xn && q < zn) {
    const std::int32_t a = xc[p], b = zc[q];
    if (a == b) {
      s += xv[p] * zv[q];
      ++p;
      ++q;
    } else if (a < b) {
      ++p;
    } else {
      ++q;
    }
  }
  return s;
}

double hand(const dot_input& in) {
  return hand_dot(in.x.level<0>().crd.data(), in.x.values().data(), in.x.nnz(),
                  in.z.level<0>().crd.data(), in.z.values().data(), in.z.nnz());
}

void register_dot(const std::string& name, std::int64_t n, std::int64_t nx, std::int64_t nz) {
  auto data = std::make_shared<lb::lazy<dot_input>>([=] {
    auto in = std::make_unique<dot_input>();
    const auto ex = lb::random_vector(n, nx, 11), ez = lb::random_vector(n, nz, 12);
    in->x = lb::to_loom<loom::sparse_vector>(ex);
    in->z = lb::to_loom<loom::sparse_vector>(ez);
    in->ex = lb::to_eigen_vector(ex);
    in->ez = lb::to_eigen_vector(ez);
    const double want = hand(*in);
    lb::check_scalar("dot/" + name + ": loom vs hand",
                     loom::eval(loom::sum(i, in->x(i) * in->z(i))), want);
    lb::check_scalar("dot/" + name + ": eigen vs hand", in->ex.dot(in->ez), want, 1e-10);
    return in;
  });
  const std::string what = "sparse_vector . sparse_vector";
  lb::add("dot", name, "loom", [=](benchmark::State& s) {
    dot_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(loom::eval(loom::sum(i, in.x(i) * in.z(i))));
    lb::label(s, in.x.nnz() + in.z.nnz(), what);
  });
  lb::add("dot", name, "hand", [=](benchmark::State& s) {
    dot_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(hand(in));
    lb::label(s, in.x.nnz() + in.z.nnz(), what);
  });
  lb::add("dot", name, "eigen", [=](benchmark::State& s) {
    dot_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(in.ex.dot(in.ez));
    lb::label(s, in.x.nnz() + in.z.nnz(), what);
  });
}

// CSR : CSR (Frobenius inner product) ----------------------------------------------------------------
struct frob_input {
  loom::tensor<double, loom::csr> A, B;
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> eA, eB;
};

double hand(const frob_input& in) {
  const auto &a = in.A.level<1>(), &b = in.B.level<1>();
  const double *av = in.A.values().data(), *bv = in.B.values().data();
  double s = 0;
  for (std::int64_t r = 0; r < in.A.extent(0); ++r)
    s += hand_dot(a.crd.data() + a.pos[r], av + a.pos[r], a.pos[r + 1] - a.pos[r],
                  b.crd.data() + b.pos[r], bv + b.pos[r], b.pos[r + 1] - b.pos[r]);
  return s;
}

void register_frobenius(const std::string& name, const std::string& path) {
  auto data = std::make_shared<lb::lazy<frob_input>>([=] {
    auto in = std::make_unique<frob_input>();
    auto e = lb::load_matrix(path);
    in->A = lb::to_loom<loom::csr>(e);
    for (auto& c : e.crd) std::swap(c[0], c[1]);
    std::swap(e.shape[0], e.shape[1]);
    if (e.shape != in->A.shape()) lb::fail("frobenius/" + name + ": the matrix is not square");
    in->B = lb::to_loom<loom::csr>(e);
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->eB = lb::to_eigen<Eigen::RowMajor>(in->B);
    const double want = hand(*in);
    lb::check_scalar("frobenius/" + name + ": loom vs hand",
                     loom::eval(loom::sum(i, j, in->A(i, j) * in->B(i, j))), want);
    lb::check_scalar("frobenius/" + name + ": eigen vs hand", in->eA.cwiseProduct(in->eB).sum(),
                     want, 1e-10);
    return in;
  });
  const std::string what = "CSR : CSR";
  lb::add("frobenius", name, "loom", [=](benchmark::State& s) {
    frob_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(loom::eval(loom::sum(i, j, in.A(i, j) * in.B(i, j))));
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  lb::add("frobenius", name, "hand", [=](benchmark::State& s) {
    frob_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(hand(in));
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  lb::add("frobenius", name, "eigen", [=](benchmark::State& s) {
    frob_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(in.eA.cwiseProduct(in.eB).sum());
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
}

// SpMSpV: CSC x sparse -> dense ---------------------------------------------------------------------
struct spmspv_input {
  loom::tensor<double, loom::csc> A;
  loom::tensor<double, loom::sparse_vector> x;
  loom::tensor<double, loom::dense_vector> y;
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> eA;
  Eigen::SparseVector<double> ex;
  Eigen::VectorXd ey;
  std::vector<double> hy;
};

// The baseline: zero y, then scatter the columns selected by x's entries.
void hand(spmspv_input& in) {
  const auto& col = in.A.level<1>();
  const double* av = in.A.values().data();
  const auto& xl = in.x.level<0>();
  const double* xv = in.x.values().data();
  double* y = in.hy.data();
  std::fill(in.hy.begin(), in.hy.end(), 0.0);
  for (std::int64_t p = xl.pos[0]; p < xl.pos[1]; ++p) {
    const std::int64_t c = xl.crd[p];
    const double v = xv[p];
    for (std::int64_t q = col.pos[c]; q < col.pos[c + 1]; ++q) y[col.crd[q]] += av[q] * v;
  }
}

void register_spmspv(const std::string& name, std::int64_t n, std::int64_t per_col,
                     std::int64_t nx) {
  auto data = std::make_shared<lb::lazy<spmspv_input>>([=] {
    auto in = std::make_unique<spmspv_input>();
    in->A = lb::to_loom<loom::csc>(lb::random_matrix(n, n, per_col, 21, /*by_column=*/true));
    const auto ex = lb::random_vector(n, nx, 22);
    in->x = lb::to_loom<loom::sparse_vector>(ex);
    in->y = loom::tensor<double, loom::dense_vector>({n});
    in->eA = lb::to_eigen<Eigen::ColMajor>(in->A);
    in->ex = lb::to_eigen_vector(ex);
    in->ey = Eigen::VectorXd::Zero(n);
    in->hy.assign(static_cast<std::size_t>(n), 0.0);
    hand(*in);
    in->y(i) = loom::sum(j, in->A(i, j) * in->x(j));
    lb::check_values("spmspv/" + name + ": loom vs hand", in->y.values(), in->hy);
    in->ey = in->eA * in->ex;
    lb::check_values("spmspv/" + name + ": eigen vs hand", in->ey, in->hy, 1e-10);
    return in;
  });
  const std::string what = "CSC x sparse -> dense";
  lb::add("spmspv", name, "loom", [=](benchmark::State& s) {
    spmspv_input& in = data->get();
    for (auto _ : s) {
      in.y(i) = loom::sum(j, in.A(i, j) * in.x(j));
      benchmark::DoNotOptimize(in.y.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.x.nnz() * per_col, what);
  });
  lb::add("spmspv", name, "hand", [=](benchmark::State& s) {
    spmspv_input& in = data->get();
    for (auto _ : s) {
      hand(in);
      benchmark::DoNotOptimize(in.hy.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.x.nnz() * per_col, what);
  });
  lb::add("spmspv", name, "eigen", [=](benchmark::State& s) {
    spmspv_input& in = data->get();
    for (auto _ : s) {
      in.ey = in.eA * in.ex;
      benchmark::DoNotOptimize(in.ey.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.x.nnz() * per_col, what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // two vectors of 100M with 10M entries each (~240 MB): the merge streams both
  register_dot("equal_100M_10M_10M", 100'000'000, 10'000'000, 10'000'000);
  // 10M entries against 100k: a skewed pair, where skipping ahead pays
  register_dot("skewed_100M_10M_100k", 100'000'000, 10'000'000, 100'000);
  for (const auto& [name, path] : lb::real_matrices()) register_frobenius(name, path);
  // 2M x 2M CSC with 10 entries per column, x with 100k entries (5%)
  register_spmspv("uniform_2Mx2M_20M_x100k", 2'000'000, 10, 100'000);
  return lb::run(argc, argv);
}
