/* 3x3 pooling with stride 2 over a border of padding, the padding read as a
 * constant in an else branch instead of a padded copy of X: the else branch's
 * domain is a union of four pieces. */
#pragma scop
for (h = 0; h < HO; h++)
  for (w = 0; w < WO; w++) {
    Y[h][w] = 0.0;
    for (kh = 0; kh < 3; kh++)
      for (kw = 0; kw < 3; kw++)
        if (2 * h + kh >= 1 && 2 * h + kh <= H && 2 * w + kw >= 1 && 2 * w + kw <= W)
          Y[h][w] += X[2 * h + kh - 1][2 * w + kw - 1];
        else
          Y[h][w] += 0.25;
  }
#pragma endscop
