#!/usr/bin/env python3
"""Prints the coefficients of mlip/kmath_f.h's mlip_erf_f: erf(x)/x on
[0, 4] as P(t)/Q(t), t = x^2, P of degree 6 and Q of degree 4 with Q(0) = 1,
by Lawson's iteration on the linearized weighted least-squares problem
(near-minimax relative error), rounded to float; and the fit's relative error.
Then mlip_tanh_f's polynomial: tanh(x) = x + x t P(t) on [0, 0.625], P of
degree 4, fitted the same way for the relative error of tanh.
Needs numpy (Debian's python3-numpy); run with /usr/bin/python3."""
from math import erf

import numpy as np


def fit(n_p=7, n_q=5, points=20000, rounds=60):
    x = np.linspace(0.0, 4.0, points + 1)[1:]
    f = np.array([erf(v) for v in x]) / x
    t = x * x
    lawson = np.ones_like(t)
    q = np.ones_like(t)
    best = (1.0, None, None)
    for _ in range(rounds):
        for _ in range(4):  # P - f Q = f with weights 1/(Q f): the relative error
            w = np.sqrt(lawson) / (q * f)
            a = np.hstack([np.vstack([t**k for k in range(n_p)]).T,
                           -(f[:, None]) * np.vstack([t**k for k in range(1, n_q)]).T])
            sol, *_ = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)
            p, qc = sol[:n_p], np.concatenate([[1.0], sol[n_p:]])
            q = np.polyval(qc[::-1], t)
        err = (np.polyval(p[::-1], t) / q - f) / f
        m = np.abs(err).max()
        if m < best[0]:
            best = (m, p.copy(), qc.copy())
        lawson = lawson * np.abs(err) / np.abs(err).mean()
        lawson /= lawson.sum()
    return best


def fit_tanh(n_p=5, top=0.625, points=20000, rounds=60):
    x = np.linspace(0.0, top, points + 1)[1:]
    t = x * x
    g = np.tanh(x)
    f = (g / x - 1.0) / t  # what P(t) approximates
    scale = x * t / g  # an error e in P is a relative error e x t / tanh(x)
    lawson = np.ones_like(t)
    best = (1.0, None)
    for _ in range(rounds):
        w = np.sqrt(lawson) * scale
        a = np.vstack([t**k for k in range(n_p)]).T
        p, *_ = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)
        err = (x + x * t * np.polyval(p[::-1], t) - g) / g
        m = np.abs(err).max()
        if m < best[0]:
            best = (m, p.copy())
        lawson = lawson * np.abs(err) / np.abs(err).mean()
        lawson /= lawson.sum()
    return best


def main():
    m, p, q = fit()
    print(f"erf: relative error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))
    print("Q (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in q))
    m, p = fit_tanh()
    print(f"tanh: relative error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))


if __name__ == "__main__":
    main()
