/* iterators declared in the loop headers. */
#pragma scop
for (int i = 0; i < N; i++)
  for (int j = 0; j < N; j++)
    B[j][i] = A[i][j];
#pragma endscop
