package io.syncmirror.broker.group;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinator;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorRuntimeMetrics;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.server.share.persister.NoOpStatePersister;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.yammer.metrics.core.MetricsRegistry;

import io.syncmirror.broker.coordinator.GroupOffsetsPort;
import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.metadata.KafkaImageBridge;
import io.syncmirror.broker.metadata.MetadataView;

/**
 * Kafka 4.4's own group coordinator ({@link GroupCoordinatorService}) hosted on this broker: classic and
 * KIP-848 consumer groups and their committed offsets, kept in the {@code __consumer_offsets} partitions this
 * broker leads. Thread-safety: thread-safe; the service runs on its own threads (event processors, the timer
 * reaper and the loaders).
 *
 * <p>What the host supplies: the partition writer over the replica layer (writes complete on the partition's HW),
 * the loader, elections and resignations from the replica layer's leadership changes of {@code __consumer_offsets}
 * partitions, and Kafka's metadata image through the broker's one {@link KafkaImageBridge}. Configuration is the
 * broker's own properties under Kafka's keys ({@code group.*}, {@code offsets.*}), read by Kafka's
 * {@link GroupCoordinatorConfig}. Share groups are not served: the state persister is Kafka's no-op one and
 * {@code share.version} is never finalized.
 */
public final class GroupCoordinatorHost implements GroupOffsetsPort, ReplicaAccess.LeadershipListener,
    KafkaImageBridge.Subscriber, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinatorHost.class);

    private final GroupCoordinatorConfig config;
    private final ReplicaAccess replicas;
    private final MetadataView metadata;
    private final Metrics metrics = new Metrics();
    private final MetricsRegistry yammerMetrics = new MetricsRegistry();
    private final GroupConfigManager groupConfigs;
    private final GroupCoordinatorService service;
    /** The running or finished creation of {@code __consumer_offsets}; guarded by this. */
    private CompletableFuture<Void> topicCreation;

    /**
     * @param brokerProps       the broker's properties (Kafka's group and offsets keys among them)
     * @param brokerLogDefaults the broker's log defaults in topic-config form, for the writer's log config
     */
    public GroupCoordinatorHost(final int brokerId, final Map<String, ?> brokerProps,
        final Map<String, String> brokerLogDefaults, final ReplicaAccess replicas, final MetadataView metadata,
        final Time time)
    {
        this.config = GroupCoordinatorConfig.fromProps(brokerProps);
        this.replicas = replicas;
        this.metadata = metadata;
        this.groupConfigs = new GroupConfigManager(config, ShareGroupConfig.fromProps(brokerProps));
        this.service = new GroupCoordinatorService.Builder(brokerId, config)
            .withTime(time)
            .withTimer(new SystemTimerReaper("group-coordinator-reaper-" + brokerId,
                new SystemTimer("group-coordinator-" + brokerId)))
            .withLoader(new GroupCoordinatorLoader(brokerId, replicas, time, config.offsetsLoadBufferSize()))
            .withWriter(new ReplicaPartitionWriter(replicas, brokerLogDefaults))
            .withCoordinatorRuntimeMetrics(new GroupCoordinatorRuntimeMetrics(metrics))
            .withGroupCoordinatorMetrics(new GroupCoordinatorMetrics(yammerMetrics, metrics))
            .withGroupConfigManager(groupConfigs)
            .withPersister(new NoOpStatePersister())
            .withAuthorizerPlugin(Optional.empty())
            .withPartitionMetadataClient(new LocalPartitionMetadataClient(replicas))
            .build();
    }

    /** Kafka's group coordinator settings in force (from the broker's properties). */
    public GroupCoordinatorConfig config()
    {
        return config;
    }

    /** The coordinator the group APIs call. */
    public GroupCoordinator coordinator()
    {
        return service;
    }

    /**
     * Starts the service and registers for leadership of {@code __consumer_offsets} partitions; partitions led
     * already are elected at once. Call once, after the image bridge has this host as a subscriber.
     */
    public void startup()
    {
        service.startup(config::offsetsTopicPartitions);
        replicas.addLeadershipListener(Topic.GROUP_METADATA_TOPIC_NAME, this);
    }

    @Override
    public TopicPartition partitionFor(final String groupId)
    {
        return new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, service.partitionFor(groupId));
    }

    /**
     * Creates {@code __consumer_offsets} once through the controller, with Kafka's partition count, replication
     * factor (capped to the live brokers, as a young cluster needs) and the coordinator's own topic configs.
     */
    @Override
    public synchronized CompletableFuture<Void> ensureTopic()
    {
        if (topicCreation != null && !topicCreation.isCompletedExceptionally())
        {
            return topicCreation;
        }
        final int alive = Math.max(1, metadata.liveBrokers().size());
        final short replicationFactor = (short)Math.min(config.offsetsTopicReplicationFactor(), alive);
        topicCreation = replicas.ensureTopic(Topic.GROUP_METADATA_TOPIC_NAME, config.offsetsTopicPartitions(),
            replicationFactor, service.groupMetadataTopicConfigs());
        topicCreation.whenComplete((ignored, error) ->
        {
            if (error != null)
            {
                LOG.info("creating {} failed, retried on the next lookup: {}", Topic.GROUP_METADATA_TOPIC_NAME,
                    error.toString());
            }
        });
        return topicCreation;
    }

    /**
     * Hands the marker to the coordinator, which appends it to the partition and settles the producer's pending
     * transactional commits there once it is replicated. The broker serves transaction version 1 only.
     */
    @Override
    public CompletableFuture<Void> completeTransaction(final TopicPartition partition, final long producerId,
        final short producerEpoch, final int coordinatorEpoch, final boolean committed)
    {
        return service.completeTransaction(partition, producerId, producerEpoch, coordinatorEpoch,
            committed ? TransactionResult.COMMIT : TransactionResult.ABORT, TransactionVersion.TV_1.featureLevel());
    }

    @Override
    public void onBecomeLeader(final TopicPartition partition, final int leaderEpoch)
    {
        service.onElection(partition.partition(), leaderEpoch);
    }

    @Override
    public void onResign(final TopicPartition partition)
    {
        service.onResignation(partition.partition(), OptionalInt.empty());
    }

    @Override
    public void onMetadataUpdate(final MetadataDelta delta, final MetadataImage image)
    {
        service.onMetadataUpdate(delta, image);
    }

    @Override
    public void close()
    {
        try
        {
            service.shutdown();
        }
        catch (final RuntimeException e)
        {
            LOG.warn("group coordinator shutdown failed", e);
        }
        groupConfigs.close();
        metrics.close();
        yammerMetrics.shutdown();
    }
}
