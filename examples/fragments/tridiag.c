/* Thomas algorithm: forward sweep, then back substitution. */
#pragma scop
for (i = 1; i < N; i++) {
  m[i] = a[i] / b[i - 1];
  b[i] = b[i] - m[i] * c[i - 1];
  d[i] = d[i] - m[i] * d[i - 1];
}
x[N - 1] = d[N - 1] / b[N - 1];
for (i = N - 2; i >= 0; i--)
  x[i] = (d[i] - c[i] * x[i + 1]) / b[i];
#pragma endscop
