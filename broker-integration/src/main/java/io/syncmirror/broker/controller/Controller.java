package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.server.authorizer.AclCreateResult;
import org.apache.kafka.server.authorizer.AclDeleteResult;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
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
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.ListenerEndpoint;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;

/**
 * The cluster's controller as a deterministic state machine: every change is a batch of {@link MetadataRecord}s
 * appended to the {@link MetadataLog} and applied to the in-memory state by the same {@link #replay} that rebuilds
 * it on start. No network, no threads, no wall clock (time comes from {@code nowMs}). Not thread-safe: one thread
 * (the {@link ControllerApis} event thread) calls everything.
 *
 * <p>The log is the metadata quorum's ({@code quorum.RaftMetadataLog}: only the Raft leader's controller changes
 * anything, and every change is refused with NOT_CONTROLLER elsewhere before it touches the state; standbys apply
 * what the leader committed through {@link #replayCommitted}), or in tests one committed on append.
 *
 * <p>State is split by record family, as Kafka's {@code QuorumController} splits it into control managers, each
 * replaying its own records and holding the rules of the operations that write them: brokers, their sessions and
 * fencing in {@link ClusterControl}; topics, partitions, ISR and leader elections in {@link ReplicationControl};
 * topic config overrides in {@link TopicConfigControl}; producer id blocks in {@link ProducerIdControl}; mirror
 * definitions, sync registrations, mirror types and the mirror operations in {@link MirrorControl}. This class keeps
 * the log, the batch in progress ({@link MetadataWriter}), the dispatch of each record to its family, and the
 * operations that span families (a heartbeat that unfences, failover's epoch bump with its producer id floor).
 *
 * <p>Cluster mirroring: failover bumps leader epochs above the source's and raises a persisted producer id floor
 * ({@link MetadataRecord.ProducerIdFloor}) so no block is ever allocated below the mirrored producer ids.
 *
 * <p>A broker's epoch is the metadata offset of its RegisterBroker record; a registration starts fenced and the
 * broker is unfenced by the first heartbeat whose applied metadata offset has reached its registration.
 */
public final class Controller
{
    private static final Logger LOG = LoggerFactory.getLogger(Controller.class);
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

    private static final int REPLAY_READ_BYTES = 1 << 20;

    private final MetadataLog log;
    private final LongSupplier nowMs;

    private final ClusterControl cluster;
    private final TopicConfigControl configs = new TopicConfigControl();
    private final ReplicationControl replication;
    private final ProducerIdControl producerIds = new ProducerIdControl();
    private final ScramControl scram = new ScramControl();
    private final AclControl acls;
    private final MirrorAclControl mirrorAcls;
    private final MirrorControl mirrors;

    /** Records of the operation in progress: applied to the state as they are emitted, appended at commit. */
    private final List<MetadataRecord> pending = new ArrayList<>();
    private final MetadataWriter writer = new MetadataWriter()
    {
        @Override
        public void emit(final MetadataRecord record)
        {
            Controller.this.emit(record);
        }

        @Override
        public void commit()
        {
            Controller.this.commit();
        }

        @Override
        public long nextOffset()
        {
            return log.endOffset() + pending.size();
        }
    };

    /**
     * Opens the controller on {@code log}, replaying every record in it. {@code config} holds the controller
     * node's server.properties keys read here (num.partitions, default.replication.factor,
     * unclean.leader.election.enable, broker.session.timeout.ms, cluster.id, syncmirror.sync.mirror.links); absent
     * keys take Kafka's defaults (and MirrorLinks' for the last).
     */
    public Controller(final MetadataLog log, final LongSupplier nowMs, final Map<String, String> config)
    {
        this(log, nowMs, config, Uuid::randomUuid);
    }

