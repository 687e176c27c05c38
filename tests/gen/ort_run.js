// Runs an ONNX model with onnxruntime-node (one thread) on the inputs listed
// in a JSON manifest and writes every output as raw little-endian bytes.
// usage: node ort_run.js MODEL.onnx MANIFEST.json OUT_DIR
//   manifest: {"inputs": [{"name", "dtype", "dims", "file"}]}   (dtype: numpy name)
//   writes OUT_DIR/output_K.bin and OUT_DIR/outputs.json [{"name", "dtype", "dims"}]
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const fs = require('fs');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array,
};
const ORT_TYPE = { float32: 'float32', float64: 'float64', int8: 'int8', uint8: 'uint8', int16: 'int16',
  uint16: 'uint16', int32: 'int32', uint32: 'uint32', int64: 'int64', uint64: 'uint64', bool: 'bool' };
const NUMPY_NAME = Object.fromEntries(Object.entries(ORT_TYPE).map(([k, v]) => [v, k]));

(async () => {
  const [model, manifestPath, outDir] = process.argv.slice(2);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const feeds = {};
  for (const i of manifest.inputs) {
    const buf = fs.readFileSync(i.file);
    const A = ARRAYS[i.dtype];
    if (!A) throw new Error(`input ${i.name}: dtype ${i.dtype} not handled`);
    const copy = new Uint8Array(buf.length);
    copy.set(buf);
    const data = new A(copy.buffer, 0, buf.length / A.BYTES_PER_ELEMENT);
    feeds[i.name] = new ort.Tensor(ORT_TYPE[i.dtype], data, i.dims);
  }
  const out = await s.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  const meta = [];
  s.outputNames.forEach((n, k) => {
    const t = out[n];
    const d = t.data;
    fs.writeFileSync(`${outDir}/output_${k}.bin`, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    meta.push({ name: n, dtype: NUMPY_NAME[t.type] || t.type, dims: t.dims });
  });
  fs.writeFileSync(`${outDir}/outputs.json`, JSON.stringify(meta));
})().catch(e => { console.error('ort_run:', e.message); process.exit(1); });
