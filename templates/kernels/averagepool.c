/* AveragePool: x [P = N*C, ID, IH, IW] -> y [P, OD, OH, OW] (1-D and 2-D
 * have size-1 leading axes). Sums the window's taps inside x in window order
 * and divides by their count (`valid`), or with count_include_pad by the
 * count of taps inside the padded extent (`padded`). */
static void {{fn}}(const float* x, float* y) {
  for (int32_t p = 0; p < {{P}}; ++p) {
    const float* xp = x + p * {{ISIZE}};
    float* yp = y + p * {{OSIZE}};
    for (int32_t od = 0; od < {{OD}}; ++od) {
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          float sum = 0.0f;
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
                  sum += xp[(id * {{IH}} + ih) * {{IW}} + iw];
                  ++valid;
                }
              }
            }
          }
          (void)valid;
          (void)padded;
          yp[(od * {{OH}} + oh) * {{OW}} + ow] = sum / (float){{divisor}};
        }
      }
    }
  }
}
