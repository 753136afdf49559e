/* guards inside a nest: a band matrix update. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++) {
    if (i - j <= 2 && j - i <= 2)
      A[i][j] = A[i][j] + B[i] * B[j];
    if (i == j)
      D[i] = A[i][i];
  }
#pragma endscop
