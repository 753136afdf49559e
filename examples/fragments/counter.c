/* a scalar counter incremented in a loop nest. */
#pragma scop
cnt = 0;
for (i = 0; i < N; i++)
  for (j = 0; j <= i; j++)
    cnt++;
#pragma endscop
