/* three time planes indexed by t % 3. */
#pragma scop
for (t = 2; t < T; t++)
  for (i = 1; i < N - 1; i++)
    A[t % 3][i] = A[(t - 1) % 3][i] + 0.5 * (A[(t - 2) % 3][i - 1] + A[(t - 2) % 3][i + 1]);
#pragma endscop
