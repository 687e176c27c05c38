/* ConvTranspose: x [N, C, ID, IH, IW], w [C, M/group, KD, KH, KW], y [N, M,
 * OD, OH, OW] (1-D and 2-D have size-1 leading axes). Each output plane is
 * accumulated in y: for every input channel of the group, then every tap
 * (kd, kh, kw) in that order, each input x[id, ih, iw] adds x * w (a fused
 * multiply-add, mlip_fmaf) to the
 * output at (id * S + k * D - P) on each axis when that lies inside y. One
 * output receives at most one product per tap, so every output sums the
 * reference's terms in the reference's order (bit-identical). Then the bias. */
static void {{fn}}(const float* restrict x, const float* restrict w, {{#has_bias}}const float* restrict b, {{/has_bias}}float* restrict y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t m = 0; m < {{M}}; ++m) {
      const int32_t grp = m / {{OCG}}, j = m % {{OCG}};
      float* ym = y + (n * {{M}} + m) * {{OSIZE}};
      for (int32_t o = 0; o < {{OSIZE}}; ++o) ym[o] = 0.0f;
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
        const int32_t cin = grp * {{ICG}} + ic;
        const float* xc = x + (n * {{C}} + cin) * {{ISIZE}};
        const float* wc = w + (cin * {{OCG}} + j) * {{KSIZE}};
        for (int32_t kd = 0; kd < {{KD}}; ++kd) {
          for (int32_t kh = 0; kh < {{KH}}; ++kh) {
            for (int32_t kw = 0; kw < {{KW}}; ++kw) {
              const float wv = wc[(kd * {{KH}} + kh) * {{KW}} + kw];
              /* output position of input position 0 through this tap, per axis */
              const int32_t d0 = kd * {{DD}} - {{PD}}, h0 = kh * {{DH}} - {{PH}}, w0 = kw * {{DW}} - {{PW}};
              int32_t iw0 = 0, iw1 = {{IW}}, ih0 = 0, ih1 = {{IH}};
              while (iw0 < iw1 && iw0 * {{SW}} + w0 < 0) ++iw0;
              while (iw1 > iw0 && (iw1 - 1) * {{SW}} + w0 >= {{OW}}) --iw1;
              while (ih0 < ih1 && ih0 * {{SH}} + h0 < 0) ++ih0;
              while (ih1 > ih0 && (ih1 - 1) * {{SH}} + h0 >= {{OH}}) --ih1;
              for (int32_t id = 0; id < {{ID}}; ++id) {
                const int32_t od = id * {{SD}} + d0;
                if (od < 0 || od >= {{OD}}) continue;
                for (int32_t ih = ih0; ih < ih1; ++ih) {
                  const float* xr = xc + (id * {{IH}} + ih) * {{IW}};
                  float* yr = ym + (od * {{OH}} + ih * {{SH}} + h0) * {{OW}};
                  for (int32_t iw = iw0; iw < iw1; ++iw) yr[iw * {{SW}} + w0] = mlip_fmaf(xr[iw], wv, yr[iw * {{SW}} + w0]);
                }
              }
            }
          }
        }
      }
{{#has_bias}}
      for (int32_t o = 0; o < {{OSIZE}}; ++o) ym[o] = ym[o] + b[m];
{{/has_bias}}
    }
  }
}
