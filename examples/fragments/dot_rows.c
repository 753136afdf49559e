/* per-row reduction into a scalar, stored after each row. */
#pragma scop
for (i = 0; i < N; i++) {
  s = 0.0;
  for (j = 0; j < M; j++)
    s = s + A[i][j] * x[j];
  y[i] = s;
}
#pragma endscop
