/* if-else on the parity of the iterator. */
#pragma scop
for (i = 0; i < N; i++) {
  if (i % 2 == 0)
    A[i] = B[i] + 1.0;
  else
    A[i] = B[i] - 1.0;
}
#pragma endscop
