/* a loop whose bounds depend on the outer iterator both ways. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = i; j < N; j++)
    A[i][j] = A[i][j] + B[j - i];
#pragma endscop
