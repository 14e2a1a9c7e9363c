package io.syncmirror.broker.mirror.sync;

/** Why a topic's sync registration was refused or dropped (the SyncRegistrationRejected{reason} counters). */
public enum RejectReason
{
    RELEASED_FRESH_PROMOTION_REQUIRED, VERSION_MISMATCH, ALL_PARTITIONS_FAILING
}
