/* A loop nest outside the polyhedral model: the subscript is not affine. */
void kernel(int n, double A[100], double B[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i * i] = B[i];
#pragma endscop
}
