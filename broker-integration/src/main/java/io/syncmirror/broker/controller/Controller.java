package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.function.LongSupplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.AlterPartitionRequest;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;

/**
 * The cluster's single controller as a deterministic state machine: every change is a batch of
 * {@link MetadataRecord}s appended to the {@link MetadataLog} and applied to the in-memory state by the same
 * {@link #replay} that rebuilds it on start. No network, no threads, no wall clock (time comes from
 * {@code nowMs}). Not thread-safe: one thread (the {@link ControllerApis} event thread) calls everything.
 *
 * <p>The log is local ({@link PartitionLogMetadataLog}: one controller, committed on append) or the metadata
 * quorum ({@code quorum.RaftMetadataLog}: only the Raft leader's controller changes anything, and every change is
 * refused with NOT_CONTROLLER elsewhere before it touches the state; standbys apply what the leader committed
 * through {@link #replayCommitted}).
 *
 * <p>Leader election follows Kafka's KRaft controller without eligible leader replicas: a fenced broker leaves
 * every ISR except where it is the last member (the last ISR member is kept so that the partition knows whom to
 * wait for); where it led, the first replica in assignment order that is in the ISR and unfenced leads; when none
 * is, a live replica is chosen only with {@code unclean.leader.election.enable} (topic override over the broker
 * default), else the leader is -1 until a member of the last ISR returns. Every leader change bumps the leader
 * epoch, every state change bumps the partition epoch (AlterPartition's fencing token).
 *
 * <p>Cluster mirroring: mirror definitions live in the log ({@link MetadataRecord.Mirror}); a topic belongs to
 * mirror M while its config {@code mirror.name} is M, a key only the mirror operations here write (users get
 * INVALID_CONFIG) and that LogConfig validation skips. Mirror topics keep the source's topic id. Failover bumps
 * leader epochs above the source's and raises a persisted producer id floor ({@link MetadataRecord.ProducerIdFloor})
 * so no block is ever allocated below the mirrored producer ids.
 *
 * <p>State is split by record family, as Kafka's {@code QuorumController} splits it into control managers: topic
 * config overrides in {@link TopicConfigControl}, producer id blocks in {@link ProducerIdControl}, mirror
 * definitions, sync registrations and mirror types in {@link MirrorControl}; brokers, topics and partitions are
 * still here. {@link #replay} dispatches each record to its family's state.
 *
 * <p>A broker's epoch is the metadata offset of its RegisterBroker record, so it grows with every registration,
 * also across controller restarts. A registration starts fenced; the broker is unfenced by the first heartbeat
 * whose applied metadata offset has reached its registration.
 */
public final class Controller
{
    public static final String NUM_PARTITIONS_CONFIG = "num.partitions";
    public static final int NUM_PARTITIONS_DEFAULT = 1;
    public static final String DEFAULT_REPLICATION_FACTOR_CONFIG = "default.replication.factor";
    public static final short DEFAULT_REPLICATION_FACTOR_DEFAULT = 1;
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG = "unclean.leader.election.enable";
    public static final boolean UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT = false;
    public static final String BROKER_SESSION_TIMEOUT_MS_CONFIG = "broker.session.timeout.ms";
    public static final long BROKER_SESSION_TIMEOUT_MS_DEFAULT = 9000;
    public static final String CLUSTER_ID_CONFIG = "cluster.id";

    /** Producer ids go to brokers in blocks of this size (Kafka's {@code ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE}). */
    public static final int PRODUCER_ID_BLOCK_SIZE = ProducerIdControl.BLOCK_SIZE;

    private static final int NO_LEADER = -1;
    private static final int REPLAY_READ_BYTES = 1 << 20;

    private final MetadataLog log;
    private final LongSupplier nowMs;
    private final Supplier<Uuid> topicIds;
    private final String clusterId;
    private final int defaultPartitions;
    private final short defaultReplicationFactor;
    private final boolean uncleanLeaderElectionDefault;
    private final long sessionTimeoutMs;

    private final TreeMap<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final Map<Integer, Long> lastHeartbeatMs = new HashMap<>();
    private final LinkedHashMap<Uuid, TopicInfo> topicsById = new LinkedHashMap<>();
    private final Map<String, Uuid> topicIdsByName = new HashMap<>();
    private final TopicConfigControl configControl = new TopicConfigControl();
    private final MirrorControl mirrorControl = new MirrorControl();
    private final ProducerIdControl producerIds = new ProducerIdControl();
    /** The metadata offset each broker last reported applied (its heartbeats); not persisted. */
    private final Map<Integer, Long> appliedMetadataOffsets = new HashMap<>();
    private int topicsCreated;

    /** Records of the operation in progress: applied to the state as they are emitted, appended at commit. */
    private final List<MetadataRecord> pending = new ArrayList<>();

    /**
     * Opens the controller on {@code log}, replaying every record in it. {@code config} holds the controller
     * node's server.properties keys read here (num.partitions, default.replication.factor,
     * unclean.leader.election.enable, broker.session.timeout.ms, cluster.id); absent keys take Kafka's defaults.
     */
    public Controller(final MetadataLog log, final LongSupplier nowMs, final Map<String, String> config)
    {
        this(log, nowMs, config, Uuid::randomUuid);
    }

    /** As above, with the source of new topic ids ({@link #seededTopicIds} for reproducible simulations). */
    public Controller(final MetadataLog log, final LongSupplier nowMs, final Map<String, String> config,
        final Supplier<Uuid> topicIds)
    {
        this.topicIds = Objects.requireNonNull(topicIds);
        this.log = Objects.requireNonNull(log);
        this.nowMs = Objects.requireNonNull(nowMs);
        this.clusterId = config.get(CLUSTER_ID_CONFIG);
        this.defaultPartitions = Integer.parseInt(config.getOrDefault(NUM_PARTITIONS_CONFIG,
            String.valueOf(NUM_PARTITIONS_DEFAULT)).trim());
        this.defaultReplicationFactor = Short.parseShort(config.getOrDefault(DEFAULT_REPLICATION_FACTOR_CONFIG,
            String.valueOf(DEFAULT_REPLICATION_FACTOR_DEFAULT)).trim());
        this.uncleanLeaderElectionDefault = Boolean.parseBoolean(config.getOrDefault(
            UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, String.valueOf(UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT)).trim());
        this.sessionTimeoutMs = Long.parseLong(config.getOrDefault(BROKER_SESSION_TIMEOUT_MS_CONFIG,
            String.valueOf(BROKER_SESSION_TIMEOUT_MS_DEFAULT)).trim());
        replayLog();
    }

