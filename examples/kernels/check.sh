#!/usr/bin/env bash
# check.sh - compile and run every test kernel in this directory.
#
# Each kernel is built three times with `gcc -O2 -Wall -Wextra -Werror -std=c99`
# and its manifest test flags: plainly, with -DPOLLEN_DUMP (element dump) and
# with -fopenmp; each build is run.  The plain run must print one
# "name checksum" line per output array, the -fopenmp run the same lines, the
# dump run the same lines plus every element, and no printed value may be nan
# or inf.  The manifest lines must have four fields and the bench flags must
# compile too (not run: they take seconds).  Exits non-zero if anything fails.
#
# Usage: examples/kernels/check.sh [kernel ...]   (default: all of manifest.txt)
# Environment: CC (default gcc), CFLAGS_EXTRA (appended to every compile).
set -u

here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}

# The manifest: name -> test flags and bench flags (commas turned to spaces,
# "-" to nothing).
declare -A test_flags bench_flags
all=()
while read -r line; do
  line=${line%%#*}
  read -r -a field <<< "$line"
  [ ${#field[@]} -eq 0 ] && continue
  if [ ${#field[@]} -ne 4 ]; then
    fail manifest "not four fields: $line"
    continue
  fi
  all+=("${field[0]}")
  for which in 2 3; do
    flags=${field[$which]}
    [ "$flags" = - ] && flags=
    flags=${flags//,/ }
    if [ $which = 2 ]; then
      test_flags[${field[0]}]=$flags
    else
      bench_flags[${field[0]}]=$flags
    fi
  done
done < "$here/manifest.txt"

if [ $# -gt 0 ]; then
  kernels=("$@")
else
  kernels=("${all[@]}")
fi

# build NAME VARIANT FLAGS...: compile NAME.c into $work/NAME.VARIANT.
build() {
  local name=$1 variant=$2
  shift 2
  # shellcheck disable=SC2086
  "$cc" -O2 -Wall -Wextra -Werror -std=c99 "$@" ${CFLAGS_EXTRA:-} \
    -o "$work/$name.$variant" "$here/$name.c" -lm 2> "$work/$name.$variant.err"
}

for name in "${kernels[@]}"; do
  if [ ! -f "$here/$name.c" ]; then
    fail "$name" "no file $name.c"
    continue
  fi
  ok=1
  for variant in plain dump openmp; do
    read -r -a flags <<< "${test_flags[$name]:-}"
    case $variant in
      plain) ;;
      dump) flags+=(-DPOLLEN_DUMP) ;;
      openmp) flags+=(-fopenmp) ;;
    esac
    if ! build "$name" "$variant" "${flags[@]}"; then
      fail "$name" "$variant build:"
      cat "$work/$name.$variant.err"
      ok=0
      continue
    fi
    if ! "$work/$name.$variant" > "$work/$name.$variant.out"; then
      fail "$name" "$variant run exited non-zero"
      ok=0
      continue
    fi
    if grep -qiE 'nan|inf' "$work/$name.$variant.out"; then
      fail "$name" "$variant run printed nan or inf"
      ok=0
    fi
  done
  read -r -a flags <<< "${bench_flags[$name]:-}"
  if ! build "$name" bench -fsyntax-only "${flags[@]}"; then
    fail "$name" "bench flags do not compile:"
    cat "$work/$name.bench.err"
    ok=0
  fi
  [ $ok = 1 ] || continue
  if [ ! -s "$work/$name.plain.out" ]; then
    fail "$name" "printed no checksum"
    continue
  fi
  if ! cmp -s "$work/$name.plain.out" "$work/$name.openmp.out"; then
    fail "$name" "-fopenmp build prints other checksums"
    continue
  fi
  if ! grep -v '^begin \|^end \|^[-0-9]' "$work/$name.dump.out" \
       | cmp -s - "$work/$name.plain.out"; then
    fail "$name" "dump run's checksum lines differ from the plain run's"
    continue
  fi
  if ! grep -q '^begin ' "$work/$name.dump.out"; then
    fail "$name" "dump run printed no elements"
    continue
  fi
  echo "ok   $name: $(tr '\n' ' ' < "$work/$name.plain.out")"
done

if [ $failures -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all ${#kernels[@]} kernels ok"
