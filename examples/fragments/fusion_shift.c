/* producer-consumer with a shifted read. */
#pragma scop
for (i = 1; i < N; i++)
  a[i] = b[i] * 3.0;
for (i = 1; i < N - 1; i++)
  c[i] = a[i + 1] - a[i - 1];
#pragma endscop
