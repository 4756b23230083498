// Defines loom::tra::mpi::environment (MPI_Init/Finalize with a watchdog that ends a hung job)
// and the error helpers: a failed MPI call or a failing rank ends the whole job with a message
// naming the rank, never a hang (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_ENVIRONMENT_HPP
#define LOOM_TRA_MPI_ENVIRONMENT_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>

// Only the C API: Open MPI's deprecated C++ bindings do not compile cleanly with -Wextra.
#  ifndef OMPI_SKIP_MPICXX
#    define OMPI_SKIP_MPICXX 1
#  endif
#  ifndef MPICH_SKIP_MPICXX
#    define MPICH_SKIP_MPICXX 1
#  endif
#  include <atomic>
#  include <chrono>
#  include <condition_variable>
#  include <cstdio>
#  include <cstdlib>
#  include <exception>
#  include <mutex>
#  include <string>
#  include <thread>

#  include <mpi.h>

namespace loom::tra::mpi {

/// Throws loom::error naming the MPI call when it does not return MPI_SUCCESS.
inline void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw error(std::string("loom::tra::mpi: ") + call +
              " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

inline int rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
inline int size(MPI_Comm comm = MPI_COMM_WORLD) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

/// Prints "loom::tra::mpi: rank R failed: what" and aborts every rank (MPI_Abort), so the
/// others do not wait forever in a collective.
[[noreturn]] inline void abort_job(const std::string& what, int code = 1) {
  std::fprintf(stderr, "loom::tra::mpi: rank %d failed: %s\n", rank(), what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

/// Runs `f` and turns any exception into abort_job: the clear error of a failing rank.
template <class F> int run_or_abort(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    abort_job(e.what());
  } catch (...) {
    abort_job("unknown exception");
  }
}

/// MPI_Init ... MPI_Finalize. A watchdog thread ends the process after `timeout` (exit code 124,
/// with a message); mpirun then ends the other ranks. It never calls MPI itself.
class environment {
 public:
  environment(int& argc, char**& argv, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    const int r = rank();
    watchdog_ = std::thread([this, timeout, r] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!done_cv_.wait_for(lock, timeout, [this] { return done_; })) {
        std::fprintf(stderr,
                     "loom::tra::mpi: rank %d timed out after %lld s (a rank failed or a "
                     "collective does not match); ending the job\n",
                     r, static_cast<long long>(timeout.count()));
        std::fflush(stderr);
        std::_Exit(124);
      }
    });
  }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    watchdog_.join();
    MPI_Finalize();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread watchdog_;
};

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_ENVIRONMENT_HPP
