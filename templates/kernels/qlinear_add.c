/* QLinearAdd with TFLite's fixed-point arithmetic on mlip/kq8.h's
 * mlip_kq8_add (Helium, DSP or the portable reference, the same bits as
 * mlip_qadd_sum and mlip_requantize per element): the elementwise
 * template's broadcast loops over every (simplified) axis but the
 * innermost, and per row one call on its N outputs, x0 stepping by S0 and
 * x1 by S1 along it (1, or 0 where broadcast). An input with the output's
 * shape may share its bytes: the kernel reads element o before it writes
 * it. */
static void {{fn}}({{params}}{{out0_t}}* {{y_restrict}}y) {
  static const mlip_kq8_add_t q = { {{U8}}, {{ZA}}, {{QA}}, {{SA}}, {{ZB}}, {{QB}}, {{SB}}, {{Q}}, {{SHIFT}}, {{ZY}}, {{LO}}, {{HI}} };
  int32_t o = 0;
{{start}}{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
{{offsets}}{{/loops}}  mlip_kq8_add(&q, {{N}}, x0 + p0_{{D}}, {{S0}}, x1 + p1_{{D}}, {{S1}}, y + o);
  o += {{N}};
{{#loops}}  }
{{/loops}}}
