#!/usr/bin/env bash
# Builds benchmarks/target/benchmarks.jar if needed and runs the end-to-end produce latency harness
# (io.syncmirror.bench.e2e.ProduceLatencyHarness) with the JVM flags of the parent pom's syncmirror.jvm.flags
# property. Every argument but --no-build and --rebuild goes to the harness; --help lists them.
#
#   benchmarks/run-produce-latency.sh [--no-build|--rebuild] [--systems kafka] [--topologies 1x1,3x3] [--rounds N]
#                                     [--rate N] [--size B] [--warmup-s N] [--measure-s N] [--partitions N] [--out DIR]
#
#   (default)   build the jar when it is missing or older than a pom or a file under a module's src/
#   --no-build  use the jar already built (fails if there is none)
#   --rebuild   build the jar even if it looks current
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

jar=benchmarks/target/benchmarks.jar
build=auto
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=never ;;
    --rebuild) build=always ;;
    *) args+=("$1") ;;
  esac
  shift
done

stale() {
  [[ ! -f $jar ]] && return 0
  [[ -n $(find . -name target -prune -o -name .git -prune -o \( -name pom.xml -o -path '*/src/*' \) -type f \
    -newer "$jar" -print -quit) ]]
}

if [[ $build == always ]] || { [[ $build == auto ]] && stale; }; then
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
if [[ ! -f $jar ]]; then
  echo "error: $jar is missing; run without --no-build" >&2
  exit 1
fi

# The one place the JVM flags are kept is the parent pom; read them from there rather than repeat them.
jvm_flags=$(sed -n 's:.*<syncmirror\.jvm\.flags>\([^$<]*\)</syncmirror\.jvm\.flags>.*:\1:p' pom.xml | head -n 1)
if [[ -z "$jvm_flags" ]]; then
  echo "error: no <syncmirror.jvm.flags> property in pom.xml" >&2
  exit 1
fi

# shellcheck disable=SC2086 # the flags are several words on purpose
exec java $jvm_flags ${JAVA_OPTS:-} -cp "$jar" io.syncmirror.bench.e2e.ProduceLatencyHarness ${args[@]+"${args[@]}"}
