/* Throughput of mlip/kmath.h's expf, tanhf, sigmoid and logf against the C
 * library's (and the float sigmoid 1/(1+expf(-x)) the kernels used before),
 * and of mlip/kmath_f.h's float-precision exp_f, erf_f, sigmoid_f and tanh_f
 * (as calls: their array forms vectorize besides),
 * over 4096 inputs in the range Softmax/Sigmoid/Tanh/LSTM see, best of 5
 * passes; printed as ns per call. Built by bench/run.sh (-O2, host). */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "mlip/kmath.h"
#include "mlip/kmath_f.h"

#define N 4096
#ifndef REPS
#define REPS 400  /* bench/run.sh --short builds with -DREPS=4 */
#endif

static float g_x[N];
static volatile float g_sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float libc_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

static double ns_per_call(float (*f)(float)) {
  double best = 1e30;
  int pass, r, i;
  for (pass = 0; pass < 5; ++pass) {
    double t0 = now(), t;
    float acc = 0.0f;
    for (r = 0; r < REPS; ++r)
      for (i = 0; i < N; ++i) acc += f(g_x[i]);
    t = (now() - t0) * 1e9 / ((double)N * REPS);
    g_sink = acc;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  static const struct {
    const char* name;
    float (*mine)(float);
    float (*libc)(float);
  } fns[] = {{"expf", mlip_expf, expf},
             {"tanhf", mlip_tanhf, tanhf},
             {"sigmoid", mlip_sigmoidf, libc_sigmoid},
             {"logf", mlip_logf, logf},
             {"exp_f", mlip_exp_f, expf},
             {"erf_f", mlip_erf_f, erff},
             {"sigmoid_f", mlip_sigmoid_f, libc_sigmoid},
             {"tanh_f", mlip_tanh_f, tanhf}};
  unsigned s = 1;
  int i;
  size_t k;
  for (i = 0; i < N; ++i) {  /* [-10, 10); logf gets |x| */
    s = s * 1103515245u + 12345u;
    g_x[i] = -10.0f + 20.0f * (float)(s >> 8) / 16777216.0f;
  }
  printf("%-9s %14s %14s %8s\n", "function", "mlip ns/call", "libc ns/call", "ratio");
  for (k = 0; k < sizeof fns / sizeof *fns; ++k) {
    double a, b;
    if (fns[k].mine == mlip_exp_f)  /* back to [-10, 10) */
      for (i = 0; i < N; ++i) {
        s = s * 1103515245u + 12345u;
        g_x[i] = -10.0f + 20.0f * (float)(s >> 8) / 16777216.0f;
      }
    if (fns[k].mine == mlip_logf)
      for (i = 0; i < N; ++i) g_x[i] = fabsf(g_x[i]) + 1e-3f;
    a = ns_per_call(fns[k].mine);
    b = ns_per_call(fns[k].libc);
    printf("%-9s %14.2f %14.2f %8.2f\n", fns[k].name, a, b, a / b);
  }
  return 0;
}
