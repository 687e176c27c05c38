# Sourced by test.sh and sanitize.sh: `children_cpu` sets CHILDREN_CPU to the
# CPU-seconds (user + system) of every child this shell has waited for so
# far (bash's `times`, which must run in this shell, not in a pipe or a $()),
# so that the difference across a phase is its CPU time. Wall times move
# with the machine's load; a phase's CPU time hardly does
# (docs/architecture.md section 8 has the figures).
children_cpu() {
  local f
  f=$(mktemp)
  times >"$f"
  CHILDREN_CPU=$(awk 'NR == 2 {
    s = 0
    for (i = 1; i <= 2; ++i) { split($i, p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    printf "%.0f\n", s
  }' "$f")
  rm -f "$f"
}
