/*
 * operators.h - the macro interface of Pollen's deep-learning operator suite.
 *
 * Every operator in this directory includes this header first (and nothing
 * else).  It offers the PolyBench macro vocabulary of ../kernels/kernel.h,
 * extended to the shapes of neural-network tensors, and compiles both as C
 * (gcc, -std=c99) and as C++ (g++, nvcc), so that an operator and the OpenCL
 * or CUDA host program Pollen makes of it build from the same file:
 *
 *   element type   DATA_TYPE, DATA_PRINTF_MODIFIER, SCALAR_VAL(x),
 *                  SQRT_FUN(x), EXP_FUN(x), TANH_FUN(x), MAX_FUN(x, y),
 *                  POW_FUN(x, y); float by default (the operators' type in a
 *                  framework), -DDATA_TYPE_IS_DOUBLE chooses double
 *   parameters     POLYBENCH_1D(var, d1, dd1) ... POLYBENCH_5D(...): an
 *                  array declarator var[d1]...; the constant sizes d are used
 *                  unless POLLEN_USE_C99_PROTO selects the run-time sizes dd
 *   allocation     POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) ...
 *                  POLYBENCH_5D_ARRAY_DECL: a pointer to a zeroed heap array
 *                  aligned to 64 bytes (OPERATOR_ALIGN)
 *                  (the result of the allocation is cast, as C++ needs);
 *                  POLYBENCH_ARRAY(var) is the array itself and
 *                  POLYBENCH_FREE_ARRAY(var) releases it
 *   output         OPERATOR_OUTPUT_1D(name, array, n1) ... _5D: prints
 *                  "name checksum magnitude" on stdout (position-weighted
 *                  sums of the elements and of their absolute values, printed
 *                  with %.17g); with -DPOLLEN_DUMP also every element, one a
 *                  line, between "begin name count" and "end name"
 *   timing         OPERATOR_TIMER_START / OPERATOR_TIMER_STOP, always on:
 *                  the wall-clock seconds between them go to stderr as
 *                  "POLLEN_TIME <seconds>" with 9 digits (nanoseconds)
 *
 * Sizes: each operator defines its sizes as macros that -D flags override;
 * the defaults are small (a test run takes milliseconds) and -DLARGE_DATASET
 * selects the sizes of a real layer (BERT-base, a ResNet-50 block).
 */
#ifndef POLLEN_OPERATORS_H
#define POLLEN_OPERATORS_H

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

/* MAX_FUN is the comparison TVM's and Halide's max compile to, which gcc
   vectorizes (maxps); fmaxf is a library call that it keeps out of vector loops
   unless -ffast-math is given.  The two agree on numbers; a NaN in y is kept
   where fmaxf would drop it.  A macro, so that OpenCL and CUDA kernels, which
   get the region's macros expanded, compute the same. */

#if defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
# define SCALAR_VAL(x) x
# define SQRT_FUN(x) sqrt(x)
# define EXP_FUN(x) exp(x)
# define TANH_FUN(x) tanh(x)
# define MAX_FUN(x, y) ((x) > (y) ? (x) : (y))
# define POW_FUN(x, y) pow(x, y)
#else
# define DATA_TYPE_IS_FLOAT
# define DATA_TYPE float
# define DATA_PRINTF_MODIFIER "%0.2f "
# define SCALAR_VAL(x) x##f
# define SQRT_FUN(x) sqrtf(x)
# define EXP_FUN(x) expf(x)
# define TANH_FUN(x) tanhf(x)
# define MAX_FUN(x, y) ((x) > (y) ? (x) : (y))
# define POW_FUN(x, y) powf(x, y)
#endif

/* ---- array declarators for parameters --------------------------------- */

#ifdef POLLEN_USE_C99_PROTO
# define OPERATOR_DIM(constant, runtime) runtime
#else
# define OPERATOR_DIM(constant, runtime) constant
#endif

#define POLYBENCH_1D(var, d1, dd1) var[OPERATOR_DIM(d1, dd1)]
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) \
  var[OPERATOR_DIM(d1, dd1)][OPERATOR_DIM(d2, dd2)]
#define POLYBENCH_3D(var, d1, d2, d3, dd1, dd2, dd3) \
  var[OPERATOR_DIM(d1, dd1)][OPERATOR_DIM(d2, dd2)][OPERATOR_DIM(d3, dd3)]
#define POLYBENCH_4D(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  var[OPERATOR_DIM(d1, dd1)][OPERATOR_DIM(d2, dd2)][OPERATOR_DIM(d3, dd3)] \
     [OPERATOR_DIM(d4, dd4)]
#define POLYBENCH_5D(var, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5) \
  var[OPERATOR_DIM(d1, dd1)][OPERATOR_DIM(d2, dd2)][OPERATOR_DIM(d3, dd3)] \
     [OPERATOR_DIM(d4, dd4)][OPERATOR_DIM(d5, dd5)]

/* ---- heap arrays --------------------------------------------------------- */

/* The alignment of every heap array: a cache line, as the arrays of PolyBench and of
   the frameworks are, so that the rows of a vector loop start where its vectors do. */
#define OPERATOR_ALIGN 64

/* Tells gcc and clang that a function returns a new object that no other pointer
   reaches, as calloc's result is. */
#if defined(__GNUC__)
# define OPERATOR_MALLOC __attribute__((malloc))
#else
# define OPERATOR_MALLOC
#endif

