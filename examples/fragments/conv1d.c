/* 1-d convolution with a filter. */
#pragma scop
for (i = 0; i < N; i++) {
  out[i] = 0.0;
  for (k = 0; k < K; k++)
    out[i] += w[k] * in[i + k];
}
#pragma endscop
