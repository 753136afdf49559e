/* an out-of-place transpose plus addition. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    C[i][j] = A[i][j] + A[j][i];
#pragma endscop
