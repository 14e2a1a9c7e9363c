package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;

/**
 * Where mirror coordinators keep their partitions' state: the compacted {@code __mirror_state} topic
 * ({@link TopicMirrorStateStore}), so that a coordinator moving to another broker (a leadership change, a
 * restart) rebuilds it. Thread-safety: implementations are safe for use from any thread.
 */
public interface MirrorStateStore extends AutoCloseable
{
    /** The topic holding the state. */
    String TOPIC = "__mirror_state";

    /** The partition of {@link #TOPIC} a record key is kept in (murmur2, as Kafka's default partitioner hashes). */
    static int partitionFor(final byte[] key, final int partitions)
    {
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key)) %
            partitions;
    }

    /**
     * Writes a partition's state and returns once it is committed (acks=all), or throws
     * {@code org.apache.kafka.common.KafkaException} (e.g. a timeout) with nothing known to be written.
     */
    void write(MirrorStateRecord record);

    /**
     * Sends a partition's state and returns at once; the future completes once it is committed (acks=all), or
     * fails with {@code org.apache.kafka.common.KafkaException}. Writes of one key are committed in the order they
     * were sent, by this method or {@link #write}. Lets a coordinator starting thousands of partitions wait for
     * their writes together rather than one after another.
     */
    default CompletableFuture<Void> writeAsync(final MirrorStateRecord record)
    {
        try
        {
            write(record);
            return CompletableFuture.completedFuture(null);
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Writes one record of any type (its key's first int16 says which), committed as {@link #write} is. */
    void writeRaw(byte[] key, byte[] value);

    /** The latest value written under {@code key}, or empty; throws KafkaException when unreadable now. */
    Optional<byte[]> readRaw(byte[] key);

    /** The latest state written for the mirror partition, or empty; throws KafkaException when unreadable now. */
    Optional<MirrorStateRecord> read(String mirrorName, Uuid topicId, int partition);

    /**
     * Every mirror partition's latest state, or null when this store reads only one at a time. A coordinator taking
     * over thousands of partitions reads them all in one pass instead of one read each.
     */
    default List<MirrorStateRecord> readAll()
    {
        return null;
    }

    /**
     * The latest state of the partition under any mirror name (a failback asks by topic id and partition only),
     * preferring the most recently written; empty when none.
     */
    Optional<MirrorStateRecord> readAnyMirror(Uuid topicId, int partition);

    @Override
    void close();
}
