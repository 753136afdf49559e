/* A declared accumulator per row, stored after the inner loop. */
#pragma scop
for (i = 0; i < N; i++) {
  double acc = 0.0;
  for (j = 0; j <= i; j++)
    acc += L[i][j] * x[j];
  y[i] = acc;
}
#pragma endscop
