/* 2-d Gauss-Seidel, 9-point, in place. */
#pragma scop
for (t = 0; t <= T - 1; t++)
  for (i = 1; i <= N - 2; i++)
    for (j = 1; j <= N - 2; j++)
      a[i][j] = (a[i - 1][j - 1] + a[i - 1][j] + a[i - 1][j + 1]
                 + a[i][j - 1] + a[i][j] + a[i][j + 1]
                 + a[i + 1][j - 1] + a[i + 1][j] + a[i + 1][j + 1]) / 9.0;
#pragma endscop