    /** Topic ids drawn from a seeded generator, skipping the reserved ids as {@link Uuid#randomUuid} does. */
    public static Supplier<Uuid> seededTopicIds(final long seed)
    {
        final java.util.Random random = new java.util.Random(seed);
        return () ->
        {
            while (true)
            {
                final Uuid id = new Uuid(random.nextLong(), random.nextLong());
                if (!Uuid.RESERVED.contains(id) && !id.toString().startsWith("-"))
                {
                    return id;
                }
            }
        };
    }

    /**
     * Applies the committed state: the snapshot the log continues from, if any, then every committed record
     * after it below the log's high watermark (and none above it).
     */
    private void replayLog()
    {
        long offset = log.replaySnapshot(this::replay);
        final long end = log.highWatermark();
        while (offset < end)
        {
            final Records records = log.read(offset, REPLAY_READ_BYTES);
            long next = offset;
            for (final org.apache.kafka.common.record.internal.RecordBatch batch : records.batches())
            {
                if (batch.lastOffset() < offset || batch.baseOffset() >= end)
                {
                    continue;
                }
                if (!batch.isControlBatch())
                {
                    for (final org.apache.kafka.common.record.internal.Record r : batch)
                    {
                        if (r.offset() >= offset && r.offset() < end)
                        {
                            replay(MetadataRecordCodec.decode(r.value()));
                        }
                    }
                }
                next = Math.min(end, batch.lastOffset() + 1);
            }
            if (next == offset)
            {
                throw new IllegalStateException("metadata log yields nothing at offset " + offset + " below " + end);
            }
            offset = next;
        }
    }

    /**
     * Applies a record another controller committed (this one is a standby of the metadata quorum, or catching
     * up before it leads). Records this controller emitted itself are applied once, when emitted.
     */
    public void replayCommitted(final MetadataRecord record)
    {
        replay(record);
    }

    /**
     * Gives every registered broker a fresh session from now: a controller that has just become active never
     * saw the heartbeats sent to its predecessor, and must not fence brokers for their absence.
     */
    public void resetBrokerSessions()
    {
        final long now = nowMs.getAsLong();
        brokers.keySet().forEach(id -> lastHeartbeatMs.put(id, now));
    }

    // ------------------------------------------------------------------------------------------------ brokers

    public BrokerRegistrationResponseData registerBroker(final BrokerRegistrationRequestData request)
    {
        final BrokerRegistrationResponseData response = new BrokerRegistrationResponseData();
        if (clusterId != null && request.clusterId() != null && !clusterId.equals(request.clusterId()))
        {
            return response.setErrorCode(Errors.INCONSISTENT_CLUSTER_ID.code()).setBrokerEpoch(-1);
        }
        final int brokerId = request.brokerId();
        final BrokerInfo existing = brokers.get(brokerId);
        if (existing != null && existing.incarnationId.equals(request.incarnationId()))
        {
            // A retry of a registration that already committed.
            return response.setBrokerEpoch(existing.epoch);
        }
        if (existing != null && !existing.fenced && !sessionExpired(brokerId)
            && request.previousBrokerEpoch() != existing.epoch)
        {
            return response.setErrorCode(Errors.DUPLICATE_BROKER_REGISTRATION.code()).setBrokerEpoch(-1);
        }
        if (request.listeners().isEmpty())
        {
            return response.setErrorCode(Errors.INVALID_REQUEST.code()).setBrokerEpoch(-1);
        }
        final BrokerRegistrationRequestData.Listener listener = request.listeners().iterator().next();
        if (existing != null && !existing.fenced)
        {
            fenceBroker(existing);
        }
        final long epoch = log.endOffset() + pending.size();
        emit(new MetadataRecord.RegisterBroker(brokerId, epoch, request.incarnationId(), listener.host(),
            listener.port(), request.rack()));
        commit();
        return response.setBrokerEpoch(epoch);
    }

