// Distributed execution of tiled tensors over MPI (tra/mpi/): the MPI transport of the IA
// executor, distributed matmul (strategy chosen by the cost model), SpMV and a dense layer.
// Not included by <loom/loom.hpp>; empty when <mpi.h> is not on the include path.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_HPP
#define LOOM_TRA_MPI_HPP

#include <loom/tra/mpi/algorithms.hpp>
#include <loom/tra/mpi/environment.hpp>
#include <loom/tra/mpi/transport.hpp>

#endif  // LOOM_TRA_MPI_HPP
