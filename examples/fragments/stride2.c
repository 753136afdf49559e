/* loops stepping by two, interleaved writes. */
#pragma scop
for (i = 0; i < N; i += 2)
  A[i] = B[i] * 2.0;
for (i = 1; i < N; i += 2)
  A[i] = A[i - 1] + B[i];
#pragma endscop
