/* QLinearAveragePool: x [P = N*C, ID, IH, IW] -> y [P, OD, OH, OW] (1-D and
 * 2-D have size-1 leading axes), int8/uint8, or int16 (16x8). The sum of
 * x - ZX over the window's taps inside x (int32; int64 for int16),
 * requantized by the (q, shift) of its count (`valid` taps, or with
 * count_include_pad `padded`: x_scale / (y_scale * count), baked per count;
 * mlip_requantize64 for int16), plus ZY, saturated. */
static void {{fn}}(const {{in0_t}}* restrict x, {{out0_t}}* restrict y) {
  static const int32_t qm[{{NQ}}] = { {{q_list}} };
  static const int32_t qs[{{NQ}}] = { {{shift_list}} };
  for (int32_t p = 0; p < {{P}}; ++p) {
    const {{in0_t}}* xp = x + p * {{ISIZE}};
    {{out0_t}}* yp = y + p * {{OSIZE}};
    for (int32_t od = 0; od < {{OD}}; ++od) {
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          {{acc_t}} sum = 0;
          int32_t valid = 0, padded = 0;
          for (int32_t kd = 0; kd < {{KD}}; ++kd) {
            const int32_t id = od * {{SD}} - {{PD}} + kd * {{DD}};
            const int in_d = id >= 0 && id < {{ID}};
            if (id >= {{ED}}) continue;
            for (int32_t kh = 0; kh < {{KH}}; ++kh) {
              const int32_t ih = oh * {{SH}} - {{PH}} + kh * {{DH}};
              const int in_h = ih >= 0 && ih < {{IH}};
              if (ih >= {{EH}}) continue;
              for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                const int32_t iw = ow * {{SW}} - {{PW}} + kw * {{DW}};
                if (iw >= {{EW}}) continue;
                ++padded;
                if (in_d && in_h && iw >= 0 && iw < {{IW}}) {
                  sum += ({{acc_t}})xp[(id * {{IH}} + ih) * {{IW}} + iw] - {{ZX}};
                  ++valid;
                }
              }
            }
          }
          (void)valid;
          (void)padded;
          yp[(od * {{OH}} + oh) * {{OW}} + ow] =
              ({{out0_t}}){{requantize}}(sum, qm[{{divisor}}], qs[{{divisor}}], {{ZY}}, {{LO}}, {{HI}});
        }
      }
    }
  }
}
