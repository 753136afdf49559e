/* 2-d Jacobi, two planes indexed by t % 2. */
#pragma scop
for (t = 0; t < T; t++)
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++)
      A[(t + 1) % 2][i][j] = 0.2 * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j]
                                    + A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
#pragma endscop
