package io.syncmirror.broker.controller;

import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of {@link Controller#bumpLeaderEpochs}: a topic-level error, and per partition its new leader epoch
 * or its error. Immutable, so thread-safe.
 */
public record EpochBumpResult(Errors error, String message, Map<Integer, PartitionEpoch> partitions)
{
    /** One partition's new leader epoch ({@code error} NONE) or why it was not bumped ({@code leaderEpoch} -1). */
    public record PartitionEpoch(Errors error, int leaderEpoch)
    {
    }

    public EpochBumpResult
    {
        Objects.requireNonNull(error, "error");
        partitions = Map.copyOf(partitions);
    }

    public boolean isOk()
    {
        return error == Errors.NONE;
    }
}
