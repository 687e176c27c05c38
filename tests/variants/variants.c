/* The shared randomized harness of the CPU kernels' variants
 * (docs/adding-an-operator.md, "Kernel variants"): for every kernel
 * registered below, random cases run through the portable reference and
 * through every variant compiled for this target (the kernel header's
 * MLIP_<KERNEL>_VARIANTS list, as mlip/kisa.h selects them from the
 * compiler's macros), and every output byte must be the same. One C99
 * program for every target: hosted_main.c runs it on x86-64 and AArch64
 * (qemu-aarch64), cortexm_start.c on Cortex-M55 and Cortex-M4 under
 * qemu-system-arm (semihosting); run_variants.sh builds and runs it.
 *
 * Every kernel's cases run twice: with the fixed-point requantization and
 * with onnxruntime's (--requant ort: float32 pairs, mlip/requant.h), which
 * the Helium, DSP and NEON variants hand to the reference.
 *
 * Output, one line per kernel:
 *   kernel MLIP_KQ8_GEMM dispatch mve variants mve dsp cases 400 same
 * or a line starting with FAIL naming the case (seed, index, sizes) and the
 * first byte that differs; variants_main returns non-zero then. No heap,
 * no stdio: buffers are static, text goes through variants_put. */
#include <stdint.h>
#include <string.h>

#include "mlip/kq8.h"

void variants_put(const char* s); /* the platform's: stdout or semihosting */
int variants_main(uint32_t cases, uint32_t seed);

/* ---- text ---------------------------------------------------------------- */

static char line_[512];
static size_t line_len_;

static void out_s(const char* s) {
  while (*s && line_len_ + 1 < sizeof line_) line_[line_len_++] = *s++;
  line_[line_len_] = 0;
}

static void out_i(int64_t v) {
  char buf[24];
  int i = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    buf[i++] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  } while (u);
  if (v < 0) buf[i++] = '-';
  while (i > 0) {
    char c[2];
    c[0] = buf[--i];
    c[1] = 0;
    out_s(c);
  }
}

static void out_kv(const char* k, int64_t v) {
  out_s(" ");
  out_s(k);
  out_s("=");
  out_i(v);
}

static void out_end(void) {
  out_s("\n");
  variants_put(line_);
  line_len_ = 0;
  line_[0] = 0;
}

/* ---- random numbers (xorshift64*, the same sequence on every target) ----- */

typedef struct {
  uint64_t s;
} rng_t;

