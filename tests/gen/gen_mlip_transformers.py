"""Transformer-family networks for the MLIP's row-major layers (issue 30):
MATMUL (Linear on 3-D tensors, attention's Q.K^T and .V), SOFTMAX,
LAYERNORM (LayerNormalization at opset 17, its decomposition at opset 14),
GELU (the Erf form), REDUCE and the data movement between them (Transpose,
Reshape for the heads, Gather of the class token, Concat, the position
table's broadcast Add), each small (random weights) and exported as
torch.onnx writes it:

- torch_mlip_vit_opset14, torch_mlip_vit_opset17: a ViT-tiny (patch
  embedding by a strided Conv, class token, learned positions, 2 pre-norm
  encoder blocks of 4 heads, the head on the class token);
- torch_mlip_convnext: a ConvNeXt-style stage (depthwise 7x7 Conv, the
  channels-last LayerNorm and MLP between permutes, a layer scale, the
  residual);
- torch_mlip_mobilevit: a MobileViT-style block after a stride-2 stem
  (local 3x3 and 1x1 Convs, unfold into 2x2 patches by Reshape/Transpose,
  one transformer block, fold back, fusion Conv over the Concat with the
  input, mean pooling, a Linear head). Its unfold and fold are Transposes
  of 6 dimensions that merge to 5: one PERMUTE each (PERMUTE copies up to
  6), so the whole model is one MLIP region.
- torch_mlip_kws_transformer: a keyword-spotting transformer on audio
  frames ([1, 49, 10] MFCC-like frames, a Linear embedding, 2 encoder
  blocks, mean pooling, 12 classes);
- torch_mlip_mha_encoder: torch's own nn.TransformerEncoder (2 post-norm
  layers of nn.TransformerEncoderLayer, batch_first, 32 wide, 4 heads, a
  ReLU MLP) on 33 tokens: nn.MultiheadAttention exports its in-projection
  as a MatMul on [33, 1, 32] and its out-projection as a Gemm on [33, 32],
  33 rows for the fp16 FC (issue 30: more than 8 rows);
- torch_mlip_eps_guards: linear attention with ReLU kernels whose
  denominators are guarded by + 1e-15, and x / sqrt(var + 1e-12), where
  some denominators are exactly zero (issue 30, item 11).
"""
import numpy as np
import torch

from refs import export_torch, random_inputs, save_case


class Attention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)

    def forward(self, x):
        n, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).reshape(n, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        a = torch.softmax((q @ k.transpose(-2, -1)) * (d // h) ** -0.5, dim=-1)
        return self.proj((a @ v).transpose(1, 2).reshape(n, t, d))


class Block(torch.nn.Module):
    """A pre-norm encoder block: attention and a GELU MLP, each residual."""

    def __init__(self, d, heads, mlp):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, mlp), torch.nn.GELU(), torch.nn.Linear(mlp, d))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(torch.nn.Module):
    def __init__(self, img=32, patch=8, d=48, depth=2, heads=4, classes=10):
        super().__init__()
        self.embed = torch.nn.Conv2d(3, d, patch, patch)
        t = (img // patch) ** 2
        self.cls = torch.nn.Parameter(torch.randn(1, 1, d) * 0.2)
        self.pos = torch.nn.Parameter(torch.randn(1, t + 1, d) * 0.2)
        self.blocks = torch.nn.Sequential(*[Block(d, heads, 2 * d) for _ in range(depth)])
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


class ConvNeXtBlock(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dw = torch.nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = torch.nn.LayerNorm(c)
        self.pw1 = torch.nn.Linear(c, 4 * c)
        self.pw2 = torch.nn.Linear(4 * c, c)
        self.gamma = torch.nn.Parameter(torch.rand(c) * 0.5 + 0.5)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.gamma * self.pw2(torch.nn.functional.gelu(self.pw1(self.norm(y))))
        return x + y.permute(0, 3, 1, 2)


class ConvNeXtStage(torch.nn.Module):
    """A downsampling Conv and two ConvNeXt blocks, then global pooling and a head."""

    def __init__(self, c=32, classes=10):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, c, 4, 4)
        self.blocks = torch.nn.Sequential(ConvNeXtBlock(c), ConvNeXtBlock(c))
        self.head = torch.nn.Linear(c, classes)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)).mean((2, 3)))


