/* iterators of narrow signed types. */
#pragma scop
for (short i = 0; i < N; i++)
  for (signed char j = 0; j < 3; j++)
    A[i][j] = i + j;
#pragma endscop
