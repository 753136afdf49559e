/* iterators of wide signed integer types. */
#pragma scop
for (long i = 0; i < N; i++)
  for (long long j = 0; j < i; j++)
    A[i][j] = A[j][i] + 1.0;
#pragma endscop