    public BrokerHeartbeatResponseData heartbeat(final BrokerHeartbeatRequestData request)
    {
        final BrokerHeartbeatResponseData response = new BrokerHeartbeatResponseData();
        final BrokerInfo broker = brokers.get(request.brokerId());
        if (broker == null)
        {
            return response.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code()).setIsFenced(true);
        }
        if (broker.epoch != request.brokerEpoch())
        {
            return response.setErrorCode(Errors.STALE_BROKER_EPOCH.code()).setIsFenced(true);
        }
        lastHeartbeatMs.put(broker.id, nowMs.getAsLong());
        appliedMetadataOffsets.put(broker.id, request.currentMetadataOffset());
        final boolean caughtUp = request.currentMetadataOffset() >= broker.epoch;
        if (request.wantShutDown())
        {
            if (!broker.fenced)
            {
                fenceBroker(broker);
                commit();
            }
            return response.setIsCaughtUp(caughtUp).setIsFenced(true).setShouldShutDown(true);
        }
        if (request.wantFence())
        {
            if (!broker.fenced)
            {
                fenceBroker(broker);
                commit();
            }
        }
        else if (broker.fenced && caughtUp)
        {
            unfenceBroker(broker);
            commit();
        }
        return response.setIsCaughtUp(caughtUp).setIsFenced(broker.fenced);
    }

    /**
     * Fences every unfenced broker whose last heartbeat is older than broker.session.timeout.ms. Returns whether
     * anything was appended. Call it periodically (a fraction of the session timeout).
     */
    public boolean tick()
    {
        if (!log.writable())
        {
            return false;
        }
        boolean changed = false;
        for (final BrokerInfo broker : new ArrayList<>(brokers.values()))
        {
            if (!broker.fenced && sessionExpired(broker.id))
            {
                fenceBroker(broker);
                commit();
                changed = true;
            }
        }
        return changed;
    }

    private boolean sessionExpired(final int brokerId)
    {
        final Long last = lastHeartbeatMs.get(brokerId);
        return last == null || nowMs.getAsLong() - last > sessionTimeoutMs;
    }

    private void fenceBroker(final BrokerInfo broker)
    {
        emit(new MetadataRecord.FenceBroker(broker.id, broker.epoch));
        for (final TopicInfo topic : topicsById.values())
        {
            for (final PartitionState s : topic.partitions)
            {
                if (s.isr().contains(broker.id) || s.leader() == broker.id)
                {
                    maybeChange(topic, s, withoutMember(s.isr(), broker.id));
                }
            }
        }
    }

    private void unfenceBroker(final BrokerInfo broker)
    {
        emit(new MetadataRecord.UnfenceBroker(broker.id, broker.epoch));
        for (final TopicInfo topic : topicsById.values())
        {
            for (final PartitionState s : topic.partitions)
            {
                if (s.leader() == NO_LEADER && s.replicas().contains(broker.id))
                {
                    maybeChange(topic, s, s.isr());
                }
            }
        }
    }

    /** The ISR without {@code brokerId}, unless it is the last member: Kafka keeps the last one. */
    private static List<Integer> withoutMember(final List<Integer> isr, final int brokerId)
    {
        if (isr.size() == 1 && isr.get(0) == brokerId)
        {
            return isr;
        }
        final List<Integer> out = new ArrayList<>(isr);
        out.remove(Integer.valueOf(brokerId));
        return out;
    }

    /**
     * Emits a PartitionChange when electing over {@code newIsr} (keeping a live leader that is in it) changes
     * the partition.
     */
    private void maybeChange(final TopicInfo topic, final PartitionState s, final List<Integer> newIsr)
    {
        int leader = s.leader();
        List<Integer> isr = newIsr;
        if (leader == NO_LEADER || !isLive(leader) || !isr.contains(leader))
        {
            leader = NO_LEADER;
            for (final int replica : s.replicas())
            {
                if (isr.contains(replica) && isLive(replica))
                {
                    leader = replica;
                    break;
                }
            }
            if (leader == NO_LEADER && uncleanLeaderElection(topic.name))
            {
                for (final int replica : s.replicas())
                {
                    if (isLive(replica))
                    {
                        leader = replica;
                        isr = List.of(replica);
                        break;
                    }
                }
            }
        }
        if (leader == s.leader() && isr.equals(s.isr()))
        {
            return;
        }
        final int leaderEpoch = leader != s.leader() ? s.leaderEpoch() + 1 : s.leaderEpoch();
        emit(new MetadataRecord.PartitionChange(topic.id, s.partition(), isr, leader, leaderEpoch,
            s.partitionEpoch() + 1));
    }

    private boolean isLive(final int brokerId)
    {
        final BrokerInfo broker = brokers.get(brokerId);
        return broker != null && !broker.fenced;
    }

    private boolean uncleanLeaderElection(final String topic)
    {
        final String value = configControl.override(topic, UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        return value == null ? uncleanLeaderElectionDefault : Boolean.parseBoolean(value.trim());
    }

    // ------------------------------------------------------------------------------------------------- topics

    public CreateTopicsResponseData createTopics(final CreateTopicsRequestData request)
    {
        final CreateTopicsResponseData response = new CreateTopicsResponseData();
        final Set<String> seen = new HashSet<>();
        for (final CreateTopicsRequestData.CreatableTopic topic : request.topics())
        {
            final CreateTopicsResponseData.CreatableTopicResult result =
                new CreateTopicsResponseData.CreatableTopicResult().setName(topic.name())
                    .setNumPartitions(-1).setReplicationFactor((short) -1);
            response.topics().add(result);
            if (!seen.add(topic.name()))
            {
                setError(result, Errors.INVALID_REQUEST, "topic named twice in one request");
                continue;
            }
            try
            {
                final TopicPlan plan = planTopic(topic);
                result.setNumPartitions(plan.assignments.size()).setReplicationFactor(
                    (short) plan.assignments.get(0).size());
                if (request.validateOnly())
                {
                    continue;
                }
                final Uuid topicId = topicIds.get();
                emitNewTopic(topic.name(), topicId, plan);
                commit();
                result.setTopicId(topicId);
            }
            catch (final ApiException e)
            {
                setError(result, Errors.forException(e), e.getMessage());
            }
        }
        return response;
    }

    private void emitNewTopic(final String name, final Uuid topicId, final TopicPlan plan)
    {
        emit(new MetadataRecord.Topic(name, topicId));
        for (final Map.Entry<String, String> config : plan.configs.entrySet())
        {
            emit(new MetadataRecord.Config(name, config.getKey(), config.getValue()));
        }
        for (int p = 0; p < plan.assignments.size(); p++)
        {
            emitNewPartition(name, topicId, p, plan.assignments.get(p));
        }
    }

    private void emitNewPartition(final String topic, final Uuid topicId, final int partition,
        final List<Integer> replicas)
    {
        final List<Integer> isr = new ArrayList<>();
        for (final int replica : replicas)
        {
            if (isLive(replica))
            {
                isr.add(replica);
            }
        }
        final int leader = isr.isEmpty() ? NO_LEADER : isr.get(0);
        emit(new MetadataRecord.Partition(new PartitionState(topic, topicId, partition, List.copyOf(replicas),
            isr.isEmpty() ? List.copyOf(replicas) : List.copyOf(isr), leader, 0, 0)));
    }

    private static void setError(final CreateTopicsResponseData.CreatableTopicResult result, final Errors error,
        final String message)
    {
        result.setErrorCode(error.code()).setErrorMessage(message).setNumPartitions(-1)
            .setReplicationFactor((short) -1).setTopicConfigErrorCode(error.code());
    }

    private record TopicPlan(List<List<Integer>> assignments, Map<String, String> configs)
    {
    }

    private TopicPlan planTopic(final CreateTopicsRequestData.CreatableTopic topic)
    {
        final String name = topic.name();
        Topic.validate(name);
        if (Topic.isInternal(name) && Topic.CLUSTER_METADATA_TOPIC_NAME.equals(name))
        {
            throw new InvalidTopicException("the metadata topic cannot be created");
        }
        if (topicIdsByName.containsKey(name))
        {
            throw new org.apache.kafka.common.errors.TopicExistsException("Topic '" + name + "' already exists.");
        }
        for (final String existing : topicIdsByName.keySet())
        {
            if (Topic.hasCollision(name, existing))
            {
                throw new InvalidTopicException("Topic '" + name + "' collides with existing topic '" + existing
                    + "' ('.' and '_' are the same in metric names).");
            }
        }
        final TreeMap<String, String> configs = new TreeMap<>();
        for (final CreateTopicsRequestData.CreatableTopicConfig config : topic.configs())
        {
            if (MirrorDefinition.MIRROR_NAME_CONFIG.equals(config.name()))
            {
                throw new InvalidConfigurationException(TopicConfigControl.MIRROR_NAME_PROTECTED);
            }
            if (config.value() != null)
            {
                configs.put(config.name(), config.value());
            }
        }
        TopicConfigControl.validate(configs);

        final List<Integer> live = liveBrokers();
        final List<List<Integer>> assignments = new ArrayList<>();
        if (!topic.assignments().isEmpty())
        {
            if (topic.numPartitions() != -1 || topic.replicationFactor() != -1)
            {
                throw new org.apache.kafka.common.errors.InvalidRequestException(
                    "both a manual assignment and numPartitions/replicationFactor were given");
            }
            final TreeMap<Integer, List<Integer>> byPartition = new TreeMap<>();
            for (final CreateTopicsRequestData.CreatableReplicaAssignment a : topic.assignments())
            {
                if (a.brokerIds().isEmpty() || new HashSet<>(a.brokerIds()).size() != a.brokerIds().size())
                {
                    throw new org.apache.kafka.common.errors.InvalidReplicaAssignmentException(
                        "partition " + a.partitionIndex() + " has an empty or repeated replica list");
                }
                for (final int brokerId : a.brokerIds())
                {
                    if (!brokers.containsKey(brokerId))
                    {
                        throw new org.apache.kafka.common.errors.InvalidReplicaAssignmentException(
                            "broker " + brokerId + " is not registered");
                    }
                }
                byPartition.put(a.partitionIndex(), List.copyOf(a.brokerIds()));
            }
            if (byPartition.firstKey() != 0 || byPartition.lastKey() != byPartition.size() - 1)
            {
                throw new org.apache.kafka.common.errors.InvalidReplicaAssignmentException(
                    "partitions must be numbered 0.." + (byPartition.size() - 1));
            }
            assignments.addAll(byPartition.values());
            return new TopicPlan(assignments, configs);
        }
        final int partitions = topic.numPartitions() == -1 ? defaultPartitions : topic.numPartitions();
        final int replicationFactor = topic.replicationFactor() == -1 ? defaultReplicationFactor
            : topic.replicationFactor();
        if (partitions <= 0)
        {
            throw new org.apache.kafka.common.errors.InvalidPartitionsException(
                "Number of partitions was set to an invalid non-positive value.");
        }
        if (replicationFactor <= 0)
        {
            throw new org.apache.kafka.common.errors.InvalidReplicationFactorException(
                "Replication factor must be larger than 0.");
        }
        if (replicationFactor > live.size())
        {
            throw new org.apache.kafka.common.errors.InvalidReplicationFactorException(
                "Unable to replicate the partition " + replicationFactor + " time(s): The target replication "
                    + "factor of " + replicationFactor + " cannot be reached because only " + live.size()
                    + " broker(s) are registered.");
        }
        assignments.addAll(assignRoundRobin(0, partitions, replicationFactor, live));
        return new TopicPlan(assignments, configs);
    }

    private List<Integer> liveBrokers()
    {
        final List<Integer> live = new ArrayList<>();
        for (final BrokerInfo broker : brokers.values())
        {
            if (!broker.fenced)
            {
                live.add(broker.id);
            }
        }
        return live;
    }

    /** Replicas of partitions {@code first..first+count-1}, spread over {@code live} from a per-topic start. */
    private List<List<Integer>> assignRoundRobin(final int first, final int count, final int replicationFactor,
        final List<Integer> live)
    {
        final List<List<Integer>> assignments = new ArrayList<>();
        final int start = topicsCreated;
        for (int p = first; p < first + count; p++)
        {
            final List<Integer> replicas = new ArrayList<>(replicationFactor);
            for (int r = 0; r < replicationFactor; r++)
            {
                replicas.add(live.get((start + p + r) % live.size()));
            }
            assignments.add(replicas);
        }
        return assignments;
    }

    public DeleteTopicsResponseData deleteTopics(final DeleteTopicsRequestData request)
    {
        final DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        final List<DeleteTopicsRequestData.DeleteTopicState> targets = new ArrayList<>(request.topics());
        for (final String name : request.topicNames())
        {
            targets.add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
        }
        for (final DeleteTopicsRequestData.DeleteTopicState target : targets)
        {
            final DeleteTopicsResponseData.DeletableTopicResult result =
                new DeleteTopicsResponseData.DeletableTopicResult().setName(target.name())
                    .setTopicId(target.topicId());
            response.responses().add(result);
            final TopicInfo topic;
            if (target.name() != null)
            {
                final Uuid id = topicIdsByName.get(target.name());
                topic = id == null ? null : topicsById.get(id);
                if (topic == null)
                {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                    continue;
                }
            }
            else
            {
                topic = topicsById.get(target.topicId());
                if (topic == null)
                {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                        .setErrorMessage(Errors.UNKNOWN_TOPIC_ID.message());
                    continue;
                }
            }
            result.setName(topic.name).setTopicId(topic.id);
            emit(new MetadataRecord.RemoveTopic(topic.id));
            commit();
        }
        return response;
    }

    public IncrementalAlterConfigsResponseData incrementalAlterConfigs(
        final IncrementalAlterConfigsRequestData request)
    {
        final IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (final IncrementalAlterConfigsRequestData.AlterConfigsResource resource : request.resources())
        {
            final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse result =
                new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType()).setResourceName(resource.resourceName());
            response.responses().add(result);
            try
            {
                if (resource.resourceType() != ConfigResource.Type.TOPIC.id())
                {
                    throw new org.apache.kafka.common.errors.InvalidRequestException(
                        "only topic configs can be altered here; broker configs are static (server.properties)");
                }
                final String topic = resource.resourceName();
                if (!topicIdsByName.containsKey(topic))
                {
                    throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException(
                        "Topic " + topic + " does not exist.");
                }
                final TreeMap<String, String> updated = TopicConfigControl.applyConfigOps(
                    configControl.overrides(topic), resource.configs());
                TopicConfigControl.validate(updated);
                if (request.validateOnly())
                {
                    continue;
                }
                configControl.changesTo(topic, updated).forEach(this::emit);
                commit();
            }
            catch (final ApiException e)
            {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return response;
    }

    // ------------------------------------------------------------------------------------------------ mirrors

    /** Defines a new mirror. Fails on a bad name, a bad regex, no source bootstrap servers, or an existing name. */
    public MirrorOpResult createMirror(final MirrorDefinition definition)
    {
        final MirrorOpResult invalid = MirrorControl.invalid(definition);
        if (invalid != null)
        {
            return invalid;
        }
        if (mirrorControl.definition(definition.name()) != null)
        {
            return MirrorOpResult.error(Errors.DUPLICATE_RESOURCE,
                "mirror '" + definition.name() + "' already exists");
        }
        emit(MetadataRecord.Mirror.of(definition));
        commit();
        return MirrorOpResult.OK;
    }

    /** Replaces an existing mirror's definition whole (source, client configs, filters). */
    public MirrorOpResult updateMirror(final MirrorDefinition definition)
    {
        final MirrorOpResult invalid = MirrorControl.invalid(definition);
        if (invalid != null)
        {
            return invalid;
        }
        final MirrorDefinition current = mirrorControl.definition(definition.name());
        if (current == null)
        {
            return MirrorControl.unknown(definition.name());
        }
        if (!current.equals(definition))
        {
            emit(MetadataRecord.Mirror.of(definition));
            commit();
        }
        return MirrorOpResult.OK;
    }

    /** Appends {@code patterns} (regexes) to the mirror's include list, keeping those already there once. */
    public MirrorOpResult addMirrorIncludes(final String mirrorName, final Collection<String> patterns)
    {
        MirrorDefinition current = mirrorControl.definition(mirrorName);
        if (current == null)
        {
            return MirrorControl.unknown(mirrorName);
        }
        for (final String pattern : patterns)
        {
            current = current.withInclude(pattern);
        }
        return updateMirror(current);
    }

    /**
     * Removes the mirror's definition. Refused while a topic still belongs to it ({@code mirror.name} = the
     * name); topics removed from it ({@code name.removed}) do not count.
     */
    public MirrorOpResult deleteMirror(final String mirrorName)
    {
        if (mirrorControl.definition(mirrorName) == null)
        {
            return MirrorControl.unknown(mirrorName);
        }
        final List<String> attached = mirrorTopicNames(mirrorName);
        if (!attached.isEmpty())
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "mirror '" + mirrorName + "' still has "
                + attached.size() + " topic(s) " + attached + ": remove the topics from the mirror first");
        }
        emit(new MetadataRecord.RemoveMirror(mirrorName));
        commit();
        return MirrorOpResult.OK;
    }

    /**
     * Creates mirror topic {@code topic} with the source's topic id and partition count, replicated
     * {@code default.replication.factor} times (capped by the live brokers), with the source {@code configs}
     * that LogConfig accepts plus {@code mirror.name} = {@code mirrorName}. A topic of that name that already
     * has the source's id (failed over earlier) just gets {@code mirror.name} again (failback); one with another
     * id is TOPIC_ALREADY_EXISTS.
     */
    public MirrorOpResult createMirrorTopic(final String topic, final Uuid sourceTopicId, final int partitions,
        final Map<String, String> configs, final String mirrorName)
    {
        if (mirrorControl.definition(mirrorName) == null)
        {
            return MirrorControl.unknown(mirrorName);
        }
        final Uuid existingId = topicIdsByName.get(topic);
        if (existingId != null)
        {
            if (!existingId.equals(sourceTopicId))
            {
                return MirrorOpResult.error(Errors.TOPIC_ALREADY_EXISTS, "topic '" + topic
                    + "' already exists on the destination with topic id " + existingId
                    + ", not the source's id " + sourceTopicId + "; delete or rename it to mirror the source topic");
            }
            final String current = topicConfig(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG);
            if (current != null && !current.equals(mirrorName) && !current.endsWith(MirrorDefinition.REMOVED_SUFFIX))
            {
                return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' belongs to mirror '"
                    + current + "'; remove it from that mirror first");
            }
            return setMirrorName(topic, mirrorName);
        }
        try
        {
            Topic.validate(topic);
        }
        catch (final InvalidTopicException e)
        {
            return MirrorOpResult.error(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
        if (sourceTopicId == null || Uuid.RESERVED.contains(sourceTopicId))
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' has no usable source topic id ("
                + sourceTopicId + ")");
        }
        final TopicInfo sameId = topicsById.get(sourceTopicId);
        if (sameId != null)
        {
            return MirrorOpResult.error(Errors.TOPIC_ALREADY_EXISTS, "the source topic id " + sourceTopicId
                + " of '" + topic + "' is already used by destination topic '" + sameId.name + "'");
        }
        for (final String existing : topicIdsByName.keySet())
        {
            if (Topic.hasCollision(topic, existing))
            {
                return MirrorOpResult.error(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + topic
                    + "' collides with existing topic '" + existing + "' ('.' and '_' are the same in metric names).");
            }
        }
        if (partitions <= 0)
        {
            return MirrorOpResult.error(Errors.INVALID_PARTITIONS,
                "topic '" + topic + "': partition count " + partitions + " is not positive");
        }
        final List<Integer> live = liveBrokers();
        if (live.isEmpty())
        {
            return MirrorOpResult.error(Errors.INVALID_REPLICATION_FACTOR,
                "topic '" + topic + "' cannot be created: no live broker");
        }
        final TreeMap<String, String> logConfigs;
        try
        {
            logConfigs = TopicConfigControl.mirrorableConfigs(configs);
        }
        catch (final InvalidConfigurationException e)
        {
            return MirrorOpResult.error(Errors.INVALID_CONFIG, "topic '" + topic + "': " + e.getMessage());
        }
        logConfigs.put(MirrorDefinition.MIRROR_NAME_CONFIG, mirrorName);
        final int replicationFactor = Math.min(defaultReplicationFactor, live.size());
        emitNewTopic(topic, sourceTopicId, new TopicPlan(assignRoundRobin(0, partitions, replicationFactor, live),
            logConfigs));
        commit();
        return MirrorOpResult.OK;
    }

    /**
     * Sets the topic's {@code mirror.name} ({@code value} null removes it). The controller-side write behind
     * add (re-add) and remove of topics; users cannot write the key.
     */
    public MirrorOpResult setMirrorName(final String topic, final String value)
    {
        if (!topicIdsByName.containsKey(topic))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        if (!Objects.equals(topicConfig(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG), value))
        {
            emit(new MetadataRecord.Config(topic, MirrorDefinition.MIRROR_NAME_CONFIG, value));
            commit();
        }
        return MirrorOpResult.OK;
    }

    /**
     * Source role: adds a destination mirror to a topic's sync registration set, or removes it, through the
     * metadata log (MirrorSyncRegistrationChange), so every source broker's image shows it. A change that is
     * already in force writes nothing. UNKNOWN_TOPIC_ID for a topic this cluster does not have.
     */
    public MirrorOpResult changeSyncRegistration(final Uuid topicId, final String mirrorName, final boolean registered)
    {
        if (!topicsById.containsKey(topicId))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId + " on this cluster");
        }
        if (mirrorControl.registeredMirrors(topicId).contains(mirrorName) != registered)
        {
            emit(new MetadataRecord.MirrorSyncRegistrationChange(topicId, mirrorName, registered));
            commit();
        }
        return MirrorOpResult.OK;
    }

    /** Destination role: a mirror topic's effective mirror type (0 ASYNC, 1 SYNC), written when it changes. */
    public MirrorOpResult setMirrorTopicType(final Uuid topicId, final byte mirrorType)
    {
        if (!topicsById.containsKey(topicId))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId + " on this cluster");
        }
        if (mirrorType != 0 && mirrorType != 1)
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "unknown mirror type " + mirrorType);
        }
        if (mirrorControl.mirrorType(topicId) != mirrorType)
        {
            emit(new MetadataRecord.MirrorTopicTypeChange(topicId, mirrorType));
            commit();
        }
        return MirrorOpResult.OK;
    }

    /** The destination mirrors registered for sync replication of a topic of this (source) cluster. */
    public java.util.Set<String> registeredMirrors(final Uuid topicId)
    {
        return mirrorControl.registeredMirrors(topicId);
    }

    /**
     * Removes the topic from mirror {@code mirrorName} (failover): {@code mirror.name} becomes
     * {@code mirrorName.removed}. A topic already removed from that mirror is fine (a retry); a topic in no or
     * another mirror is INVALID_REQUEST.
     */
    public MirrorOpResult removeTopicFromMirror(final String topic, final String mirrorName)
    {
        if (!topicIdsByName.containsKey(topic))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        final String current = topicConfig(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG);
        if (MirrorDefinition.removedName(mirrorName).equals(current))
        {
            return MirrorOpResult.ok("topic '" + topic + "' was already removed from mirror '" + mirrorName + "'");
        }
        if (!mirrorName.equals(current))
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' is not in mirror '"
                + mirrorName + "'" + (current == null ? "" : " (" + MirrorDefinition.MIRROR_NAME_CONFIG + "="
                + current + ")"));
        }
        return setMirrorName(topic, MirrorDefinition.removedName(mirrorName));
    }

    /** Grows the topic to {@code partitionCount} partitions (a source partition increase); never shrinks. */
    public MirrorOpResult addPartitions(final String topic, final int partitionCount)
    {
        final Uuid id = topicIdsByName.get(topic);
        final TopicInfo info = id == null ? null : topicsById.get(id);
        if (info == null)
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        final int current = info.partitions.size();
        if (partitionCount < current)
        {
            return MirrorOpResult.error(Errors.INVALID_PARTITIONS, "topic '" + topic + "' has " + current
                + " partitions; a topic cannot shrink to " + partitionCount);
        }
        if (partitionCount == current)
        {
            return MirrorOpResult.OK;
        }
        final List<Integer> live = liveBrokers();
        if (live.isEmpty())
        {
            return MirrorOpResult.error(Errors.INVALID_REPLICATION_FACTOR,
                "partitions of '" + topic + "' cannot be added: no live broker");
        }
        final int replicationFactor = Math.min(current == 0 || info.partitions.get(0) == null
            ? defaultReplicationFactor : info.partitions.get(0).replicas().size(), live.size());
        return addPartitions(topic, assignRoundRobin(current, partitionCount - current, replicationFactor, live));
    }

    /**
     * Adds one partition per assignment after the topic's last (CreatePartitions with explicit assignments, or the
     * round-robin plan above); the caller has validated the assignments.
     */
    public MirrorOpResult addPartitions(final String topic, final List<List<Integer>> assignments)
    {
        final Uuid id = topicIdsByName.get(topic);
        final TopicInfo info = id == null ? null : topicsById.get(id);
        if (info == null)
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        final int current = info.partitions.size();
        for (int i = 0; i < assignments.size(); i++)
        {
            emitNewPartition(topic, id, current + i, assignments.get(i));
        }
        commit();
        return MirrorOpResult.OK;
    }

    /** The ids of the brokers that are registered and not fenced now, ascending. */
    public List<Integer> unfencedBrokers()
    {
        return liveBrokers();
    }

    /**
     * Replaces the topic's LogConfig overrides with the source's mirrorable ones (keys the source does not set go
     * back to the defaults), keeping {@code mirror.name}. The result's message counts the keys changed.
     */
    public MirrorOpResult syncTopicConfigs(final String topic, final Map<String, String> sourceConfigs)
    {
        if (!topicIdsByName.containsKey(topic))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        final TreeMap<String, String> target;
        try
        {
            target = TopicConfigControl.mirrorableConfigs(sourceConfigs);
        }
        catch (final InvalidConfigurationException e)
        {
            return MirrorOpResult.error(Errors.INVALID_CONFIG, "topic '" + topic + "': " + e.getMessage());
        }
        final String mirrorName = configControl.override(topic, MirrorDefinition.MIRROR_NAME_CONFIG);
        if (mirrorName != null)
        {
            target.put(MirrorDefinition.MIRROR_NAME_CONFIG, mirrorName);
        }
        final List<MetadataRecord.Config> changes = configControl.changesTo(topic, target);
        changes.forEach(this::emit);
        commit();
        return MirrorOpResult.ok(changes.size() + " config(s) changed");
    }

    /**
     * Failover's epoch bump: for each listed partition a PartitionChange with the same leader and ISR, leader
     * epoch {@code max(current + 1, minLeaderEpoch)} (above every source epoch in the log, never below) and the
     * next partition epoch; and, when {@code minNextProducerId >= 0}, the producer id floor raised to it. All in
     * one metadata batch.
     */
    public EpochBumpResult bumpLeaderEpochs(final Uuid topicId, final Map<Integer, Integer> minLeaderEpochs,
        final long minNextProducerId)
    {
        final TopicInfo topic = topicsById.get(topicId);
        if (topic == null)
        {
            return new EpochBumpResult(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId, Map.of());
        }
        final Map<Integer, EpochBumpResult.PartitionEpoch> out = new TreeMap<>();
        for (final Map.Entry<Integer, Integer> e : new TreeMap<>(minLeaderEpochs).entrySet())
        {
            final int p = e.getKey();
            final PartitionState s = p >= 0 && p < topic.partitions.size() ? topic.partitions.get(p) : null;
            if (s == null)
            {
                out.put(p, new EpochBumpResult.PartitionEpoch(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1));
                continue;
            }
            final int minEpoch = e.getValue() == null ? 0 : e.getValue();
            final int leaderEpoch = Math.max(s.leaderEpoch() + 1, minEpoch);
            emit(new MetadataRecord.PartitionChange(topicId, p, s.isr(), s.leader(), leaderEpoch,
                s.partitionEpoch() + 1));
            out.put(p, new EpochBumpResult.PartitionEpoch(Errors.NONE, leaderEpoch));
        }
        if (producerIds.raises(minNextProducerId))
        {
            emit(new MetadataRecord.ProducerIdFloor(minNextProducerId));
        }
        commit();
        return new EpochBumpResult(Errors.NONE, null, out);
    }

    /** Raises the producer id floor: every block allocated afterwards, also after a restart, starts at or above. */
    public void raiseProducerIdFloor(final long floor)
    {
        if (producerIds.raises(floor))
        {
            emit(new MetadataRecord.ProducerIdFloor(floor));
            commit();
        }
    }

    // ------------------------------------------------------------------------------------- ISR, producer ids

    /** Kafka's AlterPartition (v2+, topic ids) with its validation order and errors. */
    public AlterPartitionResponseData alterPartition(final AlterPartitionRequestData request, final short version)
    {
        final AlterPartitionResponseData response = new AlterPartitionResponseData();
        final BrokerInfo requester = brokers.get(request.brokerId());
        if (requester == null || requester.epoch != request.brokerEpoch())
        {
            return response.setErrorCode(Errors.STALE_BROKER_EPOCH.code());
        }
        for (final AlterPartitionRequestData.TopicData topicData : request.topics())
        {
            final AlterPartitionResponseData.TopicData topicResult =
                new AlterPartitionResponseData.TopicData().setTopicId(topicData.topicId());
            response.topics().add(topicResult);
            final TopicInfo topic = topicsById.get(topicData.topicId());
            for (final AlterPartitionRequestData.PartitionData data : topicData.partitions())
            {
                final AlterPartitionResponseData.PartitionData result =
                    new AlterPartitionResponseData.PartitionData().setPartitionIndex(data.partitionIndex());
                topicResult.partitions().add(result);
                if (topic == null)
                {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                final PartitionState s = data.partitionIndex() >= 0 && data.partitionIndex() < topic.partitions.size()
                    ? topic.partitions.get(data.partitionIndex()) : null;
                final List<AlterPartitionRequestData.BrokerState> newIsr = new ArrayList<>();
                if (version >= 3)
                {
                    newIsr.addAll(data.newIsrWithEpochs());
                }
                else
                {
                    newIsr.addAll(AlterPartitionRequest.newIsrToSimpleNewIsrWithBrokerEpochs(data.newIsr()));
                }
                final Errors error = validateAlterPartition(request.brokerId(), s, data, newIsr, version);
                if (error != Errors.NONE)
                {
                    result.setErrorCode(error.code());
                    continue;
                }
                final List<Integer> isr = new ArrayList<>();
                for (final AlterPartitionRequestData.BrokerState b : newIsr)
                {
                    isr.add(b.brokerId());
                }
                PartitionState now = s;
                if (!isr.equals(s.isr()))
                {
                    emit(new MetadataRecord.PartitionChange(topic.id, s.partition(), isr, s.leader(),
                        s.leaderEpoch(), s.partitionEpoch() + 1));
                    commit();
                    now = topic.partitions.get(s.partition());
                }
                result.setLeaderId(now.leader()).setLeaderEpoch(now.leaderEpoch()).setIsr(new ArrayList<>(now.isr()))
                    .setPartitionEpoch(now.partitionEpoch()).setLeaderRecoveryState((byte) 0);
            }
        }
        return response;
    }

    private Errors validateAlterPartition(final int brokerId, final PartitionState s,
        final AlterPartitionRequestData.PartitionData data, final List<AlterPartitionRequestData.BrokerState> newIsr,
        final short version)
    {
        if (s == null)
        {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        // A requester ahead of us means this controller lost state it had acknowledged: the requester should
        // look for the controller again (there is only one, so it retries).
        if (data.leaderEpoch() > s.leaderEpoch() || data.partitionEpoch() > s.partitionEpoch())
        {
            return Errors.NOT_CONTROLLER;
        }
        if (data.leaderEpoch() < s.leaderEpoch())
        {
            return Errors.FENCED_LEADER_EPOCH;
        }
        if (brokerId != s.leader())
        {
            return Errors.INVALID_REQUEST;
        }
        if (data.partitionEpoch() < s.partitionEpoch())
        {
            return Errors.INVALID_UPDATE_VERSION;
        }
        final Set<Integer> distinct = new HashSet<>();
        boolean containsLeader = false;
        for (final AlterPartitionRequestData.BrokerState b : newIsr)
        {
            if (!distinct.add(b.brokerId()) || !s.replicas().contains(b.brokerId()))
            {
                return Errors.INVALID_REQUEST;
            }
            containsLeader |= b.brokerId() == s.leader();
        }
        if (!containsLeader)
        {
            return Errors.INVALID_REQUEST;
        }
        for (final AlterPartitionRequestData.BrokerState b : newIsr)
        {
            final BrokerInfo broker = brokers.get(b.brokerId());
            if (broker == null || broker.fenced || (b.brokerEpoch() != -1 && b.brokerEpoch() != broker.epoch))
            {
                return version > 1 ? Errors.INELIGIBLE_REPLICA : Errors.OPERATION_NOT_ATTEMPTED;
            }
        }
        return Errors.NONE;
    }

    public AllocateProducerIdsResponseData allocateProducerIds(final AllocateProducerIdsRequestData request)
    {
        final AllocateProducerIdsResponseData response = new AllocateProducerIdsResponseData();
        final BrokerInfo broker = brokers.get(request.brokerId());
        if (broker == null)
        {
            return response.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code());
        }
        if (broker.epoch != request.brokerEpoch())
        {
            return response.setErrorCode(Errors.STALE_BROKER_EPOCH.code());
        }
        final long start = producerIds.nextBlockStart();
        emit(producerIds.allocate(broker.id, broker.epoch));
        commit();
        return response.setProducerIdStart(start).setProducerIdLen(PRODUCER_ID_BLOCK_SIZE);
    }

    // -------------------------------------------------------------------------------------- log and replay

    private void emit(final MetadataRecord record)
    {
        if (!log.writable())
        {
            // Before any state changes: a standby's state is the committed log's, and must stay so.
            throw new org.apache.kafka.common.errors.NotControllerException(
                "this node is not the active controller");
        }
        replay(record);
        pending.add(record);
    }

    private void commit()
    {
        if (pending.isEmpty())
        {
            return;
        }
        final List<MetadataRecord> batch = new ArrayList<>(pending);
        pending.clear();
        log.append(batch, nowMs.getAsLong());
    }

    /** Applies one record to the in-memory state; the only place state changes. */
    private void replay(final MetadataRecord record)
    {
        if (record instanceof MetadataRecord.RegisterBroker r)
        {
            brokers.put(r.brokerId(), new BrokerInfo(r.brokerId(), r.brokerEpoch(), r.incarnationId(),
                new BrokerEndpoint(r.brokerId(), r.host(), r.port(), r.rack())));
            lastHeartbeatMs.put(r.brokerId(), nowMs.getAsLong());
        }
        else if (record instanceof MetadataRecord.FenceBroker r)
        {
            final BrokerInfo broker = brokers.get(r.brokerId());
            if (broker != null && broker.epoch == r.brokerEpoch())
            {
                broker.fenced = true;
            }
        }
        else if (record instanceof MetadataRecord.UnfenceBroker r)
        {
            final BrokerInfo broker = brokers.get(r.brokerId());
            if (broker != null && broker.epoch == r.brokerEpoch())
            {
                broker.fenced = false;
                // A broker unfenced by the log on replay gets a fresh session from the replay's time.
                lastHeartbeatMs.put(r.brokerId(), nowMs.getAsLong());
            }
        }
        else if (record instanceof MetadataRecord.Topic r)
        {
            topicsById.put(r.topicId(), new TopicInfo(r.name(), r.topicId()));
            topicIdsByName.put(r.name(), r.topicId());
            topicsCreated++;
        }
        else if (record instanceof MetadataRecord.Partition r)
        {
            final TopicInfo topic = topicsById.get(r.state().topicId());
            if (topic != null)
            {
                while (topic.partitions.size() <= r.state().partition())
                {
                    topic.partitions.add(null);
                }
                topic.partitions.set(r.state().partition(), r.state());
            }
        }
        else if (record instanceof MetadataRecord.PartitionChange r)
        {
            final TopicInfo topic = topicsById.get(r.topicId());
            if (topic != null && r.partition() < topic.partitions.size())
            {
                final PartitionState s = topic.partitions.get(r.partition());
                topic.partitions.set(r.partition(), new PartitionState(s.topic(), s.topicId(), s.partition(),
                    s.replicas(), r.isr(), r.leader(), r.leaderEpoch(), r.partitionEpoch()));
            }
        }
        else if (record instanceof MetadataRecord.RemoveTopic r)
        {
            final TopicInfo topic = topicsById.remove(r.topicId());
            if (topic != null)
            {
                topicIdsByName.remove(topic.name);
                configControl.removeTopic(topic.name);
            }
            mirrorControl.removeTopic(r.topicId());
        }
        else if (record instanceof MetadataRecord.MirrorSyncRegistrationChange r)
        {
            mirrorControl.replay(r);
        }
        else if (record instanceof MetadataRecord.MirrorTopicTypeChange r)
        {
            mirrorControl.replay(r);
        }
        else if (record instanceof MetadataRecord.Config r)
        {
            configControl.replay(r);
        }
        else if (record instanceof MetadataRecord.ProducerIds r)
        {
            producerIds.replay(r);
        }
        else if (record instanceof MetadataRecord.ProducerIdFloor r)
        {
            producerIds.replay(r);
        }
        else if (record instanceof MetadataRecord.Mirror r)
        {
            mirrorControl.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveMirror r)
        {
            mirrorControl.replay(r);
        }
    }

    // ------------------------------------------------------------------------------------------ snapshots

    /**
     * Records that rebuild this controller's state when replayed into an empty one (a metadata snapshot, as
     * Kafka's controller writes one from its image), and the same broker image when a broker applies them to an
     * empty image: every broker with its fencing, every topic with its partitions' current state and its config
     * overrides, the producer id block and floor, the mirror definitions, registrations and mirror types. What the
     * log does not persist stays out (heartbeat times, applied offsets). Only meaningful while the state is the
     * committed one: on a standby always, on the active controller when nothing it appended awaits its commit.
     */
    public List<MetadataRecord> snapshotRecords()
    {
        final List<MetadataRecord> out = new ArrayList<>();
        for (final BrokerInfo broker : brokers.values())
        {
            final BrokerEndpoint e = broker.endpoint;
            out.add(new MetadataRecord.RegisterBroker(broker.id, broker.epoch, broker.incarnationId, e.host(),
                e.port(), e.rack()));
            if (!broker.fenced)
            {
                out.add(new MetadataRecord.UnfenceBroker(broker.id, broker.epoch));
            }
        }
        for (final TopicInfo topic : topicsById.values())
        {
            out.add(new MetadataRecord.Topic(topic.name, topic.id));
            for (final PartitionState state : topic.partitions)
            {
                if (state != null)
                {
                    out.add(new MetadataRecord.Partition(state));
                }
            }
            configControl.overrides(topic.name).forEach((key, value) ->
                out.add(new MetadataRecord.Config(topic.name, key, value)));
        }
        producerIds.snapshot(out::add);
        mirrorControl.snapshot(out::add);
        return out;
    }

    // ------------------------------------------------------------------------------------ read-only views

    public MetadataLog log()
    {
        return log;
    }

    /**
     * Whether every registered, unfenced broker has reported (in a heartbeat) applying the metadata log up to
     * {@code offset}: a failover waits for this before its topic becomes writable, so that no transaction
     * coordinator still hands out producer ids below a floor it has not seen (hazard 8).
     */
    public boolean appliedByAllActiveBrokers(final long offset)
    {
        for (final BrokerInfo broker : brokers.values())
        {
            if (!broker.fenced && appliedMetadataOffsets.getOrDefault(broker.id, -1L) < offset)
            {
                return false;
            }
        }
        return true;
    }

    public String clusterId()
    {
        return clusterId;
    }

    public long sessionTimeoutMs()
    {
        return sessionTimeoutMs;
    }

    public Optional<PartitionState> partition(final String topic, final int partition)
    {
        final Uuid id = topicIdsByName.get(topic);
        final TopicInfo info = id == null ? null : topicsById.get(id);
        if (info == null || partition < 0 || partition >= info.partitions.size())
        {
            return Optional.empty();
        }
        return Optional.ofNullable(info.partitions.get(partition));
    }

    public Optional<Uuid> topicId(final String topic)
    {
        return Optional.ofNullable(topicIdsByName.get(topic));
    }

    public Map<String, String> topicConfig(final String topic)
    {
        return configControl.view(topic);
    }

    /** Whether the broker is registered and fenced; unregistered brokers count as fenced. */
    public boolean isFenced(final int brokerId)
    {
        return !isLive(brokerId);
    }

    /** The broker's current epoch, or -1 when it is not registered. */
    public long brokerEpoch(final int brokerId)
    {
        final BrokerInfo broker = brokers.get(brokerId);
        return broker == null ? -1 : broker.epoch;
    }

    public Collection<BrokerEndpoint> registeredBrokers()
    {
        final List<BrokerEndpoint> out = new ArrayList<>();
        for (final BrokerInfo broker : brokers.values())
        {
            out.add(broker.endpoint);
        }
        return out;
    }

    public long nextProducerIdBlockStart()
    {
        return producerIds.nextBlockStart();
    }

    /** Every mirror defined, by name. */
    public Map<String, MirrorDefinition> mirrors()
    {
        return mirrorControl.definitions();
    }

    public Optional<MirrorDefinition> mirror(final String name)
    {
        return Optional.ofNullable(mirrorControl.definition(name));
    }

    /** Every topic's name. */
    public Set<String> topicNames()
    {
        return Collections.unmodifiableSet(new TreeSet<>(topicIdsByName.keySet()));
    }

    /** The topic's partition count, or -1 when it does not exist. */
    public int partitionCount(final String topic)
    {
        final Uuid id = topicIdsByName.get(topic);
        final TopicInfo info = id == null ? null : topicsById.get(id);
        return info == null ? -1 : info.partitions.size();
    }

    /** The topics whose {@code mirror.name} is exactly {@code mirrorName}, sorted. */
    public List<String> mirrorTopicNames(final String mirrorName)
    {
        final List<String> out = new ArrayList<>(configControl.topicsWith(MirrorDefinition.MIRROR_NAME_CONFIG,
            mirrorName));
        out.removeIf(topic -> !topicIdsByName.containsKey(topic));
        return out;
    }

    private static final class BrokerInfo
    {
        final int id;
        final long epoch;
        final Uuid incarnationId;
        final BrokerEndpoint endpoint;
        boolean fenced = true;

        BrokerInfo(final int id, final long epoch, final Uuid incarnationId, final BrokerEndpoint endpoint)
        {
            this.id = id;
            this.epoch = epoch;
            this.incarnationId = incarnationId;
            this.endpoint = endpoint;
        }
    }

    private static final class TopicInfo
    {
        final String name;
        final Uuid id;
        final List<PartitionState> partitions = new ArrayList<>();

        TopicInfo(final String name, final Uuid id)
        {
            this.name = name;
            this.id = id;
        }
    }
}
