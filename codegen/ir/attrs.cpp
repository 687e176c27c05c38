#include "ir/attrs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/error.h"

namespace mlipc {

namespace {
template <class T> const char* type_name();
template <> const char* type_name<int64_t>() { return "an integer"; }
template <> const char* type_name<float>() { return "a float"; }
template <> const char* type_name<std::string>() { return "a string"; }
template <> const char* type_name<std::vector<int64_t>>() { return "a list of integers"; }
template <> const char* type_name<std::vector<float>>() { return "a list of floats"; }
template <> const char* type_name<TensorData>() { return "a tensor"; }

template <class T>
const T& as(const std::string& name, const AttrValue& v) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  fail("attribute '{}' must be {}", name, type_name<T>());
}
}  // namespace

const AttrValue& Attrs::find(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) fail("required attribute '{}' is missing", name);
  return it->second;
}

int64_t Attrs::get_int(const std::string& name) const { return as<int64_t>(name, find(name)); }
int64_t Attrs::get_int(const std::string& name, int64_t def) const { return has(name) ? get_int(name) : def; }
float Attrs::get_float(const std::string& name) const {
  const AttrValue& v = find(name);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<float>(*i);
  return as<float>(name, v);
}
float Attrs::get_float(const std::string& name, float def) const { return has(name) ? get_float(name) : def; }
std::string Attrs::get_string(const std::string& name) const { return as<std::string>(name, find(name)); }
std::string Attrs::get_string(const std::string& name, const std::string& def) const {
  return has(name) ? get_string(name) : def;
}
std::vector<int64_t> Attrs::get_ints(const std::string& name) const {
  return as<std::vector<int64_t>>(name, find(name));
}
std::vector<int64_t> Attrs::get_ints(const std::string& name, const std::vector<int64_t>& def) const {
  return has(name) ? get_ints(name) : def;
}
std::vector<float> Attrs::get_floats(const std::string& name) const { return as<std::vector<float>>(name, find(name)); }
std::vector<float> Attrs::get_floats(const std::string& name, const std::vector<float>& def) const {
  return has(name) ? get_floats(name) : def;
}
const TensorData& Attrs::get_tensor(const std::string& name) const { return as<TensorData>(name, find(name)); }

std::string attr_str(const AttrValue& v) {
  struct Visitor {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(float f) const { return fmt::format("{}", f); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(const std::vector<int64_t>& v) const { return fmt::format("[{}]", fmt::join(v, ",")); }
    std::string operator()(const std::vector<float>& v) const { return fmt::format("[{}]", fmt::join(v, ",")); }
    std::string operator()(const std::vector<std::string>& v) const { return fmt::format("[{}]", fmt::join(v, ",")); }
    std::string operator()(const TensorData& t) const {
      return fmt::format("<tensor {} {}>", dtype_name(t.dtype()), shape_str(t.shape()));
    }
  };
  return std::visit(Visitor{}, v);
}

}  // namespace mlipc
