/* Cholesky-like factorisation, lower triangle. */
#pragma scop
for (j = 0; j < N; j++) {
  for (k = 0; k < j; k++)
    for (i = j; i < N; i++)
      A[i][j] = A[i][j] - A[i][k] * A[j][k];
  A[j][j] = sqrt(A[j][j] * A[j][j] + 1.0);
  for (i = j + 1; i < N; i++)
    A[i][j] = A[i][j] / A[j][j];
}
#pragma endscop
