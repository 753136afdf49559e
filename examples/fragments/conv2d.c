/* 2-d convolution. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++) {
    o[i][j] = 0.0;
    for (p = 0; p < K; p++)
      for (q = 0; q < K; q++)
        o[i][j] += f[p][q] * x[i + p][j + q];
  }
#pragma endscop
