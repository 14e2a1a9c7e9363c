package io.syncmirror.tests;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Every record a producer had acknowledged, as (partition, offset, value bytes) from its send callbacks, and the
 * check that a cluster holds each of them at its offset with its exact bytes. Thread-safe: the producer's I/O
 * thread records while the test thread counts; {@link #verify} runs after the producer is closed.
 *
 * <p>The ledger is the client's view on purpose: a record counts as acknowledged only when the callback saw
 * success, so a produce answered by a source an instant before it was killed counts, and one that never got an
 * answer does not. That is exactly what a zero-RPO claim promises.
 */
final class AckLedger
{
    /** The outcome of a check: how many acknowledged records there were and how many the cluster lacked. */
    record Verdict(long acked, long missing, long mismatched, long duplicateAcks, List<String> samples)
    {
        /** Records absent at their offset plus records present with other bytes. */
        long lost()
        {
            return missing + mismatched;
        }

        @Override
        public String toString()
        {
            return "acked " + acked + ", missing " + missing + ", different bytes " + mismatched +
                ", offsets acknowledged twice " + duplicateAcks +
                (samples.isEmpty() ? "" : ", e.g. " + samples);
        }
    }

    private static final int MAX_SAMPLES = 5;

    private final String topic;
    /** Acknowledged values by partition, then by offset; guarded by {@code this}. */
    private final Map<Integer, Map<Long, byte[]>> acked = new HashMap<>();
    /** The highest acknowledged offset by partition; guarded by {@code this}. */
    private final Map<Integer, Long> maxOffsets = new HashMap<>();
    private final AtomicLong ackedCount = new AtomicLong();
    private final AtomicLong failedCount = new AtomicLong();
    private final AtomicLong duplicateCount = new AtomicLong();

    AckLedger(final String topic)
    {
        this.topic = topic;
    }

    String topic()
    {
        return topic;
    }

    /**
     * Records an acknowledged send. A second acknowledgement of one offset is a broker bug; it is counted (the
     * producer's I/O thread would swallow an exception) and the verdict reports it.
     */
    void onAcked(final int partition, final long offset, final byte[] value)
    {
        final byte[] previous;
        synchronized (this)
        {
            previous = acked.computeIfAbsent(partition, p -> new HashMap<>()).put(offset, value);
            maxOffsets.merge(partition, offset, Math::max);
        }
        if (previous != null)
        {
            duplicateCount.incrementAndGet();
        }
        ackedCount.incrementAndGet();
    }

    /** Counts a send whose callback reported an error (after the kill, every send still in flight). */
    void onFailed()
    {
        failedCount.incrementAndGet();
    }

    long ackedCount()
    {
        return ackedCount.get();
    }

    long failedCount()
    {
        return failedCount.get();
    }

    /** The highest acknowledged offset of the partition, -1 when none. */
    synchronized long maxAckedOffset(final int partition)
    {
        return maxOffsets.getOrDefault(partition, -1L);
    }

    /** The partitions that have at least one acknowledged record. */
    synchronized List<Integer> partitions()
    {
        return new ArrayList<>(acked.keySet());
    }

    /**
     * Reads every partition of the topic in {@code partitions} from offset 0 to its end with a read_uncommitted
     * consumer on {@code bootstrap}, and counts the acknowledged records that are not there with their bytes.
     */
    Verdict verify(final String bootstrap, final int partitions, final long timeoutMs)
    {
        return verify(bootstrap, Map.of(), partitions, timeoutMs);
    }

    /** The same with {@code security} (Kafka client settings) on the consumer. */
    Verdict verify(final String bootstrap, final Map<String, Object> security, final int partitions,
        final long timeoutMs)
    {
        final Map<Integer, Map<Long, byte[]>> expected;
        synchronized (this)
        {
            expected = new HashMap<>();
            acked.forEach((p, byOffset) -> expected.put(p, new HashMap<>(byOffset)));
        }
        final Map<Integer, Map<Long, byte[]>> found = new HashMap<>();
        for (final ConsumerRecord<byte[], byte[]> record : Clients.readToEnd(bootstrap, security, topic, partitions,
            timeoutMs))
        {
            found.computeIfAbsent(record.partition(), p -> new HashMap<>()).put(record.offset(), record.value());
        }
        long total = 0;
        long missing = 0;
        long mismatched = 0;
        final List<String> samples = new ArrayList<>();
        for (final Map.Entry<Integer, Map<Long, byte[]>> partition : expected.entrySet())
        {
            final Map<Long, byte[]> there = found.getOrDefault(partition.getKey(), Map.of());
            for (final Map.Entry<Long, byte[]> record : partition.getValue().entrySet())
            {
                total++;
                final byte[] value = there.get(record.getKey());
                if (value == null)
                {
                    missing++;
                    maybeSample(samples, "p" + partition.getKey() + "@" + record.getKey() + " missing");
                }
                else if (!Arrays.equals(value, record.getValue()))
                {
                    mismatched++;
                    maybeSample(samples, "p" + partition.getKey() + "@" + record.getKey() + " other bytes");
                }
            }
        }
        return new Verdict(total, missing, mismatched, duplicateCount.get(), samples);
    }

    private static void maybeSample(final List<String> samples, final String sample)
    {
        if (samples.size() < MAX_SAMPLES)
        {
            samples.add(sample);
        }
    }
}
