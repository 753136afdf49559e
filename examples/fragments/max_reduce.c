/* a maximum reduction through a ternary. */
#pragma scop
m = A[0];
for (i = 1; i < N; i++)
  m = A[i] > m ? A[i] : m;
#pragma endscop
