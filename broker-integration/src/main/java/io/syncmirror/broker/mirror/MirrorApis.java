package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

import io.syncmirror.broker.controller.EpochBumpResult;
import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.controller.MirrorController;
import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.broker.controller.MirrorOpResult;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.WireSecurity;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.BumpLeaderEpochsRequestData;
import io.syncmirror.protocol.BumpLeaderEpochsResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DeleteClusterMirrorRequestData;
import io.syncmirror.protocol.DeleteClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.LastMirroredOffsetsRequestData;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
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
 *       leaders for per-partition state, LastMirroredOffsets by the partition leader from its mirror
 *       coordinator's state (failback): {@link MirrorDescribeApis}.</li>
 *   <li>RegisterMirrorSyncTopic and UnregisterMirrorSyncTopic (source role) are decided by the owner of the
 *       mirror's sync registration ledger, the leader of the {@code __mirror_state} partition its record hashes
 *       to ({@link SyncRegistrationApis}, {@link SyncLedgerOwner}), which answers each admitted change only once
 *       the controller committed its MirrorSyncRegistrationChange (sent to it with
 *       {@code RegistrationChangeOnly}); other brokers pass the request on to the owner. Unregister with the
 *       Release tagged field is an operator's {@code --release-sync}: the topics (all the mirror registered, when
 *       none are named) lose their registration and keep a sticky Released marker.</li>
 *   <li>AlterMirrorTopicType (destination role) sets the desired mirror type on every partition
 *       ({@link MirrorTypeApis}); its effective type, sent with {@code Effective}, is controller work as
 *       above.</li>
 * </ul>
 *
 * <p>Authorization: the broker has no authorizer configured (no ACLs at all), so every principal may run these;
 * with an authorizer they would require CLUSTER_ACTION on the cluster resource (KIP-1279).
 */
