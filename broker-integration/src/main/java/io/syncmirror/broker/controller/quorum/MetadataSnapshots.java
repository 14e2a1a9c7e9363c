package io.syncmirror.broker.controller.quorum;

import java.util.function.Consumer;

import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.KafkaRaftClient;
import org.apache.kafka.snapshot.RawSnapshotReader;
import org.apache.kafka.snapshot.RecordsSnapshotReader;
import org.apache.kafka.snapshot.SnapshotReader;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * Reading a metadata snapshot's records with Kafka's own reader ({@link RecordsSnapshotReader}, which checks each
 * batch's CRC and skips the header and footer control records). Stateless.
 */
final class MetadataSnapshots
{
    private static final LogContext LOG_CONTEXT = new LogContext("[metadata snapshot] ");

    private MetadataSnapshots()
    {
    }

    /** Replays every record of {@code raw} into {@code replay}, in order. */
    static void replay(final RawSnapshotReader raw, final Consumer<MetadataRecord> replay)
    {
        try (SnapshotReader<MetadataRecord> reader = RecordsSnapshotReader.of(raw, MetadataRecordSerde.INSTANCE,
            BufferSupplier.create(), KafkaRaftClient.MAX_BATCH_SIZE_BYTES, true, LOG_CONTEXT))
        {
            replay(reader, replay);
        }
    }

    /** Replays every data record {@code reader} yields into {@code replay}, in order; does not close it. */
    static void replay(final SnapshotReader<MetadataRecord> reader, final Consumer<MetadataRecord> replay)
    {
        while (reader.hasNext())
        {
            final Batch<MetadataRecord> batch = reader.next();
            batch.records().forEach(replay);
        }
    }
}
