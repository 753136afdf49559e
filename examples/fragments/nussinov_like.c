/* dynamic programming over a triangle, decreasing outer loop. */
#pragma scop
for (i = N - 1; i >= 0; i--)
  for (j = i + 1; j < N; j++) {
    if (j - 1 >= 0)
      t[i][j] = max(t[i][j], t[i][j - 1]);
    if (i + 1 < N)
      t[i][j] = max(t[i][j], t[i + 1][j]);
    for (k = i + 1; k < j; k++)
      t[i][j] = max(t[i][j], t[i][k] + t[k + 1][j]);
  }
#pragma endscop
