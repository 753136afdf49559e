/* back substitution with a decreasing outer loop. */
#pragma scop
for (i = N - 1; i >= 0; i--) {
  x[i] = b[i];
  for (j = i + 1; j < N; j++)
    x[i] = x[i] - U[i][j] * x[j];
  x[i] = x[i] / U[i][i];
}
#pragma endscop
