package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionRequest;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;

/**
 * The controller's topics and partitions, as Kafka's {@code ReplicationControlManager} keeps them: each topic
 * ({@link MetadataRecord.Topic}, {@link MetadataRecord.RemoveTopic}) with its partitions' replicas, ISR, leader
 * and epochs ({@link MetadataRecord.Partition}, {@link MetadataRecord.PartitionChange}); the operations that change
 * them (CreateTopics, DeleteTopics, AlterPartition, partition increases, failover's epoch bump) and the elections
 * that fencing and unfencing a broker cause. Thread-safety: the controller's event thread, as all controller
 * state.
 *
 * <p>Leader election follows Kafka's KRaft controller without eligible leader replicas: a fenced broker leaves
 * every ISR except where it is the last member (the last ISR member is kept so that the partition knows whom to
 * wait for); where it led, the first replica in assignment order that is in the ISR and unfenced leads; when none
 * is, a live replica is chosen only with {@code unclean.leader.election.enable} (topic override over the broker
 * default), else the leader is -1 until a member of the last ISR returns. Every leader change bumps the leader
 * epoch, every state change bumps the partition epoch (AlterPartition's fencing token).
 */
final class ReplicationControl
{
    private static final int NO_LEADER = -1;

    private final ClusterControl cluster;
    private final TopicConfigControl configs;
    private final MetadataWriter writer;
    private final Supplier<Uuid> topicIds;
    private final int defaultPartitions;
    private final short defaultReplicationFactor;
    private final boolean uncleanLeaderElectionDefault;

    private final LinkedHashMap<Uuid, TopicInfo> topicsById = new LinkedHashMap<>();
    private final Map<String, Uuid> topicIdsByName = new HashMap<>();
    /** Topics created so far: where round-robin placement of the next one starts (not persisted). */
    private int topicsCreated;

    ReplicationControl(final ClusterControl cluster, final TopicConfigControl configs, final MetadataWriter writer,
        final Supplier<Uuid> topicIds, final int defaultPartitions, final short defaultReplicationFactor,
        final boolean uncleanLeaderElectionDefault)
    {
        this.cluster = cluster;
        this.configs = configs;
        this.writer = writer;
        this.topicIds = topicIds;
        this.defaultPartitions = defaultPartitions;
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.uncleanLeaderElectionDefault = uncleanLeaderElectionDefault;
    }

    // ----------------------------------------------------------------------------------------------- replay

    void replay(final MetadataRecord.Topic r)
    {
        topicsById.put(r.topicId(), new TopicInfo(r.name(), r.topicId()));
        topicIdsByName.put(r.name(), r.topicId());
        topicsCreated++;
    }

    void replay(final MetadataRecord.Partition r)
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

    void replay(final MetadataRecord.PartitionChange r)
    {
        final TopicInfo topic = topicsById.get(r.topicId());
        if (topic != null && r.partition() < topic.partitions.size())
        {
            final PartitionState s = topic.partitions.get(r.partition());
            topic.partitions.set(r.partition(), new PartitionState(s.topic(), s.topicId(), s.partition(),
                s.replicas(), r.isr(), r.leader(), r.leaderEpoch(), r.partitionEpoch()));
        }
    }

    /** Removes the topic; returns its name, or null when no topic had that id. */
    String replay(final MetadataRecord.RemoveTopic r)
    {
        final TopicInfo topic = topicsById.remove(r.topicId());
        if (topic == null)
        {
            return null;
        }
        topicIdsByName.remove(topic.name);
        return topic.name;
    }

    /** The records that restore every topic with its partitions' current state and its config overrides. */
    void snapshot(final Consumer<MetadataRecord> out)
    {
        for (final TopicInfo topic : topicsById.values())
        {
            out.accept(new MetadataRecord.Topic(topic.name, topic.id));
            for (final PartitionState state : topic.partitions)
            {
                if (state != null)
                {
                    out.accept(new MetadataRecord.Partition(state));
                }
            }
            configs.overrides(topic.name).forEach((key, value) ->
                out.accept(new MetadataRecord.Config(topic.name, key, value)));
        }
    }

