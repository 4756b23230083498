// Defines loom::error and its subclasses, the runtime errors of the API (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_ERROR_HPP
#define LOOM_CORE_ERROR_HPP

#include <stdexcept>
#include <string>

namespace loom {

/// Base of every runtime error loom throws; `what()` names the file and line, or the tensor,
/// mode and extents involved.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file could not be opened or read.
class io_error : public error {
 public:
  using error::error;
};

/// A file's content is malformed; the message has the form `file:line: what`.
class parse_error : public error {
 public:
  using error::error;
};

/// Operand extents disagree, a coordinate is out of range, or a shape is invalid.
class shape_error : public error {
 public:
  using error::error;
};

/// A position or coordinate does not fit the level's integer width.
class overflow_error : public error {
 public:
  using error::error;
};

/// Duplicate coordinates under `loom::duplicates::error`.
class duplicate_error : public error {
 public:
  using error::error;
};

}  // namespace loom

#endif  // LOOM_CORE_ERROR_HPP
