#!/usr/bin/env bash
# Prints a salted SCRAM credential line for syncmirror.sasl.scram.credentials.file; the password comes on stdin:
#   echo -n secret | bin/syncmirror-scram-credential.sh --mechanism SCRAM-SHA-512 --user bob >> scram.properties
# Builds the command (mvn, skipping tests) when it has not been built yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ ! -d "$root/tools/target/classes/io/syncmirror/tools" ] || [ ! -d "$root/tools/target/lib" ]; then
  (cd "$root" && mvn -B -q -pl tools -am package -DskipTests) >&2
fi

# Only warnings from the client libraries reach stderr; the command prints its own results and errors.
log_opts=${SYNCMIRROR_LOG_OPTS:--Dorg.slf4j.simpleLogger.defaultLogLevel=warn}
exec java $log_opts ${SYNCMIRROR_HEAP_OPTS:--Xmx256m} -cp "$root/tools/target/classes:$root/tools/target/lib/*" \
  io.syncmirror.tools.ScramCredentialCommand "$@"
