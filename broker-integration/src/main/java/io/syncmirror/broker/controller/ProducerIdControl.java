package io.syncmirror.broker.controller;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's producer id blocks, as Kafka's {@code ProducerIdControlManager} keeps them: the next block's
 * start, replayed from {@link MetadataRecord.ProducerIds}, and the floor a failover raises it to
 * ({@link MetadataRecord.ProducerIdFloor}), so that no id the source handed out is handed out again here.
 * Thread-safety: the controller's event thread, as all controller state.
 */
final class ProducerIdControl
{
    /** Producer ids go to brokers in blocks of this size (Kafka's {@code ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE}). */
    static final int BLOCK_SIZE = 1000;

    private long nextBlockStart;
    /**
     * The highest producer id floor recorded. Kept apart from the next block start: a broker may hold a block
     * allocated before the floor was raised, and skips its ids below the floor only if the record reaches it.
     */
    private long floor = -1L;

    void replay(final MetadataRecord.ProducerIds record)
    {
        nextBlockStart = Math.max(nextBlockStart, record.nextBlockStart());
    }

    void replay(final MetadataRecord.ProducerIdFloor record)
    {
        nextBlockStart = Math.max(nextBlockStart, record.floor());
        floor = Math.max(floor, record.floor());
    }

    /** The records that restore this state: the next block's start and the floor, where set. */
    void snapshot(final java.util.function.Consumer<MetadataRecord> out)
    {
        if (nextBlockStart > 0)
        {
            out.accept(new MetadataRecord.ProducerIds(-1, -1, nextBlockStart));
        }
        if (floor >= 0)
        {
            out.accept(new MetadataRecord.ProducerIdFloor(floor));
        }
    }

    /** Where the next block starts. */
    long nextBlockStart()
    {
        return nextBlockStart;
    }

    /** The record that gives the next block to broker {@code brokerId} at {@code brokerEpoch}. */
    MetadataRecord.ProducerIds allocate(final int brokerId, final long brokerEpoch)
    {
        return new MetadataRecord.ProducerIds(brokerId, brokerEpoch, nextBlockStart + BLOCK_SIZE);
    }

    /** Whether a floor at {@code proposed} would raise the one recorded (a lower or equal one writes nothing). */
    boolean raises(final long proposed)
    {
        return proposed > floor;
    }
}
