/* matrix multiplication with initialisation (imperfect nest). */
#pragma scop
for (i = 0; i < M; i++)
  for (j = 0; j < N; j++) {
    C[i][j] = 0;
    for (k = 0; k < K; k++)
      C[i][j] += A[i][k] * B[k][j];
  }
#pragma endscop
