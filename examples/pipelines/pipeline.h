/*
 * pipeline.h - what the image-processing and multigrid pipelines of this
 * directory share: the float element type and the output and timing macros
 * of the test kernels (../kernels/kernel.h), a deterministic input image and
 * the repetition of timed runs.
 *
 *   PIPELINE_RUNS   how many times main runs the pipeline (default 1); with
 *                   -DPOLLEN_TIME each run prints "time <seconds>" to stderr
 *   pipeline_input  fills an array with a fixed pattern in [0, 1)
 *   pipeline_zero   writes zeros into an array (every page touched before the
 *                   timed runs, so that no run pays for first-touch faults)
 *   pipeline_min    the smaller and the larger of two floats, inline
 *   pipeline_max
 */
#ifndef POLLEN_PIPELINE_H
#define POLLEN_PIPELINE_H

#define DATA_TYPE_IS_FLOAT
#include "../kernels/kernel.h"

#include <string.h>

#ifndef PIPELINE_RUNS
# define PIPELINE_RUNS 1
#endif

/* A pattern in [0, 1) that varies along every dimension. */
static inline void pipeline_input(float *a, long n, int seed)
{
  long i;
  for (i = 0; i < n; i++)
    a[i] = (float) ((i * 7919 + seed * 104729) % 1021) / 1021.0f;
}

static inline void pipeline_zero(float *a, long n)
{
  memset(a, 0, (size_t) n * sizeof(float));
}

/* The smaller and the larger of two floats, as Halide's min and max compute
   them: inline comparisons that gcc vectorizes (minps, maxps), where fminf and
   fmaxf are library calls that it keeps out of vector loops unless
   -ffast-math is given. Equal to fminf and fmaxf on numbers, NaNs and the sign
   of a zero result aside. */
static inline float pipeline_min(float a, float b)
{
  return a < b ? a : b;
}

static inline float pipeline_max(float a, float b)
{
  return a > b ? a : b;
}

/* A zeroed heap array of n floats; exits when memory is short. */
static inline float *pipeline_alloc(long n)
{
  float *a = (float *) malloc((size_t) (n > 0 ? n : 1) * sizeof(float));
  if (!a) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  pipeline_zero(a, n);
  return a;
}

#endif /* POLLEN_PIPELINE_H */
