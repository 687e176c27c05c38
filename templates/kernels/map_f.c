/* y = f(x) element by element in one pass: mlip/kmath_f.h's map form
 * {{array_fn}} (the scalar function's bits; y may be x). */
static void {{fn}}({{params}}{{out0_t}}* {{y_restrict}}y) {
  {{array_fn}}(x0, y, {{n}});
}
