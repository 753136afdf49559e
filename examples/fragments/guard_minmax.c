/* loop bounds with min and max. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = max(0, i - 3); j <= min(M - 1, i + 3); j++)
    B[i][j] = A[i][j] + A[j][i];
#pragma endscop
