package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.controller.EpochBumpResult;
import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.controller.MirrorController;
import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.broker.controller.MirrorOpResult;
import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.BumpLeaderEpochsRequestData;
import io.syncmirror.protocol.BumpLeaderEpochsResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DeleteClusterMirrorRequestData;
import io.syncmirror.protocol.DeleteClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.LastMirroredOffsetsRequestData;
import io.syncmirror.protocol.LastMirroredOffsetsResponseData;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.TopicResultsResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

/**
 * The broker's handler of the cluster-mirroring management RPCs. Thread-safety: {@link #handle} runs on a
 * connection's event loop and never blocks there; work that waits (the controller, other brokers) runs on a small
 * pool of daemon threads ({@code mirror-apis-<broker>}), and the calls they wait for on other brokers on daemon
 * fan-out threads ({@code mirror-apis-fan-out-<broker>}).
 *
 * <ul>
 *   <li>CreateClusterMirror, DeleteClusterMirror, AddTopicsToMirror, RemoveTopicsFromMirror, BumpLeaderEpochs
 *       change the destination's metadata: the controller node handles them itself, every other broker forwards
 *       the request to it unchanged over the mirror wire protocol (kafka-clients' NetworkClient cannot send these
 *       keys), as KRaft brokers forward admin requests.</li>
 *   <li>DescribeClusterMirrors is answered from the metadata image for mirrors and topics and from the partition
 *       leaders for per-partition state: the receiving broker asks every live broker for the partitions it leads
 *       ({@code LocalPartitionsOnly}) and merges the answers.</li>
 *   <li>LastMirroredOffsets is answered by the partition leader from its mirror coordinator's state (failback).</li>
 *   <li>RegisterMirrorSyncTopic and UnregisterMirrorSyncTopic (source role) are decided by the owner of the
 *       mirror's sync registration ledger, the leader of the {@code __mirror_state} partition its record hashes
 *       to ({@link SyncRegistrationApis}, {@link SyncLedgerOwner}), which answers each admitted change only once
 *       the controller committed its MirrorSyncRegistrationChange (sent to it with
 *       {@code RegistrationChangeOnly}); other brokers pass the request on to the owner. Unregister with the
 *       Release tagged field is an operator's {@code --release-sync}: the topics (all the mirror registered, when
 *       none are named) lose their registration and keep a sticky Released marker.</li>
 *   <li>AlterMirrorTopicType (destination role) sets the desired mirror type on every partition, through the
 *       coordinator of each partition's leader (the request passed on with {@code LocalPartitionsOnly}); a
 *       demotion also commits the effective ASYNC type at once (the request passed to the controller node with
 *       {@code Effective}), and the coordinators then unregister at the source. A promotion answers NONE, with
 *       a "pending lag drain" note while any partition lags; the coordinators promote.</li>
 * </ul>
 *
 * <p>Authorization: the broker has no authorizer configured (no ACLs at all), so every principal may run these;
 * with an authorizer they would require CLUSTER_ACTION on the cluster resource (KIP-1279).
 */
public final class MirrorApis implements MirrorRequestHandler, AutoCloseable
{
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final MirrorCoordinator coordinator;
    private final MirrorController controller;
    private final MirrorMetadataManager metadataManager;
    /** Finds the active controller for the operations that are its work, when this node's is not. */
    private final ControllerForwarder forwarder;
    private final long timeoutMs;
    private final MirrorWireClients clients;
    /** Requests forwarded to the controller: a longer wait than {@link #clients}' (see the constructor). */
    private final MirrorWireClients forwardClients;
    private final ExecutorService pool;
    /** Calls to the other brokers that pool threads wait for: a pool of its own, so the waits cannot starve. */
    private final ExecutorService fanOut;
    /** The sync registration ledgers of the {@code __mirror_state} partitions this broker leads (source role). */
    private final SyncLedgerOwner ledgerOwner;
    private final SyncRegistrationApis syncRegistrations;
    /** Runs the ledger owner's work: one thread, as its decisions are serialized anyway (see SyncLedgerOwner). */
    private final ExecutorService ledgerExecutor;

