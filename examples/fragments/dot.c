/* dot product into an undeclared scalar. */
#pragma scop
s = 0;
for (i = 0; i < N; i++)
  s += A[i] * B[i];
#pragma endscop
