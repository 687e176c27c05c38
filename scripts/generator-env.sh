# Sourced by setup.sh and sanitize.sh. `generator_for DIR` sets `generator`
# (CMake arguments) to Ninja for a build folder CMake has not configured yet,
# when ninja is installed: it schedules the two cores better than make's
# recursive passes (the sanitizer build: 196 s against 210 s, cold). A folder
# configured before keeps its generator (CMake refuses to switch one), and
# CMAKE_GENERATOR, the user's own choice, wins.
generator_for() {
  generator=()
  if [ -z "${CMAKE_GENERATOR:-}" ] && [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
}

# `quiet_build DIR [ARGS...]`: cmake --build with its progress in DIR/build-log.txt;
# on failure the log's last lines (Ninja prints the compiler's errors on its
# standard output, which a plain >/dev/null would hide) and a non-zero status.
quiet_build() {
  local dir=$1
  shift
  if ! cmake --build "$dir" -j"$(nproc)" "$@" >"$dir/build-log.txt" 2>&1; then
    tail -n 40 "$dir/build-log.txt"
    echo "build of $dir failed (the whole log: $dir/build-log.txt)"
    return 1
  fi
}
