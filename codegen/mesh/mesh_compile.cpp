#include "mesh/mesh_compile.h"

#include "driver/quantization.h"

#include "mesh/plan_search.h"
#include "mesh/stage_compiler.h"
#include "mesh/stage_figures.h"
#include "mesh/units.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc::mesh {

MeshResult compile_mesh(const std::filesystem::path& onnx, const driver::CompileOptions& options,
                        const MeshOptions& mesh) {
  if (mesh.pes < 1) fail("--pes {} must be at least 1", mesh.pes);
  if (mesh.pes > limits::kMaxPes) fail("--pes {}: at most {} stages", mesh.pes, limits::kMaxPes);
  if (!options.cross.empty()) fail("--pes: cross builds (--cross-compiler, --target-llvm-*) are not supported for a mesh");
  if (!options.emit_qdq.empty())
    fail("--pes: --emit-qdq is not supported for a mesh (compile without --pes to write the QDQ model)");
  const driver::CompileResult prepared = driver::import_model(onnx, options);
  driver::CompileResult whole = prepared;
  driver::compile_graph(whole, options);

  const mlip::TargetInfo& t = mlip::target_info(options.mlip.mcpu);
  const Model m = make_model(prepared, whole, t, options.mlip.num_tiles);
  Request req;
  for (const UnitInfo& u : m.units) req.units.push_back(u.unit);
  req.pes = mesh.pes;
  req.memory_limit = mesh.pe_memory;
  req.fixed_bytes = kRuntimeBytes;
  for (const c::IoInfo& io : whole.module.inputs) req.input_bytes += io.size_bytes;
  for (const c::IoInfo& io : whole.module.outputs) req.output_bytes += io.size_bytes;

  StageCompiler stages(prepared, whole, m, options, mesh.pe_memory);
  ChosenPlan chosen = first_plan(req, stages, mesh.pes, mesh.pe_memory);
  settle_cuts(req, stages, chosen);
  MeshResult r = mesh_tarball(prepared, whole, options, mesh.pes, mesh.pe_memory, t.clock_mhz, chosen);
  // Every stage compiles with the quantization chosen on the whole model.
  if (prepared.target.mlip) r.quantize_line = driver::quantize_line(prepared.mlip_options);
  return r;
}

}  // namespace mlipc::mesh
