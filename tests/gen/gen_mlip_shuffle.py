"""A ShuffleNetV2-style network that compiles for "mrvl, c" into one MLIP
region with no CPU node (tests/e2e/mlip_test.cpp checks that, onnxruntime's
outputs within the fp16 tolerance, and the same bits for every tiling):

- torch_mlip_shufflenet: a stem convolution and max pool, then units of
  ShuffleNetV2: the stride-1 unit splits its channels in two halves
  (x.chunk(2, 1), exported as Split), runs a 1x1 / depthwise 3x3 / 1x1
  branch on one, concatenates and shuffles the channels in 2 groups
  (Reshape, Transpose, Reshape); the stride-2 unit runs two branches;
  global average pooling and a classifier.
Random weights and batch-norm statistics, fixed seed; inputs standard normal.
Wide enough that the border conversions are under 5% of the estimated cycles."""
import torch
from torch import nn

from refs import export_torch, save_case


def cbr(cin, cout, k, stride=1, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)


def shuffle(x, groups):
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class Unit(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        mid = cout // 2
        self.stride = stride
        bin_ = cin if stride == 2 else cin // 2
        self.branch = nn.Sequential(cbr(bin_, mid, 1), cbr(mid, mid, 3, stride, mid, relu=False), cbr(mid, mid, 1))
        if stride == 2:
            self.short = nn.Sequential(cbr(cin, cin, 3, 2, cin, relu=False), cbr(cin, mid, 1))

    def forward(self, x):
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            y = torch.cat([a, self.branch(b)], 1)
        else:
            y = torch.cat([self.short(x), self.branch(x)], 1)
        return shuffle(y, 2)


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = cbr(3, 32, 3, 2)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.units = nn.Sequential(Unit(32, 96, 2), Unit(96, 96, 1), Unit(96, 96, 1), Unit(96, 192, 2), Unit(192, 192, 1))
        self.fc = nn.Linear(192, classes)

    def forward(self, x):
        x = self.units(self.pool(self.stem(x)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def randomize_bn(net, seed):
    g = torch.Generator().manual_seed(seed)
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(c, generator=g) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(c, generator=g) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(c, generator=g) * 0.1)
    return net


def main():
    torch.manual_seed(13)
    x = {"x": torch.randn(1, 3, 64, 64).numpy()}
    net = randomize_bn(Net(), 3).eval()
    save_case("torch_mlip_shufflenet", export_torch(net, torch.from_numpy(x["x"]), 13, ["x"], ["y"]), x)


if __name__ == "__main__":
    main()
