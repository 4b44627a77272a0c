// The carriers of the one error value (core/Failure.h): `Expected<T>` holds a
// T or an Error, `Status` holds nothing or an Error. A reader's recoverable
// problem and a stage's fatal one are the same type; the message names the
// file (and byte offset or line where it applies).
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "xstack/core/Failure.h"

namespace xstack {

using Error = Failure;

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Expected<void>: success or an Error.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}
  static Status Ok() { return {}; }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace xstack
