/* symmetric rank-k update of the lower triangle. */
#pragma scop
for (i = 0; i < N; i++) {
  for (j = 0; j <= i; j++)
    C[i][j] = C[i][j] * 0.5;
  for (k = 0; k < M; k++)
    for (j = 0; j <= i; j++)
      C[i][j] += 1.5 * A[i][k] * A[j][k];
}
#pragma endscop
