#include "ops/elem.h"

#include <algorithm>

#include "support/error.h"

namespace mlipc::ops {

const std::vector<DType>& float_types() {
  static const std::vector<DType> t = {DType::Float16, DType::Float32, DType::Float64};
  return t;
}

const std::vector<DType>& signed_types() {
  static const std::vector<DType> t = {DType::Int8, DType::Int16, DType::Int32, DType::Int64};
  return t;
}

const std::vector<DType>& unsigned_types() {
  static const std::vector<DType> t = {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64};
  return t;
}

const std::vector<DType>& numeric_types() {
  static const std::vector<DType> t = join({float_types(), signed_types(), unsigned_types()});
  return t;
}

std::vector<DType> join(std::initializer_list<std::vector<DType>> sets) {
  std::vector<DType> r;
  for (const auto& s : sets) r.insert(r.end(), s.begin(), s.end());
  return r;
}

void expect_elem_dtype(const InferContext& ctx, int i, const std::vector<DType>& allowed) {
  const DType t = ctx.in_dtype(i);
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return;
  std::string names;
  for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  fail("input #{} ('{}') has element type {}; supported: {}", i, ctx.input(i).name, dtype_name(t), names);
}

void expect_same_dtype(const InferContext& ctx) {
  for (int i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.in_dtype(i) != ctx.in_dtype(0))
      fail("inputs have different element types ({} and {}); all must be the same", dtype_name(ctx.in_dtype(0)),
           dtype_name(ctx.in_dtype(i)));
}

void resolve_legacy_broadcast(InferContext& ctx) {
  if (!ctx.attrs().has("legacy_axis")) return;
  // Opset < 7 broadcast=1 aligns B's axes with A's from `axis`; numpy
  // broadcasting is the case where B ends at A's last axis.
  const int64_t axis = ctx.attrs().get_int("legacy_axis");
  const int64_t ra = ctx.in_rank(0), rb = ctx.in_rank(1);
  const int64_t norm = axis < 0 ? axis + ra : axis;
  if (norm != ra - rb)
    fail("legacy broadcasting along axis {} is not supported; only axis = rank(A) - rank(B) = {} (numpy "
         "broadcasting)",
         axis, ra - rb);
  ctx.attrs().erase("legacy_axis");  // now plain numpy broadcasting
}

}  // namespace mlipc::ops
