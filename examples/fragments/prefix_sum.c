/* running sum, a loop-carried flow dependence. */
#pragma scop
for (i = 1; i < N; i++)
  A[i] = A[i - 1] + A[i];
#pragma endscop
