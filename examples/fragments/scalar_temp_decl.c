/* A scalar temporary declared in the loop body, as pet reads it. */
#pragma scop
for (i = 1; i < N - 1; i++)
  for (j = 1; j < M - 1; j++) {
    double t = A[i][j - 1] + A[i][j + 1];
    B[i][j] = 0.5 * t + 0.25 * (A[i - 1][j] + A[i + 1][j]);
  }
#pragma endscop
