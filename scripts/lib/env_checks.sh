# Checks of the environment variables that scripts/loading-rates.sh and
# scripts/clamp-lifetimes.sh read: a bad value stops the script with a message that
# names the variable, before any run starts. Source it; SCRIPT names the caller.

# need_count NAME VALUE [MIN]: an integer ≥ MIN (default 1).
need_count() {
  [[ "$2" =~ ^[0-9]+$ ]] && (($2 >= ${3:-1})) ||
    { echo "$SCRIPT: $1 must be an integer ≥ ${3:-1}, got '$2'" >&2; exit 2; }
}

# need_positive NAME VALUE: a number > 0 (e.g. 2.5, 1e3).
need_positive() {
  [[ "$2" =~ ^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] && python3 -c "import sys; sys.exit(0 if float('$2') > 0 else 1)" ||
    { echo "$SCRIPT: $1 must be a number > 0, got '$2'" >&2; exit 2; }
}
