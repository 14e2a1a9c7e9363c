package io.syncmirror.broker.controller.quorum;

import java.nio.ByteBuffer;

import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.server.common.serialization.RecordSerde;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;

/**
 * Our metadata records as Kafka's Raft stores them: the value of each record in a {@code __cluster_metadata}
 * batch is {@link MetadataRecordCodec}'s encoding, key null, exactly as the single-controller log wrote them, so
 * brokers decode the Raft log with the same {@link MetadataRecordCodec#decodeAll}.
 *
 * <p>{@link #recordSize} encodes once and leaves the bytes in the cache for {@link #write}, as Kafka's own
 * {@code MetadataRecordSerde} does with its message sizes. Stateless, so thread-safe.
 */
public final class MetadataRecordSerde implements RecordSerde<MetadataRecord>
{
    public static final MetadataRecordSerde INSTANCE = new MetadataRecordSerde();

    private MetadataRecordSerde()
    {
    }

    @Override
    public int recordSize(final MetadataRecord record, final ObjectSerializationCache cache)
    {
        final byte[] bytes = MetadataRecordCodec.encode(record);
        cache.cacheSerializedValue(record, bytes);
        return bytes.length;
    }

    @Override
    public void write(final MetadataRecord record, final ObjectSerializationCache cache, final Writable out)
    {
        byte[] bytes = cache.getSerializedValue(record);
        if (bytes == null)
        {
            bytes = MetadataRecordCodec.encode(record);
        }
        out.writeByteArray(bytes);
    }

    @Override
    public MetadataRecord read(final Readable input, final int size)
    {
        final ByteBuffer value = input.readByteBuffer(size);
        return MetadataRecordCodec.decode(value);
    }
}
