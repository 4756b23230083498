// SpGEMM C(i,j) = sum(k, A(i,k) * B(k,j)), CSR x CSR -> CSR: loom (row-wise, Gustavson's loop
// order i, k, j), a hand-written Gustavson kernel (dense accumulator, touched-column list sorted
// per row) and Eigen (row-major A * B). Every implementation builds a fresh sorted CSR result.
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using eigen_csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

struct input {
  loom::tensor<double, loom::csr> A, B, C;
  eigen_csr eA, eB, eC;
  lb::csr_arrays H;  // the hand loop's output, kept between calls
};

// The baseline: Gustavson's algorithm on loom's own arrays (support.hpp).
lb::csr_arrays hand(const input& in) { return lb::hand_spgemm(in.A, in.B); }

void register_input(const std::string& name,
                    std::function<std::pair<lb::entries<2>, lb::entries<2>>()> make) {
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    {
      auto [a, b] = make();
      in->A = lb::to_loom<loom::csr>(a);
      in->B = lb::to_loom<loom::csr>(b);
    }
    in->C = loom::tensor<double, loom::csr>({in->A.extent(0), in->B.extent(1)});
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->eB = lb::to_eigen<Eigen::RowMajor>(in->B);
    const lb::csr_arrays want = hand(*in);
    in->C(i, j) = loom::sum(k, in->A(i, k) * in->B(k, j));
    lb::check_csr("spgemm/" + name + ": loom vs hand", in->C, want);
    in->eC = in->eA * in->eB;
    lb::check_exact(
        "spgemm/" + name + ": eigen vs hand (pos)",
        std::vector<std::int64_t>(in->eC.outerIndexPtr(), in->eC.outerIndexPtr() + want.rows + 1),
        want.pos);
    lb::check_exact("spgemm/" + name + ": eigen vs hand (crd)",
                    std::vector<std::int32_t>(in->eC.innerIndexPtr(),
                                              in->eC.innerIndexPtr() + in->eC.nonZeros()),
                    want.crd);
    lb::check_values("spgemm/" + name + ": eigen vs hand (values)",
                     std::vector<double>(in->eC.valuePtr(), in->eC.valuePtr() + in->eC.nonZeros()),
                     want.val, 1e-10);
    return in;
  });
  const std::string what = "CSR x CSR -> CSR";
  lb::add("spgemm", name, "loom", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.C(i, j) = loom::sum(k, in.A(i, k) * in.B(k, j));
      benchmark::DoNotOptimize(in.C.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.C.nnz(), what);
  });
  lb::add("spgemm", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      lb::hand_spgemm(in.A, in.B, in.H);  // into the same vectors, as loom writes into the same C
      benchmark::DoNotOptimize(in.H.val.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.C.nnz(), what);
  });
  // loom into a new output per call (the first assignment's cost: allocation, page faults)
  lb::add("spgemm", name, "loom_fresh", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      loom::tensor<double, loom::csr> C(in.C.shape());
      C(i, j) = loom::sum(k, in.A(i, k) * in.B(k, j));
      benchmark::DoNotOptimize(C.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.C.nnz(), what);
  });
  lb::add("spgemm", name, "eigen", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.eC = in.eA * in.eB;
      benchmark::DoNotOptimize(in.eC.valuePtr());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.C.nnz(), what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // 200k x 200k times 200k x 200k, 8 uniform entries per row each (~13M products)
  register_input("uniform_200Kx200K_1.6M", [] {
    return std::pair{lb::random_matrix(200'000, 200'000, 8, 41),
                     lb::random_matrix(200'000, 200'000, 8, 42)};
  });
  // real matrices: A * A
  for (const auto& [name, path] : lb::real_matrices())
    register_input(name, [path = path] {
      auto a = lb::load_matrix(path);
      if (a.shape[0] != a.shape[1]) lb::fail("spgemm: " + path + " is not square");
      auto b = a;
      return std::pair{std::move(a), std::move(b)};
    });
  return lb::run(argc, argv);
}
