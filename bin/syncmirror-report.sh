#!/usr/bin/env bash
# Writes one self-contained HTML report (SVG figures, no script) of results directories: sync bench runs, JMH runs
# (jmh-result.json), produce-latency harness runs and regression gate runs.
#
#   bin/syncmirror-report.sh RESULTS_DIR... [--out FILE.html]     (default: report.html in the first directory)
#
# Builds perf-reports (mvn, skipping tests) when its jar is missing or older than its sources.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/perf-reports/target/perf-reports.jar"
if [[ ! -f $jar ]] || [[ -n $(find "$root/perf-reports/src/main" "$root/perf-reports/pom.xml" -newer "$jar" -print -quit) ]]; then
  (cd "$root" && mvn -B -q -pl perf-reports package -DskipTests) >&2
fi
exec java -jar "$jar" "$@"
