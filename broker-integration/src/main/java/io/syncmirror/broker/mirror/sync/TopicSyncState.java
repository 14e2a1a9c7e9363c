package io.syncmirror.broker.mirror.sync;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;

/**
 * A topic's sync control state on this broker, {@link SyncControl}'s. Coordinator thread; describe reads the
 * volatile recovery hint.
 */
final class TopicSyncState
{
    /** What to do once a topic's request is answered; reads the topic's state as of the step that runs it. */
    @FunctionalInterface
    interface Continuation
    {
        void run(TopicSyncState topic, long nowMs);
    }

    final String mirrorName;
    final Uuid topicId;
    final String topicName;
    /** The next Register carries RecoveryPromotion=true (the source released the topic). In memory only. */
    volatile boolean pendingRecoveryPromotion;
    /** The driver's registration is in flight: its partitions report before the source starts gating. */
    boolean armed;
    /** This broker reported for the topic and owes the source an acknowledged Unregister before it stops. */
    boolean unregisterPending;
    /** The topic was effectively SYNC at this broker's last look. */
    boolean wasSync;
    long nextRegisterAtMs;
    long nextUnregisterAtMs;
    int unregisterAttempt;
    /** A failover's Unregister was sent (or tried) by this broker for the topic. */
    boolean stopUnregistered;
    /**
     * The partition 0 leader epoch under which the controller applied this broker's last ASYNC commit, if no
     * SYNC commit went out since (else -1): while it is the current one, no SYNC commit of this or an earlier
     * driver can land any more, so an Unregister at the source cannot leave the topic SYNC without a
     * registration.
     */
    int asyncFencedEpoch = -1;
    /** This promotion recorded registrationOwed itself (it was clear before its Register). */
    boolean owedByThisRegister;
    /** The request awaited and what follows its answer; null when none is out. */
    CompletableFuture<?> awaited;
    Continuation then;
    /** The driver's leader epoch when the awaited request went out. */
    int awaitedLeaderEpoch;
    // As of the last step.
    int partitionCount;
    List<? extends SyncPartition> local = List.of();
    /** {@link #driver()}'s answer, for the list {@link #driverOf}. */
    private SyncPartition driver;
    private List<? extends SyncPartition> driverOf;
    /** The reporting last applied to every one of {@link #local}: 1 on, 0 off, -1 not yet. */
    int reportingApplied = -1;

    TopicSyncState(final String mirrorName, final Uuid topicId, final String topicName)
    {
        this.mirrorName = mirrorName;
        this.topicId = topicId;
        this.topicName = topicName;
    }

    /** The partition that makes this broker the topic's driver (partition 0), or null. */
    SyncPartition driver()
    {
        // Looked up once per list of partitions here (a new list whenever they change), not at every call: a
        // search over them each tick was two thirds of an idle coordinator's CPU at 100k partitions.
        if (driverOf != local)
        {
            driver = null;
            for (final SyncPartition partition : local)
            {
                if (partition.index() == 0)
                {
                    driver = partition;
                    break;
                }
            }
            driverOf = local;
        }
        return driver;
    }
}
