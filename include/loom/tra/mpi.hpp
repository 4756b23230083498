// Distributed execution of tiled tensors over MPI (tra/mpi/): the MPI transport of the IA
// executor, distributed matmul (strategy chosen by the cost model), SpMV and a dense layer, and
// distributed sparse matrices (tiles partitioned over ranks, read in parts from Matrix Market
// files) with SpMV, SpMM, SpGEMM and SDDMM over them, and sparse 3-tensors in slices with MTTKRP.
// Not included by <loom/loom.hpp>, which compiles without MPI; including this header without
// <mpi.h> on the include path is an error that says how to get it.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_HPP
#define LOOM_TRA_MPI_HPP

#if !__has_include(<mpi.h>)
#  error \
      "<loom/tra/mpi.hpp> needs MPI, but <mpi.h> is not on the include path: install it (Debian: apt-get install libopenmpi-dev openmpi-bin), then compile with mpicxx, or in CMake find_package(MPI REQUIRED COMPONENTS CXX) and target_link_libraries(<your target> PRIVATE MPI::MPI_CXX)"
#endif

#include <loom/tra/mpi/algorithms.hpp>
#include <loom/tra/mpi/environment.hpp>
#include <loom/tra/mpi/mttkrp.hpp>
#include <loom/tra/mpi/partition.hpp>
#include <loom/tra/mpi/read_matrix_market.hpp>
#include <loom/tra/mpi/read_tns.hpp>
#include <loom/tra/mpi/sddmm.hpp>
#include <loom/tra/mpi/sparse.hpp>
#include <loom/tra/mpi/sparse_kernels.hpp>
#include <loom/tra/mpi/sparse_operators.hpp>
#include <loom/tra/mpi/sparse_tensor.hpp>
#include <loom/tra/mpi/tile_file.hpp>
#include <loom/tra/mpi/transport.hpp>
#include <loom/tra/mpi/wire.hpp>

#endif  // LOOM_TRA_MPI_HPP
