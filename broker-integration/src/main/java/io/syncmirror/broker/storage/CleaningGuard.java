package io.syncmirror.broker.storage;

import java.io.File;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.LogCleaner;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * What a log does to Kafka's {@link LogCleaner} around changes the cleaner must not race with, in the order Kafka's
 * LogManager does it: a truncation below the active segment first aborts and pauses a cleaning of that log (a
 * cleaner swapping in segments the truncation just removed would bring records back), then moves the cleaner's
 * checkpoint down to what is left and resumes; a deletion aborts, then drops the checkpoint entry.
 *
 * <p>Thread-safe: the cleaner's manager serializes these under its own lock; {@link #pause} blocks until a
 * cleaning in progress on that log has stopped (at most one segment group's copy).
 */
class CleaningGuard
{
    /** No cleaner: every call does nothing. */
    static final CleaningGuard NONE = new CleaningGuard(null);

    private final LogCleaner cleaner;

    CleaningGuard(final LogCleaner cleaner)
    {
        this.cleaner = cleaner;
    }

    Optional<LogCleaner> cleaner()
    {
        return Optional.ofNullable(cleaner);
    }

    void startup()
    {
        if (cleaner != null)
        {
            cleaner.startup();
        }
    }

    void shutdown()
    {
        if (cleaner != null)
        {
            cleaner.shutdown();
        }
    }

    /** Before a truncation below the active segment: no cleaning runs on the log until {@link #resume}. */
    void pause(final TopicPartition partition)
    {
        if (cleaner != null)
        {
            cleaner.abortAndPauseCleaning(partition);
        }
    }

    /** After a truncation: the cleaner's checkpoint is not above what the log still holds, and cleaning goes on. */
    void resume(final UnifiedLog log)
    {
        if (cleaner != null)
        {
            try
            {
                cleaner.maybeTruncateCheckpoint(log.parentDirFile(), log.topicPartition(),
                    log.activeSegment().baseOffset());
            }
            finally
            {
                cleaner.resumeCleaning(Set.of(log.topicPartition()));
            }
        }
    }

    /**
     * The logs retention may delete segments of (every log that is not compacted), their cleaning paused until
     * {@link #resume(Set)}: Kafka's LogManager does the same, so that retention never races a cleaning.
     */
    Set<TopicPartition> pauseNonCompacted(final Map<TopicPartition, UnifiedLog> logs)
    {
        if (cleaner != null)
        {
            return new HashSet<>(cleaner.pauseCleaningForNonCompactedPartitions().keySet());
        }
        final Set<TopicPartition> deletable = new HashSet<>();
        logs.forEach((partition, log) ->
        {
            if (!log.config().compact)
            {
                deletable.add(partition);
            }
        });
        return deletable;
    }

    /** Resumes what {@link #pauseNonCompacted} paused. */
    void resume(final Set<TopicPartition> partitions)
    {
        if (cleaner != null && !partitions.isEmpty())
        {
            cleaner.resumeCleaning(partitions);
        }
    }

    /** Before a deletion: stops a cleaning of the log for good. */
    void abort(final TopicPartition partition)
    {
        if (cleaner != null)
        {
            cleaner.abortCleaning(partition);
        }
    }

    /** After a deletion: the partition's entry leaves the cleaner's checkpoint in its directory. */
    void forget(final File logDir, final TopicPartition partition)
    {
        if (cleaner != null)
        {
            cleaner.updateCheckpoints(logDir, Optional.of(partition));
        }
    }
}
