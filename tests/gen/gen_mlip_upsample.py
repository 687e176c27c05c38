"""Small PyTorch networks with upsampling and channel splits, each of which
compiles for "mrvl, c" into one MLIP region with no CPU node
(tests/e2e/mlip_test.cpp checks that, onnxruntime's outputs within the fp16
tolerance, and the same bits for every tiling):

- torch_mlip_dethead: a detection-style neck and head: SiLU convolutions,
  nearest Resize x2 (F.interpolate, exported as asymmetric/floor), Concat
  with the finer feature map, a 1x1 prediction convolution Split on
  channels into box, objectness and class outputs, Sigmoid on the last two;
- torch_mlip_bilinear_decoder: an encoder of two strided convolutions and a
  decoder of bilinear upsampling (align_corners=False, which this torch
  exports as half_pixel, then align_corners=True to a given size), a skip
  Concat and ReLU convolutions.
Wide enough that the region's border conversions are under 5% of its
estimated cycles, as in a real network.
Random weights, fixed seeds; inputs standard normal."""
import torch
from torch import nn
from torch.nn import functional as F

from refs import export_torch, save_case


def conv(cin, cout, k=3, stride=1):
    return nn.Conv2d(cin, cout, k, stride, k // 2)


class DetHead(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.stem = conv(3, 16, 3, 2)
        self.down = conv(16, 32, 3, 2)
        self.fuse = conv(48, 64)
        self.neck = conv(64, 32)
        self.pred = conv(32, 4 + 1 + classes, 1)
        self.classes = classes

    def forward(self, x):
        p3 = F.silu(self.stem(x))
        p4 = F.silu(self.down(p3))
        up = F.interpolate(p4, scale_factor=2, mode="nearest")
        y = self.pred(F.silu(self.neck(F.silu(self.fuse(torch.cat([up, p3], 1))))))
        box, obj, cls = torch.split(y, [4, 1, self.classes], 1)
        return box, torch.sigmoid(obj), torch.sigmoid(cls)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1 = conv(3, 16, 3, 2)
        self.e2 = conv(16, 32, 3, 2)
        self.d1 = conv(48, 32)
        self.d2 = conv(32, 16)
        self.out = conv(16, 2, 1)

    def forward(self, x):
        f1 = F.relu(self.e1(x))
        f2 = F.relu(self.e2(f1))
        u1 = F.interpolate(f2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = F.relu(self.d1(torch.cat([u1, f1], 1)))
        u2 = F.interpolate(d1, size=(x.shape[2], x.shape[3]), mode="bilinear", align_corners=True)
        return self.out(F.relu(self.d2(u2)))


def main():
    torch.manual_seed(11)
    x = {"x": torch.randn(1, 3, 64, 64).numpy()}
    save_case("torch_mlip_dethead",
              export_torch(DetHead().eval(), torch.from_numpy(x["x"]), 13, ["x"], ["box", "obj", "cls"]), x)
    torch.manual_seed(12)
    save_case("torch_mlip_bilinear_decoder",
              export_torch(Decoder().eval(), torch.from_numpy(x["x"]), 13, ["x"], ["y"]), x)


if __name__ == "__main__":
    main()