    // ------------------------------------------------------------------------------------ fencing, elections

    /** Emits the broker's fencing and the ISR and leader changes it causes. */
    void fenceBroker(final ClusterControl.Broker broker)
    {
        writer.emit(new MetadataRecord.FenceBroker(broker.id, broker.epoch));
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

    /** Emits the broker's unfencing and the elections it allows where a partition it replicates has no leader. */
    void unfenceBroker(final ClusterControl.Broker broker)
    {
        writer.emit(new MetadataRecord.UnfenceBroker(broker.id, broker.epoch));
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
        if (leader == NO_LEADER || !cluster.isLive(leader) || !isr.contains(leader))
        {
            leader = NO_LEADER;
            for (final int replica : s.replicas())
            {
                if (isr.contains(replica) && cluster.isLive(replica))
                {
                    leader = replica;
                    break;
                }
            }
            if (leader == NO_LEADER && uncleanLeaderElection(topic.name))
            {
                for (final int replica : s.replicas())
                {
                    if (cluster.isLive(replica))
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
        writer.emit(new MetadataRecord.PartitionChange(topic.id, s.partition(), isr, leader, leaderEpoch,
            s.partitionEpoch() + 1));
    }

    private boolean uncleanLeaderElection(final String topic)
    {
        final String value = configs.override(topic, Controller.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        return value == null ? uncleanLeaderElectionDefault : Boolean.parseBoolean(value.trim());
    }

    // ------------------------------------------------------------------------------------------------ topics

    CreateTopicsResponseData createTopics(final CreateTopicsRequestData request)
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
                result.setTopicId(topicId);
            }
            catch (final ApiException e)
            {
                setError(result, Errors.forException(e), e.getMessage());
            }
        }
        // One commit for the request, as Kafka's controller writes a CreateTopics: a hundred topics are one
        // round through the metadata quorum, and the answer waits for it.
        writer.commit();
        return response;
    }

    /**
     * Creates a topic under a given id (a mirror topic keeps its source topic's id), {@code partitions} partitions
     * replicated {@code replicationFactor} times over the live brokers, with {@code topicConfigs} as overrides;
     * the caller has validated all of it, and commits.
     */
    void emitTopic(final String name, final Uuid topicId, final int partitions, final int replicationFactor,
        final Map<String, String> topicConfigs)
    {
        emitNewTopic(name, topicId, new TopicPlan(assignRoundRobin(0, partitions, replicationFactor,
            cluster.liveBrokers()), topicConfigs));
    }

    private void emitNewTopic(final String name, final Uuid topicId, final TopicPlan plan)
    {
        writer.emit(new MetadataRecord.Topic(name, topicId));
        for (final Map.Entry<String, String> config : plan.configs.entrySet())
        {
            writer.emit(new MetadataRecord.Config(name, config.getKey(), config.getValue()));
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
            if (cluster.isLive(replica))
            {
                isr.add(replica);
            }
        }
        final int leader = isr.isEmpty() ? NO_LEADER : isr.get(0);
        writer.emit(new MetadataRecord.Partition(new PartitionState(topic, topicId, partition,
            List.copyOf(replicas), isr.isEmpty() ? List.copyOf(replicas) : List.copyOf(isr), leader, 0, 0)));
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
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        final String collision = collidingTopic(name);
        if (collision != null)
        {
            throw new InvalidTopicException("Topic '" + name + "' collides with existing topic '" + collision
                + "' ('.' and '_' are the same in metric names).");
        }
        final TreeMap<String, String> overrides = new TreeMap<>();
        for (final CreateTopicsRequestData.CreatableTopicConfig config : topic.configs())
        {
            if (MirrorDefinition.MIRROR_NAME_CONFIG.equals(config.name()))
            {
                throw new InvalidConfigurationException(TopicConfigControl.MIRROR_NAME_PROTECTED);
            }
            if (config.value() != null)
            {
                overrides.put(config.name(), config.value());
            }
        }
        TopicConfigControl.validate(overrides);
        if (!topic.assignments().isEmpty())
        {
            return new TopicPlan(manualAssignments(topic), overrides);
        }
        final List<Integer> live = cluster.liveBrokers();
        final int partitions = topic.numPartitions() == -1 ? defaultPartitions : topic.numPartitions();
        final int replicationFactor = topic.replicationFactor() == -1 ? defaultReplicationFactor
            : topic.replicationFactor();
        if (partitions <= 0)
        {
            throw new InvalidPartitionsException("Number of partitions was set to an invalid non-positive value.");
        }
        if (replicationFactor <= 0)
        {
            throw new InvalidReplicationFactorException("Replication factor must be larger than 0.");
        }
        if (replicationFactor > live.size())
        {
            throw new InvalidReplicationFactorException(
                "Unable to replicate the partition " + replicationFactor + " time(s): The target replication "
                    + "factor of " + replicationFactor + " cannot be reached because only " + live.size()
                    + " broker(s) are registered.");
        }
        return new TopicPlan(assignRoundRobin(0, partitions, replicationFactor, live), overrides);
    }

    private List<List<Integer>> manualAssignments(final CreateTopicsRequestData.CreatableTopic topic)
    {
        if (topic.numPartitions() != -1 || topic.replicationFactor() != -1)
        {
            throw new InvalidRequestException(
                "both a manual assignment and numPartitions/replicationFactor were given");
        }
        final TreeMap<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (final CreateTopicsRequestData.CreatableReplicaAssignment a : topic.assignments())
        {
            if (a.brokerIds().isEmpty() || new HashSet<>(a.brokerIds()).size() != a.brokerIds().size())
            {
                throw new InvalidReplicaAssignmentException(
                    "partition " + a.partitionIndex() + " has an empty or repeated replica list");
            }
            for (final int brokerId : a.brokerIds())
            {
                if (!cluster.isRegistered(brokerId))
                {
                    throw new InvalidReplicaAssignmentException("broker " + brokerId + " is not registered");
                }
            }
            byPartition.put(a.partitionIndex(), List.copyOf(a.brokerIds()));
        }
        if (byPartition.firstKey() != 0 || byPartition.lastKey() != byPartition.size() - 1)
        {
            throw new InvalidReplicaAssignmentException("partitions must be numbered 0.." + (byPartition.size() - 1));
        }
        return new ArrayList<>(byPartition.values());
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

    DeleteTopicsResponseData deleteTopics(final DeleteTopicsRequestData request)
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
            final TopicInfo topic = target.name() != null ? topic(target.name()) : topicsById.get(target.topicId());
            if (topic == null)
            {
                final Errors error = target.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                    : Errors.UNKNOWN_TOPIC_ID;
                result.setErrorCode(error.code()).setErrorMessage(error.message());
                continue;
            }
            result.setName(topic.name).setTopicId(topic.id);
            writer.emit(new MetadataRecord.RemoveTopic(topic.id));
            writer.commit();
        }
        return response;
    }

    /** Grows the topic to {@code partitionCount} partitions (a source partition increase); never shrinks. */
    MirrorOpResult addPartitions(final String topic, final int partitionCount)
    {
        final TopicInfo info = topic(topic);
        if (info == null)
        {
            return unknownTopic(topic);
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
        final List<Integer> live = cluster.liveBrokers();
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
    MirrorOpResult addPartitions(final String topic, final List<List<Integer>> assignments)
    {
        final TopicInfo info = topic(topic);
        if (info == null)
        {
            return unknownTopic(topic);
        }
        final int current = info.partitions.size();
        for (int i = 0; i < assignments.size(); i++)
        {
            emitNewPartition(topic, info.id, current + i, assignments.get(i));
        }
        writer.commit();
        return MirrorOpResult.OK;
    }

    static MirrorOpResult unknownTopic(final String topic)
    {
        return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
    }

    /**
     * Emits failover's epoch bump, without committing: for each listed partition a PartitionChange with the same
     * leader and ISR, leader epoch {@code max(current + 1, minLeaderEpoch)} (above every source epoch in the log,
     * never below) and the next partition epoch. Null when the topic does not exist.
     */
    Map<Integer, EpochBumpResult.PartitionEpoch> emitEpochBumps(final Uuid topicId,
        final Map<Integer, Integer> minLeaderEpochs)
    {
        final TopicInfo topic = topicsById.get(topicId);
        if (topic == null)
        {
            return null;
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
            writer.emit(new MetadataRecord.PartitionChange(topicId, p, s.isr(), s.leader(), leaderEpoch,
                s.partitionEpoch() + 1));
            out.put(p, new EpochBumpResult.PartitionEpoch(Errors.NONE, leaderEpoch));
        }
        return out;
    }

    // ----------------------------------------------------------------------------------------- AlterPartition

    /** Kafka's AlterPartition (v2+, topic ids) with its validation order and errors. */
    AlterPartitionResponseData alterPartition(final AlterPartitionRequestData request, final short version)
    {
        final AlterPartitionResponseData response = new AlterPartitionResponseData();
        final ClusterControl.Broker requester = cluster.broker(request.brokerId());
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
                    writer.emit(new MetadataRecord.PartitionChange(topic.id, s.partition(), isr, s.leader(),
                        s.leaderEpoch(), s.partitionEpoch() + 1));
                    writer.commit();
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
        // look for the controller again.
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
            final ClusterControl.Broker broker = cluster.broker(b.brokerId());
            if (broker == null || broker.fenced || (b.brokerEpoch() != -1 && b.brokerEpoch() != broker.epoch))
            {
                return version > 1 ? Errors.INELIGIBLE_REPLICA : Errors.OPERATION_NOT_ATTEMPTED;
            }
        }
        return Errors.NONE;
    }

    // ----------------------------------------------------------------------------------- read-only views

    private TopicInfo topic(final String name)
    {
        final Uuid id = topicIdsByName.get(name);
        return id == null ? null : topicsById.get(id);
    }

    boolean hasTopic(final String name)
    {
        return topicIdsByName.containsKey(name);
    }

    boolean hasTopic(final Uuid topicId)
    {
        return topicsById.containsKey(topicId);
    }

    /** The name of the topic with this id, or null. */
    String topicName(final Uuid topicId)
    {
        final TopicInfo topic = topicsById.get(topicId);
        return topic == null ? null : topic.name;
    }

    Optional<Uuid> topicId(final String name)
    {
        return Optional.ofNullable(topicIdsByName.get(name));
    }

    /** An existing topic whose name collides with {@code name} in metric names ('.' and '_'), or null. */
    String collidingTopic(final String name)
    {
        for (final String existing : topicIdsByName.keySet())
        {
            if (Topic.hasCollision(name, existing))
            {
                return existing;
            }
        }
        return null;
    }

    Optional<PartitionState> partition(final String topic, final int partition)
    {
        final TopicInfo info = topic(topic);
        if (info == null || partition < 0 || partition >= info.partitions.size())
        {
            return Optional.empty();
        }
        return Optional.ofNullable(info.partitions.get(partition));
    }

    /** The topic's partition count, or -1 when it does not exist. */
    int partitionCount(final String topic)
    {
        final TopicInfo info = topic(topic);
        return info == null ? -1 : info.partitions.size();
    }

    Set<String> topicNames()
    {
        return Collections.unmodifiableSet(new TreeSet<>(topicIdsByName.keySet()));
    }

    short defaultReplicationFactor()
    {
        return defaultReplicationFactor;
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
