#!/usr/bin/env bash
# Builds benchmarks/target/benchmarks.jar and runs the JMH micro-benchmarks beside their Kafka 4.4 baselines,
# writing JMH's JSON and the COMPARE/FIGURE summary under benchmarks/results/<UTC timestamp>/.
#
#   benchmarks/run-micro.sh [--no-build] [--quick] [--include REGEX] [--out DIR]
#
#   --no-build  use the jar already built
#   --quick     1 fork of short iterations: checks that everything runs, not for publishing numbers
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1
out=""
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-build) build=0 ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done

if [[ $build -eq 1 ]]; then
  mvn -B -q -DskipTests package -pl benchmarks -am
fi

if [[ -z "$out" ]]; then
  out="benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)"
fi

exec java -jar benchmarks/target/benchmarks.jar ${args[@]+"${args[@]}"} --out "$out"
