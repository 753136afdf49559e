/* iterators of the standard signed typedefs. */
#pragma scop
for (int64_t i = 0; i < N; i++)
  for (ptrdiff_t j = 0; j < N; j++)
    A[i][j] = A[i][j] * 0.5 + 1.0;
#pragma endscop
