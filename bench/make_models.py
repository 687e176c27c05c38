#!/usr/bin/env python3
"""The torch-built models of bench/run.sh, random weights (seeded, no
download), exported to ONNX, one folder per model (<out>/<name>/model.onnx):
torchvision's 224x224 networks (opset 13) and one small model per family
the CNNs do not cover (recurrent layers, transposed convolutions,
transformers). Needs
Debian's python3-torch and python3-torchvision. Skips a model whose
model.onnx exists.

usage: make_models.py OUT [NAME...]   (default: every model)"""
import os
import sys

import torch
import torchvision
from torch import nn

NETWORKS = ["resnet18", "mobilenet_v2", "efficientnet_b0", "mobilenet_v3_large"]


class LstmAutoencoder(nn.Module):
    """A sequence autoencoder: an LSTM encodes 64 steps of 32 features, its
    last state is repeated over the steps and a second LSTM decodes them."""

    def __init__(self, feat=32, hidden=128, steps=64):
        super().__init__()
        self.steps = steps
        self.enc = nn.LSTM(feat, hidden, batch_first=True)
        self.dec = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, feat)

    def forward(self, x):
        _, (h, _) = self.enc(x)
        z = h[-1].unsqueeze(1).repeat(1, self.steps, 1)
        y, _ = self.dec(z)
        return self.out(y)


class BiGruClassifier(nn.Module):
    """Keyword-spotting style: 100 frames of 40 features, a bidirectional
    2-layer GRU, the last frame classified."""

    def __init__(self, feat=40, hidden=128, classes=12):
        super().__init__()
        self.gru = nn.GRU(feat, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


class Crnn(nn.Module):
    """Text-line recognition: a conv stack over a 32x128 image, its columns
    as a sequence through a bidirectional LSTM, per-column class scores."""

    def __init__(self, classes=37, hidden=128):
        super().__init__()

        def block(i, o, pool):
            return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(pool)]

        self.cnn = nn.Sequential(*block(1, 32, 2), *block(32, 64, 2), *block(64, 128, (2, 1)), *block(128, 128, (4, 1)))
        self.rnn = nn.LSTM(128, hidden, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        f = self.cnn(x)                      # [1, 128, 1, 32]
        s = f.squeeze(2).permute(2, 0, 1)    # [32, 1, 128]: steps, batch, features
        y, _ = self.rnn(s)
        return self.fc(y)


class ConvTransposeDecoder(nn.Module):
    """A DCGAN-style generator: a latent vector to a 3x64x64 image through
    four stride-2 transposed convolutions."""

    def __init__(self, latent=100):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(latent, 256, 4, 1, 0), nn.BatchNorm2d(256), nn.ReLU(),
            nn.ConvTranspose2d(256, 128, 4, 2, 1), nn.BatchNorm2d(128), nn.ReLU(),
            nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Block(nn.Module):
    """A pre-norm transformer encoder block, attention written out (MatMul,
    Softmax, LayerNormalization and the exact GELU's Erf in the ONNX)."""

    def __init__(self, dim, heads, mlp=4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp * dim), nn.GELU(), nn.Linear(mlp * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class VitTiny(nn.Module):
    """32x32 images in 4x4 patches and a class token: 65 tokens of 192, two
    blocks of 4 heads (the attention's Softmax over [1, 4, 65, 65])."""

    def __init__(self, dim=192, heads=4, depth=2, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, 4, 4)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, 65, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


class KwsTransformer(nn.Module):
    """Keyword spotting on 49 frames of 40 MFCCs: a linear embedding, a class
    token, four blocks of 64 (4 heads), 12 classes."""

    def __init__(self, feat=40, dim=64, heads=4, depth=4, classes=12):
        super().__init__()
        self.embed = nn.Linear(feat, dim)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, 50, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


class ConvNextStage(nn.Module):
    """ConvNeXt-T's stem and first stage: a 4x4 stride-4 patch convolution to
    96 channels over 224x224, then three blocks (7x7 depthwise, LayerNorm
    over channels in NHWC, a 4x MLP with the exact GELU, layer scale,
    residual), global pooling and a classifier."""

    class Blk(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.pw1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.pw2 = nn.Linear(4 * dim, dim)
            self.gamma = nn.Parameter(torch.full((dim,), 1e-1))

        def forward(self, x):
            y = self.dw(x).permute(0, 2, 3, 1)
            y = self.gamma * self.pw2(self.act(self.pw1(self.norm(y))))
            return x + y.permute(0, 3, 1, 2)

    def __init__(self, dim=96, depth=3, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 4, 4)
        self.stem_norm = nn.LayerNorm(dim, eps=1e-6)
        self.blocks = nn.Sequential(*[self.Blk(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.stem_norm(self.stem(x).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.head(self.blocks(x).mean((2, 3)))


class MobileVitBlock(nn.Module):
    """MobileViT's block over a 64x32x32 map: 3x3 and 1x1 convolutions to 96,
    2x2 patches unfolded into 4 sequences of 256 tokens, two transformer
    blocks (Block above), folded back, a 1x1 projection, the
    input concatenated and fused by a 3x3 convolution with SiLU."""

    def __init__(self, cin=64, dim=96, heads=4, depth=2, patch=2):
        super().__init__()
        self.p = patch
        self.local = nn.Sequential(nn.Conv2d(cin, cin, 3, padding=1), nn.BatchNorm2d(cin), nn.SiLU(),
                                   nn.Conv2d(cin, dim, 1, bias=False))
        self.blocks = nn.Sequential(*[Block(dim, heads, mlp=2) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Sequential(nn.Conv2d(dim, cin, 1, bias=False), nn.BatchNorm2d(cin), nn.SiLU())
        self.fuse = nn.Sequential(nn.Conv2d(2 * cin, cin, 3, padding=1), nn.BatchNorm2d(cin), nn.SiLU())

    def forward(self, x):
        b, _, h, w = x.shape
        p = self.p
        y = self.local(x)
        d = y.shape[1]
        # [b, d, h, w] -> [b * p * p, (h / p) * (w / p), d]: one sequence per patch position
        t = y.reshape(b, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1).reshape(b * p * p, -1, d)
        t = self.norm(self.blocks(t))
        y = t.reshape(b, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat([x, self.proj(y)], 1))


# name: (module, input shape, opset)
FAMILIES = {
    "lstm_autoencoder": (LstmAutoencoder, (1, 64, 32), 13),
    "bigru_classifier": (BiGruClassifier, (1, 100, 40), 13),
    "crnn_bilstm": (Crnn, (1, 1, 32, 128), 13),
    "convtranspose_decoder": (ConvTransposeDecoder, (1, 100, 1, 1), 13),
    "vit_tiny": (VitTiny, (1, 3, 32, 32), 17),
    "kws_transformer": (KwsTransformer, (1, 49, 40), 17),
    "convnext_stage": (ConvNextStage, (1, 3, 224, 224), 17),
    "mobilevit_block": (MobileVitBlock, (1, 64, 32, 32), 17),
}


def export(model, x, path, opset):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    torch.onnx.export(model, x, tmp, opset_version=opset, input_names=["input"], output_names=["output"])
    os.replace(tmp, path)
    print(f"bench: made {path}")


def main(out, names):
    for name in names or NETWORKS + list(FAMILIES):
        path = os.path.join(out, name, "model.onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        if name in FAMILIES:
            cls, shape, opset = FAMILIES[name]
            export(cls().eval(), torch.randn(*shape), path, opset)
        else:
            export(getattr(torchvision.models, name)(weights=None).eval(), torch.randn(1, 3, 224, 224), path, 13)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
