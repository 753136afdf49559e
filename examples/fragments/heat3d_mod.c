/* 3-d heat equation, 7-point stencil, two time planes. */
#pragma scop
for (t = 0; t < T; t++)
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++)
      for (k = 1; k < N - 1; k++)
        A[(t + 1) % 2][i][j][k] = 0.125 * (A[t % 2][i + 1][j][k] - 2.0 * A[t % 2][i][j][k] + A[t % 2][i - 1][j][k])
                                + 0.125 * (A[t % 2][i][j + 1][k] - 2.0 * A[t % 2][i][j][k] + A[t % 2][i][j - 1][k])
                                + 0.125 * (A[t % 2][i][j][k + 1] - 2.0 * A[t % 2][i][j][k] + A[t % 2][i][j][k - 1])
                                + A[t % 2][i][j][k];
#pragma endscop