static uint32_t rnd(rng_t* r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return (uint32_t)((r->s * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Uniform in [lo, hi] (hi - lo < 2^32). */
static int32_t pick(rng_t* r, int32_t lo, int32_t hi) {
  return (int32_t)((int64_t)lo + (int64_t)(rnd(r) % (uint32_t)((int64_t)hi - lo + 1)));
}

/* True with probability num / 100. */
static int chance(rng_t* r, int num) { return (int)(rnd(r) % 100u) < num; }

/* ---- kernel MLIP_KQ8_GEMM (mlip/kq8.h) ---------------------------------- */

typedef struct {
  mlip_kq8_gemm_fn fn;
  const char* name;
} gemm_variant_t;

typedef struct {
  mlip_kq8_dw_fn fn;
  const char* name;
} dw_variant_t;

typedef struct {
  mlip_kq8_dwc_fn fn;
  const char* name;
} dwc_variant_t;

#define VARIANT_ENTRY(f, n) {f, n},
static const gemm_variant_t gemm_variants[] = {MLIP_KQ8_GEMM_VARIANTS(VARIANT_ENTRY){0, 0}};
static const dw_variant_t dw_variants[] = {MLIP_KQ8_DW_VARIANTS(VARIANT_ENTRY){0, 0}};
static const dwc_variant_t dwc_variants[] = {MLIP_KQ8_DWC_VARIANTS(VARIANT_ENTRY){0, 0}};
#undef VARIANT_ENTRY

enum { XMAX = 6144, WMAX = 12288, YMAX = 6144, SMAX = 8192, MMAX = 256 };
static uint8_t x_[XMAX];
static uint8_t xcl_[XMAX]; /* x channels-last, for the layers that read it so */
static int8_t w_[WMAX];  /* the weights [m][icg * taps] */
static int8_t wp_[WMAX]; /* packed: rows padded to k */
static int32_t ch_[MLIP_KQ8_CH * MMAX];
static uint8_t y_ref_[YMAX], y_var_[YMAX], y_direct_[YMAX], y_tmp_[YMAX];
static uint8_t scratch_[SMAX]; /* A's rows, or the convolution's scratch */

/* The requantization of the cases being run: 0 fixed-point, 1 onnxruntime's. */
static int ort_;

/* A multiplier as the compiler makes them: 0 (rarely) or in [2^30, 2^31),
 * with a shift in [-31, 30], mostly right shifts of typical sizes; with
 * ort_, a float32 scale's bits (2^-24 to 2, any mantissa; rarely exactly
 * a power of two, where ties abound) and MLIP_REQUANT_F32. */
static void pick_requant(rng_t* r, int32_t* q, int32_t* shift) {
  const int kind = pick(r, 0, 19);
  if (ort_) {
    const uint32_t exponent = (uint32_t)pick(r, 127 - 24, 127 + 1), mantissa = kind < 3 ? 0u : rnd(r) & 0x7FFFFFu;
    *q = (int32_t)(exponent << 23 | mantissa);
    *shift = MLIP_REQUANT_F32;
    return;
  }
  *q = kind == 0 ? 0 : kind == 1 ? 1073741824 : kind == 2 ? 2147483647 : pick(r, 1073741824, 2147483647);
  *shift = chance(r, 70) ? pick(r, -14, 0) : chance(r, 50) ? pick(r, -31, -15) : pick(r, 1, 30);
}

/* A Q31 multiplier as the compiler makes them: 0 (rarely), 2^30, 2^31 - 1
 * or any in between. */
static int32_t kind_q(rng_t* r) {
  const int kind = pick(r, 0, 19);
  return kind == 0 ? 0 : kind == 1 ? 1073741824 : kind == 2 ? 2147483647 : pick(r, 1073741824, 2147483647);
}

/* The output's zero point and clamp: int8 or uint8 ranges, or a fused
 * Relu/Clip's narrower one; rarely any int32 values (lo <= hi). */
static void pick_output(rng_t* r, int32_t* zy, int32_t* lo, int32_t* hi) {
  const int u8 = chance(r, 50);
  *lo = u8 ? 0 : -128;
  *hi = u8 ? 255 : 127;
  *zy = u8 ? (chance(r, 50) ? 128 : pick(r, 0, 255)) : (chance(r, 50) ? -128 : pick(r, -128, 127));
  if (chance(r, 25)) *lo = *zy; /* a fused Relu */
  if (chance(r, 15)) *hi = pick(r, *lo, *hi);
  if (!ort_ && chance(r, 5)) { /* onnxruntime's arithmetic takes 8-bit ranges only */
    *zy = (int32_t)rnd(r);
    *lo = (int32_t)rnd(r);
    *hi = (int32_t)rnd(r);
    if (*lo > *hi) {
      const int32_t t = *lo;
      *lo = *hi;
      *hi = t;
    }
  }
}

static void fail_head(const char* kernel, const char* variant, const char* what, uint32_t seed, uint32_t index) {
  out_s("FAIL kernel ");
  out_s(kernel);
  out_s(" variant ");
  out_s(variant);
  out_s(" ");
  out_s(what);
  out_kv("seed", seed);
  out_kv("case", index);
  out_kv("ort", ort_);
}

static int first_difference(const uint8_t* a, const uint8_t* b, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return -1;
}

/* A product case: sizes that are not multiples of 4 or 16, uint8 and int8
 * data over their whole ranges, starts up to the precondition's limit (sums
 * near the int32 limits, so left shifts saturate), every multiplier and
 * shift the compiler can make. */
static int gemm_case(rng_t* r, uint32_t seed, uint32_t index) {
  /* P of 1 to 3 often: the rows the variants take one at a time (a
   * fully-connected layer of batch 1, the rows past a block). */
  const int32_t P = chance(r, 30) ? pick(r, 1, 3) : pick(r, 1, 11), M = pick(r, 1, 21), K = chance(r, 30) ? 16 * pick(r, 1, 6) : pick(r, 1, 150);
  const int32_t yp = chance(r, 50) ? 1 : M, ym = yp == 1 ? P : 1; /* either layout of y */
  const int32_t bound = 2147483647 - 16384 * K; /* |start| below this: no partial sum overflows */
  const uint32_t flip = chance(r, 50) ? 0x80u : 0u; /* uint8 or int8 data */
  int32_t zy, lo, hi, i, m;
  const gemm_variant_t* v;
  pick_output(r, &zy, &lo, &hi);
  for (i = 0; i < P * K; ++i) scratch_[i] = (uint8_t)pick(r, 0, 255);
  for (i = 0; i < M * K; ++i) wp_[i] = (int8_t)(chance(r, 5) ? (chance(r, 50) ? -128 : 127) : pick(r, -128, 127));
  for (m = 0; m < M; ++m) {
    int32_t* c = ch_ + MLIP_KQ8_CH * m;
    /* Starts up to the precondition's limit: sums near the int32 limits. */
    c[0] = chance(r, 15) ? (chance(r, 50) ? bound - 1 : 1 - bound) : pick(r, -(bound / 64), bound / 64);
    pick_requant(r, &c[1], &c[2]);
  }
  memset(y_ref_, 0xA5, sizeof y_ref_);
  mlip_kq8_gemm_ref(P, M, K, scratch_, flip, wp_, ch_, zy, lo, hi, y_ref_, yp, ym);
  for (v = gemm_variants; v->fn; ++v) {
    int at;
    memset(y_var_, 0xA5, sizeof y_var_);
    v->fn(P, M, K, scratch_, flip, wp_, ch_, zy, lo, hi, y_var_, yp, ym);
    at = first_difference(y_ref_, y_var_, P * M);
    if (at >= 0) {
      fail_head("MLIP_KQ8_GEMM", v->name, "product", seed, index);
      out_kv("P", P);
      out_kv("M", M);
      out_kv("K", K);
      out_kv("yp", yp);
      out_kv("flip", flip);
      out_kv("byte", at);
      out_kv("want", y_ref_[at]);
      out_kv("got", y_var_[at]);
      out_end();
      return 1;
    }
  }
  return 0;
}

/* QLinearConv by its definition (ops::eval_QLinearConv): per output, the
 * products (x - zx) * w over the taps inside x, the bias with saturation,
 * the requantization. */
static void direct_conv(const mlip_kq8_conv_t* d, const int32_t* q, const int32_t* shift, const int32_t* bias) {
  const int32_t icg = d->c / d->groups, ocg = d->m / d->groups;
  const int32_t osize = d->out[0] * d->out[1] * d->out[2];
  const int32_t taps = d->kernel[0] * d->kernel[1] * d->kernel[2];
  int32_t n, oc, od, oh, ow, ic, kd, kh, kw;
  for (n = 0; n < d->n; ++n)
    for (oc = 0; oc < d->m; ++oc)
      for (od = 0; od < d->out[0]; ++od)
        for (oh = 0; oh < d->out[1]; ++oh)
          for (ow = 0; ow < d->out[2]; ++ow) {
            int32_t acc = 0;
            for (ic = 0; ic < icg; ++ic)
              for (kd = 0; kd < d->kernel[0]; ++kd)
                for (kh = 0; kh < d->kernel[1]; ++kh)
                  for (kw = 0; kw < d->kernel[2]; ++kw) {
                    const int32_t id = od * d->stride[0] - d->pad[0] + kd * d->dilation[0];
                    const int32_t ih = oh * d->stride[1] - d->pad[1] + kh * d->dilation[1];
                    const int32_t iw = ow * d->stride[2] - d->pad[2] + kw * d->dilation[2];
                    uint8_t b;
                    int32_t xv;
                    if (id < 0 || id >= d->in[0] || ih < 0 || ih >= d->in[1] || iw < 0 || iw >= d->in[2]) continue;
                    b = x_[(((n * d->c + (oc / ocg) * icg + ic) * d->in[0] + id) * d->in[1] + ih) * d->in[2] + iw];
                    xv = d->x_u8 ? (int32_t)b : (int32_t)b - (b > 127 ? 256 : 0);
                    acc += (xv - d->zx) * w_[oc * icg * taps + (ic * d->kernel[0] + kd) * d->kernel[1] * d->kernel[2] +
                                              kh * d->kernel[2] + kw];
                  }
            acc = mlip_add_sat_i32(acc, bias[oc]);
            y_direct_[(n * d->m + oc) * osize + (od * d->out[1] + oh) * d->out[2] + ow] =
                (uint8_t)mlip_requantize(acc, q[oc], shift[oc], d->zy, d->lo, d->hi);
          }
}

/* y of a case stored channels-last (d->y_cl) back to [n, m, out...], in place. */
static void y_to_nchw(const mlip_kq8_conv_t* d, uint8_t* y) {
  const int32_t osize = d->out[0] * d->out[1] * d->out[2];
  int32_t n, m, p;
  if (!d->y_cl) return;
  for (n = 0; n < d->n; ++n)
    for (p = 0; p < osize; ++p)
      for (m = 0; m < d->m; ++m) y_tmp_[(n * d->m + m) * osize + p] = y[(n * osize + p) * d->m + m];
  memcpy(y, y_tmp_, (size_t)(d->n * d->m * osize));
}

/* Names a failed convolution case; returns 1. */
static int conv_failed(const mlip_kq8_conv_t* d, const char* kernel, const char* variant, const char* what,
                       uint32_t seed, uint32_t index, int at, const uint8_t* want, const uint8_t* got) {
  fail_head(kernel, variant, what, seed, index);
  out_kv("n", d->n);
  out_kv("c", d->c);
  out_kv("m", d->m);
  out_kv("groups", d->groups);
  out_kv("in", d->in[0] * 10000 + d->in[1] * 100 + d->in[2]);
  out_kv("kernel", d->kernel[0] * 10000 + d->kernel[1] * 100 + d->kernel[2]);
  out_kv("stride", d->stride[0] * 10000 + d->stride[1] * 100 + d->stride[2]);
  out_kv("dilation", d->dilation[0] * 10000 + d->dilation[1] * 100 + d->dilation[2]);
  out_kv("pad", d->pad[0] * 10000 + d->pad[1] * 100 + d->pad[2]);
  out_kv("k", d->k);
  out_kv("rows", d->rows);
  out_kv("banded", mlip_kq8_conv_banded(d));
  out_kv("x_u8", d->x_u8);
  out_kv("x_cl", d->x_cl);
  out_kv("y_cl", d->y_cl);
  out_kv("zx", d->zx);
  out_kv("byte", at);
  out_kv("want", want[at]);
  out_kv("got", got[at]);
  out_end();
  return 1;
}

/* A convolution case: 1-D to 3-D, batch up to 3, groups (depthwise too),
 * fully-connected layers, channel counts that are not multiples of 4 or 16, strides, pads,
 * dilations, uint8 input with zero point 128 (or another) and int8 with
 * -128 (or another), per-channel or per-tensor scales, with and without a
 * bias (and mlip_kq8_start's refusal of one that could saturate), rows
 * padded to 1, 4 or 16 bytes, 1 to 8 positions per product; the 1-D and
 * 2-D ones with a window of more than one tap gather from the channels-last
 * band (mlip_kq8_conv_banded, weights packed tap-major). Depthwise
 * layers (dw: only those, as MLIP_KQ8_DW's cases) also run through every
 * depthwise variant and its reference. */
static int conv_case(rng_t* r, uint32_t seed, uint32_t index, int dw) {
  mlip_kq8_conv_t d;
  int32_t q[MMAX], shift[MMAX], bias[MMAX];
  int32_t icg, ocg, taps, osize, xsize, a, m, i;
  const int dims = dw == 2 ? (chance(r, 70) ? 2 : 1) : chance(r, 70) ? 2 : chance(r, 50) ? 1 : 3;
  const int kind = dw ? 0 : pick(r, 0, 9); /* 0-1 depthwise, 2-3 grouped, 4 fully connected, else dense */
  const char* kernel = dw == 2 ? "MLIP_KQ8_DWC" : dw ? "MLIP_KQ8_DW" : "MLIP_KQ8_GEMM";
  const dw_variant_t* dv;
  const dwc_variant_t* dcv;
  const uint8_t* xin;
  const int32_t align = chance(r, 34) ? 1 : chance(r, 50) ? 4 : 16;
  const gemm_variant_t* v;
  int per_channel, has_bias, at;
  for (;;) {
    /* A quarter of the dense layers pointwise (1x1, stride 1, no pad): the
     * ones that read channels-last x as one product. */
    const int pw = kind >= 5 && chance(r, 25);
    d.n = pick(r, 1, 3);
    d.groups = kind < 2 ? pick(r, dw ? 2 : 1, 24) : kind < 4 ? pick(r, 2, 4) : 1;
    icg = kind < 2 ? 1 : kind == 4 ? pick(r, 1, 300) : pick(r, 1, dims == 3 ? 5 : 13);
    ocg = dw == 2 ? 1 : kind < 2 ? pick(r, 1, 2) : pick(r, 1, kind == 4 ? 40 : 19);
    d.c = d.groups * icg;
    d.m = d.groups * ocg;
    for (a = 0; a < 3; ++a) {
      const int spatial = a >= 3 - dims && kind != 4;
      int32_t k, dil, pb, pe;
      d.in[a] = spatial ? pick(r, 1, dims == 1 ? 24 : dims == 2 ? 11 : 5) : 1;
      k = spatial && !pw ? pick(r, 1, dims == 3 ? 3 : 5) : 1;
      dil = spatial ? pick(r, 1, 2) : 1;
      pb = spatial ? pick(r, 0, k - 1) : 0;
      pe = spatial ? pick(r, 0, k - 1) : 0;
      while (k > 1 && (k - 1) * dil + 1 > d.in[a] + pb + pe) --k; /* the window fits the padded input */
      if (k == 1) pb = pe = 0;
      d.kernel[a] = k;
      d.dilation[a] = dil;
      d.stride[a] = spatial && !pw ? pick(r, 1, 3) : 1;
      d.pad[a] = pb;
      d.out[a] = (d.in[a] + pb + pe - (k - 1) * dil - 1) / d.stride[a] + 1;
    }
    taps = icg * d.kernel[0] * d.kernel[1] * d.kernel[2];
    d.k = (taps + align - 1) / align * align; /* a fully-connected layer with k == c reads x itself */
    /* Channels-last tensors, as the compiler may store them: x where the
     * layer reads it so (a depthwise layer's y then too, or not), y of any
     * layer; rows of exactly c bytes for a pointwise layer on such x,
     * exactly the taps for a depthwise one (as the compiler makes them). */
    d.x_cl = mlip_kq8_conv_reads_cl(&d) && (dw == 2 || chance(r, 50));
    d.y_cl = mlip_kq8_conv_depthwise(&d) && !d.x_cl ? 0 : chance(r, d.x_cl ? 70 : 40);
    if (d.x_cl && mlip_kq8_conv_pointwise(&d)) d.k = d.c;
    if (d.x_cl && mlip_kq8_conv_depthwise(&d)) d.k = taps;
    d.rows = pick(r, 1, 8);
    osize = d.out[0] * d.out[1] * d.out[2];
    xsize = d.n * d.c * d.in[0] * d.in[1] * d.in[2];
    if (xsize <= XMAX && d.m * d.k <= WMAX && d.m * taps <= WMAX && d.n * d.m * osize <= YMAX &&
        mlip_kq8_conv_scratch(&d) + mlip_kq8_conv_band(&d) <= SMAX && d.m <= MMAX)
      break;
  }
  d.x_u8 = chance(r, 50);
  d.zx = d.x_u8 ? (chance(r, 60) ? 128 : pick(r, 0, 255)) : (chance(r, 60) ? -128 : pick(r, -128, 127));
  pick_output(r, &d.zy, &d.lo, &d.hi);
  per_channel = chance(r, 60);
  has_bias = chance(r, 70);
  for (i = 0; i < xsize; ++i) x_[i] = (uint8_t)pick(r, 0, 255);
  {
    const int32_t isize = d.in[0] * d.in[1] * d.in[2];
    int32_t n, c, p;
    for (n = 0; n < d.n; ++n)
      for (c = 0; c < d.c; ++c)
        for (p = 0; p < isize; ++p) xcl_[(n * isize + p) * d.c + c] = x_[(n * d.c + c) * isize + p];
  }
  memset(wp_, 0, sizeof wp_);
  for (i = 0; i < d.m * taps; ++i) w_[i] = (int8_t)pick(r, -128, 127);
  for (m = 0; m < d.m; ++m) {
    int refused, fits;
    if (per_channel || m == 0) {
      pick_requant(r, &q[m], &shift[m]);
      if (shift[m] > 0 && shift[m] != MLIP_REQUANT_F32 && chance(r, 80)) shift[m] = -shift[m]; /* left shifts saturate most outputs: fewer */
    } else {
      q[m] = q[0];
      shift[m] = shift[0];
    }
    /* Real biases, and rarely one so large that QLinearConv's saturating
     * add could saturate: mlip_kq8_start must refuse it (the compiler
     * then keeps the direct loops), and the case is not run. */
    bias[m] = !has_bias ? 0 : chance(r, 98) ? pick(r, -30000, 30000) : (int32_t)rnd(r);
    if (d.x_cl && mlip_kq8_conv_depthwise(&d)) { /* tap-major, [kh][kw][m] */
      for (i = 0; i < taps; ++i) wp_[i * d.m + m] = w_[m * taps + i];
    } else if (mlip_kq8_conv_banded(&d)) { /* tap-major rows, [kh][kw][ic], as the compiler packs them */
      const int32_t ktaps = taps / icg;
      for (i = 0; i < taps; ++i) wp_[m * d.k + i % ktaps * icg + i / ktaps] = w_[m * taps + i];
    } else {
      memcpy(wp_ + m * d.k, w_ + m * taps, (size_t)taps);
    }
    refused = mlip_kq8_start(d.x_cl && mlip_kq8_conv_depthwise(&d) ? w_ + m * taps : wp_ + m * d.k, d.k, d.x_u8,
                             d.zx, bias[m], &ch_[MLIP_KQ8_CH * m]) != 0;
    {
      int64_t sum = 0, start;
      for (i = 0; i < taps; ++i) sum += w_[m * taps + i];
      start = ((d.x_u8 ? 128 : 0) - (int64_t)d.zx) * sum + bias[m];
      fits = (bias[m] < 0 ? -(int64_t)bias[m] : (int64_t)bias[m]) + 32640 * (int64_t)d.k <= INT32_MAX &&
             (start < 0 ? -start : start) + 16384 * (int64_t)d.k <= INT32_MAX;
    }
    if (refused != !fits) {
      fail_head(kernel, "ref", "mlip_kq8_start", seed, index);
      out_kv("bias", bias[m]);
      out_kv("k", d.k);
      out_kv("refused", refused);
      out_end();
      return 1;
    }
    if (refused) return 0;
    ch_[MLIP_KQ8_CH * m + 1] = q[m];
    ch_[MLIP_KQ8_CH * m + 2] = shift[m];
  }
  direct_conv(&d, q, shift, bias);
  xin = d.x_cl ? xcl_ : x_;
  memset(y_ref_, 0xA5, sizeof y_ref_);
  if (d.x_cl && mlip_kq8_conv_depthwise(&d))
    mlip_kq8_dwc_with(&d, xin, wp_, ch_, y_ref_, scratch_, mlip_kq8_dwc_ref);
  else
    mlip_kq8_conv_with(&d, xin, wp_, ch_, y_ref_, scratch_, mlip_kq8_gemm_ref);
  y_to_nchw(&d, y_ref_);
  /* The decomposition itself (start term, padding value, im2col) against
   * the operator's definition; then what the generated code calls, and
   * every variant, against the reference. */
  at = first_difference(y_direct_, y_ref_, d.n * d.m * osize);
  if (at >= 0)
    return conv_failed(&d, kernel, "ref", "convolution vs QLinearConv's definition", seed, index, at, y_direct_,
                       y_ref_);
  memset(y_var_, 0xA5, sizeof y_var_);
  mlip_kq8_conv(&d, xin, wp_, ch_, y_var_, scratch_);
  y_to_nchw(&d, y_var_);
  at = first_difference(y_ref_, y_var_, d.n * d.m * osize);
  if (at >= 0)
    return conv_failed(&d, d.x_cl && mlip_kq8_conv_depthwise(&d) ? "MLIP_KQ8_DWC"
                           : mlip_kq8_conv_depthwise(&d)          ? "MLIP_KQ8_DW"
                                                                  : "MLIP_KQ8_GEMM",
                       d.x_cl && mlip_kq8_conv_depthwise(&d) ? MLIP_KQ8_DWC_NAME
                           : mlip_kq8_conv_depthwise(&d)     ? MLIP_KQ8_DW_NAME
                                                             : MLIP_KQ8_GEMM_NAME,
                       "convolution (mlip_kq8_conv)", seed, index, at, y_ref_, y_var_);
  if (d.x_cl && mlip_kq8_conv_depthwise(&d)) {
    /* The channels-last depthwise kernel's variants on the band. */
    for (dcv = dwc_variants; dcv->fn; ++dcv) {
      memset(y_var_, 0xA5, sizeof y_var_);
      mlip_kq8_dwc_with(&d, xin, wp_, ch_, y_var_, scratch_, dcv->fn);
      y_to_nchw(&d, y_var_);
      at = first_difference(y_ref_, y_var_, d.n * d.m * osize);
      if (at >= 0) return conv_failed(&d, "MLIP_KQ8_DWC", dcv->name, "depthwise, channels-last", seed, index, at,
                                      y_ref_, y_var_);
    }
    return 0;
  }
  for (v = gemm_variants; v->fn; ++v) {
    memset(y_var_, 0xA5, sizeof y_var_);
    mlip_kq8_conv_with(&d, xin, wp_, ch_, y_var_, scratch_, v->fn);
    y_to_nchw(&d, y_var_);
    at = first_difference(y_ref_, y_var_, d.n * d.m * osize);
    if (at >= 0) return conv_failed(&d, kernel, v->name, "convolution", seed, index, at, y_ref_, y_var_);
  }
  if (!mlip_kq8_conv_depthwise(&d)) return 0;
  /* The depthwise kernel's reference and variants on the padded planes. */
  memset(y_var_, 0xA5, sizeof y_var_);
  mlip_kq8_dw_with(&d, xin, wp_, ch_, y_var_, scratch_, mlip_kq8_dw_ref);
  at = first_difference(y_ref_, y_var_, d.n * d.m * osize);
  if (at >= 0) return conv_failed(&d, "MLIP_KQ8_DW", "ref", "depthwise", seed, index, at, y_ref_, y_var_);
  for (dv = dw_variants; dv->fn; ++dv) {
    memset(y_var_, 0xA5, sizeof y_var_);
    mlip_kq8_dw_with(&d, xin, wp_, ch_, y_var_, scratch_, dv->fn);
    at = first_difference(y_ref_, y_var_, d.n * d.m * osize);
    if (at >= 0) return conv_failed(&d, "MLIP_KQ8_DW", dv->name, "depthwise", seed, index, at, y_ref_, y_var_);
  }
  return 0;
}

static int run_kq8_gemm(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  const gemm_variant_t* v;
  for (ort_ = 0; ort_ <= 1; ++ort_) {
    r.s = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed << 1 | 1u) ^ (uint64_t)ort_ << 40;
    for (i = 0; i < cases; ++i)
      if (gemm_case(&r, seed, i) || conv_case(&r, seed, i, 0)) return 1;
  }
  ort_ = 0;
  out_s("kernel MLIP_KQ8_GEMM dispatch ");
  out_s(MLIP_KQ8_GEMM_NAME);
  out_s(" variants");
  for (v = gemm_variants; v->fn; ++v) {
    out_s(" ");
    out_s(v->name);
  }
  out_s(" cases ");
  out_i((int64_t)cases * 4);
  out_s(" same");
  out_end();
  return 0;
}

/* ---- kernel MLIP_KQ8_DW (mlip/kq8.h) ------------------------------------ */

/* Depthwise convolutions only (the product's cases have a few too). */
static int run_kq8_dw(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  const dw_variant_t* v;
  for (ort_ = 0; ort_ <= 1; ++ort_) {
    r.s = 0xD1B54A32D192ED03ULL ^ ((uint64_t)seed << 1 | 1u) ^ (uint64_t)ort_ << 40;
    for (i = 0; i < cases; ++i)
      if (conv_case(&r, seed, i, 1)) return 1;
  }
  ort_ = 0;
  out_s("kernel MLIP_KQ8_DW dispatch ");
  out_s(MLIP_KQ8_DW_NAME);
  out_s(" variants");
  for (v = dw_variants; v->fn; ++v) {
    out_s(" ");
    out_s(v->name);
  }

  out_s(" cases ");
  out_i((int64_t)cases * 2);
  out_s(" same");
  out_end();
  return 0;
}

/* ---- kernel MLIP_KQ8_DWC (mlip/kq8.h) ----------------------------------- */

/* Depthwise convolutions of one output channel per input channel, 1-D and
 * 2-D, on channels-last x (y either way): mlip_kq8_dwc_with's band and
 * the channels-last kernel's reference and variants. */
static int run_kq8_dwc(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  const dwc_variant_t* v;
  for (ort_ = 0; ort_ <= 1; ++ort_) {
    r.s = 0x8CB92BA72F3D8DD7ULL ^ ((uint64_t)seed << 1 | 1u) ^ (uint64_t)ort_ << 40;
    for (i = 0; i < cases; ++i)
      if (conv_case(&r, seed, i, 2)) return 1;
  }
  ort_ = 0;
  out_s("kernel MLIP_KQ8_DWC dispatch ");
  out_s(MLIP_KQ8_DWC_NAME);
  out_s(" variants");
  for (v = dwc_variants; v->fn; ++v) {
    out_s(" ");
    out_s(v->name);
  }
  out_s(" cases ");
  out_i((int64_t)cases * 2);
  out_s(" same");
  out_end();
  return 0;
}

/* ---- kernel MLIP_KQ8_ADD (mlip/kq8.h) ----------------------------------- */

typedef struct {
  mlip_kq8_add_fn fn;
  const char* name;
} add_variant_t;

#define VARIANT_ENTRY(f, n) {f, n},
static const add_variant_t add_variants[] = {MLIP_KQ8_ADD_VARIANTS(VARIANT_ENTRY){0, 0}};
#undef VARIANT_ENTRY

/* A QLinearAdd case: y [N, C, H, W] = A + B, each of A and B broadcast on
 * any of the four axes (size 1 there), batch up to 3, channel and row
 * counts that are not multiples of 4 or 16, int8 or uint8 with zero points
 * -128 / 128 or others, the inputs' multipliers as ops::add_requant makes
 * them (the larger scale's exactly 1/2: (2^30, 0); the other at most 1/2),
 * every output (q, shift), and scales under which one unit of the sum or a
 * tie in an input's rounding changes the output; sometimes in place (y on
 * A's bytes). As the
 * generated code calls it (templates/kernels/qlinear_add.c): one run per
 * row of W, A and B stepping by 1 or 0 along it. The definition: per
 * element mlip_qadd_sum and mlip_requantize. */
static int add_case(rng_t* r, uint32_t seed, uint32_t index) {
  mlip_kq8_add_t p;
  int32_t out[4], ia[4], ib[4], sa_[3], sb_[3], i, a4, n, c, h, w, total;
  const int in_place = chance(r, 20);
  const add_variant_t* v;
  int variant;
  do {
    for (a4 = 0; a4 < 4; ++a4) {
      out[a4] = a4 == 0 ? pick(r, 1, 3) : a4 == 1 ? pick(r, 1, 19) : a4 == 2 ? pick(r, 1, 5) : pick(r, 1, 37);
      ia[a4] = in_place || chance(r, 70) ? out[a4] : 1;
      ib[a4] = chance(r, 70) ? out[a4] : 1;
    }
    total = out[0] * out[1] * out[2] * out[3];
  } while (total > YMAX);
  /* Strides of the outer axes: the row-major strides of A's and B's own shapes. */
  sa_[2] = ia[2] > 1 ? ia[3] : 0;
  sa_[1] = ia[1] > 1 ? ia[2] * ia[3] : 0;
  sa_[0] = ia[0] > 1 ? ia[1] * ia[2] * ia[3] : 0;
  sb_[2] = ib[2] > 1 ? ib[3] : 0;
  sb_[1] = ib[1] > 1 ? ib[2] * ib[3] : 0;
  sb_[0] = ib[0] > 1 ? ib[1] * ib[2] * ib[3] : 0;
  p.u8 = chance(r, 50);
  p.za = p.u8 ? (chance(r, 50) ? 128 : pick(r, 0, 255)) : (chance(r, 50) ? -128 : pick(r, -128, 127));
  p.zb = p.u8 ? (chance(r, 50) ? 128 : pick(r, 0, 255)) : (chance(r, 50) ? -128 : pick(r, -128, 127));
  {
    const int larger_a = chance(r, 50);
    int32_t q, sh;
    q = kind_q(r);
    sh = chance(r, 80) ? pick(r, -4, 0) : pick(r, -31, 0);
    if (q == 1073741824 && sh == 0 && chance(r, 50)) sh = -1;
    p.qa = larger_a ? 1073741824 : q;
    p.sa = larger_a ? 0 : sh;
    p.qb = larger_a ? q : 1073741824;
    p.sb = larger_a ? sh : 0;
    if (chance(r, 10)) { /* equal scales */
      p.qa = p.qb = 1073741824;
      p.sa = p.sb = 0;
    }
  }
  p.q = kind_q(r);
  p.shift = chance(r, 80) ? pick(r, -24, -12) : chance(r, 70) ? pick(r, -31, 0) : pick(r, 1, 30);
  if (chance(r, 30)) {
    /* Sums small enough that the output sees their last bit, and ties in
     * the inputs' rounding shifts (a multiplier of 1/2 and a shift near
     * -20 halve d: a tie for every odd d), which real layers' scales hide. */
    p.qa = chance(r, 60) ? 1073741824 : kind_q(r);
    p.sa = pick(r, -21, -19);
    p.qb = chance(r, 60) ? 1073741824 : kind_q(r);
    p.sb = pick(r, -21, -19);
    p.q = chance(r, 50) ? 1073741824 : kind_q(r);
    p.shift = pick(r, -2, 1);
  }
  pick_output(r, &p.zy, &p.lo, &p.hi);
  for (i = 0; i < ia[0] * ia[1] * ia[2] * ia[3]; ++i) x_[i] = (uint8_t)(chance(r, 5) ? (chance(r, 50) ? 0 : 255) : pick(r, 0, 255));
  for (i = 0; i < ib[0] * ib[1] * ib[2] * ib[3]; ++i)
    scratch_[i] = (uint8_t)(chance(r, 5) ? (chance(r, 50) ? 0x80 : 0x7F) : pick(r, 0, 255));
  /* The definition. */
  for (n = 0, i = 0; n < out[0]; ++n)
    for (c = 0; c < out[1]; ++c)
      for (h = 0; h < out[2]; ++h)
        for (w = 0; w < out[3]; ++w, ++i) {
          const int32_t oa = n * sa_[0] + c * sa_[1] + h * sa_[2] + w * (ia[3] > 1);
          const int32_t ob = n * sb_[0] + c * sb_[1] + h * sb_[2] + w * (ib[3] > 1);
          const int32_t s = mlip_qadd_sum(mlip_kq8_value(x_, oa, p.u8) - p.za, p.qa, p.sa,
                                          mlip_kq8_value(scratch_, ob, p.u8) - p.zb, p.qb, p.sb);
          y_direct_[i] = (uint8_t)mlip_requantize(s, p.q, p.shift, p.zy, p.lo, p.hi);
        }
  /* The reference (-1), then every variant, as the template calls them. */
  for (variant = -1, v = add_variants; variant < 0 || v->fn; ++variant) {
    const mlip_kq8_add_fn fn = variant < 0 ? mlip_kq8_add_ref : v->fn;
    const char* name = variant < 0 ? "ref" : v->name;
    uint8_t* y = y_var_;
    const uint8_t* xa = x_;
    memset(y_var_, 0xA5, sizeof y_var_);
    if (in_place) { /* A has y's shape: y takes A's bytes */
      memcpy(y_var_, x_, (size_t)total);
      xa = y_var_;
    }
    for (n = 0; n < out[0]; ++n)
      for (c = 0; c < out[1]; ++c)
        for (h = 0; h < out[2]; ++h) {
          const int32_t row = ((n * out[1] + c) * out[2] + h) * out[3];
          fn(&p, out[3], xa + n * sa_[0] + c * sa_[1] + h * sa_[2], ia[3] > 1, scratch_ + n * sb_[0] + c * sb_[1] + h * sb_[2],
             ib[3] > 1, y + row);
        }
    {
      const int at = first_difference(y_direct_, y, total);
      if (at >= 0) {
        fail_head("MLIP_KQ8_ADD", name, variant < 0 ? "add vs its definition" : "add", seed, index);
        out_kv("out", ((out[0] * 100 + out[1]) * 100 + out[2]) * 100 + out[3]);
        out_kv("a", ((ia[0] * 100 + ia[1]) * 100 + ia[2]) * 100 + ia[3]);
        out_kv("b", ((ib[0] * 100 + ib[1]) * 100 + ib[2]) * 100 + ib[3]);
        out_kv("u8", p.u8);
        out_kv("in_place", in_place);
        out_kv("byte", at);
        out_kv("want", y_direct_[at]);
        out_kv("got", y[at]);
        out_end();
        return 1;
      }
    }
    if (variant >= 0) ++v;
  }
  return 0;
}

static int run_kq8_add(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  const add_variant_t* v;
  r.s = 0xA0761D6478BD642FULL ^ ((uint64_t)seed << 1 | 1u);
  for (i = 0; i < 2 * cases; ++i)
    if (add_case(&r, seed, i)) return 1;
  out_s("kernel MLIP_KQ8_ADD dispatch ");
  out_s(MLIP_KQ8_ADD_NAME);
  out_s(" variants");
  for (v = add_variants; v->fn; ++v) {
    out_s(" ");
    out_s(v->name);
  }
  out_s(" cases ");
  out_i((int64_t)cases * 2);
  out_s(" same");
  out_end();
  return 0;
}

/* ---- kernel MLIP_KQ8_GAP (mlip/kq8.h) ----------------------------------- */

typedef struct {
  mlip_kq8_gap_fn fn;
  const char* name;
} gap_variant_t;

#define VARIANT_ENTRY(f, n) {f, n},
static const gap_variant_t gap_variants[] = {MLIP_KQ8_GAP_VARIANTS(VARIANT_ENTRY){0, 0}};
#undef VARIANT_ENTRY

/* A QLinearGlobalAveragePool case: N * C planes (batch up to 3) of sizes
 * that are not multiples of 4 or 16 (1 to 300 bytes; 16 * k too), int8 or
 * uint8 over their whole ranges with zero points -128 / 128 or others,
 * every requantization of either arithmetic. */
static int gap_case(rng_t* r, uint32_t seed, uint32_t index) {
  const int32_t planes = pick(r, 1, 3) * pick(r, 1, 20), size = chance(r, 25) ? 16 * pick(r, 1, 6) : pick(r, 1, 300);
  const int32_t u8 = chance(r, 50);
  const int32_t zx = u8 ? (chance(r, 50) ? 128 : pick(r, 0, 255)) : (chance(r, 50) ? -128 : pick(r, -128, 127));
  int32_t q, shift, zy, lo, hi, i;
  const gap_variant_t* v;
  if (planes * size > XMAX) return 0;
  pick_requant(r, &q, &shift);
  pick_output(r, &zy, &lo, &hi);
  for (i = 0; i < planes * size; ++i) x_[i] = (uint8_t)(chance(r, 5) ? (chance(r, 50) ? 0 : 255) : pick(r, 0, 255));
  memset(y_ref_, 0xA5, sizeof y_ref_);
  mlip_kq8_gap_ref(planes, size, x_, u8, zx, q, shift, zy, lo, hi, y_ref_);
  for (v = gap_variants; v->fn; ++v) {
    int at;
    memset(y_var_, 0xA5, sizeof y_var_);
    v->fn(planes, size, x_, u8, zx, q, shift, zy, lo, hi, y_var_);
    at = first_difference(y_ref_, y_var_, planes);
    if (at >= 0) {
      fail_head("MLIP_KQ8_GAP", v->name, "global average pool", seed, index);
      out_kv("planes", planes);
      out_kv("size", size);
      out_kv("u8", u8);
      out_kv("zx", zx);
      out_kv("byte", at);
      out_kv("want", y_ref_[at]);
      out_kv("got", y_var_[at]);
      out_end();
      return 1;
    }
  }
  return 0;
}

static int run_kq8_gap(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  const gap_variant_t* v;
  for (ort_ = 0; ort_ <= 1; ++ort_) {
    r.s = 0x8EBC6AF09C88C6E3ULL ^ ((uint64_t)seed << 1 | 1u) ^ (uint64_t)ort_ << 40;
    for (i = 0; i < cases; ++i)
      if (gap_case(&r, seed, i)) return 1;
  }
  ort_ = 0;
  out_s("kernel MLIP_KQ8_GAP dispatch ");
  out_s(MLIP_KQ8_GAP_NAME);
  out_s(" variants");
  for (v = gap_variants; v->fn; ++v) {
    out_s(" ");
    out_s(v->name);
  }
  out_s(" cases ");
  out_i((int64_t)cases * 2);
  out_s(" same");
  out_end();
  return 0;
}

/* ---- the DSP variants' 32-bit requantization (mlip/kq8_dsp.h) ------------ */

#if MLIP_HAVE_DSP
/* mlip_kq8_requant_dsp against mlip_requantize, and mlip_kq8_rshift_dsp and
 * the SMMULR form of QLinearAdd's input scaling (mlip_kq8_add_in_dsp)
 * against mlip/requant.h's steps: accumulators at and near the int32 limits
 * (INT32_MIN, where the reference's doubling high multiply saturates only
 * for q = INT32_MIN, never made) and at +-2^30 (where doubling leaves int32),
 * every shift in [-31, 30], multipliers 0, 2^30, 2^31 - 1 and random; every
 * d in [-255, 255] for the SMMULR form. */
static int32_t edge_acc(rng_t* r) {
  static const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 1073741824, 1073741823,
                                  -1073741824, -1073741825, 0, 1, -1, 2, -2};
  const int k = pick(r, 0, 9);
  if (k < 3) return edges[pick(r, 0, (int32_t)(sizeof edges / sizeof edges[0]) - 1)];
  if (k < 6) return (int32_t)rnd(r);
  return pick(r, -70000, 70000) << pick(r, 0, 14);
}

static int run_requant_dsp(uint32_t cases, uint32_t seed) {
  rng_t r;
  uint32_t i;
  int32_t shift, d;
  r.s = 0xE7037ED1A0B428DBULL ^ ((uint64_t)seed << 1 | 1u);
  for (i = 0; i < 2 * cases; ++i)
    for (shift = MLIP_REQUANT_MIN_SHIFT; shift <= MLIP_REQUANT_MAX_SHIFT; ++shift) {
      const int32_t acc = edge_acc(&r), q = kind_q(&r);
      int32_t zy, lo, hi, want, got;
      pick_output(&r, &zy, &lo, &hi);
      want = mlip_requantize(acc, q, shift, zy, lo, hi);
      got = mlip_kq8_requant_dsp(acc, q, shift, zy, lo, hi);
      if (want == got && shift < 0 && acc != INT32_MIN && acc != INT32_MAX) { /* rshift's precondition */
        want = mlip_rounding_shift_right(acc, -shift);
        got = mlip_kq8_rshift_dsp(acc, shift);
      }
      if (want != got) {
        fail_head("MLIP_KQ8_REQUANT_DSP", "dsp", "requantization", seed, i);
        out_kv("acc", acc);
        out_kv("q", q);
        out_kv("shift", shift);
        out_kv("want", want);
        out_kv("got", got);
        out_end();
        return 1;
      }
    }
  for (i = 0; i < cases / 50 + 1; ++i)
    for (shift = -31; shift <= 0; ++shift) {
      const int32_t q = kind_q(&r);
      for (d = -255; d <= 255; ++d) {
        const int32_t want = mlip_multiply_by_quantized_multiplier(d * ((int32_t)1 << MLIP_QADD_LEFT_SHIFT), q, shift);
        const int32_t got = mlip_kq8_add_in_dsp(d, q, shift);
        if (want != got) {
          fail_head("MLIP_KQ8_REQUANT_DSP", "dsp", "SMMULR input scaling", seed, i);
          out_kv("d", d);
          out_kv("q", q);
          out_kv("shift", shift);
          out_kv("want", want);
          out_kv("got", got);
          out_end();
          return 1;
        }
      }
    }
  out_s("kernel MLIP_KQ8_REQUANT_DSP (mlip_kq8_requant_dsp, mlip_kq8_rshift_dsp, mlip_kq8_add_in_dsp) cases ");
  out_i((int64_t)cases * 2 * 62 + ((int64_t)cases / 50 + 1) * 32 * 511);
  out_s(" same");
  out_end();
  return 0;
}
#endif

/* ---- the registry: every kernel with variants ---------------------------- */

typedef struct {
  const char* name; /* the kernel header's MLIP_<KERNEL>_VARIANTS list, less _VARIANTS */
  int (*run)(uint32_t cases, uint32_t seed);
} kernel_test_t;

static const kernel_test_t kernels[] = {
    {"MLIP_KQ8_GEMM", run_kq8_gemm},
    {"MLIP_KQ8_DW", run_kq8_dw},
    {"MLIP_KQ8_DWC", run_kq8_dwc},
    {"MLIP_KQ8_ADD", run_kq8_add},
    {"MLIP_KQ8_GAP", run_kq8_gap},
#if MLIP_HAVE_DSP
    {"MLIP_KQ8_REQUANT_DSP", run_requant_dsp},
#endif
};

int variants_main(uint32_t cases, uint32_t seed) {
  size_t i;
  int failed = 0;
  for (i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) failed |= kernels[i].run(cases, seed);
  out_s(failed ? "variants: FAILED" : "variants: all same");
  out_end();
  return failed;
}
