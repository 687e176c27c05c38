#!/usr/bin/env python3
"""The 224x224 networks of bench/run.sh: torchvision's definitions with
random weights (seeded, no download), exported to ONNX opset 13, one
folder per network (<out>/<name>/model.onnx). Needs Debian's python3-torch
and python3-torchvision. Skips a network whose model.onnx exists."""
import os
import sys

import torch
import torchvision

NETWORKS = ["resnet18", "mobilenet_v2", "efficientnet_b0", "mobilenet_v3_large"]


def main(out):
    for name in NETWORKS:
        path = os.path.join(out, name, "model.onnx")
        if os.path.exists(path):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        tmp = path + ".tmp"
        torch.onnx.export(model, x, tmp, opset_version=13, input_names=["input"], output_names=["output"])
        os.replace(tmp, path)
        print(f"bench: made {path}")


if __name__ == "__main__":
    main(sys.argv[1])
