#!/usr/bin/env python3
"""Prints the coefficients of mlip/kmath_f.h's mlip_erf_f: erf(x)/x on
[0, 4] as P(t)/Q(t), t = x^2, P of degree 6 and Q of degree 4 with Q(0) = 1,
by Lawson's iteration on the linearized weighted least-squares problem
(near-minimax relative error), rounded to float; and the fit's relative error.
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


def main():
    m, p, q = fit()
    print(f"relative error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))
    print("Q (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in q))


if __name__ == "__main__":
    main()
