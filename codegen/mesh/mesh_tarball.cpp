#include "mesh/mesh_tarball.h"

#include <fmt/format.h>

#include "mesh/stage_figures.h"
#include "resources/resources.h"

namespace mlipc::mesh {

MeshResult mesh_tarball(const driver::CompileResult& prepared, const driver::CompileResult& whole,
                        const driver::CompileOptions& options, int pes, uint64_t pe_memory, double clock_mhz,
                        const ChosenPlan& chosen) {
  MeshResult result;
  const std::vector<PipeTensor>& tensors = chosen.compiled.tensors;
  Manifest& man = result.manifest;
  man.generator = driver::version_string();
  man.model_name = prepared.graph.model_name;
  man.module_name = options.codegen.module_name;
  man.target = whole.target.text;
  man.pes_requested = pes;
  man.pe_memory_limit = pe_memory;
  man.clock_mhz = clock_mhz;
  man.fewer_note = chosen.plan.fewer_note;
  man.tensors = tensors;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].producer == kHost) man.inputs.push_back(static_cast<int>(i));
  }
  for (const GraphIO& io : prepared.graph.outputs)
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].name == io.name && tensors[i].producer != kHost) man.outputs.push_back(static_cast<int>(i));
  for (size_t s = 0; s < chosen.compiled.stages.size(); ++s) {
    const driver::CompileResult& sr = *chosen.compiled.stages[s];
    PipeStage ps;
    ps.pe = static_cast<int>(s);
    ps.module = fmt::format("{}_stage{}", options.codegen.module_name, s);
    ps.layers = layer_lines(sr);
    for (const GraphIO& io : sr.graph.inputs)
      for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == io.name) ps.inputs.push_back(static_cast<int>(i));
    for (const GraphIO& io : sr.graph.outputs)
      for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == io.name) ps.outputs.push_back(static_cast<int>(i));
    ps.est_cycles = model_cycles(sr);
    ps.memory = model_memory(sr);
    for (const auto& [path, content] : sr.files) result.files[stage_dir(ps) + path] = content;
    man.stages.push_back(std::move(ps));
  }
  man.single_pe_cycles = model_cycles(whole);
  man.single_pe_memory = model_memory(whole).total();
  result.files["pipeline.json"] = manifest_to_json(man);
  result.files["mesh/pipeline.c"] = manifest_to_c(man);
  const std::string_view templates = "templates/mesh/";
  for (const auto& r : resources::under(templates))
    result.files["mesh/" + std::string(r.path.substr(templates.size()))] = std::string(r.content);
  result.onnx_nodes = prepared.onnx_nodes;
  return result;
}

}  // namespace mlipc::mesh
