package io.syncmirror.broker.mirror.sync;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;

/**
 * The sync control's links: to the mirror's source (Register, Unregister), to this cluster's controller (the
 * effective type) and to the other brokers (their partitions). Each call returns at once; its future completes
 * when the answer arrives, or fails when there is none (unreachable, timed out).
 */
public interface SyncLinks
{
    /** The source's answer for one topic: its error code (0 for none) and message. */
    record Answer(short errorCode, String message)
    {
    }

    /**
     * @param driverEpoch the driver's request number (its partition 0 leader epoch, then a counter): the source
     *                    applies nothing older than what it applied last for the topic
     */
    CompletableFuture<Answer> register(String mirrorName, Uuid topicId, String topicName, boolean recoveryPromotion,
        long driverEpoch);

    /** @param driverEpoch as for {@link #register}; -1 for an Unregister not from the driver (a failover's) */
    CompletableFuture<Answer> unregister(String mirrorName, Uuid topicId, String topicName, long driverEpoch);

    /**
     * Commits the topic's effective mirror type (MirrorTopicTypeChange) at the controller, numbered as Register
     * and Unregister are ({@code SyncCommitFence}; -1 for a commit not from the driver, a failover's).
     */
    CompletableFuture<Void> commitMirrorType(Uuid topicId, byte mirrorType, long driverEpoch);

    /** The mirror's partitions other brokers lead, by topic id, as their leaders describe them now. */
    CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> remotePartitions(String mirrorName);
}
