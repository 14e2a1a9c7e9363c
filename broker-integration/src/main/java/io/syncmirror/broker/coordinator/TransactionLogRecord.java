package io.syncmirror.broker.coordinator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

/**
 * One transactional id's persisted state, as a record of {@code __transaction_state}, and its codec. Immutable.
 *
 * <p>Key and value use the byte layout of Kafka's TransactionLogKey v0 and TransactionLogValue v0 (int16
 * version, then the fields in order; strings as int16 length + UTF-8, arrays as int32 count), so the log reads
 * the same to tools that know Kafka's format. A null value is a tombstone (the id expired).
 */
public record TransactionLogRecord(long producerId, short producerEpoch, int timeoutMs, TransactionState state,
    Set<TopicPartition> partitions, long lastUpdateTimestampMs, long startTimestampMs)
{
    private static final short KEY_VERSION = 0;
    private static final short VALUE_VERSION = 0;

    public TransactionLogRecord
    {
        partitions = Collections.unmodifiableSet(partitions);
    }

    public static byte[] encodeKey(final String transactionalId)
    {
        final byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + id.length);
        buffer.putShort(KEY_VERSION).putShort((short) id.length).put(id);
        return buffer.array();
    }

    /** The transactional id of a key, or null when the key is of a version this codec does not know. */
    public static String decodeKey(final ByteBuffer key)
    {
        final ByteBuffer buffer = key.duplicate();
        if (buffer.getShort() != KEY_VERSION)
        {
            return null;
        }
        return readString(buffer);
    }

    public byte[] encodeValue()
    {
        final Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (final TopicPartition partition : partitions)
        {
            byTopic.computeIfAbsent(partition.topic(), t -> new ArrayList<>()).add(partition.partition());
        }
        int size = 2 + 8 + 2 + 4 + 1 + 4 + 8 + 8;
        for (final Map.Entry<String, List<Integer>> entry : byTopic.entrySet())
        {
            size += 2 + entry.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + 4 * entry.getValue().size();
        }
        final ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putShort(VALUE_VERSION).putLong(producerId).putShort(producerEpoch).putInt(timeoutMs).put(state.id());
        buffer.putInt(byTopic.size());
        for (final Map.Entry<String, List<Integer>> entry : byTopic.entrySet())
        {
            writeString(buffer, entry.getKey());
            buffer.putInt(entry.getValue().size());
            for (final int partition : entry.getValue())
            {
                buffer.putInt(partition);
            }
        }
        buffer.putLong(lastUpdateTimestampMs).putLong(startTimestampMs);
        return buffer.array();
    }

    public static TransactionLogRecord decodeValue(final ByteBuffer value)
    {
        final ByteBuffer buffer = value.duplicate();
        final short version = buffer.getShort();
        if (version != VALUE_VERSION)
        {
            throw new IllegalArgumentException("unknown transaction log value version " + version);
        }
        final long producerId = buffer.getLong();
        final short epoch = buffer.getShort();
        final int timeoutMs = buffer.getInt();
        final TransactionState state = TransactionState.forId(buffer.get());
        final int topics = buffer.getInt();
        final Set<TopicPartition> partitions = new HashSet<>();
        for (int t = 0; t < topics; t++)
        {
            final String topic = readString(buffer);
            final int count = buffer.getInt();
            for (int p = 0; p < count; p++)
            {
                partitions.add(new TopicPartition(topic, buffer.getInt()));
            }
        }
        final long lastUpdateMs = buffer.getLong();
        final long startMs = buffer.getLong();
        return new TransactionLogRecord(producerId, epoch, timeoutMs, state, partitions, lastUpdateMs, startMs);
    }

    static void writeString(final ByteBuffer buffer, final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    static String readString(final ByteBuffer buffer)
    {
        final short length = buffer.getShort();
        if (length < 0)
        {
            return null;
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
