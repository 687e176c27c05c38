#!/usr/bin/env python3
"""Prints the coefficients of mlip/kmath_f.h's mlip_erf_f: erf(x)/x on
[0, 4] as P(t)/Q(t), t = x^2, P of degree 6 and Q of degree 4 with Q(0) = 1,
by Lawson's iteration on the linearized weighted least-squares problem
(near-minimax relative error), rounded to float; and the fit's relative error.
Then mlip_sigmoid_f's and mlip_tanh_f's odd rationals x P(t) / Q(t), P and
Q of degree 4: sigmoid(x) - 1/2 on [0, 17.5] for the absolute error, tanh(x)
on [0, 9.02] with P(0) = Q(0) = 1 for the relative error. And Softmax's
exponential (mlip__exp_nonpos_fma_num_f, since stop 50): e^r on
|r| <= ln 2 / 2 as 1 + r + c2 r^2 + ... + c6 r^6, relative error.
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


def fit_odd_rational(f, top, n_p, n_q, relative, p0=None, points=40000, rounds=80):
    """f(x) ~ x P(t) / Q(t), t = x^2, on (0, top]: P with n_p coefficients (P(0)
    fixed to p0 if given), Q with n_q and Q(0) = 1, by Lawson's iteration on
    the linearized weighted least-squares problem; the error weighted to be
    relative (relative) or absolute. Fitted in u = t / top^2 (the powers of t
    are ill-conditioned), then scaled back."""
    x = np.linspace(0.0, top, points + 1)[1:]
    s = top * top
    u, fx = x * x / s, f(x)
    g = fx / x  # what P / Q approximates
    weight = 1.0 / fx if relative else np.ones_like(x)
    free_p = range(1, n_p) if p0 is not None else range(n_p)
    lawson = np.ones_like(u)
    q = np.ones_like(u)
    best = (1.0, None, None)
    for _ in range(rounds):
        for _ in range(4):  # P - g Q = 0, each row weighted by the error's scale
            w = np.sqrt(lawson) * weight * x / q
            a = np.hstack([np.vstack([u**k for k in free_p]).T,
                           -(g[:, None]) * np.vstack([u**k for k in range(1, n_q)]).T])
            rhs = g - (p0 if p0 is not None else 0.0)
            sol, *_ = np.linalg.lstsq(a * w[:, None], rhs * w, rcond=None)
            n = len(free_p)
            p = np.concatenate([[p0], sol[:n]]) if p0 is not None else sol[:n]
            qc = np.concatenate([[1.0], sol[n:]])
            q = np.polyval(qc[::-1], u)
        err = (x * np.polyval(p[::-1], u) / q - fx) * weight
        m = np.abs(err).max()
        if m < best[0]:
            best = (m, p / s**np.arange(len(p)), qc / s**np.arange(len(qc)))
        lawson = lawson * np.abs(err) / np.abs(err).mean()
        lawson /= lawson.sum()
    return best


def fit_exp(degree=6, points=40000, rounds=80):
    """e^r ~ 1 + r + c2 r^2 + ... + c_degree r^degree on |r| <= ln 2 / 2 (a
    hair wider: r comes from k ln 2 in two roundings), the relative error
    near-minimax by Lawson's iteration."""
    a = np.log(2.0) / 2.0 * 1.0001
    r = np.linspace(-a, a, points)
    f = np.exp(r)
    lawson = np.ones_like(r)
    best = (1.0, None)
    for _ in range(rounds):
        w = np.sqrt(lawson) / f
        a_ = np.vstack([r**k for k in range(2, degree + 1)]).T
        sol, *_ = np.linalg.lstsq(a_ * w[:, None], (f - 1.0 - r) * w, rcond=None)
        c = np.concatenate([[1.0, 1.0], sol])
        err = (np.polyval(c[::-1], r) - f) / f
        m = np.abs(err).max()
        if m < best[0]:
            best = (m, c.copy())
        lawson = lawson * np.abs(err) / np.abs(err).mean()
        lawson /= lawson.sum()
    return best


def main():
    m, p, q = fit()
    print(f"erf: relative error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))
    print("Q (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in q))
    # sigmoid(x) - 1/2 on [0, 17.5] (sigmoid rounds to 1 from 17.33), absolute
    m, p, q = fit_odd_rational(lambda x: 1.0 / (1.0 + np.exp(-x)) - 0.5, 17.5, 5, 5, relative=False)
    print(f"sigmoid - 1/2: absolute error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))
    print("Q (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in q))
    # tanh on [0, 9.02] (tanh rounds to 1 from 9.010914), relative, P(0) = 1
    m, p, q = fit_odd_rational(np.tanh, 9.02, 5, 5, relative=True, p0=1.0)
    print(f"tanh: relative error of the fit: {m:.3g}")
    print("P (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in p))
    print("Q (t^0 first):", ", ".join(repr(np.float32(c)) + "f" for c in q))
    m, c = fit_exp()
    print(f"exp (Softmax's): relative error of the fit: {m:.3g}")
    print("c2..c6:", ", ".join(float.hex(float(np.float32(v))) + "f" for v in c[2:]))


if __name__ == "__main__":
    main()
