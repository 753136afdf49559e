void kernel(int n, double A[100])
{
  int i = 0;
#pragma scop
  while (i < n)
    A[i] = 0;
#pragma endscop
}
