/* bounds with division (tiled-looking input). */
#pragma scop
for (it = 0; it <= (N - 1) / 4; it++)
  for (i = 4 * it; i <= min(N - 1, 4 * it + 3); i++)
    A[i] = A[i] * 2.0 + it;
#pragma endscop
