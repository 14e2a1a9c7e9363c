package io.syncmirror.broker.coordinator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.TopicPartition;

/**
 * Codec of committed-offset records in {@code __consumer_offsets}. Stateless.
 *
 * <p>Key and value use the byte layout of Kafka's OffsetCommitKey v1 (group, topic, partition) and
 * OffsetCommitValue v3 (offset, leader epoch, metadata, commit timestamp), each prefixed by its int16 version, so
 * Kafka's tools read them. Keys of other versions (group metadata) are skipped on load; a null value deletes.
 */
public final class OffsetLogRecord
{
    private static final short KEY_VERSION = 1;
    private static final short VALUE_VERSION = 3;

    private OffsetLogRecord()
    {
    }

    /** A decoded key. */
    public record Key(String groupId, TopicPartition partition)
    {
    }

    /** A decoded value. */
    public record Value(long offset, int leaderEpoch, String metadata, long commitTimestampMs)
    {
    }

    public static byte[] encodeKey(final String groupId, final TopicPartition partition)
    {
        final byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        final byte[] topic = partition.topic().getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + group.length + 2 + topic.length + 4);
        buffer.putShort(KEY_VERSION);
        buffer.putShort((short) group.length).put(group);
        buffer.putShort((short) topic.length).put(topic);
        buffer.putInt(partition.partition());
        return buffer.array();
    }

    /** The key, or null when it is not an offset-commit key. */
    public static Key decodeKey(final ByteBuffer key)
    {
        final ByteBuffer buffer = key.duplicate();
        final short version = buffer.getShort();
        if (version != 0 && version != KEY_VERSION)
        {
            return null;
        }
        final String group = TransactionLogRecord.readString(buffer);
        final String topic = TransactionLogRecord.readString(buffer);
        return new Key(group, new TopicPartition(topic, buffer.getInt()));
    }

    public static byte[] encodeValue(final Value value)
    {
        final byte[] metadata = (value.metadata() == null ? "" : value.metadata()).getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(2 + 8 + 4 + 2 + metadata.length + 8);
        buffer.putShort(VALUE_VERSION).putLong(value.offset()).putInt(value.leaderEpoch());
        buffer.putShort((short) metadata.length).put(metadata);
        buffer.putLong(value.commitTimestampMs());
        return buffer.array();
    }

    public static Value decodeValue(final ByteBuffer value)
    {
        final ByteBuffer buffer = value.duplicate();
        final short version = buffer.getShort();
        if (version != VALUE_VERSION)
        {
            throw new IllegalArgumentException("unknown offset commit value version " + version);
        }
        final long offset = buffer.getLong();
        final int leaderEpoch = buffer.getInt();
        final String metadata = TransactionLogRecord.readString(buffer);
        return new Value(offset, leaderEpoch, metadata, buffer.getLong());
    }
}
