/* MaxPool: x [P = N*C, ID, IH, IW] -> y [P, OD, OH, OW] (1-D and 2-D have
 * size-1 leading axes). Padding taps are skipped; the first maximum in
 * window order wins{{#nan}}, and a NaN over any number (the last NaN){{/nan}}{{#indices}}; Indices are flat positions in x
 * ({{#col_major}}spatial axes column-major{{/col_major}}{{^col_major}}row-major{{/col_major}}){{/indices}}. */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y{{#indices}}, int64_t* yi{{/indices}}) {
  for (int32_t p = 0; p < {{P}}; ++p) {
    const {{in0_t}}* xp = x + p * {{ISIZE}};
    for (int32_t od = 0; od < {{OD}}; ++od) {
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          {{in0_t}} best = {{lowest}};
          int32_t at = -1;
          const int32_t o = p * {{OSIZE}} + (od * {{OH}} + oh) * {{OW}} + ow;
          for (int32_t kd = 0; kd < {{KD}}; ++kd) {
            const int32_t id = od * {{SD}} - {{PD}} + kd * {{DD}};
            if (id < 0 || id >= {{ID}}) continue;
            for (int32_t kh = 0; kh < {{KH}}; ++kh) {
              const int32_t ih = oh * {{SH}} - {{PH}} + kh * {{DH}};
              if (ih < 0 || ih >= {{IH}}) continue;
              for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                const int32_t iw = ow * {{SW}} - {{PW}} + kw * {{DW}};
                const {{in0_t}}* xv;
                if (iw < 0 || iw >= {{IW}}) continue;
                xv = xp + (id * {{IH}} + ih) * {{IW}} + iw;
                if (at < 0 || *xv > best{{#nan}} || *xv != *xv{{/nan}}) {
                  best = *xv;
                  at = {{#col_major}}(iw * {{IH}} + ih) * {{ID}} + id{{/col_major}}{{^col_major}}(id * {{IH}} + ih) * {{IW}} + iw{{/col_major}};
                }
              }
            }
          }
          y[o] = best;{{#indices}}
          yi[o] = at < 0 ? -1 : (int64_t)p * {{ISIZE}} + at;{{/indices}}
        }
      }
    }
  }
}
