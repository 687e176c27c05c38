#!/usr/bin/env python3
# Damaged manifests made from kws_pes2.json (pipeline.json of
# `mlipc compile tests/data/models/mlperf_tiny_kws_dscnn/model.onnx --target "mrvl, c" --pes 2`),
# cases of issue 26's tamper_pipeline.py (item 10). Each must be refused
# in one line naming the field (unit.MeshManifest.DamagedManifestsOfTheRobustnessDataAreRefused);
# fuzz.pipeline.regressions runs each once. tests/e2e/robustness_run_test.cpp
# tries the whole list on a freshly compiled tarball, inspect and run.
import copy, json, os
here = os.path.dirname(os.path.abspath(__file__))
base = json.load(open(os.path.join(here, 'kws_pes2.json')))
relu = '/body/body.11/Relu_output_0'
cases = {}
def case(name, f):
    p = copy.deepcopy(base)
    f(p)
    cases[name] = p
def cycle(p):
    p['stages'][0]['inputs'].append('output'); p['tensors'][2]['consumers'].append(0)
case('cycle', cycle)
def cycle2(p):
    p['tensors'][1]['producer'] = 1; p['tensors'][1]['consumers'] = [0]
    p['stages'][0]['inputs'] = ['input', relu]; p['stages'][1]['outputs'] = ['output', relu]
case('cycle2', cycle2)
def swap(p): p['stages'][0], p['stages'][1] = p['stages'][1], p['stages'][0]
case('swap_stages', swap)
case('path_dotdot', lambda p: p['stages'][1].update(path='../../etc/'))
case('cycles_neg', lambda p: p['stages'][0].update(est_cycles=-100))
case('float_index', lambda p: p['stages'][1].update(index=1.5))
case('clock0', lambda p: p.update(clock_mhz=0))
case('outputs_empty', lambda p: p.update(outputs=[]))
case('output_from_stage0', lambda p: p.update(outputs=[relu]))
case('huge_shape', lambda p: p['tensors'][1].update(shape=[1000000] * 4, bytes=32000))
case('inputs_dup', lambda p: p.update(inputs=['input', 'input']))
case('module_inject', lambda p: p.update(module_name='x(); system("touch /tmp/pwned_mod"); //'))
case('neg_shape', lambda p: p['tensors'][0].update(shape=[1, -1, 49, -10]))
case('slowest0', lambda p: p['estimates'].update(slowest_stage_cycles=0))
case('consumers_dup', lambda p: p['tensors'][1].update(consumers=[1, 1]))
for name, p in cases.items():
    with open(os.path.join(here, name + '.json'), 'w') as f:
        json.dump(p, f, indent=2, sort_keys=True)
        f.write('\n')
