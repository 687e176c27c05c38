// The peer in bench/run.sh: onnxruntime (onnxruntime-node from the npm
// registry) on one thread, timing one model on one raw float32 input.
// usage: node ort_latency.js MODEL.onnx INPUT.bin d0,d1,... RUNS
// prints: {"median_us": .., "min_us": ..}
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, input, dims, runs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const raw = fs.readFileSync(input);
  const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims.split(',').map(Number)) };
  const times = [];
  for (let i = 0; i < Number(runs) + 5; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    if (i >= 5) times.push(Number(process.hrtime.bigint() - t0) / 1e3);  // 5 warm-up runs
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ median_us: times[times.length >> 1], min_us: times[0] }));
}
main().catch((e) => { console.error(`ort_latency: ${e.message}`); process.exit(1); });
