"""Sequence models with recurrent layers, as PyTorch exports them: a
two-layer bidirectional LSTM classifier (opset 13) and a GRU classifier
(opset 17), batch-first, classifying from the last step. The exporter
surrounds each recurrent node with Shape/Gather/Concat/Expand (the zero
initial state), Transpose/Reshape/Squeeze (the layouts) and a run-time
Gather (y[:, -1]).

The networks of issue 30 (item 8, LSTM and GRU on the MLIP), opset 17: an
LSTM autoencoder (encoder LSTM, its last step repeated over the sequence,
decoder LSTM, a Linear per step), a bidirectional two-layer GRU classifier,
and a CRNN (a convolution stack whose columns become the steps of a
bidirectional LSTM, a Linear and LogSoftmax per step)."""
import numpy as np
import torch

from refs import export_torch, random_inputs, save_case


class Classifier(torch.nn.Module):
    def __init__(self, cell, **kw):
        super().__init__()
        self.rnn = cell(10, 24, batch_first=True, **kw)
        self.fc = torch.nn.Linear(24 * (2 if kw.get("bidirectional") else 1), 5)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class LstmAutoencoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.LSTM(8, 16, batch_first=True)
        self.dec = torch.nn.LSTM(16, 16, batch_first=True)
        self.out = torch.nn.Linear(16, 8)

    def forward(self, x):
        y, _ = self.enc(x)
        z = y[:, -1:].expand(-1, x.shape[1], -1)  # the code, once per step
        d, _ = self.dec(z)
        return self.out(d)


class Crnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d((2, 1)),
            torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d((2, 1)))
        self.rnn = torch.nn.LSTM(32 * 4, 32, batch_first=True, bidirectional=True)
        self.fc = torch.nn.Linear(64, 11)

    def forward(self, x):
        f = self.conv(x)                          # [n, 32, 4, 32]
        f = f.permute(0, 3, 1, 2).flatten(2)      # [n, 32 columns, 128]
        y, _ = self.rnn(f)
        return torch.log_softmax(self.fc(y), -1)  # per column


def issue30_models():
    torch.manual_seed(30)
    m = export_torch(LstmAutoencoder(), (torch.randn(1, 20, 8),), 17, ["x"], ["y"])
    save_case("torch_lstm_autoencoder_opset17", m, random_inputs(m, seed=31),
              readme="LSTM autoencoder: LSTM(8 -> 16) over [1, 20, 8], its last step repeated over the 20 steps, "
                     "LSTM(16 -> 16), Linear(16 -> 8) per step; torch.onnx opset 17. Outputs from onnxruntime-node.")
    torch.manual_seed(32)
    gru = Classifier(torch.nn.GRU, num_layers=2, bidirectional=True)
    m = export_torch(gru, (torch.randn(2, 12, 10),), 17, ["x"], ["logits"])
    save_case("torch_gru_bidir2_classifier_opset17", m, random_inputs(m, seed=33),
              readme="Two-layer bidirectional GRU (hidden 24) over [2, 12, 10], Linear on the last step; "
                     "torch.onnx opset 17. Outputs from onnxruntime-node.")
    torch.manual_seed(34)
    m = export_torch(Crnn(), (torch.randn(1, 1, 32, 64),), 17, ["image"], ["log_probs"])
    save_case("torch_crnn_opset17", m, random_inputs(m, seed=35),
              readme="CRNN: three Conv-ReLU-MaxPool stages over a [1, 1, 32, 64] image, its 32 columns the steps "
                     "of a bidirectional LSTM (128 -> 32), Linear(64 -> 11) and LogSoftmax per step; torch.onnx "
                     "opset 17. Outputs from onnxruntime-node.")


def main():
    torch.manual_seed(7)
    lstm = Classifier(torch.nn.LSTM, num_layers=2, bidirectional=True)
    m = export_torch(lstm, (torch.randn(2, 12, 10),), 13, ["x"], ["logits"])
    save_case("torch_lstm_classifier_opset13", m, random_inputs(m, seed=11),
              readme="Two-layer bidirectional LSTM (hidden 24) over [2, 12, 10], Linear on the last step; "
                     "torch.onnx opset 13. Outputs from onnxruntime-node.")
    gru = Classifier(torch.nn.GRU)
    m = export_torch(gru, (torch.randn(2, 12, 10),), 17, ["x"], ["logits"])
    save_case("torch_gru_classifier_opset17", m, random_inputs(m, seed=12),
              readme="GRU (hidden 24, linear_before_reset as PyTorch exports it) over [2, 12, 10], Linear on "
                     "the last step; torch.onnx opset 17. Outputs from onnxruntime-node.")
    issue30_models()


if __name__ == "__main__":
    main()
