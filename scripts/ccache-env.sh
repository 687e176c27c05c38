# Sourced by setup.sh and sanitize.sh: build through ccache when it is
# installed, so that a fresh clone (CI's, a user's second checkout) reuses
# the objects an earlier build of the same sources made wherever it ran.
# base_dir makes the paths in compile commands relative to the clone, and
# no-hash-dir keeps the working folder out of the key of the sanitizer
# build's objects (it has -gline-tables-only): their debug info may then name
# the folder of the clone that first built them. A user's own CCACHE_*
# settings win. Sets `launcher` (CMake arguments).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
