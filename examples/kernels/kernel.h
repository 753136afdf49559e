/*
 * kernel.h - the macro interface of Pollen's PolyBench-style test kernels.
 *
 * Every kernel in this directory includes this header first (and nothing
 * else).  It offers the macro vocabulary that PolyBench/C kernels are written
 * in, so that the kernels exercise the C frontend on the same syntax:
 *
 *   element type   DATA_TYPE, DATA_PRINTF_MODIFIER, SCALAR_VAL(x),
 *                  SQRT_FUN(x), EXP_FUN(x), POW_FUN(x, y); chosen by
 *                  DATA_TYPE_IS_DOUBLE (default), DATA_TYPE_IS_FLOAT or
 *                  DATA_TYPE_IS_INT
 *   parameters     POLYBENCH_1D(var, d1, dd1) ... POLYBENCH_4D(...): an
 *                  array declarator var[d1]...; the constant sizes d are used
 *                  unless POLLEN_USE_C99_PROTO selects the run-time sizes dd
 *   allocation     POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) ...
 *                  POLYBENCH_4D_ARRAY_DECL: a pointer to a zeroed heap array;
 *                  POLYBENCH_ARRAY(var) is the array itself and
 *                  POLYBENCH_FREE_ARRAY(var) releases it
 *   output         KERNEL_OUTPUT_1D(name, array, n1) ... KERNEL_OUTPUT_3D:
 *                  prints "name checksum" (a position-weighted sum printed
 *                  with %.17g); with -DPOLLEN_DUMP also every element, one a
 *                  line, between "begin name count" and "end name"
 *   timing         KERNEL_TIMER_START / KERNEL_TIMER_STOP: with -DPOLLEN_TIME
 *                  the time between them goes to stderr as "time <seconds>"
 */
#ifndef POLLEN_KERNEL_H
#define POLLEN_KERNEL_H

/* The scop pragmas are meant for Pollen, not for the C compiler. */
#if defined(__GNUC__)
# pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 199309L
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- element type ------------------------------------------------------ */

#if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) \
    && !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_DOUBLE
#endif

#if defined(DATA_TYPE_IS_INT)
# define DATA_TYPE int
# define DATA_PRINTF_MODIFIER "%d "
#elif defined(DATA_TYPE_IS_FLOAT)
# define DATA_TYPE float
# define DATA_PRINTF_MODIFIER "%0.2f "
#else
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
#endif

#if defined(DATA_TYPE_IS_FLOAT)
# define SCALAR_VAL(x) x##f
# define SQRT_FUN(x) sqrtf(x)
# define EXP_FUN(x) expf(x)
# define POW_FUN(x, y) powf(x, y)
#else
# define SCALAR_VAL(x) x
# define SQRT_FUN(x) sqrt(x)
# define EXP_FUN(x) exp(x)
# define POW_FUN(x, y) pow(x, y)
#endif

/* ---- array declarators for parameters --------------------------------- */

#ifdef POLLEN_USE_C99_PROTO
# define KERNEL_DIM(constant, runtime) runtime
#else
# define KERNEL_DIM(constant, runtime) constant
#endif

#define POLYBENCH_1D(var, d1, dd1) var[KERNEL_DIM(d1, dd1)]
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) \
  var[KERNEL_DIM(d1, dd1)][KERNEL_DIM(d2, dd2)]
#define POLYBENCH_3D(var, d1, d2, d3, dd1, dd2, dd3) \
  var[KERNEL_DIM(d1, dd1)][KERNEL_DIM(d2, dd2)][KERNEL_DIM(d3, dd3)]
#define POLYBENCH_4D(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  var[KERNEL_DIM(d1, dd1)][KERNEL_DIM(d2, dd2)][KERNEL_DIM(d3, dd3)] \
     [KERNEL_DIM(d4, dd4)]

/* ---- heap arrays --------------------------------------------------------- */

/* A zeroed block of count elements of the given size; exits on failure. */
static inline void *kernel_alloc(size_t count, size_t size)
{
  void *block = calloc(count, size);
  if (block == NULL) {
    fprintf(stderr, "kernel: cannot allocate %zu elements of %zu bytes\n",
            count, size);
    exit(1);
  }
  return block;
}

#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) \
  type (*var)[d1] = (type (*)[d1]) kernel_alloc((size_t)(d1), sizeof(type))
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) \
  type (*var)[d1][d2] = (type (*)[d1][d2]) \
    kernel_alloc((size_t)(d1) * (size_t)(d2), sizeof(type))
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3) \
  type (*var)[d1][d2][d3] = (type (*)[d1][d2][d3]) \
    kernel_alloc((size_t)(d1) * (size_t)(d2) * (size_t)(d3), sizeof(type))
#define POLYBENCH_4D_ARRAY_DECL(var, type, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  type (*var)[d1][d2][d3][d4] = (type (*)[d1][d2][d3][d4]) \
    kernel_alloc((size_t)(d1) * (size_t)(d2) * (size_t)(d3) * (size_t)(d4), \
                 sizeof(type))

#define POLYBENCH_ARRAY(var) (*var)
#define POLYBENCH_FREE_ARRAY(var) free((void *)(var))

/* ---- output -------------------------------------------------------------- */

/*
 * Prints "name checksum" for count contiguous elements, the checksum being
 * the sum of element * (1 + position % 29) in position order, so that two
 * programs that leave the same values print the same line.  With POLLEN_DUMP
 * every element follows, one a line, for an element-wise comparison.
 */
static inline void kernel_output(const char *name, const DATA_TYPE *data,
                                 long count)
{
  double sum = 0.0;
  long pos;

  for (pos = 0; pos < count; pos++)
    sum += (double) data[pos] * (double) (1 + pos % 29);
  printf("%s %.17g\n", name, sum);
#ifdef POLLEN_DUMP
  printf("begin %s %ld\n", name, count);
  for (pos = 0; pos < count; pos++)
    printf("%.17g\n", (double) data[pos]);
  printf("end %s\n", name);
#endif
}

#define KERNEL_OUTPUT_1D(name, array, n1) \
  kernel_output(name, &(array)[0], (long) (n1))
#define KERNEL_OUTPUT_2D(name, array, n1, n2) \
  kernel_output(name, &(array)[0][0], (long) (n1) * (long) (n2))
#define KERNEL_OUTPUT_3D(name, array, n1, n2, n3) \
  kernel_output(name, &(array)[0][0][0], \
                (long) (n1) * (long) (n2) * (long) (n3))

/* ---- timing -------------------------------------------------------------- */

/* Seconds on the monotonic clock. */
static inline double kernel_now(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

/* Starts the timer (stop == 0) or prints the time since the start. */
static inline void kernel_timer(int stop)
{
  static double start;
  if (!stop)
    start = kernel_now();
  else
    fprintf(stderr, "time %.6f\n", kernel_now() - start);
}

#ifdef POLLEN_TIME
# define KERNEL_TIMER_START kernel_timer(0)
# define KERNEL_TIMER_STOP kernel_timer(1)
#else
# define KERNEL_TIMER_START ((void) 0)
# define KERNEL_TIMER_STOP ((void) 0)
#endif

#endif /* POLLEN_KERNEL_H */
