// LOOM_EXPECT_ERROR: <loom/tra/mpi.hpp> needs MPI.*apt-get install libopenmpi-dev openmpi-bin.*mpicxx
// <loom/tra/mpi.hpp> without MPI on the include path says what to install and how to compile;
// the umbrella headers still compile without MPI. Registered only where the compiler does not
// find <mpi.h> by itself (tests/CMakeLists.txt).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>
#include <loom/tra.hpp>
#ifndef LOOM_EXPECT_OK
#  include <loom/tra/mpi.hpp>
#endif

int main() {}
