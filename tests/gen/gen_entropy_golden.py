"""Entropy calibration's golden threshold (issue 29): a second, independent
implementation of ptq/calibration.h's entropy_threshold, in numpy, on the
fixed histogram below. tests/unit/ptq/calibration_test.cpp
(EntropyGoldenThreshold) pins what this prints; it writes no file.

The method (calibration.h says the same): the histogram holds the values of
a tensor seen in [MIN, MAX] over [LO, HI] (0 is a bin edge; TensorStats
leaves exact zeros out of it, this one is given as it is). Each candidate
T = i * w clips to [a, b] = [max(MIN, -T), min(MAX, T)] and keeps the bins
inside [-T, T]; the int8 grid is the activation quantizer's (scale (b - a) /
255, zero point round(-128 - a / scale), codes round(centre / scale) + zero
point, saturated), in double; candidates whose scale is below one bin are
skipped. P: the kept bins, the clipped mass added to the outermost kept bin
of its side. Q: per int8 code, the unclipped mass of the kept bins of that
code spread evenly over those bins where P is not 0. Smoothed by eps = 1e-4
(MXNet's _smooth_distribution), KL(P || Q), the smallest wins (the first on
a tie)."""
import numpy as np

N, LO, HI = 2048, -4.0, 4.0
MIN, MAX = -1.5, 3.9


def histogram():
    h = np.zeros(N, dtype=np.int64)
    k = np.arange(N)
    d = k - 1040
    h += np.maximum(0, 40000 - d * d) // 16  # a bump just above 0
    h[1240:1500] += 3  # a long thin tail to 1.86
    h[2022] += 2  # outliers near MAX
    h[640] += 1  # one at MIN
    return h.astype(np.float64)


def smooth(d, eps=1e-4):
    zero = d == 0
    nz = np.count_nonzero(~zero)
    if nz == 0:
        return None
    out = d.copy()
    out[zero] = eps
    out[~zero] -= eps * np.count_nonzero(zero) / nz
    return out if np.all(out > 0) else None


def threshold(h):
    w = (HI - LO) / N
    z0 = int(round(-LO / w))
    total = h.sum()
    best, best_i = np.inf, None
    for i in range(1, max(z0, N - z0) + 1):
        t = i * w
        a, b = max(MIN, -t), min(MAX, t)
        scale = (b - a) / 255.0
        if not scale >= w:
            continue
        zp = np.clip(np.rint(-128.0 - a / scale), -128, 127)
        k0, k1 = max(0, z0 - i), min(N, z0 + i)
        kept = h[k0:k1]
        p = kept.copy()
        p[0] += h[:k0].sum()
        p[-1] += total - h[:k1].sum()
        centres = LO + (np.arange(k0, k1) + 0.5) * w
        codes = np.clip(np.rint(centres / scale) + zp, -128, 127).astype(np.int64)
        mass = np.bincount(codes + 128, weights=kept, minlength=256)
        count = np.bincount(codes + 128, weights=(p != 0).astype(np.float64), minlength=256)
        q = np.where(p != 0, mass[codes + 128] / np.maximum(count[codes + 128], 1), 0.0)
        ps, qs = smooth(p), smooth(q)
        if ps is None or qs is None:
            continue
        ps, qs = ps / ps.sum(), qs / qs.sum()
        kl = float(np.sum(ps * np.log(ps / qs)))
        if kl < best:
            best, best_i = kl, i
    return best_i, best_i * w


if __name__ == "__main__":
    i, t = threshold(histogram())
    print(f"bins {i}, threshold {t!r} (w = {(HI - LO) / N!r})")