class MobileViTBlock(torch.nn.Module):
    def __init__(self, c=16, d=32, patch=2):
        super().__init__()
        self.p = patch
        self.local = torch.nn.Sequential(torch.nn.Conv2d(c, c, 3, padding=1), torch.nn.SiLU(),
                                         torch.nn.Conv2d(c, d, 1))
        self.block = Block(d, 2, 2 * d)
        self.norm = torch.nn.LayerNorm(d)
        self.proj = torch.nn.Conv2d(d, c, 1)
        self.fuse = torch.nn.Conv2d(2 * c, c, 3, padding=1)

    def forward(self, x):
        n, _, h, w = x.shape
        p = self.p
        y = self.local(x)
        d = y.shape[1]
        # unfold: [n, d, h, w] -> [n * p * p, (h/p) * (w/p), d]
        y = y.reshape(n, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1).reshape(n * p * p, (h // p) * (w // p), d)
        y = self.norm(self.block(y))
        y = y.reshape(n, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(n, d, h, w)
        return self.fuse(torch.cat([x, self.proj(y)], dim=1))


class MobileViT(torch.nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.SiLU())
        self.block = MobileViTBlock()
        self.head = torch.nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.block(self.stem(x)).mean((2, 3)))


class KwsTransformer(torch.nn.Module):
    def __init__(self, frames=49, feat=10, d=48, depth=2, classes=12):
        super().__init__()
        self.embed = torch.nn.Linear(feat, d)
        self.pos = torch.nn.Parameter(torch.randn(1, frames, d) * 0.2)
        self.blocks = torch.nn.Sequential(*[Block(d, 4, 2 * d) for _ in range(depth)])
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.embed(x) + self.pos)).mean(dim=1))


class EpsGuards(torch.nn.Module):
    """Linear attention (ReLU feature maps, x / (sum + 1e-15)) and a
    normalization x / sqrt(var + 1e-12) written out, whose denominators are
    exactly zero for some rows (inputs made so: rows of zeros)."""

    def __init__(self, d=16):
        super().__init__()
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, d)

    def forward(self, x):
        q = torch.relu(self.q(x))
        k = torch.relu(self.k(x))
        kv = k.transpose(1, 2) @ self.v(x)
        num = q @ kv
        den = q.sum(-1, keepdim=True) + 1e-15
        y = num / den
        c = x - x.mean(-1, keepdim=True)
        z = c / torch.sqrt((c * c).mean(-1, keepdim=True) + 1e-12)
        return self.out(y) + z


class MhaEncoder(torch.nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


def main():
    torch.manual_seed(30)
    vit = ViT()
    for opset in (14, 17):
        m = export_torch(vit, (torch.randn(1, 3, 32, 32),), opset, ["image"], ["logits"])
        save_case(f"torch_mlip_vit_opset{opset}", m, random_inputs(m, seed=opset),
                  readme=f"ViT-tiny (32x32 image, 8x8 patches, 48 wide, 2 blocks of 4 heads), opset {opset}: "
                         "tests/gen/gen_mlip_transformers.py")
    m = export_torch(ConvNeXtStage(), (torch.randn(1, 3, 32, 32),), 17, ["image"], ["logits"])
    save_case("torch_mlip_convnext", m, random_inputs(m, seed=7),
              readme="A ConvNeXt-style stage (opset 17): tests/gen/gen_mlip_transformers.py")
    m = export_torch(KwsTransformer(), (torch.randn(1, 49, 10),), 17, ["frames"], ["logits"])
    save_case("torch_mlip_kws_transformer", m, random_inputs(m, seed=9),
              readme="A keyword-spotting transformer on 49 frames of 10 features (opset 17): "
                     "tests/gen/gen_mlip_transformers.py")
    torch.manual_seed(31)  # its own seed: the models above stay as they were
    m = export_torch(MobileViT(), (torch.randn(1, 3, 32, 32),), 17, ["image"], ["logits"])
    save_case("torch_mlip_mobilevit", m, random_inputs(m, seed=31),
              readme="A MobileViT-style block (unfold/fold by 6-D Transposes, one transformer block) after a "
                     "stride-2 stem, opset 17: tests/gen/gen_mlip_transformers.py")
    m = export_torch(EpsGuards(), (torch.randn(1, 8, 16),), 17, ["x"], ["y"])
    x = np.random.default_rng(11).standard_normal((1, 8, 16)).astype(np.float32)
    x[0, 2] = 0.0  # a row of zeros: q's sum and the row's variance are exactly 0
    x[0, 5] = -np.abs(x[0, 5]) * 0.0
    save_case("torch_mlip_eps_guards", m, {"x": x},
              readme="Epsilon guards (issue 30, item 11): x / (sum + 1e-15) and x / sqrt(var + 1e-12) with "
                     "denominators exactly zero: tests/gen/gen_mlip_transformers.py")
    torch.manual_seed(38)  # its own seed: the models above stay as they were
    m = export_torch(MhaEncoder(), (torch.randn(1, 33, 32),), 17, ["x"], ["y"], grad=True)
    save_case("torch_mlip_mha_encoder", m, random_inputs(m, seed=38),
              readme="torch's nn.TransformerEncoder (2 layers, batch_first, 32 wide, 4 heads) on 33 tokens, "
                     "opset 17: its attention's out-projection is a Gemm on [33, 32] (issue 30: the fp16 FC on "
                     "any number of rows): tests/gen/gen_mlip_transformers.py")


if __name__ == "__main__":
    main()
