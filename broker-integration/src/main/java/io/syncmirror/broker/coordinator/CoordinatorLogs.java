package io.syncmirror.broker.coordinator;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;

import io.syncmirror.broker.storage.PartitionLog;

/** Helpers shared by the coordinators: replaying an internal partition and mapping append failures. Stateless. */
public final class CoordinatorLogs
{
    private static final int READ_MAX_BYTES = 1 << 20;

    private CoordinatorLogs()
    {
    }

    /** Receives every batch of a partition in offset order. */
    public interface BatchVisitor
    {
        void onBatch(RecordBatch batch);
    }

    /**
     * Replays a log from its start to the LEO seen when called (Kafka's coordinators also load up to the log end:
     * the leader's log is the truth it will make committed).
     */
    public static void replay(final PartitionLog log, final BatchVisitor visitor)
    {
        final long endOffset = log.logEndOffset();
        long offset = log.logStartOffset();
        while (offset < endOffset)
        {
            final PartitionLog.ReadResult read = log.read(offset, READ_MAX_BYTES, FetchIsolation.LOG_END, true);
            long next = offset;
            for (final RecordBatch batch : read.records().batches())
            {
                if (batch.lastOffset() < offset)
                {
                    continue;
                }
                visitor.onBatch(batch);
                next = batch.nextOffset();
            }
            if (next == offset)
            {
                break;
            }
            offset = next;
        }
    }

    /** The cause inside a future's CompletionException or ExecutionException wrappers. */
    public static Throwable unwrap(final Throwable error)
    {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Maps the failure of an append to an internal partition to what a coordinator answers, as Kafka's
     * coordinators do: replication trouble is COORDINATOR_NOT_AVAILABLE (retry here), lost leadership is
     * NOT_COORDINATOR (look the coordinator up again).
     */
    public static Errors appendError(final Throwable error, final Errors tooLarge)
    {
        final Errors errors = Errors.forException(unwrap(error));
        switch (errors)
        {
            case UNKNOWN_TOPIC_OR_PARTITION:
            case NOT_ENOUGH_REPLICAS:
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND:
            case REQUEST_TIMED_OUT:
                return Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER:
            case KAFKA_STORAGE_ERROR:
                return Errors.NOT_COORDINATOR;
            case MESSAGE_TOO_LARGE:
            case RECORD_LIST_TOO_LARGE:
            case INVALID_FETCH_SIZE:
                return tooLarge;
            default:
                return errors;
        }
    }
}
