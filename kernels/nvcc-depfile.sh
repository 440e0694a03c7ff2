#!/bin/sh
# nvcc-depfile.sh NVCC ARGS...: runs NVCC ARGS..., and where ARGS compile
# an object (-o X.o), has it write the depfile that meson's ninja rule
# names (X.o.d).  Meson before 1.4 asks for one but never passes nvcc -MD,
# so ninja knows no header of a .cu file, and an edited kernel header (a
# parameter struct, the maths shared with the CPU reference) leaves the
# CUDA objects stale.  pipelines/setup.sh names it meson's CUDA compiler
# there, in a machine file: [binaries] cuda = ['.../nvcc-depfile.sh',
# 'nvcc'].
real=$1
shift
out=
prev=
for arg in "$@"; do
  [ "$prev" = -o ] && out=$arg
  prev=$arg
done
case "$out" in
  *.o) exec "$real" "$@" -MD -MF "$out.d" -MT "$out" ;;
  *) exec "$real" "$@" ;;
esac