    /**
     * @param controller      the controller's mirror operations on the controller node, else null (forwarded)
     * @param metadataManager the controller node's mirror metadata manager, else null
     * @param forwarder       reaches the active controller's listener (forwarding) from any other node
     * @param replicas        the replica layer, where the sync registration ledgers are loaded and written
     * @param ledgerTopic     creates {@code __mirror_state} when missing; its partition count
     */
    public MirrorApis(final int brokerId, final Supplier<MetadataImage> image, final MirrorCoordinator coordinator,
        final MirrorController controller, final MirrorMetadataManager metadataManager,
        final ControllerForwarder forwarder, final long timeoutMs, final ReplicaAccess replicas,
        final SyncRegistrationApis.LedgerTopic ledgerTopic)
    {
        this.brokerId = brokerId;
        this.image = image;
        this.coordinator = coordinator;
        this.controller = controller;
        this.metadataManager = metadataManager;
        this.forwarder = forwarder;
        this.timeoutMs = timeoutMs;
        this.clients = new MirrorWireClients("broker-" + brokerId + "-mirror", (int)timeoutMs, (int)timeoutMs);
        // The controller bounds its own work on a request by timeoutMs, plus the calls to other brokers it makes
        // at the end (each bounded by timeoutMs): a forwarded request waits for both, so that a slow controller
        // answers with what it did instead of this broker giving up first.
        this.forwardClients = new MirrorWireClients("broker-" + brokerId + "-forward", (int)timeoutMs,
            (int)Math.min(Integer.MAX_VALUE, 2 * timeoutMs + 1000));
        this.pool = Executors.newFixedThreadPool(4, r ->
        {
            final Thread t = new Thread(r, "mirror-apis-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.fanOut = Executors.newCachedThreadPool(r ->
        {
            final Thread t = new Thread(r, "mirror-apis-fan-out-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.ledgerExecutor = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "sync-ledger-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.ledgerOwner = new SyncLedgerOwner(brokerId, replicas, this::commitRegistrationChange,
            () -> coordinator.syncVersion() >= 1, System::currentTimeMillis, timeoutMs);
        ledgerOwner.start();
        this.syncRegistrations = new SyncRegistrationApis(brokerId, image, ledgerOwner, ledgerTopic,
            (broker, request, type) -> forwardClients.send(broker.host(), broker.port(), request, type), timeoutMs,
            System::currentTimeMillis);
        coordinator.syncChannel(syncChannel());
    }

    @Override
    public boolean serves(final MirrorApiKeys key)
    {
        return switch (key)
        {
            case ADD_TOPICS_TO_MIRROR, REMOVE_TOPICS_FROM_MIRROR, DESCRIBE_CLUSTER_MIRRORS, LAST_MIRRORED_OFFSETS,
                CREATE_CLUSTER_MIRROR, DELETE_CLUSTER_MIRROR, BUMP_LEADER_EPOCHS, REGISTER_MIRROR_SYNC_TOPIC,
                UNREGISTER_MIRROR_SYNC_TOPIC, ALTER_MIRROR_TOPIC_TYPE -> true;
        };
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final MirrorRequestHeader header, final ApiMessage request)
    {
        return switch (header.apiKey())
        {
            case DESCRIBE_CLUSTER_MIRRORS -> describe((DescribeClusterMirrorsRequestData)request);
            case LAST_MIRRORED_OFFSETS ->
                CompletableFuture.completedFuture(lastMirroredOffsets((LastMirroredOffsetsRequestData)request));
            case ALTER_MIRROR_TOPIC_TYPE -> alterMirrorTopicType((AlterMirrorTopicTypeRequestData)request);
            case REGISTER_MIRROR_SYNC_TOPIC, UNREGISTER_MIRROR_SYNC_TOPIC -> registrationChangeOnly(request) ?
                controllerOperation(request) : syncRegistration(request);
            default -> controllerOperation(request);
        };
    }

    // ------------------------------------------------------------------------------------------------------
    // Controller operations.
    // ------------------------------------------------------------------------------------------------------

    private CompletableFuture<ApiMessage> controllerOperation(final ApiMessage request)
    {
        return !localController() ? forward(request) : handleAsController(request);
    }

    /**
     * A Register or Unregister from a destination or an operator: answered by the owner of the mirror's ledger.
     * Routing runs on the fan-out threads and a request passed on to this broker as the owner on the ledger's own
     * thread: neither may wait on the pool, whose threads run the controller's commits that the owner waits for,
     * and a request passed on here cannot queue behind this broker's own routing that waits for another owner.
     */
    private CompletableFuture<ApiMessage> syncRegistration(final ApiMessage request)
    {
        final boolean ownerOnly = request instanceof RegisterMirrorSyncTopicRequestData register ?
            register.ledgerOwnerOnly() : ((UnregisterMirrorSyncTopicRequestData)request).ledgerOwnerOnly();
        return CompletableFuture.supplyAsync(() -> request instanceof RegisterMirrorSyncTopicRequestData register ?
            syncRegistrations.register(register) :
            syncRegistrations.unregister((UnregisterMirrorSyncTopicRequestData)request),
            ownerOnly ? ledgerExecutor : fanOut);
    }

    private static boolean registrationChangeOnly(final ApiMessage request)
    {
        return request instanceof RegisterMirrorSyncTopicRequestData register ? register.registrationChangeOnly() :
            ((UnregisterMirrorSyncTopicRequestData)request).registrationChangeOnly();
    }

    /** Whether this node runs the active controller, so controller operations run here in-process. */
    boolean localController()
    {
        return controller != null && controller.isActive();
    }

    /**
     * Runs a controller operation here, on the pool: this node's controller is the active one. An effective mirror
     * type goes to the controller; every other operation is one {@link #handleOnController} serves.
     */
    CompletableFuture<ApiMessage> handleAsController(final ApiMessage request)
    {
        if (request instanceof AlterMirrorTopicTypeRequestData alter)
        {
            return CompletableFuture.supplyAsync(() -> commitEffectiveTypes(alter), pool);
        }
        return CompletableFuture.supplyAsync(() -> handleOnController(request), pool);
    }

    /** What this node's controller listener serves of the mirror RPCs: see {@link ControllerListenerMirrorApis}. */
    public MirrorRequestHandler controllerListenerHandler()
    {
        return new ControllerListenerMirrorApis(brokerId, this);
    }

    private CompletableFuture<ApiMessage> forward(final ApiMessage request)
    {
        return CompletableFuture.supplyAsync(() -> sendToController(forwardClients, request, ApiMessage.class), pool);
    }

    /**
     * Sends a controller operation to the active controller through {@code via} (its voter found by the
     * forwarder). Kafka's retriable NETWORK_EXCEPTION, not UNKNOWN_SERVER_ERROR, when no voter answered in time:
     * the caller tries again.
     */
    private <T extends ApiMessage> T sendToController(final MirrorWireClients via, final ApiMessage request,
        final Class<T> type)
    {
        try
        {
            return forwarder.send(via::send, request, type);
        }
        catch (final IOException e)
        {
            throw new org.apache.kafka.common.errors.NetworkException("cannot reach the active controller: " +
                e.getMessage(), e);
        }
    }

    private ApiMessage handleOnController(final ApiMessage request)
    {
        if (request instanceof CreateClusterMirrorRequestData create)
        {
            final Map<String, String> configs = new LinkedHashMap<>();
            for (final CreateClusterMirrorRequestData.SourceConfig config : create.sourceConfigs())
            {
                if (config.value() != null)
                {
                    configs.put(config.name(), config.value());
                }
            }
            final String invalid = MirrorDefinition.invalidNameReason(create.mirrorName());
            final MirrorOpResult result = invalid != null ? MirrorOpResult.error(Errors.INVALID_REQUEST, invalid) :
                create.sourceBootstrapServers() == null || create.sourceBootstrapServers().isBlank() ?
                    MirrorOpResult.error(Errors.INVALID_REQUEST, "a mirror needs the source's bootstrap servers") :
                    await(controller.createMirror(new MirrorDefinition(create.mirrorName(),
                        create.sourceBootstrapServers(), configs, create.includeTopics(), create.excludeTopics())));
            if (result.isOk() && metadataManager != null)
            {
                metadataManager.syncNow(); // topics the include filters match are created without waiting a cycle
            }
            return new CreateClusterMirrorResponseData().setErrorCode(result.error().code())
                .setErrorMessage(result.message());
        }
        if (request instanceof DeleteClusterMirrorRequestData delete)
        {
            final MirrorOpResult result = await(controller.deleteMirror(delete.mirrorName()));
            return new DeleteClusterMirrorResponseData().setErrorCode(result.error().code())
                .setErrorMessage(result.message());
        }
        if (request instanceof AddTopicsToMirrorRequestData add)
        {
            return addTopics(add);
        }
        if (request instanceof RemoveTopicsFromMirrorRequestData remove)
        {
            final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
            for (final RemoveTopicsFromMirrorRequestData.TopicState topic : remove.topics())
            {
                final String mirrorName = topic.mirrorName() != null ? topic.mirrorName() :
                    MirrorTopicConfig.activeMirror(image.get().topicConfig(topic.topicName()));
                final MirrorOpResult result = mirrorName == null ?
                    MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic.topicName() +
                        "' is not a mirror topic") :
                    await(controller.removeTopicFromMirror(topic.topicName(), mirrorName));
                results.add(topicResult(topic.topicName(), result));
            }
            return new RemoveTopicsFromMirrorResponseData().setTopics(results);
        }
        if (request instanceof BumpLeaderEpochsRequestData bump)
        {
            final BumpLeaderEpochsResponseData response = new BumpLeaderEpochsResponseData();
            final List<BumpLeaderEpochsResponseData.TopicResult> topics = new ArrayList<>();
            for (final BumpLeaderEpochsRequestData.TopicRequest topic : bump.topics())
            {
                final Map<Integer, Integer> minEpochs = new HashMap<>();
                for (final BumpLeaderEpochsRequestData.PartitionRequest partition : topic.partitions())
                {
                    minEpochs.put(partition.partitionIndex(), partition.minLeaderEpoch());
                }
                final EpochBumpResult result = await(controller.bumpLeaderEpochs(topic.topicId(), minEpochs,
                    bump.minNextProducerId()));
                final List<BumpLeaderEpochsResponseData.PartitionResult> partitions = new ArrayList<>();
                for (final Map.Entry<Integer, EpochBumpResult.PartitionEpoch> entry : result.partitions().entrySet())
                {
                    partitions.add(new BumpLeaderEpochsResponseData.PartitionResult()
                        .setPartitionIndex(entry.getKey()).setErrorCode(entry.getValue().error().code())
                        .setLeaderEpoch(entry.getValue().leaderEpoch()));
                }
                if (!result.isOk())
                {
                    response.setErrorCode(result.error().code()).setErrorMessage(result.message());
                }
                topics.add(new BumpLeaderEpochsResponseData.TopicResult().setTopicId(topic.topicId())
                    .setPartitions(partitions));
            }
            if (bump.topics().isEmpty() && bump.minNextProducerId() >= 0)
            {
                await(controller.raiseProducerIdFloor(bump.minNextProducerId()));
            }
            if (response.errorCode() == Errors.NONE.code() && bump.minNextProducerId() >= 0)
            {
                awaitAppliedEverywhere(response);
            }
            return response.setTopics(topics);
        }
        if (request instanceof RegisterMirrorSyncTopicRequestData ||
            request instanceof UnregisterMirrorSyncTopicRequestData)
        {
            return commitRegistrationChanges(request);
        }
        if (request instanceof AlterMirrorTopicTypeRequestData alter && alter.effective())
        {
            return commitEffectiveTypes(alter);
        }
        throw new IllegalArgumentException("not a controller mirror RPC: " + request.getClass().getSimpleName());
    }

    /**
     * Answers only once every active broker has applied the new producer id floor (their heartbeats say so), so a
     * failover never makes its topic writable while a transaction coordinator can still hand out an id below the
     * floor (hazard 8). Costs up to one heartbeat interval per failover.
     */
    private void awaitAppliedEverywhere(final BumpLeaderEpochsResponseData response)
    {
        final long offset = await(controller.lastMetadataOffset());
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (!await(controller.appliedByAllActiveBrokers(offset)))
        {
            if (System.currentTimeMillis() > deadlineMs)
            {
                response.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setErrorMessage("not every broker applied " +
                    "the raised producer id floor (metadata offset " + offset + ") within " + timeoutMs + " ms");
                return;
            }
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted", e);
            }
        }
    }

    private AddTopicsToMirrorResponseData addTopics(final AddTopicsToMirrorRequestData add)
    {
        // One deadline for the commit and the desired types of SYNC topics: the answer comes within timeoutMs.
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
        final Map<String, List<String>> namesByMirror = new LinkedHashMap<>();
        final Map<String, List<String>> patternsByMirror = new LinkedHashMap<>();
        final java.util.Set<String> syncNames = new java.util.HashSet<>();
        final java.util.Set<String> syncPatterns = new java.util.HashSet<>();
        for (final AddTopicsToMirrorRequestData.TopicState topic : add.topics())
        {
            if (topic.mirrorType() != MirrorType.ASYNC.id() && topic.mirrorType() != MirrorType.SYNC.id())
            {
                results.add(topicResult(topic.topicName(), MirrorOpResult.error(Errors.INVALID_REQUEST,
                    "unknown mirror type " + topic.mirrorType() + " (0 ASYNC, 1 SYNC)")));
            }
            else if (topic.mirrorName() == null || topic.mirrorName().isEmpty())
            {
                results.add(topicResult(topic.topicName(), MirrorOpResult.error(Errors.INVALID_REQUEST,
                    "no mirror name given for topic '" + topic.topicName() + "'")));
            }
            else
            {
                namesByMirror.computeIfAbsent(topic.mirrorName(), k -> new ArrayList<>()).add(topic.topicName());
                if (topic.mirrorType() == MirrorType.SYNC.id())
                {
                    syncNames.add(topic.mirrorName() + "/" + topic.topicName());
                }
            }
        }
        for (final AddTopicsToMirrorRequestData.TopicPattern pattern : add.topicPatterns())
        {
            if (pattern.mirrorType() != MirrorType.ASYNC.id() && pattern.mirrorType() != MirrorType.SYNC.id())
            {
                results.add(topicResult(pattern.pattern(), MirrorOpResult.error(Errors.INVALID_REQUEST,
                    "unknown mirror type " + pattern.mirrorType() + " (0 ASYNC, 1 SYNC)")));
            }
            else
            {
                patternsByMirror.computeIfAbsent(pattern.mirrorName(), k -> new ArrayList<>()).add(pattern.pattern());
                if (pattern.mirrorType() == MirrorType.SYNC.id())
                {
                    syncPatterns.add(pattern.mirrorName() + "/" + pattern.pattern());
                }
            }
        }
        final java.util.Set<String> mirrors = new java.util.LinkedHashSet<>(namesByMirror.keySet());
        mirrors.addAll(patternsByMirror.keySet());
        for (final String mirror : mirrors)
        {
            final Map<String, MirrorOpResult> answered = await(metadataManager.addTopicsToMirror(mirror,
                namesByMirror.getOrDefault(mirror, List.of()), patternsByMirror.getOrDefault(mirror, List.of())));
            for (final Map.Entry<String, MirrorOpResult> entry : answered.entrySet())
            {
                final TopicResultsResponseData.TopicResult result = topicResult(entry.getKey(), entry.getValue());
                if (result.errorCode() == Errors.NONE.code())
                {
                    final String key = mirror + "/" + entry.getKey();
                    if (syncNames.contains(key))
                    {
                        maybeNote(result, setDesiredSyncOnAdd(mirror, java.util.regex.Pattern.compile(
                            java.util.regex.Pattern.quote(entry.getKey())), deadlineMs));
                    }
                    else if (syncPatterns.contains(key))
                    {
                        maybeNote(result, setDesiredSyncOnAdd(mirror, java.util.regex.Pattern.compile(
                            entry.getKey()), deadlineMs));
                    }
                }
                results.add(result);
            }
        }
        return new AddTopicsToMirrorResponseData().setTopics(results);
    }

    private static void maybeNote(final TopicResultsResponseData.TopicResult result, final String note)
    {
        if (note != null)
        {
            result.setErrorMessage(result.errorMessage() == null ? note : result.errorMessage() + "; " + note);
        }
    }

    /**
     * {@code --add --sync}: once the added topics are in this broker's image and their partitions have leaders,
     * their desired type becomes SYNC on every partition (the same path as {@code --alter --sync}); the
     * coordinators promote them when their lag is 0. Null when done, else what is left undone.
     */
    private String setDesiredSyncOnAdd(final String mirrorName, final java.util.regex.Pattern names,
        final long deadlineMs)
    {
        String left = "no topic matched yet";
        boolean first = true;
        while (first || System.currentTimeMillis() < deadlineMs)
        {
            first = false; // at least one try, however long the commit before it took
            final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> topics = new ArrayList<>();
            final Map<String, Integer> partitionCounts = new HashMap<>();
            for (final TopicMetadata topic : image.get().topics())
            {
                if (mirrorName.equals(MirrorTopicConfig.activeMirror(topic.config())) &&
                    names.matcher(topic.name()).matches())
                {
                    topics.add(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(topic.id())
                        .setTopicName(topic.name()).setMirrorType(MirrorType.SYNC.id()));
                    partitionCounts.put(topic.name(), topic.partitions().size());
                }
            }
            if (!topics.isEmpty())
            {
                final Map<String, java.util.Set<Integer>> applied = applyDesiredEverywhere(mirrorName, topics);
                final List<String> missing = new ArrayList<>();
                for (final Map.Entry<String, Integer> entry : partitionCounts.entrySet())
                {
                    if (applied.getOrDefault(entry.getKey(), java.util.Set.of()).size() < entry.getValue())
                    {
                        missing.add(entry.getKey());
                    }
                }
                if (missing.isEmpty())
                {
                    return null;
                }
                left = "partitions of " + missing + " have no leader coordinating them yet";
            }
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return "desired type SYNC not set within " + timeoutMs + " ms (" + left + "); run --alter --sync to set it";
    }

    private static TopicResultsResponseData.TopicResult topicResult(final String topic, final MirrorOpResult result)
    {
        return new TopicResultsResponseData.TopicResult().setTopicName(topic).setErrorCode(result.error().code())
            .setErrorMessage(result.message());
    }

    private <T> T await(final CompletableFuture<T> future)
    {
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : new KafkaException(e.getCause());
        }
        catch (final java.util.concurrent.TimeoutException e)
        {
            throw new org.apache.kafka.common.errors.TimeoutException("the controller did not answer within " +
                timeoutMs + " ms");
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Synchronous mirroring, source role: the controller's commit of the registration changes a ledger decided.
    // ------------------------------------------------------------------------------------------------------

    /**
     * The ledger owner's port to the controller: commits one topic's registration change (in-process on the active
     * controller, else sent to it as a Register or Unregister with {@code RegistrationChangeOnly}).
     */
    private Errors commitRegistrationChange(final Uuid topicId, final String mirrorName, final boolean registered)
    {
        if (localController())
        {
            return await(controller.changeSyncRegistration(topicId, mirrorName, registered)).error();
        }
        if (registered)
        {
            final RegisterMirrorSyncTopicResponseData response = sendToController(forwardClients,
                new RegisterMirrorSyncTopicRequestData().setMirrorName(mirrorName).setRegistrationChangeOnly(true)
                    .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId))),
                RegisterMirrorSyncTopicResponseData.class);
            return response.topics().isEmpty() ? Errors.UNKNOWN_SERVER_ERROR :
                Errors.forCode(response.topics().get(0).errorCode());
        }
        final UnregisterMirrorSyncTopicResponseData response = sendToController(forwardClients,
            new UnregisterMirrorSyncTopicRequestData().setMirrorName(mirrorName).setRegistrationChangeOnly(true)
                .setTopics(List.of(new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId))),
            UnregisterMirrorSyncTopicResponseData.class);
        return Errors.forCode(response.errorCode());
    }

    /** The active controller's side: commits the registration changes of a RegistrationChangeOnly request. */
    private ApiMessage commitRegistrationChanges(final ApiMessage request)
    {
        if (request instanceof RegisterMirrorSyncTopicRequestData register)
        {
            final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
            for (final RegisterMirrorSyncTopicRequestData.TopicState topic : register.topics())
            {
                final MirrorOpResult result = !register.registrationChangeOnly() ? NOT_A_CHANGE :
                    await(controller.changeSyncRegistration(topic.topicId(), register.mirrorName(), true));
                results.add(topicResult(topic.topicName(), result));
            }
            return new RegisterMirrorSyncTopicResponseData().setTopics(results);
        }
        final UnregisterMirrorSyncTopicRequestData unregister = (UnregisterMirrorSyncTopicRequestData)request;
        for (final UnregisterMirrorSyncTopicRequestData.TopicState topic : unregister.topics())
        {
            final MirrorOpResult result = !unregister.registrationChangeOnly() ? NOT_A_CHANGE :
                await(controller.changeSyncRegistration(topic.topicId(), unregister.mirrorName(), false));
            if (!result.isOk())
            {
                return new UnregisterMirrorSyncTopicResponseData().setErrorCode(result.error().code())
                    .setErrorMessage(result.message());
            }
        }
        return new UnregisterMirrorSyncTopicResponseData();
    }

    /** The controller's answer to a Register or Unregister that is not a ledger's registration change. */
    private static final MirrorOpResult NOT_A_CHANGE = MirrorOpResult.error(Errors.INVALID_REQUEST,
        "the controller commits only the registration changes a sync registration ledger decided " +
            "(RegistrationChangeOnly); send Register and Unregister to a broker listener");

    private static TopicResultsResponseData.TopicResult result(final String topic, final Errors error,
        final String message)
    {
        return new TopicResultsResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }

    // ------------------------------------------------------------------------------------------------------
    // Synchronous mirroring, destination role: AlterMirrorTopicType.
    // ------------------------------------------------------------------------------------------------------

    private CompletableFuture<ApiMessage> alterMirrorTopicType(final AlterMirrorTopicTypeRequestData request)
    {
        if (request.effective())
        {
            return !localController() ? forward(request) : handleAsController(request);
        }
        if (request.localPartitionsOnly())
        {
            return CompletableFuture.supplyAsync(() -> applyDesiredLocally(request), pool);
        }
        return CompletableFuture.supplyAsync(() -> alterTypes(request), pool);
    }

    /** Controller node: commits each topic's effective type (MirrorTopicTypeChange). */
    private AlterMirrorTopicTypeResponseData commitEffectiveTypes(final AlterMirrorTopicTypeRequestData request)
    {
        final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            results.add(topicResult(topic.topicName(), await(controller.setMirrorTopicType(topic.topicId(),
                topic.mirrorType()))));
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /**
     * Sets the desired type on the partitions this broker leads; each topic's answer names them in its message
     * (comma-separated partition indexes), which only the broker that passed the request on reads.
     */
    private AlterMirrorTopicTypeResponseData applyDesiredLocally(final AlterMirrorTopicTypeRequestData request)
    {
        final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
        // Every topic's writes go out before any is awaited: a request may name thousands of topics.
        final List<CompletableFuture<java.util.Set<Integer>>> pending = new ArrayList<>();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            pending.add(coordinator.setDesiredMirrorType(request.mirrorName(), topic.topicId(), topic.mirrorType()));
        }
        int index = 0;
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            final CompletableFuture<java.util.Set<Integer>> future = pending.get(index++);
            try
            {
                final java.util.Set<Integer> applied = await(future);
                final StringBuilder partitions = new StringBuilder();
                for (final int partition : applied)
                {
                    partitions.append(partitions.length() == 0 ? "" : ",").append(partition);
                }
                results.add(result(topic.topicName(), Errors.NONE, partitions.toString()));
            }
            catch (final RuntimeException e)
            {
                results.add(result(topic.topicName(), Errors.forException(e), e.getMessage()));
            }
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /** An operator's AlterMirrorTopicType: desired type on every partition, then demotion or the lag note. */
    private AlterMirrorTopicTypeResponseData alterTypes(final AlterMirrorTopicTypeRequestData request)
    {
        final List<TopicResultsResponseData.TopicResult> results = new ArrayList<>();
        final MetadataImage current = image.get();
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> valid = new ArrayList<>();
        final Map<String, TopicMetadata> topics = new HashMap<>();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            final Optional<TopicMetadata> found = SyncRegistrationApis.resolve(current, topic.topicId(), topic.topicName());
            if (topic.mirrorType() != MirrorType.ASYNC.id() && topic.mirrorType() != MirrorType.SYNC.id())
            {
                results.add(result(topic.topicName(), Errors.INVALID_REQUEST, "unknown mirror type " +
                    topic.mirrorType() + " (0 ASYNC, 1 SYNC)"));
            }
            else if (found.isEmpty())
            {
                results.add(result(topic.topicName(), Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" +
                    topic.topicName() + "' does not exist"));
            }
            else if (!request.mirrorName().equals(MirrorTopicConfig.activeMirror(found.get().config())))
            {
                results.add(result(topic.topicName(), Errors.INVALID_REQUEST, "topic '" + topic.topicName() +
                    "' is not actively mirrored by cluster mirror '" + request.mirrorName() + "'"));
            }
            else
            {
                topics.put(found.get().name(), found.get());
                valid.add(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(found.get().id())
                    .setTopicName(found.get().name()).setMirrorType(topic.mirrorType()));
            }
        }
        if (valid.isEmpty())
        {
            return new AlterMirrorTopicTypeResponseData().setTopics(results);
        }
        final Map<String, java.util.Set<Integer>> applied = applyDesiredEverywhere(request.mirrorName(), valid);
        final Map<String, Long> lags = valid.stream().anyMatch(t -> t.mirrorType() == MirrorType.SYNC.id()) ?
            lagsByPartition(request.mirrorName()) : Map.of();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : valid)
        {
            final TopicMetadata metadata = topics.get(topic.topicName());
            final List<Integer> missing = new ArrayList<>();
            for (final PartitionState state : metadata.partitions())
            {
                if (!applied.getOrDefault(topic.topicName(), java.util.Set.of()).contains(state.partition()))
                {
                    missing.add(state.partition());
                }
            }
            if (!missing.isEmpty())
            {
                results.add(result(topic.topicName(), Errors.LEADER_NOT_AVAILABLE, "partitions " + missing +
                    " of topic '" + topic.topicName() + "' have no live leader coordinating them; retry"));
                continue;
            }
            if (topic.mirrorType() == MirrorType.ASYNC.id())
            {
                // Demotion takes effect at once: the source stops gating when the coordinators' Unregister lands.
                final TopicResultsResponseData.TopicResult committed = commitEffective(topic.topicId(),
                    topic.topicName(), MirrorType.ASYNC.id());
                results.add(committed);
                continue;
            }
            final StringBuilder lagging = new StringBuilder();
            for (final PartitionState state : metadata.partitions())
            {
                final long lag = lags.getOrDefault(topic.topicName() + "-" + state.partition(), -1L);
                if (lag != 0)
                {
                    lagging.append(lagging.length() == 0 ? "" : ", ").append(state.partition()).append(": ")
                        .append(lag < 0 ? "unknown" : Long.toString(lag));
                }
            }
            final boolean alreadySync = current.syncState(topic.topicId()).mirrorType() == MirrorType.SYNC.id();
            results.add(result(topic.topicName(), Errors.NONE, alreadySync || lagging.length() == 0 ? null :
                "promotion to SYNC is pending lag drain (partition lags " + lagging + "); it happens automatically " +
                    "once every partition's lag is 0"));
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /** The desired type through every live broker's coordinator; per topic, the partitions that took it. */
    private Map<String, java.util.Set<Integer>> applyDesiredEverywhere(final String mirrorName,
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> topics)
    {
        final AlterMirrorTopicTypeRequestData local = new AlterMirrorTopicTypeRequestData().setMirrorName(mirrorName)
            .setTopics(topics).setLocalPartitionsOnly(true);
        final List<CompletableFuture<AlterMirrorTopicTypeResponseData>> answers = new ArrayList<>();
        for (final BrokerEndpoint broker : image.get().liveBrokers())
        {
            answers.add(broker.id() == brokerId ? CompletableFuture.completedFuture(applyDesiredLocally(local)) :
                CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        return clients.send(broker.host(), broker.port(), local,
                            AlterMirrorTopicTypeResponseData.class);
                    }
                    catch (final IOException e)
                    {
                        return null; // that broker's partitions show as missing: the caller answers retriable
                    }
                }, fanOut));
        }
        final Map<String, java.util.Set<Integer>> applied = new HashMap<>();
        for (final CompletableFuture<AlterMirrorTopicTypeResponseData> answer : answers)
        {
            final AlterMirrorTopicTypeResponseData response = answer.join();
            if (response == null)
            {
                continue;
            }
            for (final TopicResultsResponseData.TopicResult topic : response.topics())
            {
                if (topic.errorCode() != Errors.NONE.code() || topic.errorMessage() == null ||
                    topic.errorMessage().isEmpty())
                {
                    continue;
                }
                for (final String partition : topic.errorMessage().split(","))
                {
                    applied.computeIfAbsent(topic.topicName(), k -> new java.util.HashSet<>())
                        .add(Integer.parseInt(partition.trim()));
                }
            }
        }
        return applied;
    }

    /** Lag of every partition of the mirror, keyed topic-partition, as the whole cluster's describe shows it. */
    private Map<String, Long> lagsByPartition(final String mirrorName)
    {
        final Map<String, Long> lags = new HashMap<>();
        final DescribeClusterMirrorsResponseData described = describeEverywhere(
            new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirrorName)));
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : described.mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : topic.partitions())
                {
                    lags.put(topic.topicName() + "-" + partition.partitionIndex(),
                        partition.state() == MirrorPartitionState.MIRRORING.id() ? partition.lag() : -1L);
                }
            }
        }
        return lags;
    }

    /** Commits a topic's effective mirror type at the controller (in-process or forwarded). */
    private TopicResultsResponseData.TopicResult commitEffective(final Uuid topicId, final String topicName,
        final byte mirrorType)
    {
        final AlterMirrorTopicTypeRequestData request = new AlterMirrorTopicTypeRequestData().setEffective(true)
            .setTopics(List.of(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(topicId)
                .setTopicName(topicName).setMirrorType(mirrorType)));
        try
        {
            final AlterMirrorTopicTypeResponseData response = localController() ? commitEffectiveTypes(request) :
                sendToController(clients, request, AlterMirrorTopicTypeResponseData.class);
            for (final TopicResultsResponseData.TopicResult result : response.topics())
            {
                return result.setTopicName(topicName);
            }
            return result(topicName, Errors.UNKNOWN_SERVER_ERROR, "the controller answered no result");
        }
        catch (final RuntimeException e)
        {
            return result(topicName, Errors.forException(e), e.getMessage());
        }
    }

    /** The coordinator's sync control-path links: the controller, the other brokers, the mirror's source. */
    private MirrorCoordinator.SyncChannel syncChannel()
    {
        return new MirrorCoordinator.SyncChannel()
        {
            @Override
            public void commitMirrorType(final Uuid topicId, final byte mirrorType)
            {
                final String name = image.get().topic(topicId).map(TopicMetadata::name).orElse("");
                final TopicResultsResponseData.TopicResult result = commitEffective(topicId, name, mirrorType);
                if (result.errorCode() != Errors.NONE.code())
                {
                    throw Errors.forCode(result.errorCode()).exception("committing mirror type " + mirrorType +
                        " of topic '" + name + "': " + result.errorMessage());
                }
            }

            @Override
            public Map<Uuid, Map<Integer, MirrorCoordinator.RemotePartition>> remotePartitions(
                final String mirrorName)
            {
                final Map<Uuid, Map<Integer, MirrorCoordinator.RemotePartition>> remote = new HashMap<>();
                final DescribeClusterMirrorsResponseData described = describeEverywhere(
                    new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirrorName)));
                for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : described.mirrors())
                {
                    for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
                    {
                        for (final DescribeClusterMirrorsResponseData.MirrorPartition p : topic.partitions())
                        {
                            if (p.leaderId() != brokerId && p.destinationOffset() >= 0)
                            {
                                remote.computeIfAbsent(topic.topicId(), k -> new HashMap<>()).put(p.partitionIndex(),
                                    new MirrorCoordinator.RemotePartition(MirrorPartitionState.forId(p.state()),
                                        p.lag(), p.syncFailingForMs()));
                            }
                        }
                    }
                }
                return remote;
            }

            @Override
            public <T extends ApiMessage> T sendToSource(final SourceCluster source, final ApiMessage request,
                final Class<T> type) throws IOException
            {
                IOException last = null;
                for (final String server : source.bootstrapServers().split(","))
                {
                    if (server.isBlank())
                    {
                        continue;
                    }
                    try
                    {
                        final MirrorWireClient.HostPort hostPort = MirrorWireClient.parse(server);
                        return clients.send(hostPort.host(), hostPort.port(), request, type);
                    }
                    catch (final IOException e)
                    {
                        last = e;
                    }
                }
                throw last != null ? last : new IOException("mirror '" + source.mirrorName() +
                    "' has no source bootstrap server");
            }
        };
    }

    // ------------------------------------------------------------------------------------------------------
    // DescribeClusterMirrors.
    // ------------------------------------------------------------------------------------------------------

    private CompletableFuture<ApiMessage> describe(final DescribeClusterMirrorsRequestData request)
    {
        if (request.localPartitionsOnly())
        {
            return CompletableFuture.completedFuture(describeLocally(request));
        }
        return CompletableFuture.supplyAsync(() -> describeEverywhere(request), pool);
    }

    /**
     * The local answer merged with every other live broker's partitions, asked in parallel on the fan-out
     * threads; blocks the caller (never a pool thread waiting on pool threads, which could starve the pool).
     */
    private DescribeClusterMirrorsResponseData describeEverywhere(final DescribeClusterMirrorsRequestData request)
    {
        final DescribeClusterMirrorsResponseData local = describeLocally(request);
        final DescribeClusterMirrorsRequestData fanOutRequest = new DescribeClusterMirrorsRequestData()
            .setMirrorNames(request.mirrorNames()).setLocalPartitionsOnly(true);
        final List<CompletableFuture<DescribeClusterMirrorsResponseData>> answers = new ArrayList<>();
        for (final BrokerEndpoint broker : image.get().liveBrokers())
        {
            if (broker.id() == brokerId)
            {
                continue;
            }
            answers.add(CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return clients.send(broker.host(), broker.port(), fanOutRequest,
                        DescribeClusterMirrorsResponseData.class);
                }
                catch (final IOException e)
                {
                    return null; // that broker's partitions show as not reported
                }
            }, fanOut));
        }
        for (final CompletableFuture<DescribeClusterMirrorsResponseData> answer : answers)
        {
            final DescribeClusterMirrorsResponseData other = answer.join();
            if (other != null)
            {
                merge(local, other);
            }
        }
        return local;
    }

    /** The mirrors and their topics from this broker's image, with the partitions this broker coordinates. */
    private DescribeClusterMirrorsResponseData describeLocally(final DescribeClusterMirrorsRequestData request)
    {
        final MetadataImage current = image.get();
        final Map<String, MirrorDefinition> defined = current.mirrors();
        final List<String> names = request.mirrorNames() == null ? new ArrayList<>(defined.keySet()) :
            request.mirrorNames();
        final Map<String, List<MirrorCoordinator.Status>> statusByTopic = new HashMap<>();
        for (final MirrorCoordinator.Status status : coordinator.statuses())
        {
            statusByTopic.computeIfAbsent(status.partition().topic(), k -> new ArrayList<>()).add(status);
        }
        final Map<Uuid, Byte> desiredTypes = coordinator.desiredMirrorTypes();
        final Map<org.apache.kafka.common.TopicPartition, MirrorCoordinator.SyncStatus> syncByPartition =
            new HashMap<>();
        for (final MirrorCoordinator.SyncStatus status : coordinator.syncStatuses())
        {
            syncByPartition.put(status.partition(), status);
        }
        final List<DescribeClusterMirrorsResponseData.MirrorDescription> mirrors = new ArrayList<>();
        for (final String name : names)
        {
            final MirrorDefinition definition = defined.get(name);
            final DescribeClusterMirrorsResponseData.MirrorDescription description =
                new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName(name);
            if (definition == null)
            {
                mirrors.add(description.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                    .setErrorMessage("no cluster mirror named '" + name + "'"));
                continue;
            }
            description.setSourceBootstrapServers(definition.sourceBootstrapServers())
                .setIncludeTopics(definition.includeTopics()).setExcludeTopics(definition.excludeTopics());
            if (metadataManager != null)
            {
                metadataManager.lastError(name).ifPresent(error -> description
                    .setErrorCode(Errors.NONE.code()).setErrorMessage("last metadata sync: " + error));
            }
            final List<DescribeClusterMirrorsResponseData.MirrorTopic> topics = new ArrayList<>();
            for (final TopicMetadata topic : current.topics())
            {
                final String active = MirrorTopicConfig.activeMirror(topic.config());
                final String removed = MirrorTopicConfig.removedMirror(topic.config());
                if (!name.equals(active) && !name.equals(removed))
                {
                    continue;
                }
                final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions = new ArrayList<>();
                for (final MirrorCoordinator.Status status : statusByTopic.getOrDefault(topic.name(), List.of()))
                {
                    if (status.topicId().equals(topic.id()) && status.mirrorName().equals(name))
                    {
                        final MirrorCoordinator.SyncStatus sync = syncByPartition.get(status.partition());
                        partitions.add(partition(status).setSyncFailingForMs(sync == null ? -1L :
                            sync.failingForMs()));
                    }
                }
                if (!request.localPartitionsOnly())
                {
                    addUnreported(partitions, topic);
                }
                final byte effective = current.syncState(topic.id()).mirrorType();
                final byte desired = (byte)Math.max(MirrorType.ASYNC.id(),
                    desiredTypes.getOrDefault(topic.id(), (byte)-1));
                final boolean recovery = coordinator.recoveryPending(topic.id());
                topics.add(new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicId(topic.id())
                    .setTopicName(topic.name()).setDesiredMirrorType(desired).setEffectiveMirrorType(effective)
                    .setRecoveryPending(recovery)
                    .setStatusMessage(removed != null ? "removed from the mirror (failed over)" :
                        syncNote(desired, effective, recovery))
                    .setPartitions(partitions));
            }
            mirrors.add(description.setTopics(topics));
        }
        return new DescribeClusterMirrorsResponseData().setMirrors(mirrors);
    }

    /** The spec's annotation of a topic whose desired and effective types differ; null when they agree. */
    private static String syncNote(final byte desired, final byte effective, final boolean recoveryPending)
    {
        if (recoveryPending)
        {
            return "released by source — recovery in flight";
        }
        if (desired == MirrorType.SYNC.id() && effective != MirrorType.SYNC.id())
        {
            return "promotion to SYNC pending lag drain";
        }
        return null;
    }

    private DescribeClusterMirrorsResponseData.MirrorPartition partition(final MirrorCoordinator.Status status)
    {
        return new DescribeClusterMirrorsResponseData.MirrorPartition()
            .setPartitionIndex(status.partition().partition())
            .setState(status.state().id())
            .setLeaderId(brokerId)
            .setSourceOffset(status.sourceHighWatermark())
            .setDestinationOffset(status.destinationOffset())
            .setLag(status.lag())
            .setLastErrorCode(status.lastError().code())
            .setLastErrorMessage(status.lastErrorMessage());
    }

    /** Partitions no leader reported yet (no leader, or not coordinating yet): UNKNOWN. */
    private static void addUnreported(final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions,
        final TopicMetadata topic)
    {
        for (final PartitionState state : topic.partitions())
        {
            boolean reported = false;
            for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : partitions)
            {
                reported |= partition.partitionIndex() == state.partition();
            }
            if (!reported)
            {
                partitions.add(new DescribeClusterMirrorsResponseData.MirrorPartition()
                    .setPartitionIndex(state.partition()).setState(MirrorPartitionState.UNKNOWN.id())
                    .setLeaderId(state.leader()));
            }
        }
    }

    /** Adds another broker's partitions to the local answer (it replaces the placeholders of unreported ones). */
    private static void merge(final DescribeClusterMirrorsResponseData into,
        final DescribeClusterMirrorsResponseData other)
    {
        for (final DescribeClusterMirrorsResponseData.MirrorDescription otherMirror : other.mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : into.mirrors())
            {
                if (!mirror.mirrorName().equals(otherMirror.mirrorName()))
                {
                    continue;
                }
                for (final DescribeClusterMirrorsResponseData.MirrorTopic otherTopic : otherMirror.topics())
                {
                    for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
                    {
                        if (!topic.topicId().equals(otherTopic.topicId()))
                        {
                            continue;
                        }
                        // The desired type and the recovery hint live with the partitions' (and the driver's)
                        // coordinators: the union of what the brokers hold.
                        if (otherTopic.desiredMirrorType() > topic.desiredMirrorType())
                        {
                            topic.setDesiredMirrorType(otherTopic.desiredMirrorType());
                        }
                        topic.setRecoveryPending(topic.recoveryPending() || otherTopic.recoveryPending());
                        if (topic.statusMessage() == null || otherTopic.recoveryPending())
                        {
                            topic.setStatusMessage(otherTopic.statusMessage());
                        }
                        for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : otherTopic.partitions())
                        {
                            topic.partitions().removeIf(p -> p.partitionIndex() == partition.partitionIndex() &&
                                (p.leaderId() != partition.leaderId() || p.destinationOffset() < 0));
                            topic.partitions().add(partition);
                        }
                        topic.partitions().sort(java.util.Comparator.comparingInt(
                            DescribeClusterMirrorsResponseData.MirrorPartition::partitionIndex));
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // LastMirroredOffsets (failback: the old source asks the new one).
    // ------------------------------------------------------------------------------------------------------

    private LastMirroredOffsetsResponseData lastMirroredOffsets(final LastMirroredOffsetsRequestData request)
    {
        final MetadataImage current = image.get();
        final List<LastMirroredOffsetsResponseData.TopicResult> topics = new ArrayList<>();
        for (final LastMirroredOffsetsRequestData.TopicRequest topic : request.topics())
        {
            final Optional<TopicMetadata> found = !Uuid.ZERO_UUID.equals(topic.topicId()) ?
                current.topic(topic.topicId()) : current.topic(topic.topicName());
            final List<LastMirroredOffsetsResponseData.PartitionResult> partitions = new ArrayList<>();
            for (final int index : topic.partitions())
            {
                final LastMirroredOffsetsResponseData.PartitionResult result =
                    new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(index);
                if (found.isEmpty() || index < 0 || index >= found.get().partitions().size())
                {
                    partitions.add(result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    continue;
                }
                if (found.get().partitions().get(index).leader() != brokerId)
                {
                    partitions.add(result.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));
                    continue;
                }
                final Optional<MirrorStateRecord> state = coordinator.stateOf(found.get().id(), index);
                if (state.isPresent() && state.get().lastMirroredOffset() >= 0)
                {
                    result.setLastMirroredOffset(state.get().lastMirroredOffset())
                        .setLastMirrorEpoch(state.get().lastMirrorEpoch());
                }
                partitions.add(result);
            }
            topics.add(new LastMirroredOffsetsResponseData.TopicResult().setTopicId(found.map(TopicMetadata::id)
                .orElse(topic.topicId())).setTopicName(topic.topicName()).setPartitions(partitions));
        }
        return new LastMirroredOffsetsResponseData().setTopics(topics);
    }

    // ------------------------------------------------------------------------------------------------------
    // The coordinator's links: to the controller (failover) and to a source (failback).
    // ------------------------------------------------------------------------------------------------------

    /** The failover's controller operations: in-process on the controller node, forwarded elsewhere. */
    public MirrorCoordinator.ControllerChannel controllerChannel()
    {
        return (topicId, minLeaderEpochs, minNextProducerId) ->
        {
            final BumpLeaderEpochsRequestData.TopicRequest topic = new BumpLeaderEpochsRequestData.TopicRequest()
                .setTopicId(topicId);
            for (final Map.Entry<Integer, Integer> entry : minLeaderEpochs.entrySet())
            {
                topic.partitions().add(new BumpLeaderEpochsRequestData.PartitionRequest()
                    .setPartitionIndex(entry.getKey()).setMinLeaderEpoch(entry.getValue()));
            }
            final BumpLeaderEpochsRequestData request = new BumpLeaderEpochsRequestData()
                .setMinNextProducerId(minNextProducerId).setTopics(List.of(topic));
            final BumpLeaderEpochsResponseData response = localController() ?
                (BumpLeaderEpochsResponseData)handleOnController(request) :
                sendToController(clients, request, BumpLeaderEpochsResponseData.class);
            if (response.errorCode() != Errors.NONE.code())
            {
                throw Errors.forCode(response.errorCode()).exception(response.errorMessage());
            }
            for (final BumpLeaderEpochsResponseData.TopicResult result : response.topics())
            {
                for (final BumpLeaderEpochsResponseData.PartitionResult partition : result.partitions())
                {
                    if (partition.errorCode() != Errors.NONE.code())
                    {
                        throw Errors.forCode(partition.errorCode()).exception("bumping the epoch of partition " +
                            partition.partitionIndex() + " failed");
                    }
                }
            }
        };
    }

    /**
     * Failback's LastMirroredOffsets call to the new source's partition leader, on a connection of its own (a
     * pooled one could have been closed while idle). A source that closes the connection on the request (Kafka
     * brokers do so for an API key they do not know) or answers UNSUPPORTED_VERSION does not serve it: empty, and
     * the caller truncates to 0. One that cannot be reached or does not answer in time is an error, retried: a
     * slow source must never cost the old source its whole log.
     */
    public MirrorCoordinator.LastMirroredLookup lastMirroredLookup()
    {
        return (source, leader, topic, topicId, partition) ->
        {
            final LastMirroredOffsetsRequestData request = new LastMirroredOffsetsRequestData().setTopics(List.of(
                new LastMirroredOffsetsRequestData.TopicRequest().setTopicId(topicId).setTopicName(topic)
                    .setPartitions(List.of(partition))));
            final LastMirroredOffsetsResponseData response;
            try (MirrorWireClient client = MirrorWireClient.connect(leader.host(), leader.port(),
                "broker-" + brokerId + "-failback", (int)timeoutMs, (int)timeoutMs))
            {
                response = client.send(request, LastMirroredOffsetsResponseData.class);
            }
            catch (final IOException e)
            {
                if (e.getCause() instanceof java.io.EOFException)
                {
                    return Optional.empty();
                }
                throw e;
            }
            for (final LastMirroredOffsetsResponseData.TopicResult result : response.topics())
            {
                for (final LastMirroredOffsetsResponseData.PartitionResult p : result.partitions())
                {
                    if (p.partitionIndex() != partition)
                    {
                        continue;
                    }
                    if (p.errorCode() == Errors.UNSUPPORTED_VERSION.code())
                    {
                        return Optional.empty();
                    }
                    if (p.errorCode() != Errors.NONE.code())
                    {
                        throw Errors.forCode(p.errorCode()).exception("LastMirroredOffsets of " + topic + "-" +
                            partition + " at the source");
                    }
                    return p.lastMirroredOffset() < 0 ? Optional.empty() :
                        Optional.of(new long[] {p.lastMirroredOffset(), p.lastMirrorEpoch()});
                }
            }
            return Optional.empty();
        };
    }

    @Override
    public void close()
    {
        pool.shutdownNow();
        fanOut.shutdownNow();
        ledgerExecutor.shutdownNow();
        clients.close();
        forwardClients.close();
    }
}
