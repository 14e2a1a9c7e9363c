#!/usr/bin/env bash
# Grants, revokes and lists ALTER/DESCRIBE on the CLUSTER_MIRRORS resource (which kafka-acls.sh cannot name):
#   bin/syncmirror-mirror-acls.sh --bootstrap-server b1:9094 --command-config admin.properties --add \
#       --allow-principal User:ops --operation Alter
exec "$(dirname "$0")/lib/run-tool.sh" io.syncmirror.tools.MirrorAclCommand "$@"
