/* two loops a fusion can merge (producer-consumer). */
#pragma scop
for (i = 0; i < N; i++)
  a[i] = b[i] + 1.0;
for (i = 0; i < N; i++)
  c[i] = a[i] * 2.0;
#pragma endscop
