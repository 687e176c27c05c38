"""An M5-style raw-audio CNN (Dai et al., "Very deep convolutional neural
networks for raw waveforms") whose windows are wider than the MLIP's kernel
limit (16 on cn10ka; issue 30), small and with random weights:

- torch_mlip_m5: [1, 1, 8192] samples; the first Conv1d has kernel 80 and
  stride 16 (M5's first layer: on the MLIP as kernel 5 over the input's
  space-to-depth form, docs/mlip-spec.md), BatchNorm, ReLU, MaxPool1d(4),
  three Conv1d of kernel 3 with BatchNorm and ReLU, then the whole remaining
  signal (119 positions) pooled twice, a MaxPool1d and an AvgPool1d of
  kernel 119 (one output position: the GLOBAL pool layers), their sum into a
  Linear head;
- torch_mlip_m5_s4: the same on [1, 1, 4096] samples with M5's other first
  stride, 4 (kernel 80 at stride 4 is kernel 20 over the input's
  space-to-depth form by 4, still wider than 16: two CONV2D chunks whose
  partial sums an ADD layer adds), pooled over its last 243 positions.
"""
import torch

from refs import export_torch, random_inputs, save_case


class M5(torch.nn.Module):
    def __init__(self, stride=16, pool=119, classes=10):
        super().__init__()
        self.pool = pool  # the length of the signal left: one window over it
        self.c1 = torch.nn.Conv1d(1, 32, 80, stride=stride)
        self.bn1 = torch.nn.BatchNorm1d(32)
        self.p1 = torch.nn.MaxPool1d(4)
        self.c2 = torch.nn.Conv1d(32, 32, 3)
        self.bn2 = torch.nn.BatchNorm1d(32)
        self.c3 = torch.nn.Conv1d(32, 64, 3)
        self.bn3 = torch.nn.BatchNorm1d(64)
        self.c4 = torch.nn.Conv1d(64, 64, 5)
        self.bn4 = torch.nn.BatchNorm1d(64)
        self.head = torch.nn.Linear(64, classes)

    def forward(self, x):
        y = self.p1(torch.relu(self.bn1(self.c1(x))))   # [1, 32, 127]
        y = torch.relu(self.bn2(self.c2(y)))            # [1, 32, 125]
        y = torch.relu(self.bn3(self.c3(y)))            # [1, 64, 123]
        y = torch.relu(self.bn4(self.c4(y)))            # [1, 64, 119]
        y = torch.nn.functional.max_pool1d(y, self.pool) + torch.nn.functional.avg_pool1d(y, self.pool)  # [1, 64, 1]
        return self.head(y.flatten(1))


def with_statistics(m5):
    with torch.no_grad():  # BatchNorm statistics that are not the identity
        for bn in (m5.bn1, m5.bn2, m5.bn3, m5.bn4):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    return m5.eval()


def main():
    torch.manual_seed(11)
    m5 = with_statistics(M5())
    m = export_torch(m5, (torch.randn(1, 1, 8192),), 17, ["samples"], ["logits"])
    save_case("torch_mlip_m5", m, random_inputs(m, seed=111),
              readme="An M5-style raw-audio CNN: a first Conv1d of kernel 80 stride 16, and a MaxPool1d and an "
                     "AvgPool1d over the whole remaining signal (kernel 119; opset 17): tests/gen/gen_mlip_m5.py")
    torch.manual_seed(12)
    m5 = with_statistics(M5(stride=4, pool=243))
    m = export_torch(m5, (torch.randn(1, 1, 4096),), 17, ["samples"], ["logits"])
    save_case("torch_mlip_m5_s4", m, random_inputs(m, seed=112),
              readme="An M5-style raw-audio CNN: a first Conv1d of kernel 80 stride 4, and a MaxPool1d and an "
                     "AvgPool1d over the whole remaining signal (kernel 243; opset 17): tests/gen/gen_mlip_m5.py")


if __name__ == "__main__":
    main()
