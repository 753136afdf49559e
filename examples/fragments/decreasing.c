/* a decreasing loop carrying a dependence. */
#pragma scop
for (i = N - 2; i >= 0; i--)
  a[i] = a[i] + 0.5 * a[i + 1];
#pragma endscop
