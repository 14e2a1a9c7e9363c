#!/usr/bin/env bash
# Manages the cluster mirrors of a destination cluster: bin/kafka-cluster-mirrors.sh --help lists the options.
exec "$(dirname "$0")/lib/run-tool.sh" io.syncmirror.tools.ClusterMirrorsCommand "$@"
