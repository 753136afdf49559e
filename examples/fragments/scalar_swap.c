/* a scalar temporary reused in every iteration. */
#pragma scop
for (i = 0; i < N; i++) {
  tmp = A[i];
  A[i] = B[i];
  B[i] = tmp;
}
#pragma endscop
