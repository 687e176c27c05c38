// Errors that reach the user. Every layer throws mlipc::Error with a message
// that names what is wrong and where; the CLI prints it on one line.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace mlipc {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error at a node of the model (its message names it too): the node's
// name and op, for a caller that reports them apart (the Python module's
// exceptions, python/mlipc).
class NodeError : public Error {
 public:
  NodeError(const std::string& message, std::string node, std::string op)
      : Error(message), node_(std::move(node)), op_(std::move(op)) {}
  const std::string& node() const { return node_; }
  const std::string& op() const { return op_; }

 private:
  std::string node_, op_;
};

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace mlipc
