/* 1-d FDTD: two coupled fields. */
#pragma scop
for (t = 0; t < T; t++) {
  for (i = 1; i < N; i++)
    e[i] = e[i] - 0.5 * (h[i] - h[i - 1]);
  for (i = 0; i < N - 1; i++)
    h[i] = h[i] - 0.7 * (e[i + 1] - e[i]);
}
#pragma endscop
