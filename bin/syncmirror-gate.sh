#!/usr/bin/env bash
# The latency regression gate: builds a baseline and a candidate, runs the benchmark suite in interleaved rounds
# (A B, B A, ...) on this machine, and decides per metric with a confidence interval on candidate/baseline.
# docs/regression-gate.md explains the suites, the statistics and the outputs.
#
#   bin/syncmirror-gate.sh --baseline <git-ref | checkout dir | gate results dir> [--candidate <git-ref | dir>]
#                          [--suite quick|full] [--threshold-pct 10] [--tail-threshold-pct 25] [--rounds N]
#                          [--confidence 0.99] [--method t|bootstrap] [--out DIR]
#
# The candidate defaults to the working tree. A git ref is exported (git archive) into a cache directory
# (SYNCMIRROR_GATE_CACHE, default ~/.cache/syncmirror-gate/<commit>) and built there once; a directory is used as
# it is and built when it has no benchmarks jar. A gate results directory as --baseline is a stored baseline: only
# the candidate runs, and the comparison is unpaired (two times, perhaps two machines, not two builds).
#
# Exit status: 0 no regression, 1 a regression beyond the threshold, 2 could not run (bad ref, failed build, bad
# results directory), 3 inconclusive (too noisy to decide; the summary says how many rounds would).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${SYNCMIRROR_GATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/syncmirror-gate}"

usage() {
  sed -n '6,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}
fail() {
  echo "error: $*" >&2
  exit 2
}

baseline=""
candidate=""
out=""
pass=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --baseline|--candidate|--out)
      [[ $# -ge 2 && $2 != --* ]] || fail "$1 needs a value"
      case "$1" in
        --baseline) baseline=$2 ;;
        --candidate) candidate=$2 ;;
        --out) out=$2 ;;
      esac
      shift 2 ;;
    --suite|--threshold-pct|--tail-threshold-pct|--rounds|--confidence|--method)
      [[ $# -ge 2 && $2 != --* ]] || fail "$1 needs a value"
      pass+=("$1" "$2"); shift 2 ;;
    *) usage; fail "unknown argument '$1'" ;;
  esac
done
[[ -n $baseline ]] || { usage; fail "--baseline is required"; }
command -v java >/dev/null 2>&1 || fail "no java on the PATH (Java 17 or newer is needed)"
command -v mvn >/dev/null 2>&1 || fail "no mvn on the PATH (Maven 3.8 or newer is needed)"

# Builds the benchmarks jar in checkout $1 (named $2). An exported commit (under the cache) is built once and
# marked; a directory given by the user is built only when it has no jar, and nothing is written into it but
# what mvn writes. The build's output goes to a log.
build() {
  local dir=$1 name=$2 log
  if [[ $dir == "$cache"/* ]]; then
    [[ -f $dir/.gate-built ]] && return 0
    log=$dir/.gate-build.log
  else
    [[ -f $dir/benchmarks/target/benchmarks.jar ]] && return 0
    log=$(mktemp -t syncmirror-gate-build.XXXXXX)
  fi
  echo "gate: building $name in $dir (mvn -B -q -pl benchmarks -am package -DskipTests)" >&2
  if ! (cd "$dir" && mvn -B -q -pl benchmarks -am package -DskipTests) >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    fail "building $name failed; the whole log: $log"
  fi
  [[ $dir != "$cache"/* ]] || touch "$dir/.gate-built"
}

# Sets side_dir, side_name and side_commit for --baseline/--candidate value $2 (side $1).
resolve() {
  local side=$1 spec=$2 sha
  side_stored=""
  if [[ -d $spec ]]; then
    spec=$(cd "$spec" && pwd)
    if [[ -f $spec/gate.properties && -f $spec/rounds.csv ]]; then
      [[ $side == baseline ]] || fail "--candidate $spec is a gate results directory; only a baseline can be stored"
      side_stored=$spec side_dir="" side_name="stored run $spec" side_commit=""
      return 0
    fi
    [[ -f $spec/bin/syncmirror-bench.sh ]] || fail "--$side $spec is not a syncmirror checkout (no bin/syncmirror-bench.sh)"
    side_dir=$spec side_name=$spec
    side_commit=$( (cd "$spec" && git rev-parse HEAD 2>/dev/null) || cat "$spec/.build-commit" 2>/dev/null || echo unknown)
    if [[ -d $spec/.git ]] && [[ -n $(git -C "$spec" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
      side_commit="$side_commit-dirty"
    fi
    return 0
  fi
  sha=$(git -C "$root" rev-parse --verify --quiet "$spec^{commit}" 2>/dev/null) ||
    fail "--$side '$spec' is neither a directory nor a commit of this repository"
  side_dir="$cache/$sha" side_name="$spec (${sha:0:12})" side_commit=$sha
  if [[ ! -f $side_dir/.gate-built ]]; then
    rm -rf "$side_dir"
    mkdir -p "$side_dir"
    git -C "$root" archive "$sha" | tar -x -C "$side_dir" || fail "cannot export $spec into $side_dir"
    echo "$sha" >"$side_dir/.build-commit"
  fi
}

resolve baseline "$baseline"
baseline_dir=$side_dir baseline_name=$side_name baseline_commit=$side_commit baseline_stored=$side_stored
if [[ -n $candidate ]]; then
  resolve candidate "$candidate"
else
  resolve candidate "$root"
  side_name="working tree ($side_commit)"
fi
candidate_dir=$side_dir candidate_name=$side_name candidate_commit=$side_commit

[[ -z $baseline_dir ]] || build "$baseline_dir" "the baseline $baseline_name"
if [[ $candidate_dir == "$root" ]]; then
  # The working tree: the bench script builds its jar when it is missing or older than a source file.
  "$root/bin/syncmirror-bench.sh" --help >/dev/null || fail "building the working tree failed"
else
  build "$candidate_dir" "the candidate $candidate_name"
fi

# The gate itself runs from this checkout's perf-reports module.
gate_jar="$root/perf-reports/target/perf-reports.jar"
if [[ ! -f $gate_jar ]] || [[ -n $(find "$root/perf-reports/src/main" "$root/perf-reports/pom.xml" -newer "$gate_jar" -print -quit) ]]; then
  (cd "$root" && mvn -B -q -pl perf-reports package -DskipTests) >&2 || fail "building perf-reports failed"
fi

out=${out:-$root/results/gate-$(date -u +%Y%m%dT%H%M%SZ)}
args=(--out "$out" --candidate-dir "$candidate_dir" --candidate-name "$candidate_name"
  --candidate-commit "$candidate_commit")
if [[ -n $baseline_stored ]]; then
  args+=(--stored-baseline "$baseline_stored" --baseline-name "$baseline_name")
else
  args+=(--baseline-dir "$baseline_dir" --baseline-name "$baseline_name" --baseline-commit "$baseline_commit")
fi
exec java -cp "$gate_jar" io.syncmirror.perf.gate.Gate "${args[@]}" ${pass[@]+"${pass[@]}"}
