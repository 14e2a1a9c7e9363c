#!/usr/bin/env bash
# Prints a salted SCRAM credential line for syncmirror.sasl.scram.credentials.file; the password comes on stdin:
#   echo -n secret | bin/syncmirror-scram-credential.sh --mechanism SCRAM-SHA-512 --user bob >> scram.properties
exec "$(dirname "$0")/lib/run-tool.sh" io.syncmirror.tools.ScramCredentialCommand "$@"