/* A zeroed block of count elements of the given size, aligned to OPERATOR_ALIGN;
   exits on failure. The block is carved out of one calloc'ed block, and the pointer
   calloc returned is kept in the word before it, for operator_free. The function is
   marked as malloc-like: where a kernel is inlined into main, gcc then knows its
   arrays as distinct objects and vectorises loops that read and write different
   arrays without checking that they do not overlap, as it does with calloc's blocks
   and not with the blocks posix_memalign writes out (a naive batched matmul runs
   ten times slower with those). */
OPERATOR_MALLOC
static inline void *operator_alloc(size_t count, size_t size)
{
  const size_t extra = OPERATOR_ALIGN + sizeof(void *);
  char *raw = NULL;
  if (size == 0 || count <= ((size_t) -1 - extra) / size)
    raw = (char *) calloc(count * size + extra, 1);
  if (raw == NULL) {
    fprintf(stderr, "operator: cannot allocate %zu elements of %zu bytes\n",
            count, size);
    exit(1);
  }
  /* The first aligned address after room for the pointer (pointer arithmetic on
     raw, so that the block remains calloc's object for the compiler). */
  size_t skip = sizeof(void *);
  skip += (OPERATOR_ALIGN - (size_t) ((unsigned long) (raw + skip) % OPERATOR_ALIGN))
          % OPERATOR_ALIGN;
  char *block = raw + skip;
  ((void **) block)[-1] = raw;
  return block;
}

/* Releases a block of operator_alloc. */
static inline void operator_free(void *block)
{
  if (block != NULL)
    free(((void **) block)[-1]);
}

#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) \
  type (*var)[d1] = (type (*)[d1]) operator_alloc((size_t)(d1), sizeof(type))
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) \
  type (*var)[d1][d2] = (type (*)[d1][d2]) \
    operator_alloc((size_t)(d1) * (size_t)(d2), sizeof(type))
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3) \
  type (*var)[d1][d2][d3] = (type (*)[d1][d2][d3]) \
    operator_alloc((size_t)(d1) * (size_t)(d2) * (size_t)(d3), sizeof(type))
#define POLYBENCH_4D_ARRAY_DECL(var, type, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  type (*var)[d1][d2][d3][d4] = (type (*)[d1][d2][d3][d4]) \
    operator_alloc((size_t)(d1) * (size_t)(d2) * (size_t)(d3) * (size_t)(d4), \
                   sizeof(type))
#define POLYBENCH_5D_ARRAY_DECL(var, type, d1, d2, d3, d4, d5, \
                                dd1, dd2, dd3, dd4, dd5) \
  type (*var)[d1][d2][d3][d4][d5] = (type (*)[d1][d2][d3][d4][d5]) \
    operator_alloc((size_t)(d1) * (size_t)(d2) * (size_t)(d3) * (size_t)(d4) \
                   * (size_t)(d5), sizeof(type))

#define POLYBENCH_ARRAY(var) (*var)
#define POLYBENCH_FREE_ARRAY(var) operator_free((void *)(var))

/* ---- output -------------------------------------------------------------- */

/*
 * Prints "name checksum magnitude" for count contiguous elements, the checksum
 * being the sum of element * (1 + position % 29) in position order, so that
 * two programs that leave the same values print the same line, and the
 * magnitude the same sum of the elements' absolute values: the scale against
 * which a checksum that cancels is compared when the programs may round
 * differently.  With POLLEN_DUMP every element follows, one a line, for an
 * element-wise comparison.
 */
static inline void operator_output(const char *name, const DATA_TYPE *data,
                                   long count)
{
  double sum = 0.0, magnitude = 0.0;
  long pos;

  for (pos = 0; pos < count; pos++) {
    double weight = (double) (1 + pos % 29);
    sum += (double) data[pos] * weight;
    magnitude += fabs((double) data[pos]) * weight;
  }
  printf("%s %.17g %.17g\n", name, sum, magnitude);
#ifdef POLLEN_DUMP
  printf("begin %s %ld\n", name, count);
  for (pos = 0; pos < count; pos++)
    printf("%.17g\n", (double) data[pos]);
  printf("end %s\n", name);
#endif
}

#define OPERATOR_OUTPUT_1D(name, array, n1) \
  operator_output(name, &(array)[0], (long) (n1))
#define OPERATOR_OUTPUT_2D(name, array, n1, n2) \
  operator_output(name, &(array)[0][0], (long) (n1) * (long) (n2))
#define OPERATOR_OUTPUT_3D(name, array, n1, n2, n3) \
  operator_output(name, &(array)[0][0][0], \
                  (long) (n1) * (long) (n2) * (long) (n3))
#define OPERATOR_OUTPUT_4D(name, array, n1, n2, n3, n4) \
  operator_output(name, &(array)[0][0][0][0], \
                  (long) (n1) * (long) (n2) * (long) (n3) * (long) (n4))
#define OPERATOR_OUTPUT_5D(name, array, n1, n2, n3, n4, n5) \
  operator_output(name, &(array)[0][0][0][0][0], \
                  (long) (n1) * (long) (n2) * (long) (n3) * (long) (n4) \
                  * (long) (n5))

/* ---- timing -------------------------------------------------------------- */

/* Seconds on the monotonic clock. */
static inline double operator_now(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

/* Starts the timer (stop == 0) or prints the seconds since the start. */
static inline void operator_timer(int stop)
{
  static double start;
  if (!stop)
    start = operator_now();
  else
    fprintf(stderr, "POLLEN_TIME %.9f\n", operator_now() - start);
}

#define OPERATOR_TIMER_START operator_timer(0)
#define OPERATOR_TIMER_STOP operator_timer(1)

#endif /* POLLEN_OPERATORS_H */
