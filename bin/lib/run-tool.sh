#!/usr/bin/env bash
# Runs one of the tools module's commands: bin/lib/run-tool.sh CLASS ARGS... (what the bin/ command scripts call).
# Builds the tools (mvn, skipping tests) when they have not been built yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
main_class="$1"
shift

if [ ! -d "$root/tools/target/classes/io/syncmirror/tools" ] || [ ! -d "$root/tools/target/lib" ]; then
  (cd "$root" && mvn -B -q -pl tools -am package -DskipTests) >&2
fi

# Only warnings from the client libraries reach stderr; the command prints its own results and errors.
log_opts=${SYNCMIRROR_LOG_OPTS:--Dorg.slf4j.simpleLogger.defaultLogLevel=warn}
exec java $log_opts ${SYNCMIRROR_HEAP_OPTS:--Xmx256m} -cp "$root/tools/target/classes:$root/tools/target/lib/*" \
  "$main_class" "$@"
