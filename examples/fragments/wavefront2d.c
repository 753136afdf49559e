/* 2-d recurrence with dependences along both dimensions. */
#pragma scop
for (i = 1; i < N; i++)
  for (j = 1; j < M; j++)
    A[i][j] = (A[i - 1][j] + A[i][j - 1]) * 0.5;
#pragma endscop
