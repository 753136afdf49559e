/* a stencil reading the previous and next element of the same time plane. */
#pragma scop
for (t = 1; t < T; t++)
  for (i = 1; i < N - 1; i++)
    A[t][i] = A[t - 1][i - 1] + A[t - 1][i] + A[t - 1][i + 1] + 0.1 * A[t][i - 1];
#pragma endscop
