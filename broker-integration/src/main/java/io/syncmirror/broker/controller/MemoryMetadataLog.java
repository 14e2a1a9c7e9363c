package io.syncmirror.broker.controller;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;

/**
 * A {@link MetadataLog} on the heap, for tests and the in-memory broker. Thread-safety: synchronized, so reads
 * from any thread see whole batches.
 */
public final class MemoryMetadataLog implements MetadataLog
{
    private final List<Long> baseOffsets = new ArrayList<>();
    private final List<ByteBuffer> batches = new ArrayList<>();
    private long endOffset;

    @Override
    public synchronized long append(final List<MetadataRecord> records, final long timeMs)
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(endOffset, timeMs, records);
        final ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
        copy.put(batch.buffer().duplicate());
        copy.flip();
        final MemoryRecords owned = MemoryRecords.readableRecords(copy);
        long next = endOffset;
        for (final MutableRecordBatch b : owned.batches())
        {
            final int count = (int) (b.lastOffset() - b.baseOffset() + 1);
            b.setLastOffset(next + count - 1);
            final ByteBuffer one = ByteBuffer.allocate(b.sizeInBytes());
            b.writeTo(one);
            one.flip();
            baseOffsets.add(next);
            batches.add(one);
            next += count;
        }
        endOffset = next;
        return next - 1;
    }

    @Override
    public synchronized Records read(final long offset, final int maxBytes)
    {
        int first = -1;
        for (int i = batches.size() - 1; i >= 0; i--)
        {
            if (baseOffsets.get(i) <= offset)
            {
                first = i;
                break;
            }
        }
        if (first < 0)
        {
            first = 0;
        }
        if (offset >= endOffset || batches.isEmpty())
        {
            return MemoryRecords.EMPTY;
        }
        int size = 0;
        int last = first;
        while (last < batches.size() && (last == first || size + batches.get(last).remaining() <= maxBytes))
        {
            size += batches.get(last).remaining();
            last++;
        }
        final ByteBuffer out = ByteBuffer.allocate(size);
        for (int i = first; i < last; i++)
        {
            out.put(batches.get(i).duplicate());
        }
        out.flip();
        return MemoryRecords.readableRecords(out);
    }

    @Override
    public synchronized long endOffset()
    {
        return endOffset;
    }

    @Override
    public synchronized long highWatermark()
    {
        return endOffset;
    }

    @Override
    public void close()
    {
    }
}
