package io.syncmirror.broker.coordinator;

import org.apache.kafka.common.utils.Utils;

/**
 * The broker settings the coordinators read, with Kafka's names and defaults. Immutable.
 *
 * @param brokerId                          this broker's node id
 * @param transactionLogPartitions          {@code transaction.state.log.num.partitions}
 * @param transactionLogReplicationFactor   {@code transaction.state.log.replication.factor}, capped to live brokers
 * @param transactionLogMinIsr              {@code transaction.state.log.min.isr}, capped to the replication factor
 * @param transactionMaxTimeoutMs           {@code transaction.max.timeout.ms}
 * @param transactionAbortCheckIntervalMs   {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}
 * @param transactionalIdExpirationMs       {@code transactional.id.expiration.ms}: an idle id (no transaction open)
 *                                          is removed after this long
 * @param transactionRemoveExpiredIntervalMs {@code transaction.remove.expired.transaction.cleanup.interval.ms}
 * @param offsetsTopicPartitions            {@code offsets.topic.num.partitions}
 * @param offsetsTopicReplicationFactor     {@code offsets.topic.replication.factor}, capped to live brokers
 * @param offsetMetadataMaxBytes            {@code offset.metadata.max.bytes}
 * @param appendTimeoutMs                   how long an acks=all append to an internal partition may wait
 * @param markerRetryBackoffMs              pause before re-sending markers that failed
 */
public record CoordinatorConfig(int brokerId, int transactionLogPartitions, short transactionLogReplicationFactor,
    int transactionLogMinIsr, int transactionMaxTimeoutMs, long transactionAbortCheckIntervalMs,
    long transactionalIdExpirationMs, long transactionRemoveExpiredIntervalMs, int offsetsTopicPartitions,
    short offsetsTopicReplicationFactor, int offsetMetadataMaxBytes, long appendTimeoutMs, long markerRetryBackoffMs)
{
    public static final String TRANSACTION_STATE_TOPIC = "__transaction_state";
    public static final String CONSUMER_OFFSETS_TOPIC = "__consumer_offsets";

    public static final int TRANSACTION_LOG_PARTITIONS_DEFAULT = 50;
    public static final short TRANSACTION_LOG_REPLICATION_FACTOR_DEFAULT = 3;
    public static final int TRANSACTION_LOG_MIN_ISR_DEFAULT = 2;
    public static final int TRANSACTION_MAX_TIMEOUT_MS_DEFAULT = 900_000;
    public static final long TRANSACTION_ABORT_CHECK_INTERVAL_MS_DEFAULT = 10_000L;
    public static final long TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT = 604_800_000L;
    public static final long TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS_DEFAULT = 3_600_000L;
    public static final int OFFSETS_TOPIC_PARTITIONS_DEFAULT = 50;
    public static final short OFFSETS_TOPIC_REPLICATION_FACTOR_DEFAULT = 3;
    public static final int OFFSET_METADATA_MAX_BYTES_DEFAULT = 4096;
    public static final long APPEND_TIMEOUT_MS_DEFAULT = 15_000L;
    public static final long MARKER_RETRY_BACKOFF_MS_DEFAULT = 100L;

    /** Kafka's defaults for a broker. */
    public static CoordinatorConfig defaults(final int brokerId)
    {
        return new CoordinatorConfig(brokerId, TRANSACTION_LOG_PARTITIONS_DEFAULT,
            TRANSACTION_LOG_REPLICATION_FACTOR_DEFAULT, TRANSACTION_LOG_MIN_ISR_DEFAULT,
            TRANSACTION_MAX_TIMEOUT_MS_DEFAULT, TRANSACTION_ABORT_CHECK_INTERVAL_MS_DEFAULT,
            TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT, TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS_DEFAULT,
            OFFSETS_TOPIC_PARTITIONS_DEFAULT, OFFSETS_TOPIC_REPLICATION_FACTOR_DEFAULT,
            OFFSET_METADATA_MAX_BYTES_DEFAULT, APPEND_TIMEOUT_MS_DEFAULT, MARKER_RETRY_BACKOFF_MS_DEFAULT);
    }

    /** The {@code __transaction_state} partition that owns a transactional id. */
    public int transactionPartitionFor(final String transactionalId)
    {
        return Utils.abs(transactionalId.hashCode()) % transactionLogPartitions;
    }

    /** The {@code __consumer_offsets} partition that owns a group. */
    public int offsetsPartitionFor(final String groupId)
    {
        return Utils.abs(groupId.hashCode()) % offsetsTopicPartitions;
    }
}
