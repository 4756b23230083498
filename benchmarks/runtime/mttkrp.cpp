// MTTKRP M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r)) with T in CSF (csf<3>) and B, C, M dense
// row-major: loom and a hand-written loop nest over the same CSF arrays, in the same loop order
// (i, j, k, r). Eigen has no MTTKRP.
// SPDX-License-Identifier: BSL-1.0
#include <vector>

#include "expert_mttkrp.hpp"
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"r"> r;

struct input {
  loom::tensor<double, loom::csf<3>> T;
  loom::tensor<double, loom::dense_matrix> B, C, M;
  std::vector<double> hM;
};

// The baseline, as an expert writes it (expert_mttkrp.hpp): t(r) = sum(k, T(i,j,k) C(k,r))
// first, then M(i,r) += t(r) B(j,r); the rank loops vectorised (-fopenmp-simd).
void hand(input& in) {
  std::vector<double> t;
  loom_bench::expert_mttkrp(in.T, in.B.values().data(), in.C.values().data(), in.B.extent(1), in.hM,
                            t);
}

void register_input(const std::string& name, std::array<std::int64_t, 3> shape, std::int64_t nnz,
                    std::int64_t rank) {
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    in->T = lb::to_loom<loom::csf<3>>(lb::random_tensor3(shape, nnz, 51));
    in->B = loom::tensor<double, loom::dense_matrix>({shape[1], rank});
    in->C = loom::tensor<double, loom::dense_matrix>({shape[2], rank});
    in->M = loom::tensor<double, loom::dense_matrix>({shape[0], rank});
    const auto bv = lb::dense_values(shape[1] * rank, 52),
               cv = lb::dense_values(shape[2] * rank, 53);
    std::copy(bv.begin(), bv.end(), in->B.values().begin());
    std::copy(cv.begin(), cv.end(), in->C.values().begin());
    in->hM.assign(static_cast<std::size_t>(shape[0] * rank), 0.0);
    hand(*in);
    in->M(i, r) = loom::sum(j, k, in->T(i, j, k) * in->B(j, r) * in->C(k, r));
    lb::check_values("mttkrp/" + name + ": loom vs hand", in->M.values(), in->hM, 1e-10);
    return in;
  });
  const std::string what = "csf<3> x dense x dense, rank " + std::to_string(rank);
  lb::add("mttkrp", name, "loom", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.M(i, r) = loom::sum(j, k, in.T(i, j, k) * in.B(j, r) * in.C(k, r));
      benchmark::DoNotOptimize(in.M.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.T.nnz(), what);
  });
  lb::add("mttkrp", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      hand(in);
      benchmark::DoNotOptimize(in.hM.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.T.nnz(), what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // 1000^3 with 5M uniform entries (~100 MB of CSF), rank 16
  register_input("uniform_1Kx1Kx1K_5M_r16", {1000, 1000, 1000}, 5'000'000, 16);
  // a flatter tensor: 100k x 100k x 100 with 5M entries (short k-fibres), rank 16
  register_input("flat_100Kx100Kx100_5M_r16", {100'000, 100'000, 100}, 5'000'000, 16);
  return lb::run(argc, argv);
}
