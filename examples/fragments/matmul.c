/* matrix multiplication, the classic Pluto input. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = 0; k < N; k++)
      C[i][j] = C[i][j] + A[i][k] * B[k][j];
#pragma endscop
