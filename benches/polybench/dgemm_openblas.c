/*
 * dgemm_openblas.c - the machine's OpenBLAS dgemm on the shape of the gemm kernel.
 *
 * Part of `cargo xtask bench polybench`: it computes C := alpha*A*B + beta*C with
 * cblas_dgemm on the same sizes, row-major layout and initial values as
 * examples/kernels/gemm.c (sizes from -DNI=... -DNJ=... -DNK=..., the bench flags of
 * gemm in examples/kernels/manifest.txt), so that Pollen's gemm can be compared with
 * the library in GFLOP/s. The thread count comes from OPENBLAS_NUM_THREADS.
 *
 * One untimed call first (it starts OpenBLAS's threads and touches every page), then
 * one timed call on the re-initialised arrays: "time <seconds>" goes to stderr like the
 * kernels' -DPOLLEN_TIME output, "C <checksum>" to stdout like their KERNEL_OUTPUT.
 */
#define _POSIX_C_SOURCE 199309L

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef NI
# define NI 2000
#endif
#ifndef NJ
# define NJ 2100
#endif
#ifndef NK
# define NK 2200
#endif

/* Seconds on the monotonic clock. */
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* A zeroed block of count doubles; exits on failure. */
static double *alloc(size_t count)
{
  double *block = calloc(count, sizeof(double));
  if (block == NULL) {
    fprintf(stderr, "dgemm_openblas: cannot allocate %zu doubles\n", count);
    exit(1);
  }
  return block;
}

/* The initial values of examples/kernels/gemm.c. */
static void init(double *C, double *A, double *B)
{
  long i, j;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      C[i * NJ + j] = (double) ((3 * i + 5 * j + 1) % 23) / 23;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i * NK + j] = (double) ((7 * i + j + 2) % 19) / 19 - 0.5;
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i * NJ + j] = (double) ((i + 11 * j + 3) % 17) / 17;
}

/* C := alpha*A*B + beta*C. */
static void dgemm(double *C, const double *A, const double *B)
{
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, NI, NJ, NK, 1.25, A, NK,
              B, NJ, 0.75, C, NJ);
}

int main(void)
{
  double *C = alloc((size_t) NI * NJ);
  double *A = alloc((size_t) NI * NK);
  double *B = alloc((size_t) NK * NJ);
  double start, sum = 0.0;
  long pos;

  init(C, A, B);
  dgemm(C, A, B);
  init(C, A, B);
  start = now();
  dgemm(C, A, B);
  fprintf(stderr, "time %.6f\n", now() - start);
  for (pos = 0; pos < (long) NI * NJ; pos++)
    sum += C[pos] * (double) (1 + pos % 29);
  printf("C %.17g\n", sum);
  free(C);
  free(A);
  free(B);
  return 0;
}
