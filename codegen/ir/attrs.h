// Node attributes: a small typed map. Getters with a default return it when
// the attribute is absent and throw Error when it has another type.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor_data.h"

namespace mlipc {

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, TensorData>;

class Attrs {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void erase(const std::string& name) { map_.erase(name); }
  void set(const std::string& name, AttrValue v) { map_[name] = std::move(v); }

  int64_t get_int(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t def) const;
  float get_float(const std::string& name) const;
  float get_float(const std::string& name, float def) const;
  std::string get_string(const std::string& name) const;
  std::string get_string(const std::string& name, const std::string& def) const;
  std::vector<int64_t> get_ints(const std::string& name) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& def) const;
  std::vector<float> get_floats(const std::string& name) const;
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& def) const;
  const TensorData& get_tensor(const std::string& name) const;

  const std::map<std::string, AttrValue>& all() const { return map_; }

 private:
  const AttrValue& find(const std::string& name) const;
  std::map<std::string, AttrValue> map_;
};

// "3", "1.5", "[1,2]", "'same'", "<tensor float32 [3]>": for graph dumps.
std::string attr_str(const AttrValue& v);

}  // namespace mlipc