    /** As above, with the source of new topic ids ({@link #seededTopicIds} for reproducible simulations). */
    public Controller(final MetadataLog log, final LongSupplier nowMs, final Map<String, String> config,
        final Supplier<Uuid> topicIds)
    {
        this.log = Objects.requireNonNull(log);
        this.nowMs = Objects.requireNonNull(nowMs);
        this.cluster = new ClusterControl(nowMs, config.get(CLUSTER_ID_CONFIG), Long.parseLong(config.getOrDefault(
            BROKER_SESSION_TIMEOUT_MS_CONFIG, String.valueOf(BROKER_SESSION_TIMEOUT_MS_DEFAULT)).trim()));
        this.replication = new ReplicationControl(cluster, configs, writer, Objects.requireNonNull(topicIds),
            Integer.parseInt(config.getOrDefault(NUM_PARTITIONS_CONFIG, String.valueOf(NUM_PARTITIONS_DEFAULT)).trim()),
            Short.parseShort(config.getOrDefault(DEFAULT_REPLICATION_FACTOR_CONFIG,
                String.valueOf(DEFAULT_REPLICATION_FACTOR_DEFAULT)).trim()),
            Boolean.parseBoolean(config.getOrDefault(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
                String.valueOf(UNCLEAN_LEADER_ELECTION_ENABLE_DEFAULT)).trim()));
        this.acls = new AclControl(topicIds);
        this.mirrorAcls = new MirrorAclControl(acls, writer, topicIds);
        this.mirrors = new MirrorControl(cluster, replication, configs, writer, mirrorAcls,
            MirrorControl.maxSyncMirrors(config));
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
            for (final RecordBatch batch : records.batches())
            {
                if (batch.lastOffset() < offset || batch.baseOffset() >= end)
                {
                    continue;
                }
                if (!batch.isControlBatch())
                {
                    for (final Record r : batch)
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
        cluster.resetSessions();
    }

    // ------------------------------------------------------------------------------------------------ brokers

    public BrokerRegistrationResponseData registerBroker(final BrokerRegistrationRequestData request)
    {
        final BrokerRegistrationResponseData answer = cluster.registrationAnswer(request);
        if (answer != null)
        {
            return answer;
        }
        final ClusterControl.Broker existing = cluster.broker(request.brokerId());
        if (existing != null && !existing.fenced)
        {
            replication.fenceBroker(existing);
        }
        // The first listener is the broker's inter-broker one; every listener is kept when it names more than one.
        final BrokerRegistrationRequestData.Listener listener = request.listeners().iterator().next();
        final List<ListenerEndpoint> listeners = new ArrayList<>();
        if (request.listeners().size() > 1)
        {
            request.listeners().forEach(l -> listeners.add(new ListenerEndpoint(l.name(), l.host(), l.port())));
        }
        final long epoch = writer.nextOffset();
        emit(new MetadataRecord.RegisterBroker(request.brokerId(), epoch, request.incarnationId(), listener.host(),
            listener.port(), request.rack(), listeners));
        commit();
        return new BrokerRegistrationResponseData().setBrokerEpoch(epoch);
    }

    public BrokerHeartbeatResponseData heartbeat(final BrokerHeartbeatRequestData request)
    {
        final BrokerHeartbeatResponseData response = new BrokerHeartbeatResponseData();
        final ClusterControl.Broker broker = cluster.broker(request.brokerId());
        if (broker == null)
        {
            return response.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code()).setIsFenced(true);
        }
        if (broker.epoch != request.brokerEpoch())
        {
            return response.setErrorCode(Errors.STALE_BROKER_EPOCH.code()).setIsFenced(true);
        }
        cluster.onHeartbeat(broker.id, request.currentMetadataOffset());
        final boolean caughtUp = request.currentMetadataOffset() >= broker.epoch;
        if (request.wantShutDown() || request.wantFence())
        {
            if (!broker.fenced)
            {
                replication.fenceBroker(broker);
                commit();
            }
            if (request.wantShutDown())
            {
                return response.setIsCaughtUp(caughtUp).setIsFenced(true).setShouldShutDown(true);
            }
        }
        else if (broker.fenced && caughtUp)
        {
            replication.unfenceBroker(broker);
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
        final List<ClusterControl.Broker> expired = cluster.expiredSessions();
        for (final ClusterControl.Broker broker : expired)
        {
            // As Kafka's controller does: a fenced broker's leaderships move, and this line says why they did.
            LOG.info("Fencing broker {} (epoch {}): no heartbeat for {} ms (broker.session.timeout.ms = {})",
                broker.id, broker.epoch, cluster.sinceLastHeartbeatMs(broker.id), cluster.sessionTimeoutMs());
            replication.fenceBroker(broker);
            commit();
        }
        return !expired.isEmpty();
    }

    // ------------------------------------------------------------------------------------------------- topics

    public CreateTopicsResponseData createTopics(final CreateTopicsRequestData request)
    {
        return replication.createTopics(request);
    }

    public DeleteTopicsResponseData deleteTopics(final DeleteTopicsRequestData request)
    {
        return replication.deleteTopics(request);
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
                if (!replication.hasTopic(topic))
                {
                    throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException(
                        "Topic " + topic + " does not exist.");
                }
                final TreeMap<String, String> updated = TopicConfigControl.applyConfigOps(
                    configs.overrides(topic), resource.configs());
                TopicConfigControl.validate(updated);
                if (request.validateOnly())
                {
                    continue;
                }
                configs.changesTo(topic, updated).forEach(this::emit);
                commit();
            }
            catch (final ApiException e)
            {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return response;
    }

    /** Grows the topic to {@code partitionCount} partitions (a source partition increase); never shrinks. */
    public MirrorOpResult addPartitions(final String topic, final int partitionCount)
    {
        return replication.addPartitions(topic, partitionCount);
    }

    /**
     * Adds one partition per assignment after the topic's last (CreatePartitions with explicit assignments, or the
     * round-robin plan); the caller has validated the assignments.
     */
    public MirrorOpResult addPartitions(final String topic, final List<List<Integer>> assignments)
    {
        return replication.addPartitions(topic, assignments);
    }

    // ------------------------------------------------------------------------------------------------ mirrors
    // Each is MirrorControl's operation of the same name (its javadoc there).

    public MirrorOpResult createMirror(final MirrorDefinition definition)
    {
        return mirrors.createMirror(definition);
    }

    public MirrorOpResult updateMirror(final MirrorDefinition definition)
    {
        return mirrors.updateMirror(definition);
    }

    public MirrorOpResult addMirrorIncludes(final String mirrorName, final Collection<String> patterns)
    {
        return mirrors.addMirrorIncludes(mirrorName, patterns);
    }

    public MirrorOpResult deleteMirror(final String mirrorName)
    {
        return mirrors.deleteMirror(mirrorName);
    }

    public MirrorOpResult createMirrorTopic(final String topic, final Uuid sourceTopicId, final int partitions,
        final Map<String, String> configs, final String mirrorName)
    {
        return mirrors.createMirrorTopic(topic, sourceTopicId, partitions, configs, mirrorName);
    }

    /** Creates each of {@code topics} as {@link #createMirrorTopic} does, in one commit; a result per topic. */
    public Map<String, MirrorOpResult> createMirrorTopics(final String mirrorName,
        final List<SourceClusterClient.SourceTopic> topics)
    {
        return mirrors.createMirrorTopics(mirrorName, topics);
    }

    public MirrorOpResult setMirrorName(final String topic, final String value)
    {
        return mirrors.setMirrorName(topic, value);
    }

    public MirrorOpResult changeSyncRegistration(final Uuid topicId, final String mirrorName, final boolean registered)
    {
        return mirrors.changeSyncRegistration(topicId, mirrorName, registered);
    }

    public MirrorOpResult setMirrorTopicType(final Uuid topicId, final byte mirrorType)
    {
        return mirrors.setMirrorTopicType(topicId, mirrorType);
    }

    /** A mirror topic's effective type, numbered by its sync driver ({@code SyncCommitFence}). */
    public MirrorOpResult setMirrorTopicType(final Uuid topicId, final byte mirrorType, final long driverEpoch)
    {
        return mirrors.setMirrorTopicType(topicId, mirrorType, driverEpoch);
    }

    public MirrorOpResult removeTopicFromMirror(final String topic, final String mirrorName)
    {
        return mirrors.removeTopicFromMirror(topic, mirrorName);
    }

    public MirrorOpResult syncTopicConfigs(final String topic, final Map<String, String> sourceConfigs)
    {
        return mirrors.syncTopicConfigs(topic, sourceConfigs);
    }

    public MirrorOpResult syncMirrorAcls(final String mirrorName, final Set<StandardAcl> inForce,
        final Set<StandardAcl> held)
    {
        return mirrors.syncMirrorAcls(mirrorName, inForce, held);
    }

    /** Mirror ACL sync's entries of mirror {@code mirrorName}: in force and held back. */
    public List<MetadataRecord.MirrorAcl> mirrorAcls(final String mirrorName)
    {
        return mirrorAcls.mirrorEntries(mirrorName);
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
        final Map<Integer, EpochBumpResult.PartitionEpoch> bumped = replication.emitEpochBumps(topicId,
            minLeaderEpochs);
        if (bumped == null)
        {
            return new EpochBumpResult(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId, Map.of());
        }
        if (producerIds.raises(minNextProducerId))
        {
            emit(new MetadataRecord.ProducerIdFloor(minNextProducerId));
        }
        commit();
        return new EpochBumpResult(Errors.NONE, null, bumped);
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
        return replication.alterPartition(request, version);
    }

    public AllocateProducerIdsResponseData allocateProducerIds(final AllocateProducerIdsRequestData request)
    {
        final AllocateProducerIdsResponseData response = new AllocateProducerIdsResponseData();
        final ClusterControl.Broker broker = cluster.broker(request.brokerId());
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

    /** Kafka's AlterUserScramCredentials: its changes as records, answered per user (ScramControl). */
    public AlterUserScramCredentialsResponseData alterUserScramCredentials(
        final AlterUserScramCredentialsRequestData request)
    {
        final ScramControl.Alteration alteration = scram.alter(request);
        alteration.records().forEach(this::emit);
        commit();
        return alteration.response();
    }

    /** Kafka's CreateAcls: the new ACLs as records, answered per creation (AclControl). */
    public CreateAclsResponseData createAcls(final List<AclBinding> bindings)
    {
        final AclControl.Outcome<AclCreateResult> outcome = acls.create(bindings);
        outcome.records().forEach(this::emit);
        commit();
        return AclControl.createResponse(outcome);
    }

    /** Kafka's DeleteAcls: the matching ACLs' removal as records, answered per filter with what matched. */
    public DeleteAclsResponseData deleteAcls(final List<AclBindingFilter> filters)
    {
        final AclControl.Outcome<AclDeleteResult> outcome = acls.delete(filters);
        outcome.records().forEach(this::emit);
        commit();
        return AclControl.deleteResponse(outcome);
    }

    // -------------------------------------------------------------------------------------- log and replay

    private void emit(final MetadataRecord record)
    {
        if (!log.writable())
        {
            // Before any state changes: a standby's state is the committed log's, and must stay so.
            throw new NotControllerException("this node is not the active controller");
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

    /** Applies one record to its family's state; the only place state changes. */
    private void replay(final MetadataRecord record)
    {
        if (record instanceof MetadataRecord.RegisterBroker r)
        {
            cluster.replay(r);
        }
        else if (record instanceof MetadataRecord.FenceBroker r)
        {
            cluster.replay(r);
        }
        else if (record instanceof MetadataRecord.UnfenceBroker r)
        {
            cluster.replay(r);
        }
        else if (record instanceof MetadataRecord.Topic r)
        {
            replication.replay(r);
        }
        else if (record instanceof MetadataRecord.Partition r)
        {
            replication.replay(r);
        }
        else if (record instanceof MetadataRecord.PartitionChange r)
        {
            replication.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveTopic r)
        {
            final String name = replication.replay(r);
            if (name != null)
            {
                configs.removeTopic(name);
            }
            mirrors.removeTopic(r.topicId());
        }
        else if (record instanceof MetadataRecord.MirrorSyncRegistrationChange r)
        {
            mirrors.replay(r);
        }
        else if (record instanceof MetadataRecord.MirrorTopicTypeChange r)
        {
            mirrors.replay(r);
        }
        else if (record instanceof MetadataRecord.Config r)
        {
            configs.replay(r);
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
            mirrors.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveMirror r)
        {
            mirrors.replay(r);
        }
        else if (record instanceof MetadataRecord.UserScramCredential r)
        {
            scram.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveUserScramCredential r)
        {
            scram.replay(r);
        }
        else if (record instanceof MetadataRecord.Acl r)
        {
            acls.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveAcl r)
        {
            acls.replay(r);
        }
        else if (record instanceof MetadataRecord.MirrorAcl r)
        {
            mirrorAcls.replay(r);
        }
        else if (record instanceof MetadataRecord.RemoveMirrorAcl r)
        {
            mirrorAcls.replay(r);
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
        cluster.snapshot(out::add);
        replication.snapshot(out::add);
        producerIds.snapshot(out::add);
        mirrors.snapshot(out::add);
        scram.snapshot(out::add);
        acls.snapshot(out::add);
        mirrorAcls.snapshot(out::add);
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
        return cluster.appliedByAllActiveBrokers(offset);
    }

    /** Completes once {@link #appliedByAllActiveBrokers} holds for {@code offset}; on the event thread. */
    public java.util.concurrent.CompletableFuture<Void> whenAppliedByAllActiveBrokers(final long offset)
    {
        return cluster.whenAppliedByAllActiveBrokers(offset);
    }

    public String clusterId()
    {
        return cluster.clusterId();
    }

    public long sessionTimeoutMs()
    {
        return cluster.sessionTimeoutMs();
    }

    public Optional<PartitionState> partition(final String topic, final int partition)
    {
        return replication.partition(topic, partition);
    }

    public Optional<Uuid> topicId(final String topic)
    {
        return replication.topicId(topic);
    }

    public Map<String, String> topicConfig(final String topic)
    {
        return configs.view(topic);
    }

    /** Whether the broker is registered and fenced; unregistered brokers count as fenced. */
    public boolean isFenced(final int brokerId)
    {
        return !cluster.isLive(brokerId);
    }

    /** The broker's current epoch, or -1 when it is not registered. */
    public long brokerEpoch(final int brokerId)
    {
        final ClusterControl.Broker broker = cluster.broker(brokerId);
        return broker == null ? -1 : broker.epoch;
    }

    public Collection<BrokerEndpoint> registeredBrokers()
    {
        return cluster.endpoints();
    }

    /** The ids of the brokers that are registered and not fenced now, ascending. */
    public List<Integer> unfencedBrokers()
    {
        return cluster.liveBrokers();
    }

    public long nextProducerIdBlockStart()
    {
        return producerIds.nextBlockStart();
    }

    /** Every mirror defined, by name. */
    public Map<String, MirrorDefinition> mirrors()
    {
        return mirrors.definitions();
    }

    public Optional<MirrorDefinition> mirror(final String name)
    {
        return Optional.ofNullable(mirrors.definition(name));
    }

    /** The destination mirrors registered for sync replication of a topic of this (source) cluster. */
    public Set<String> registeredMirrors(final Uuid topicId)
    {
        return mirrors.registeredMirrors(topicId);
    }

    /** Every topic's name. */
    public Set<String> topicNames()
    {
        return replication.topicNames();
    }

    /** The topic's partition count, or -1 when it does not exist. */
    public int partitionCount(final String topic)
    {
        return replication.partitionCount(topic);
    }

    /** The topics whose {@code mirror.name} is exactly {@code mirrorName}, sorted. */
    public List<String> mirrorTopicNames(final String mirrorName)
    {
        return mirrors.topicNames(mirrorName);
    }
}
