/* 1-d Gauss-Seidel in place. */
#pragma scop
for (t = 0; t < T; t++)
  for (i = 1; i < N - 1; i++)
    a[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
#pragma endscop
