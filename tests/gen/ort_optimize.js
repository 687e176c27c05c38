// Writes the model onnxruntime-node runs after its basic graph optimizations
// (constant folding, redundant-node removal; no fused or contrib operators):
// the "pre-processing" step a quantizer runs before placing Q/DQ pairs.
// usage: node ort_optimize.js IN.onnx OUT.onnx
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');

(async () => {
  const [model, out] = process.argv.slice(2);
  await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'basic', optimizedModelFilePath: out });
})().catch(e => { console.error('ort_optimize:', e.message); process.exit(1); });
