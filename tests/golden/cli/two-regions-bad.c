/* two nests */
void f(int n, double A[100][100], double B[100][100], double x[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[j][i] = A[j][i] + 1;
#pragma endscop
  x[0] = 1; /* between the regions */
  #pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      while (1) ;
  #pragma endscop
}
