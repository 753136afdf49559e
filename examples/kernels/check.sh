#!/usr/bin/env bash
# check.sh - compile and run every test kernel in this directory.
#
# Each kernel is built three times with `gcc -O2 -Wall -Wextra -Werror -std=c99`:
# plainly, with -DPOLLEN_DUMP (element dump) and with -fopenmp; each build is
# run at the default sizes.  The plain run must print one "name checksum" line
# per output array, the dump run the same lines plus every element, and no
# printed value may be nan or inf.  Exits non-zero if anything fails.
#
# Usage: examples/kernels/check.sh [kernel ...]   (default: all of manifest.txt)
# Environment: CC (default gcc), CFLAGS_EXTRA (appended to every compile).
set -u

here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -gt 0 ]; then
  kernels=("$@")
else
  mapfile -t kernels < <(grep -v '^[[:space:]]*#' "$here/manifest.txt" | awk 'NF { print $1 }')
fi

failures=0
fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}

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
    case $variant in
      plain) flags=() ;;
      dump) flags=(-DPOLLEN_DUMP) ;;
      openmp) flags=(-fopenmp) ;;
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
