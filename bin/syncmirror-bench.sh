#!/usr/bin/env bash
# Runs the synchronous mirroring benchmark (io.syncmirror.bench.e2e.SyncBench) from the shaded benchmarks jar:
# a source cluster and destination clusters in one JVM, acks=all produce latency with mirroring ASYNC and then
# SYNC, side by side with the mirror link's round trip. --help lists the flags; docs/sync-bench.md explains them.
#
#   bin/syncmirror-bench.sh [--partitions N] [--brokers N] [--replication-factor N] [--destinations N] [--rate N]
#                           [--duration-s N] [--delay-ms X] [--heap SIZE] ... [--help]
#
# It builds benchmarks/target/benchmarks.jar (mvn, skipping tests) when the jar is missing or older than a pom or a
# source file; --no-build uses the jar as it is, --rebuild always builds. Neither flag reaches the benchmark.
# Exit status: 0 every mode measured, 1 a mode not measured or the run broke, 2 bad flag, 3 out of memory (the JVM's
# -XX:+ExitOnOutOfMemoryError), 4 some records failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"

heap=4g
build=auto
args=()
for arg in "$@"; do
  case "$arg" in
    --no-build) build=never ;;
    --rebuild) build=always ;;
    *) args+=("$arg") ;;
  esac
done
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == --heap ]]; then
    if ((i + 1 >= ${#args[@]})) || [[ ${args[i + 1]} == --* ]]; then
      echo "error: --heap needs a value" >&2
      exit 2
    fi
    heap=${args[i + 1]}
    # The same rule as SyncBenchOptions.HEAP_PATTERN, checked here because the JVM needs it before Java runs.
    if [[ ! $heap =~ ^[1-9][0-9]{0,6}[mMgG]$ ]]; then
      echo "error: --heap takes a size like 4g or 512m: '$heap'" >&2
      exit 2
    fi
  fi
done

if ! command -v java >/dev/null 2>&1; then
  echo "error: no java on the PATH (Java 17 or newer is needed)" >&2
  exit 1
fi

stale() {
  [[ ! -f $jar ]] && return 0
  # The modules the benchmarks jar is built from: every one but perf-reports and tests.
  [[ -n $(cd "$root" && find . -name target -prune -o -name .git -prune -o -name results -prune -o \
    -path ./perf-reports -prune -o -path ./tests -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$jar" -print -quit) ]]
}
if [[ $build == always ]] || { [[ $build == auto ]] && stale; }; then
  echo "building $jar (mvn -B -q -pl benchmarks -am package -DskipTests) ..." >&2
  if ! (cd "$root" && mvn -B -q -pl benchmarks -am package -DskipTests >&2); then
    echo "error: the build failed (output above)" >&2
    exit 1
  fi
fi
if [[ ! -f $jar ]]; then
  echo "error: $jar is missing; run without --no-build" >&2
  exit 1
fi

# The commit the jar was built from, for run.properties; "-dirty" when the checkout has uncommitted changes. A
# checkout exported by the regression gate has no .git but a .build-commit file.
commit=unknown
if [[ -f $root/.build-commit ]]; then
  commit=$(cat "$root/.build-commit")
elif git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
  if [[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    commit="$commit-dirty"
  fi
fi

# The JVM flags DESIGN.md asks every launcher to pass: Agrona's, then Chronicle Map's.
jvm_flags=(
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports java.base/sun.nio.ch=ALL-UNNAMED
  -Dchronicle.analytics.disable=true
)

# An out-of-memory error ends the run at once instead of leaving brokers half alive.
# shellcheck disable=SC2086 # JAVA_OPTS is several words on purpose
exec java "${jvm_flags[@]}" "-Xmx$heap" -XX:+ExitOnOutOfMemoryError "-Dsyncmirror.commit=$commit" ${JAVA_OPTS:-} \
  -cp "$jar" io.syncmirror.bench.e2e.SyncBench ${args[@]+"${args[@]}"}
