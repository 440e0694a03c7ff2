/* Call 215's probe: a quaternion slerp's steps on the GPU for pairs whose
 * dot product is 0 added one rounded step at a time and below 0 through
 * fused multiply-adds (found by test_quaternion_arc's search, seeds
 * 961116689 and 1123845421), beside the same steps on the host.  Built
 * there: nvcc -O2 -arch=sm_90 -I kernels arc_probe.cu. */
#include "resample-math.h"

#include <cstdio>

__global__ void
steps (const float *pairs, float *out, int n)
{
  int i = threadIdx.x;
  if (i >= n)
    return;
  float qa[4], qb[4], y[4];
  for (int k = 0; k < 4; k++) {
    qa[k] = pairs[i * 8 + k];
    qb[k] = pairs[i * 8 + 4 + k];
  }
  float *o = out + i * 16;
  o[0] = rc_rs_dot4_f (qa, qb);
  o[1] = rc_rs_dot4_f (qa, qa);
  o[2] = rc_rs_dot4_f (qb, qb);
  rc_rs_quat_slerp_f (qa, qb, 0.5f, y);
  for (int k = 0; k < 4; k++)
    o[4 + k] = y[k];
  rc_rs_quat_normalise_f (qa);
  rc_rs_quat_normalise_f (qb);
  o[3] = rc_rs_dot4_f (qa, qb);
  for (int k = 0; k < 4; k++) {
    o[8 + k] = qa[k];
    o[12 + k] = qb[k];
  }
}

int
main ()
{
  const float pairs[][2][4] = {
    {{-0x1.35f4a6p-3, -0x1.a5a79ep-1, 0x1.bf6b34p-2, -0x1.507506p-2},
        {0x1.3984p-2, -0x1.28e832p-3, -0x1.5546c6p-1, -0x1.53fce6p-1}},
    {{-0x1.6650cep-3, -0x1.4825dp-1, 0x1.be6ffap-4, 0x1.7a951p-1},
        {-0x1.a56502p-1, 0x1.eed4ccp-2, 0x1.d71fd4p-3, 0x1.8589c8p-3}},
    {{0x1.4969cep-1, 0x1.4c780cp-1, -0x1.697d7cp-3, -0x1.75c7fcp-2},
        {0x1.f17f3cp-2, 0x1.7e666ap-9, 0x1.669f4ap-1, 0x1.0bafbep-1}},
    {{0x1.5441b6p-2, -0x1.29b38p-3, 0x1.631898p-1, 0x1.3eb286p-1},
        {-0x1.a9cf2cp-1, 0x1.4e9256p-2, 0x1.1972aep-4, 0x1.c6594ep-2}},
  };
  const int n = sizeof (pairs) / sizeof (pairs[0]);
  float *d_pairs, *d_out, out[16 * 4];

  cudaMalloc (&d_pairs, sizeof (pairs));
  cudaMalloc (&d_out, sizeof (out));
  cudaMemcpy (d_pairs, pairs, sizeof (pairs), cudaMemcpyHostToDevice);
  steps <<<1, 32>>> (d_pairs, d_out, n);
  cudaError_t err = cudaMemcpy (out, d_out, sizeof (out),
      cudaMemcpyDeviceToHost);
  printf ("cuda: %s\n", cudaGetErrorString (err));
  for (int i = 0; i < n; i++) {
    float qa[4], qb[4], y[4];
    const float *o = out + i * 16;
    for (int k = 0; k < 4; k++) {
      qa[k] = pairs[i][0][k];
      qb[k] = pairs[i][1][k];
    }
    printf ("pair %d gpu: dot %a |a|2 %a |b|2 %a normalised dot %a\n", i,
        o[0], o[1], o[2], o[3]);
    printf ("  host: dot %a |a|2 %a |b|2 %a\n", rc_rs_dot4_f (qa, qb),
        rc_rs_dot4_f (qa, qa), rc_rs_dot4_f (qb, qb));
    rc_rs_quat_slerp_f (qa, qb, 0.5f, y);
    printf ("  slerp gpu %.9g %.9g %.9g %.9g host %.9g %.9g %.9g %.9g\n",
        o[4], o[5], o[6], o[7], y[0], y[1], y[2], y[3]);
    for (int k = 0; k < 4; k++)
      if (o[8 + k] != pairs[i][0][k] || o[12 + k] != pairs[i][1][k])
        printf ("  normalised on the GPU: component %d %a %a\n", k,
            o[8 + k], o[12 + k]);
  }
  return 0;
}
