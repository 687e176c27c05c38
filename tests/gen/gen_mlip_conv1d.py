"""1-D and transposed convolutions on the MLIP (issue 30, item 7), each small
(random weights) and exported as torch.onnx writes it:

- torch_mlip_tcn: a temporal convolutional network on [1, 8, 64] frames:
  an input Conv1d, four residual blocks of dilated causal Conv1d (dilations
  1, 2, 4, 8, the causal padding cut off by a Slice as pytorch-tcn's Chomp1d
  does), one block's dilated convolution grouped (4 groups) and one
  depthwise followed by a pointwise one, a strided Conv1d (stride 2), the
  mean over time and a Linear head;
- torch_mlip_convt_decoder: a decoder from a [1, 32, 8, 8] code:
  ConvTranspose2d stride 2 (kernel 4, padding 1), ConvTranspose2d stride 2
  with output_padding 1 (kernel 3, padding 1) in 2 groups, two Conv2d, and a
  1-D tail: the rows flattened into a [1, 128, 32] signal, a
  ConvTranspose1d stride 2 (kernel 5, padding 2, output_padding 1), a
  Conv1d;
- torch_mlip_audio1d: a small raw-audio classifier after M5 (Dai et al.)
  on [1, 1, 1024] samples: strided Conv1d, BatchNorm, ReLU and 1-D pools
  between them (MaxPool1d of kernel 4, a padded strided one, AvgPool1d in
  ceil mode, with count_include_pad off, and on: exported as a zero Pad
  before an unpadded pool, which passes/fuse_pad merges), the mean over time as an
  AvgPool1d over the whole signal, and a Linear head.
"""
import torch

from refs import export_torch, random_inputs, save_case


class CausalBlock(torch.nn.Module):
    """Dilated causal Conv1d (kernel 3), ReLU, pointwise Conv1d, residual, ReLU."""

    def __init__(self, c, dilation, groups=1, depthwise=False):
        super().__init__()
        self.cut = 2 * dilation
        g = c if depthwise else groups
        self.conv = torch.nn.Conv1d(c, c, 3, dilation=dilation, padding=self.cut, groups=g)
        self.pw = torch.nn.Conv1d(c, c, 1)

    def forward(self, x):
        y = torch.relu(self.conv(x)[:, :, :-self.cut])
        return torch.relu(x + self.pw(y))


class Tcn(torch.nn.Module):
    def __init__(self, cin=8, c=32, classes=10):
        super().__init__()
        self.inp = torch.nn.Conv1d(cin, c, 1)
        self.blocks = torch.nn.Sequential(CausalBlock(c, 1), CausalBlock(c, 2, groups=4),
                                          CausalBlock(c, 4, depthwise=True), CausalBlock(c, 8))
        self.down = torch.nn.Conv1d(c, c, 3, stride=2, padding=1)
        self.head = torch.nn.Linear(c, classes)

    def forward(self, x):
        y = torch.relu(self.down(self.blocks(self.inp(x))))
        return self.head(y.mean(-1))


class ConvTDecoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = torch.nn.ConvTranspose2d(32, 32, 4, stride=2, padding=1)
        self.up2 = torch.nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.refine = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.conv = torch.nn.Conv2d(32, 4, 3, padding=1)
        self.up1d = torch.nn.ConvTranspose1d(4 * 32, 32, 5, stride=2, padding=2, output_padding=1)
        self.out = torch.nn.Conv1d(32, 4, 3, padding=1)

    def forward(self, z):
        y = torch.relu(self.up1(z))
        y = torch.relu(self.up2(y))
        y = torch.relu(self.conv(torch.relu(self.refine(y))))                 # [1, 4, 32, 32]
        y = y.reshape(y.shape[0], 4 * 32, 32)        # rows into channels: [1, 128, 32]
        return self.out(torch.relu(self.up1d(y)))    # [1, 4, 64]


class Audio1d(torch.nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.c1 = torch.nn.Conv1d(1, 32, 9, stride=4, padding=4)
        self.bn1 = torch.nn.BatchNorm1d(32)
        self.p1 = torch.nn.MaxPool1d(4)
        self.c2 = torch.nn.Conv1d(32, 96, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm1d(96)
        self.p2 = torch.nn.MaxPool1d(3, stride=2, padding=1)
        self.c3 = torch.nn.Conv1d(96, 96, 3, padding=1)
        self.p3 = torch.nn.AvgPool1d(3, stride=2, ceil_mode=True)
        self.c4 = torch.nn.Conv1d(96, 96, 3, padding=1)
        self.p4 = torch.nn.AvgPool1d(3, stride=1, padding=1, count_include_pad=False)
        self.p5 = torch.nn.AvgPool1d(3, stride=1, padding=1)  # counting its padding: a Pad in ONNX
        self.head = torch.nn.Linear(96, classes)

    def forward(self, x):
        y = self.p1(torch.relu(self.bn1(self.c1(x))))   # [1, 32, 64]
        y = self.p2(torch.relu(self.bn2(self.c2(y))))   # [1, 96, 32]
        y = self.p3(torch.relu(self.c3(y)))             # [1, 96, 16]
        y = self.p5(self.p4(torch.relu(self.c4(y))))    # [1, 96, 16]
        y = torch.nn.functional.avg_pool1d(y, 16)       # the whole signal: [1, 96, 1]
        return self.head(y.flatten(1))


def main():
    torch.manual_seed(7)
    m = export_torch(Tcn(), (torch.randn(1, 8, 64),), 17, ["frames"], ["logits"])
    save_case("torch_mlip_tcn", m, random_inputs(m, seed=71),
              readme="A TCN of dilated causal Conv1d (grouped, depthwise, strided; opset 17): "
                     "tests/gen/gen_mlip_conv1d.py")
    m = export_torch(ConvTDecoder(), (torch.randn(1, 32, 8, 8),), 17, ["code"], ["signal"])
    save_case("torch_mlip_convt_decoder", m, random_inputs(m, seed=72),
              readme="A ConvTranspose decoder (2-D stride 2, output_padding, groups; 1-D; opset 17): "
                     "tests/gen/gen_mlip_conv1d.py")
    audio = Audio1d()
    with torch.no_grad():  # BatchNorm statistics that are not the identity
        for bn in (audio.bn1, audio.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    m = export_torch(audio.eval(), (torch.randn(1, 1, 1024),), 17, ["samples"], ["logits"])
    save_case("torch_mlip_audio1d", m, random_inputs(m, seed=73),
              readme="A raw-audio classifier after M5: strided Conv1d, BatchNorm and 1-D MaxPool and AveragePool "
                     "(padded, ceil mode, count_include_pad off and on, over the whole signal; opset 17): "
                     "tests/gen/gen_mlip_conv1d.py")


if __name__ == "__main__":
    main()
