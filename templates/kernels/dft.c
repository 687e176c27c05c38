/* {{outer}} x {{inner}} discrete Fourier transforms of length {{length}},
 * {{bins}} bins each, from {{taken}} {{#complex}}complex{{/complex}}{{^complex}}real{{/complex}} inputs{{#window}} times the window{{/window}}{{#inverse}}, inverse (scaled by 1 / {{length}}){{/inverse}}.
 * Direct summation in the reference's order (ops/dft.h) with its twiddle
 * table: tw[2m], tw[2m + 1] = cos, sin of 2 pi m / {{length}}. */
static void {{fn}}(const {{in0_t}}* x, {{#window}}const {{in0_t}}* w, {{/window}}{{out0_t}}* y) {
  static const double tw[2 * {{length}}] = { {{twiddles}} };
  for (int32_t o = 0; o < {{outer}}; ++o) {
    const int32_t base = (o / {{frames}}) * {{batch_stride}} + (o % {{frames}}) * {{frame_step}};
    for (int32_t i = 0; i < {{inner}}; ++i)
      for (int32_t k = 0; k < {{bins}}; ++k) {
        double re = 0.0, im = 0.0;
        int32_t t = 0; /* (j * k) mod {{length}} */
        for (int32_t j = 0; j < {{taken}}; ++j) {
          const double c = tw[2 * t], s = tw[2 * t + 1];
          const int32_t at = (base + j * {{inner}} + i) * {{#complex}}2{{/complex}}{{^complex}}1{{/complex}};
          double xr = (double)x[at];
{{#window}}          xr = xr * (double)w[j];
{{/window}}{{#complex}}          {
            double xi = (double)x[at + 1];
{{#window}}            xi = xi * (double)w[j];
{{/window}}{{^inverse}}            re += xr * c + xi * s;
            im += xi * c - xr * s;
{{/inverse}}{{#inverse}}            re += xr * c - xi * s;
            im += xi * c + xr * s;
{{/inverse}}          }
{{/complex}}{{^complex}}{{^inverse}}          re += xr * c;
          im -= xr * s;
{{/inverse}}{{#inverse}}          re += xr * c;
          im += xr * s;
{{/inverse}}{{/complex}}          t += k;
          if (t >= {{length}}) t -= {{length}};
        }
{{#inverse}}        re = re / (double){{length}};
        im = im / (double){{length}};
{{/inverse}}        const int32_t out = ((o * {{bins}} + k) * {{inner}} + i) * 2;
        y[out] = ({{out0_t}})re;
        y[out + 1] = ({{out0_t}})im;
      }
  }
}
