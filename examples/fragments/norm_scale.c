/* a norm in a scalar, then every element divided by it. */
#pragma scop
nrm = 0.0;
for (i = 0; i < N; i++)
  nrm += x[i] * x[i];
nrm = sqrt(nrm);
for (i = 0; i < N; i++)
  y[i] = x[i] / nrm;
#pragma endscop
