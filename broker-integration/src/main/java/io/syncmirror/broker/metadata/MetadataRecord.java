package io.syncmirror.broker.metadata;

import java.util.List;

import org.apache.kafka.common.Uuid;

/**
 * One entry of the controller's metadata log: the cluster's state is the ordered application of these records,
 * on the controller (replay at start) and on every broker (its image). Immutable, so thread-safe.
 *
 * <p>{@link MetadataRecordCodec} gives each record type a stable type code and a versioned binary form, stored as
 * the value of a Kafka record in the {@code __cluster_metadata} log.
 */
public sealed interface MetadataRecord
{
    /**
     * A broker registered (or re-registered with a new incarnation). A registration starts fenced; the broker
     * epoch is the metadata offset of this record, so it grows with every registration, also across restarts.
     */
    record RegisterBroker(int brokerId, long brokerEpoch, Uuid incarnationId, String host, int port, String rack)
        implements MetadataRecord
    {
    }

    /** The broker lost its session (or asked to shut down): it may lead nothing and sits in no ISR but a last one. */
    record FenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord
    {
    }

    /** The broker heartbeats and has caught up with the metadata log: it may lead and join ISRs again. */
    record UnfenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord
    {
    }

    /** A topic exists under this name and id; its partitions follow as {@link Partition} records. */
    record Topic(String name, Uuid topicId) implements MetadataRecord
    {
    }

    /** A partition's full state (at creation). */
    record Partition(PartitionState state) implements MetadataRecord
    {
    }

    /** A partition's new leader, ISR and epochs; the assignment is unchanged. */
    record PartitionChange(Uuid topicId, int partition, List<Integer> isr, int leader, int leaderEpoch,
        int partitionEpoch) implements MetadataRecord
    {
        public PartitionChange
        {
            isr = List.copyOf(isr);
        }
    }

    /** The topic, its partitions and its config overrides are gone. */
    record RemoveTopic(Uuid topicId) implements MetadataRecord
    {
    }

    /** A topic config override set ({@code value} non-null) or removed ({@code value} null). */
    record Config(String topic, String key, String value) implements MetadataRecord
    {
    }

    /** Producer ids below {@code nextBlockStart} have been handed out: never hand them out again. */
    record ProducerIds(int brokerId, long brokerEpoch, long nextBlockStart) implements MetadataRecord
    {
    }
}
