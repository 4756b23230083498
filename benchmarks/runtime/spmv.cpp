// SpMV y(i) = sum(j, A(i,j) * x(j)) with A in CSR and x, y dense: loom, a hand-written loop over
// the same pos/crd/values arrays, and Eigen (row-major SparseMatrix times VectorXd).
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"
#include <Eigen/Dense>

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

struct input {
  loom::tensor<double, loom::csr> A;
  loom::tensor<double, loom::dense_vector> x, y;
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> eA;
  Eigen::VectorXd ex, ey;
  std::vector<double> hy;
};

// The baseline: the best straightforward CSR loop, on loom's own arrays.
void hand_spmv(std::int64_t rows, const std::int64_t* pos, const std::int32_t* crd,
               const double* val, const double* x, double* y) {
  for (std::int64_t r = 0; r < rows; ++r) {
    double acc = 0;
    for (std::int64_t q = pos[r]; q < pos[r + 1]; ++q) acc += val[q] * x[crd[q]];
    y[r] = acc;
  }
}

void hand(input& in) {
  const auto& lv = in.A.level<1>();
  hand_spmv(in.A.extent(0), lv.pos.data(), lv.crd.data(), in.A.values().data(),
            in.x.values().data(), in.hy.data());
}

std::unique_ptr<input> make(const std::string& name, lb::entries<2> e) {
  auto in = std::make_unique<input>();
  in->A = lb::to_loom<loom::csr>(e);
  e = {};
  const std::int64_t m = in->A.extent(0), n = in->A.extent(1);
  in->x = loom::tensor<double, loom::dense_vector>({n});
  in->y = loom::tensor<double, loom::dense_vector>({m});
  const auto xv = lb::dense_values(n, 7);
  std::copy(xv.begin(), xv.end(), in->x.values().begin());
  in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
  in->ex = Eigen::Map<const Eigen::VectorXd>(xv.data(), n);
  in->ey = Eigen::VectorXd::Zero(m);
  in->hy.assign(static_cast<std::size_t>(m), 0.0);
  // loom must compute what the hand-written loop computes (once, outside the timed loops)
  in->y(i) = loom::sum(j, in->A(i, j) * in->x(j));
  hand(*in);
  lb::check_values("spmv/" + name + ": loom vs hand", in->y.values(), in->hy);
  in->ey.noalias() = in->eA * in->ex;
  lb::check_values("spmv/" + name + ": eigen vs hand", in->ey, in->hy, 1e-10);
  return in;
}

void register_input(const std::string& name, std::function<lb::entries<2>()> entries) {
  auto data = std::make_shared<lb::lazy<input>>([=] { return make(name, entries()); });
  lb::add("spmv", name, "loom", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.y(i) = loom::sum(j, in.A(i, j) * in.x(j));
      benchmark::DoNotOptimize(in.y.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz(), "CSR x dense");
  });
  lb::add("spmv", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      hand(in);
      benchmark::DoNotOptimize(in.hy.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz(), "CSR x dense");
  });
  lb::add("spmv", name, "eigen", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.ey.noalias() = in.eA * in.ex;
      benchmark::DoNotOptimize(in.ey.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz(), "CSR x dense");
  });
}

}  // namespace

int main(int argc, char** argv) {
  // 2M x 2M with 10 uniform entries per row on average (~20M entries, ~256 MB of CSR)
  register_input("uniform_2Mx2M_20M",
                 [] { return lb::random_matrix(2'000'000, 2'000'000, 10, 1); });
  for (const auto& [name, path] : lb::real_matrices())
    register_input(name, [path = path] { return lb::load_matrix(path); });
  return lb::run(argc, argv);
}
