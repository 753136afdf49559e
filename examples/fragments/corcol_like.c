/* column means, centring and a covariance matrix. */
#pragma scop
for (j = 0; j < M; j++) {
  mean[j] = 0.0;
  for (i = 0; i < N; i++)
    mean[j] += data[i][j];
  mean[j] = mean[j] / N;
}
for (i = 0; i < N; i++)
  for (j = 0; j < M; j++)
    data[i][j] -= mean[j];
for (i = 0; i < M; i++)
  for (j = i; j < M; j++) {
    cov[i][j] = 0.0;
    for (k = 0; k < N; k++)
      cov[i][j] += data[k][i] * data[k][j];
    cov[j][i] = cov[i][j];
  }
#pragma endscop