public final class MirrorApis implements MirrorRequestHandler, AutoCloseable
{
    /** The controller's answer to a Register or Unregister that is not a ledger's registration change. */
    private static final MirrorOpResult NOT_A_CHANGE = MirrorOpResult.error(Errors.INVALID_REQUEST,
        "the controller commits only the registration changes a sync registration ledger decided " +
            "(RegistrationChangeOnly); send Register and Unregister to a broker listener");

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
    private final MirrorDescribeApis describe;
    private final MirrorTypeApis types;
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
     * @param metadataWaiter  completes when this broker's image meets a condition (retries wait on it)
     * @param brokerSecurity  how this cluster's brokers are reached over the mirror RPC client
     * @param controllerSecurity how its controllers are reached
     */
    public MirrorApis(final int brokerId, final Supplier<MetadataImage> image, final MirrorCoordinator coordinator,
        final MirrorController controller, final MirrorMetadataManager metadataManager,
        final ControllerForwarder forwarder, final long timeoutMs, final ReplicaAccess replicas,
        final SyncRegistrationApis.LedgerTopic ledgerTopic, final MirrorCoordinator.MetadataWaiter metadataWaiter,
        final WireSecurity brokerSecurity, final WireSecurity controllerSecurity)
    {
        this.brokerId = brokerId;
        this.image = image;
        this.coordinator = coordinator;
        this.controller = controller;
        this.metadataManager = metadataManager;
        this.forwarder = forwarder;
        this.timeoutMs = timeoutMs;
        this.clients = new MirrorWireClients("broker-" + brokerId + "-mirror", (int)timeoutMs, (int)timeoutMs,
            brokerSecurity, controllerSecurity);
        // The controller bounds its own work on a request by timeoutMs, plus the calls to other brokers it makes
        // at the end (each bounded by timeoutMs): a forwarded request waits for both, so that a slow controller
        // answers with what it did instead of this broker giving up first.
        this.forwardClients = new MirrorWireClients("broker-" + brokerId + "-forward", (int)timeoutMs,
            (int)Math.min(Integer.MAX_VALUE, 2 * timeoutMs + 1000), brokerSecurity, controllerSecurity);
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
            System::currentTimeMillis, metadataWaiter);
        this.describe = new MirrorDescribeApis(brokerId, image, coordinator, metadataManager, clients, fanOut,
            timeoutMs);
        this.types = new MirrorTypeApis(brokerId, image, coordinator, describe, this::commitEffective, clients,
            fanOut, timeoutMs, metadataWaiter);
        coordinator.syncChannel(types.syncChannel());
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
                CompletableFuture.completedFuture(describe.lastMirroredOffsets(
                    (LastMirroredOffsetsRequestData)request));
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
            return forwarder.send(via::sendToController, request, type);
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
            final Map<String, String> mirrorConfigs = new LinkedHashMap<>();
            String invalid = MirrorDefinition.invalidNameReason(create.mirrorName());
            for (final CreateClusterMirrorRequestData.SourceConfig config : create.mirrorConfigs())
            {
                if (config.value() == null && invalid == null)
                {
                    invalid = "mirror config '" + config.name() + "' has no value";
                }
                mirrorConfigs.put(config.name(), config.value());
            }
            final MirrorOpResult result = invalid != null ? MirrorOpResult.error(Errors.INVALID_REQUEST, invalid) :
                create.sourceBootstrapServers() == null || create.sourceBootstrapServers().isBlank() ?
                    MirrorOpResult.error(Errors.INVALID_REQUEST, "a mirror needs the source's bootstrap servers") :
                    await(controller.createMirror(new MirrorDefinition(create.mirrorName(),
                        create.sourceBootstrapServers(), configs, create.includeTopics(), create.excludeTopics(),
                        mirrorConfigs)));
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
            final List<RemoveTopicsFromMirrorResponseData.TopicResult> results = new ArrayList<>();
            for (final RemoveTopicsFromMirrorRequestData.TopicState topic : remove.topics())
            {
                final String mirrorName = topic.mirrorName() != null ? topic.mirrorName() :
                    MirrorTopicConfig.activeMirror(image.get().topicConfig(topic.topicName()));
                final MirrorOpResult result = mirrorName == null ?
                    MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic.topicName() +
                        "' is not a mirror topic") :
                    await(controller.removeTopicFromMirror(topic.topicName(), mirrorName));
                results.add(TopicResults.removed(topic.topicName(), result.error(), result.message()));
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
        final CompletableFuture<Void> applied = controller.whenAppliedByAllActiveBrokers(offset);
        try
        {
            applied.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.TimeoutException e)
        {
            applied.cancel(false);
            response.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setErrorMessage("not every broker applied " +
                "the raised producer id floor (metadata offset " + offset + ") within " + timeoutMs + " ms");
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : new KafkaException(e.getCause());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    private AddTopicsToMirrorResponseData addTopics(final AddTopicsToMirrorRequestData add)
    {
        // One deadline for the commit and the desired types of SYNC topics: the answer comes within timeoutMs.
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        final List<AddTopicsToMirrorResponseData.TopicResult> results = new ArrayList<>();
        final Map<String, List<String>> namesByMirror = new LinkedHashMap<>();
        final Map<String, List<String>> patternsByMirror = new LinkedHashMap<>();
        final java.util.Set<String> syncNames = new java.util.HashSet<>();
        final java.util.Set<String> syncPatterns = new java.util.HashSet<>();
        for (final AddTopicsToMirrorRequestData.TopicState topic : add.topics())
        {
            if (topic.mirrorType() != MirrorType.ASYNC.id() && topic.mirrorType() != MirrorType.SYNC.id())
            {
                results.add(TopicResults.added(topic.topicName(), Errors.INVALID_REQUEST,
                    "unknown mirror type " + topic.mirrorType() + " (0 ASYNC, 1 SYNC)"));
            }
            else if (topic.mirrorName() == null || topic.mirrorName().isEmpty())
            {
                results.add(TopicResults.added(topic.topicName(), Errors.INVALID_REQUEST,
                    "no mirror name given for topic '" + topic.topicName() + "'"));
            }
            else if (topic.mirrorType() == MirrorType.SYNC.id() && syncRefusal(topic.mirrorName()) != null)
            {
                results.add(TopicResults.added(topic.topicName(), Errors.INVALID_CONFIG,
                    syncRefusal(topic.mirrorName())));
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
                results.add(TopicResults.added(pattern.pattern(), Errors.INVALID_REQUEST,
                    "unknown mirror type " + pattern.mirrorType() + " (0 ASYNC, 1 SYNC)"));
            }
            else if (pattern.mirrorType() == MirrorType.SYNC.id() && syncRefusal(pattern.mirrorName()) != null)
            {
                results.add(TopicResults.added(pattern.pattern(), Errors.INVALID_CONFIG,
                    syncRefusal(pattern.mirrorName())));
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
            final List<String> addedSync = new ArrayList<>();
            for (final Map.Entry<String, MirrorOpResult> entry : answered.entrySet())
            {
                if (entry.getValue().isOk() && syncNames.contains(mirror + "/" + entry.getKey()))
                {
                    addedSync.add(entry.getKey());
                }
            }
            final Map<String, String> syncNotes = addedSync.isEmpty() ? Map.of()
                : types.setDesiredSyncOnAdd(mirror, addedSync, deadlineMs);
            for (final Map.Entry<String, MirrorOpResult> entry : answered.entrySet())
            {
                final AddTopicsToMirrorResponseData.TopicResult result = TopicResults.added(entry.getKey(),
                    entry.getValue().error(), entry.getValue().message());
                if (result.errorCode() == Errors.NONE.code())
                {
                    final String key = mirror + "/" + entry.getKey();
                    if (syncNames.contains(key))
                    {
                        maybeNote(result, syncNotes.get(entry.getKey()));
                    }
                    else if (syncPatterns.contains(key))
                    {
                        maybeNote(result, types.setDesiredSyncOnAdd(mirror, java.util.regex.Pattern.compile(
                            entry.getKey()), deadlineMs));
                    }
                }
                results.add(result);
            }
        }
        return new AddTopicsToMirrorResponseData().setTopics(results);
    }

    /**
     * Why mirror {@code mirrorName} cannot take SYNC topics (MirrorDefinition#syncRefusal), or null; asked of the
     * controller (this node's image may not show a mirror created a moment ago).
     */
    private String syncRefusal(final String mirrorName)
    {
        return await(controller.mirror(mirrorName)).map(MirrorDefinition::syncRefusal).orElse(null);
    }

    private static void maybeNote(final AddTopicsToMirrorResponseData.TopicResult result, final String note)
    {
        if (note != null)
        {
            result.setErrorMessage(result.errorMessage() == null ? note : result.errorMessage() + "; " + note);
        }
    }

    private <T> T await(final CompletableFuture<T> future)
    {
        return await(future, timeoutMs);
    }

    /** Waits for a controller operation (or a coordinator's write) for up to {@code timeoutMs}; its result. */
    static <T> T await(final CompletableFuture<T> future, final long timeoutMs)
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
    private ApiError commitRegistrationChange(final Uuid topicId, final String mirrorName,
        final boolean registered)
    {
        if (localController())
        {
            final MirrorOpResult result = await(controller.changeSyncRegistration(topicId, mirrorName, registered));
            return new ApiError(result.error(), result.message());
        }
        if (registered)
        {
            final RegisterMirrorSyncTopicResponseData response = sendToController(forwardClients,
                new RegisterMirrorSyncTopicRequestData().setMirrorName(mirrorName).setRegistrationChangeOnly(true)
                    .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId))),
                RegisterMirrorSyncTopicResponseData.class);
            return response.topics().isEmpty() ? new ApiError(Errors.UNKNOWN_SERVER_ERROR,
                "the controller answered no result") : new ApiError(Errors.forCode(response.topics().get(0)
                    .errorCode()), response.topics().get(0).errorMessage());
        }
        final UnregisterMirrorSyncTopicResponseData response = sendToController(forwardClients,
            new UnregisterMirrorSyncTopicRequestData().setMirrorName(mirrorName).setRegistrationChangeOnly(true)
                .setTopics(List.of(new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId))),
            UnregisterMirrorSyncTopicResponseData.class);
        return new ApiError(Errors.forCode(response.errorCode()), response.errorMessage());
    }

    /** The active controller's side: commits the registration changes of a RegistrationChangeOnly request. */
    private ApiMessage commitRegistrationChanges(final ApiMessage request)
    {
        if (request instanceof RegisterMirrorSyncTopicRequestData register)
        {
            final List<RegisterMirrorSyncTopicResponseData.TopicResult> results = new ArrayList<>();
            for (final RegisterMirrorSyncTopicRequestData.TopicState topic : register.topics())
            {
                final MirrorOpResult result = !register.registrationChangeOnly() ? NOT_A_CHANGE :
                    await(controller.changeSyncRegistration(topic.topicId(), register.mirrorName(), true));
                results.add(TopicResults.registered(topic.topicName(), result.error(), result.message()));
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

    // ------------------------------------------------------------------------------------------------------
    // AlterMirrorTopicType (MirrorTypeApis) and DescribeClusterMirrors (MirrorDescribeApis).
    // ------------------------------------------------------------------------------------------------------

    private CompletableFuture<ApiMessage> alterMirrorTopicType(final AlterMirrorTopicTypeRequestData request)
    {
        if (request.effective())
        {
            return controllerOperation(request);
        }
        if (request.localPartitionsOnly())
        {
            return CompletableFuture.supplyAsync(() -> types.applyDesiredLocally(request), pool);
        }
        return CompletableFuture.supplyAsync(() -> types.alterTypes(request), pool);
    }

    /** Controller node: commits each topic's effective type (MirrorTopicTypeChange). */
    private AlterMirrorTopicTypeResponseData commitEffectiveTypes(final AlterMirrorTopicTypeRequestData request)
    {
        final List<AlterMirrorTopicTypeResponseData.TopicResult> results = new ArrayList<>();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            final MirrorOpResult result = await(controller.setMirrorTopicType(topic.topicId(), topic.mirrorType(),
                request.driverEpoch()));
            results.add(TopicResults.altered(topic.topicName(), result.error(), result.message()));
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /** Commits effective types: here when this node's controller is active, else at the active controller. */
    private AlterMirrorTopicTypeResponseData commitEffective(final AlterMirrorTopicTypeRequestData request)
    {
        return localController() ? commitEffectiveTypes(request) :
            sendToController(clients, request, AlterMirrorTopicTypeResponseData.class);
    }

    private CompletableFuture<ApiMessage> describe(final DescribeClusterMirrorsRequestData request)
    {
        if (request.localPartitionsOnly())
        {
            return CompletableFuture.completedFuture(describe.describeLocally(request));
        }
        return CompletableFuture.supplyAsync(() -> describe.describeEverywhere(request), pool);
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

    /** Failback's LastMirroredOffsets call to the new source's partition leader: see MirrorDescribeApis. */
    public MirrorCoordinator.LastMirroredLookup lastMirroredLookup()
    {
        return describe.lastMirroredLookup();
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
