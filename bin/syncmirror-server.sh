#!/usr/bin/env bash
# Starts one syncmirror broker: bin/syncmirror-server.sh <server.properties>
# Builds the broker (mvn, skipping tests) when it has not been built yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "usage: $0 <server.properties>" >&2
  echo "  starts one broker with the given Kafka-style properties (see config/server.properties)" >&2
  exit 2
fi
if [ ! -r "$1" ]; then
  echo "error: cannot read properties file '$1'" >&2
  exit 2
fi

jar=$(ls "$root"/broker-integration/target/broker-integration-*.jar 2>/dev/null | grep -v -e sources -e tests | head -n 1 || true)
if [ -z "$jar" ] || [ ! -d "$root/broker-integration/target/lib" ]; then
  (cd "$root" && mvn -B -q -pl broker-integration -am package -DskipTests)
  jar=$(ls "$root"/broker-integration/target/broker-integration-*.jar | grep -v -e sources -e tests | head -n 1)
fi

# The JVM flags the hot path needs (the parent pom's syncmirror.jvm.flags), never left to the user.
jvm_flags="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
# Broker logs at INFO, Kafka's own client and log-engine classes at WARN; SYNCMIRROR_LOG_OPTS overrides.
log_opts=${SYNCMIRROR_LOG_OPTS:--Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn -Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS}
exec java $jvm_flags $log_opts ${SYNCMIRROR_HEAP_OPTS:--Xmx2g} -cp "$jar:$root/broker-integration/target/lib/*" \
  io.syncmirror.broker.server.SyncMirrorServer "$@"
