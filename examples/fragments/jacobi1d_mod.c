/* 1-d Jacobi with a two-plane time dimension (modulo time index). */
#pragma scop
for (t = 0; t < T; t++)
  for (i = 1; i < N - 1; i++)
    A[(t + 1) % 2][i] = 0.33333 * (A[t % 2][i - 1] + A[t % 2][i] + A[t % 2][i + 1]);
#pragma endscop
