package io.syncmirror.broker.controller;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AllocateProducerIdsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.apache.kafka.common.requests.AlterPartitionRequest;
import org.apache.kafka.common.requests.AlterPartitionResponse;
import org.apache.kafka.common.requests.BrokerHeartbeatRequest;
import org.apache.kafka.common.requests.BrokerHeartbeatResponse;
import org.apache.kafka.common.requests.BrokerRegistrationRequest;
import org.apache.kafka.common.requests.BrokerRegistrationResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FetchSnapshotRequest;
import org.apache.kafka.common.requests.FetchSnapshotResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.RequestHeader;

import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * The controller's request handling: BrokerRegistration, BrokerHeartbeat, AlterPartition, AllocateProducerIds,
 * CreateTopics, DeleteTopics, IncrementalAlterConfigs and Fetch of {@code __cluster_metadata-0}. Thread-safe:
 * {@link #handle} only enqueues; every {@link Controller} call runs on one event thread (daemon
 * {@code controller-event}), which also runs the session-expiry tick and parks metadata fetches.
 *
 * <p>A metadata Fetch at the log end parks until an append or its MaxWaitMs, never blocking the caller's thread;
 * its response's high watermark is the committed end of the metadata log.
 *
 * <p>On the controller node, client CreateTopics/DeleteTopics/IncrementalAlterConfigs go to the broker's
 * {@code MetadataApis} (which reaches this class in-process through {@link #localClient}); route only
 * {@link #isMetadataFetch metadata fetches} and the four broker-to-controller APIs here.
 */
public final class ControllerApis implements RequestHandler, AutoCloseable
{
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ControllerApis.class);
    private static final Map<ApiKeys, short[]> VERSIONS = new EnumMap<>(ApiKeys.class);

    static
    {
        VERSIONS.put(ApiKeys.BROKER_REGISTRATION, range(ApiKeys.BROKER_REGISTRATION.oldestVersion(),
            ApiKeys.BROKER_REGISTRATION.latestVersion()));
        VERSIONS.put(ApiKeys.BROKER_HEARTBEAT, range(ApiKeys.BROKER_HEARTBEAT.oldestVersion(),
            ApiKeys.BROKER_HEARTBEAT.latestVersion()));
        VERSIONS.put(ApiKeys.ALTER_PARTITION, range(ApiKeys.ALTER_PARTITION.oldestVersion(),
            ApiKeys.ALTER_PARTITION.latestVersion()));
        VERSIONS.put(ApiKeys.ALLOCATE_PRODUCER_IDS, range(ApiKeys.ALLOCATE_PRODUCER_IDS.oldestVersion(),
            ApiKeys.ALLOCATE_PRODUCER_IDS.latestVersion()));
        VERSIONS.put(ApiKeys.CREATE_TOPICS, range(ApiKeys.CREATE_TOPICS.oldestVersion(),
            ApiKeys.CREATE_TOPICS.latestVersion()));
        VERSIONS.put(ApiKeys.DELETE_TOPICS, range(ApiKeys.DELETE_TOPICS.oldestVersion(),
            ApiKeys.DELETE_TOPICS.latestVersion()));
        VERSIONS.put(ApiKeys.CREATE_PARTITIONS, range(ApiKeys.CREATE_PARTITIONS.oldestVersion(),
            ApiKeys.CREATE_PARTITIONS.latestVersion()));
        VERSIONS.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, range(ApiKeys.INCREMENTAL_ALTER_CONFIGS.oldestVersion(),
            ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion()));
        VERSIONS.put(ApiKeys.CREATE_ACLS, range(ApiKeys.CREATE_ACLS.oldestVersion(),
            ApiKeys.CREATE_ACLS.latestVersion()));
        VERSIONS.put(ApiKeys.DELETE_ACLS, range(ApiKeys.DELETE_ACLS.oldestVersion(),
            ApiKeys.DELETE_ACLS.latestVersion()));
        VERSIONS.put(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, range(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS.oldestVersion(),
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS.latestVersion()));
        // Topic ids in Fetch (v13+) are what brokers send; older versions by name work too.
        VERSIONS.put(ApiKeys.FETCH, range(ApiKeys.FETCH.oldestVersion(), FetchRequestData.HIGHEST_SUPPORTED_VERSION));
        VERSIONS.put(ApiKeys.FETCH_SNAPSHOT, range(ApiKeys.FETCH_SNAPSHOT.oldestVersion(),
            ApiKeys.FETCH_SNAPSHOT.latestVersion()));
    }

    private static final int DEFAULT_FETCH_MAX_BYTES = 1 << 20;

    /** Replaced (on the event thread) when a controller of the metadata quorum renounces leadership. */
    private volatile Controller controller;
    private final ScheduledExecutorService eventThread;
    private final boolean ownsEventThread;
    private final List<ParkedFetch> parked = new ArrayList<>();
    /** Answers held until the log's high watermark reaches the key (the log end after their operation). */
    private final TreeMap<Long, List<HeldAnswer<?>>> awaitingCommit = new TreeMap<>();
    private ScheduledFuture<?> tickTask;
    private volatile boolean closed;

    /** Runs on its own daemon event thread; {@link #start()} starts the session-expiry tick. */
    public ControllerApis(final Controller controller)
    {
        this(controller, Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "controller-event");
            t.setDaemon(true);
            return t;
        }), true);
    }

    /** Runs on {@code eventThread}, which must be single-threaded; it is not shut down by {@link #close}. */
    public ControllerApis(final Controller controller, final ScheduledExecutorService eventThread)
    {
        this(controller, eventThread, false);
    }

    private ControllerApis(final Controller controller, final ScheduledExecutorService eventThread,
        final boolean ownsEventThread)
    {
        this.controller = controller;
        this.eventThread = eventThread;
        this.ownsEventThread = ownsEventThread;
    }

    /** Starts the tick that fences brokers whose session expired (every quarter session, at most 1 s). */
    public void start()
    {
        final long periodMs = Math.max(10, Math.min(1000, controller.sessionTimeoutMs() / 4));
        tickTask = eventThread.scheduleWithFixedDelay(() ->
        {
            try
            {
                if (controller.tick())
                {
                    wakeParkedFetches();
                }
            }
            catch (final RuntimeException e)
            {
                // A failed append leaves the tick to retry on the next period; the error is the log's to report.
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private static short[] range(final short min, final short max)
    {
        return new short[] {min, max};
    }

    /** Whether a Fetch names {@code __cluster_metadata} (by id or name): such fetches belong to this class. */
    public static boolean isMetadataFetch(final FetchRequestData data)
    {
        for (final FetchRequestData.FetchTopic topic : data.topics())
        {
            if (Uuid.METADATA_TOPIC_ID.equals(topic.topicId())
                || Topic.CLUSTER_METADATA_TOPIC_NAME.equals(topic.topic()))
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        final short[] range = VERSIONS.get(key);
        return range == null ? -1 : range[1];
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        final short[] range = VERSIONS.get(key);
        return range == null ? key.oldestVersion() : range[0];
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (closed)
        {
            return CompletableFuture.failedFuture(new NotControllerException("the controller is shutting down"));
        }
        switch (request.apiKey())
        {
            case BROKER_REGISTRATION:
                return onActiveController(c -> new BrokerRegistrationResponse(
                    c.registerBroker(((BrokerRegistrationRequest) request).data())));
            case BROKER_HEARTBEAT:
                return onActiveController(c -> new BrokerHeartbeatResponse(
                    c.heartbeat(((BrokerHeartbeatRequest) request).data())));
            case ALTER_PARTITION:
                return onActiveController(c -> new AlterPartitionResponse(
                    c.alterPartition(((AlterPartitionRequest) request).data(), request.version())));
            case ALLOCATE_PRODUCER_IDS:
                return onActiveController(c -> new AllocateProducerIdsResponse(
                    c.allocateProducerIds(((AllocateProducerIdsRequest) request).data())));
            case CREATE_TOPICS:
                return onActiveController(c -> new CreateTopicsResponse(
                    c.createTopics(((CreateTopicsRequest) request).data())));
            case DELETE_TOPICS:
                return onActiveController(c -> new DeleteTopicsResponse(
                    c.deleteTopics(((DeleteTopicsRequest) request).data())));
            case CREATE_PARTITIONS:
                return onActiveController(c -> new CreatePartitionsResponse(PartitionIncrease.createPartitions(c,
                    ((CreatePartitionsRequest) request).data())));
            case INCREMENTAL_ALTER_CONFIGS:
                return onActiveController(c -> new IncrementalAlterConfigsResponse(
                    c.incrementalAlterConfigs(((IncrementalAlterConfigsRequest) request).data())));
            case CREATE_ACLS:
                return onActiveController(c -> new CreateAclsResponse(createAcls(c, (CreateAclsRequest) request)));
            case DELETE_ACLS:
                return onActiveController(c -> new DeleteAclsResponse(
                    c.deleteAcls(((DeleteAclsRequest) request).filters()), request.version()));
            case ALTER_USER_SCRAM_CREDENTIALS:
                return onActiveController(c -> new AlterUserScramCredentialsResponse(
                    c.alterUserScramCredentials(((AlterUserScramCredentialsRequest) request).data())));
            case FETCH:
                return fetch((FetchRequest) request);
            case FETCH_SNAPSHOT:
                // Read on the caller's thread: the log is the same across rebuilds and reads any-thread.
                return CompletableFuture.completedFuture(new FetchSnapshotResponse(MetadataSnapshotChunks.answer(
                    controller.log(), ((FetchSnapshotRequest) request).data())));
            default:
                return CompletableFuture.failedFuture(new org.apache.kafka.common.errors.UnsupportedVersionException(
                    "the controller does not serve " + request.apiKey()));
        }
    }

    /**
     * CreateAcls with one result per creation in order: a creation that is no ACL at all (an ANY or MATCH pattern,
     * which Kafka's binding refuses to hold) is INVALID_REQUEST, the others go to the controller.
     */
    private static CreateAclsResponseData createAcls(final Controller controller, final CreateAclsRequest request)
    {
        final List<AclBinding> bindings = new ArrayList<>();
        final List<String> refusals = new ArrayList<>();
        for (final CreateAclsRequestData.AclCreation creation : request.aclCreations())
        {
            try
            {
                bindings.add(CreateAclsRequest.aclBinding(creation));
                refusals.add(null);
            }
            catch (final IllegalArgumentException e)
            {
                refusals.add(e.getMessage());
            }
        }
        final Iterator<CreateAclsResponseData.AclCreationResult> created =
            controller.createAcls(bindings).results().iterator();
        final CreateAclsResponseData response = new CreateAclsResponseData();
        for (final String refusal : refusals)
        {
            response.results().add(refusal == null ? created.next() : new CreateAclsResponseData.AclCreationResult()
                .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(refusal));
        }
        return response;
    }

    /**
     * As {@link #onEventThread}, refused with NOT_CONTROLLER where this node is not the active controller (a
     * standby of the metadata quorum): brokers' RPCs go to the active controller only, also those that change
     * nothing in the log (a heartbeat renews a session only the active controller keeps).
     */
    private <T> CompletableFuture<T> onActiveController(final Function<Controller, T> action)
    {
        return onEventThread(c ->
        {
            if (!c.log().writable())
            {
                throw new NotControllerException("this node is not the active controller");
            }
            return action.apply(c);
        });
    }

    /**
     * Runs {@code action} on the event thread and completes with its result once everything it appended is
     * committed (the metadata log's high watermark reaches its end), as Kafka's controller answers on commit;
     * then wakes metadata fetches parked below the new high watermark. A log that commits on append (one
     * controller) answers at once; a replicated one answers from {@link #onCommitted}. Also the way to read
     * controller state safely from other threads.
     */
    public <T> CompletableFuture<T> onEventThread(final Function<Controller, T> action)
    {
        final CompletableFuture<T> future = new CompletableFuture<>();
        try
        {
            eventThread.execute(() ->
            {
                try
                {
                    final T result = action.apply(controller);
                    final long needed = controller.log().endOffset();
                    if (controller.log().highWatermark() >= needed)
                    {
                        wakeParkedFetches();
                        future.complete(result);
                    }
                    else
                    {
                        awaitingCommit.computeIfAbsent(needed, offset -> new ArrayList<>())
                            .add(new HeldAnswer<>(future, result));
                    }
                }
                catch (final RuntimeException e)
                {
                    future.completeExceptionally(e);
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            future.completeExceptionally(new NotControllerException("the controller is shutting down"));
        }
        return future;
    }

    private CompletableFuture<AbstractResponse> fetch(final FetchRequest request)
    {
        final CompletableFuture<AbstractResponse> future = new CompletableFuture<>();
        final FetchRequestData data = request.data();
        if (!isMetadataFetch(data) || data.topics().size() != 1 || data.topics().get(0).partitions().size() != 1
            || data.topics().get(0).partitions().get(0).partition() != 0)
        {
            future.complete(request.getErrorResponse(0, new org.apache.kafka.common.errors.InvalidRequestException(
                "the controller serves only fetches of __cluster_metadata-0")));
            return future;
        }
        final FetchRequestData.FetchPartition partition = data.topics().get(0).partitions().get(0);
        final int maxBytes = Math.max(1, Math.min(data.maxBytes() <= 0 ? DEFAULT_FETCH_MAX_BYTES : data.maxBytes(),
            partition.partitionMaxBytes() <= 0 ? DEFAULT_FETCH_MAX_BYTES : partition.partitionMaxBytes()));
        final ParkedFetch fetch = new ParkedFetch(future, request, partition.fetchOffset(), maxBytes);
        try
        {
            eventThread.execute(() ->
            {
                final MetadataLog log = controller.log();
                if (fetch.fetchOffset != log.highWatermark() || data.maxWaitMs() <= 0)
                {
                    answer(fetch);
                    return;
                }
                parked.add(fetch);
                fetch.timeout = eventThread.schedule(() ->
                {
                    if (parked.remove(fetch))
                    {
                        answer(fetch);
                    }
                }, data.maxWaitMs(), TimeUnit.MILLISECONDS);
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            future.completeExceptionally(new NotControllerException("the controller is shutting down"));
        }
        return future;
    }

    /**
     * The metadata log's high watermark advanced (a replicated log calls this from its commit listener, on any
     * thread): answers the operations whose appends are now committed, then the fetches parked at the old end.
     */
    public void onCommitted()
    {
        execute(this::answerCommitted);
    }

    /**
     * Runs {@code task} on the event thread, after everything queued before it; a closed controller drops it.
     * The metadata quorum's listener hands commits and leader changes over this way.
     */
    public void execute(final Runnable task)
    {
        try
        {
            eventThread.execute(() ->
            {
                try
                {
                    task.run();
                }
                catch (final RuntimeException e)
                {
                    // The executor would keep the error in a future nobody reads.
                    LOG.error("controller event failed", e);
                    throw e;
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            // Closed: close() failed every answer still waiting.
        }
    }

    /**
     * Whether this node's controller may change the metadata now: always with a local log; on the metadata
     * quorum, while it leads. Any thread; a hint for routing (the event thread decides).
     */
    public boolean isActive()
    {
        return controller.log().writable();
    }

    /** The epoch this node's controller is active in, -1 when it is not; any thread, a hint as {@link #isActive}. */
    public int activeEpoch()
    {
        return controller.log().writableEpoch();
    }

    /** The controller; event thread only (see {@link #execute}). */
    public Controller controller()
    {
        return controller;
    }

    /**
     * Event thread only: completes the operations whose records are now below the log's high watermark, then
     * wakes the fetches parked at the old end.
     */
    public void answerCommitted()
    {
        final SortedMap<Long, List<HeldAnswer<?>>> committed =
            awaitingCommit.headMap(controller.log().highWatermark() + 1);
        committed.values().forEach(answers -> answers.forEach(HeldAnswer::complete));
        committed.clear();
        wakeParkedFetches();
    }

    /**
     * Event thread only: this node stopped being the active controller. Operations still waiting for their
     * records to commit fail with NOT_CONTROLLER (whether a new leader keeps them is unknown; the caller
     * retries, as with Kafka's controller), and {@code rebuilt}, the state of the committed log alone,
     * replaces the state that held those uncommitted changes.
     */
    public void renounce(final Controller rebuilt)
    {
        final NotControllerException lost = new NotControllerException("the controller lost leadership before "
            + "the operation's records were committed");
        failAwaitingCommit(lost);
        controller = rebuilt;
    }

    private void wakeParkedFetches()
    {
        if (parked.isEmpty())
        {
            return;
        }
        final long hw = controller.log().highWatermark();
        for (final Iterator<ParkedFetch> it = parked.iterator(); it.hasNext();)
        {
            final ParkedFetch fetch = it.next();
            if (fetch.fetchOffset < hw)
            {
                it.remove();
                if (fetch.timeout != null)
                {
                    fetch.timeout.cancel(false);
                }
                answer(fetch);
            }
        }
    }

    private void answer(final ParkedFetch fetch)
    {
        final MetadataLog log = controller.log();
        final long hw = log.highWatermark();
        final long start = log.startOffset();
        final FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData()
            .setPartitionIndex(0)
            .setHighWatermark(hw)
            .setLastStableOffset(hw)
            .setLogStartOffset(start);
        final java.util.Optional<org.apache.kafka.server.common.OffsetAndEpoch> snapshot =
            fetch.fetchOffset < start ? log.latestSnapshotId() : java.util.Optional.empty();
        if (snapshot.isPresent())
        {
            // Below the log start only a snapshot holds the state: the broker loads it (FetchSnapshot), as a
            // Raft follower is told to.
            partition.setSnapshotId(new FetchResponseData.SnapshotId().setEndOffset(snapshot.get().offset())
                .setEpoch(snapshot.get().epoch())).setRecords(MemoryRecords.EMPTY);
        }
        else if (fetch.fetchOffset > hw || fetch.fetchOffset < start)
        {
            partition.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code()).setRecords(MemoryRecords.EMPTY);
        }
        else
        {
            final Records records = fetch.fetchOffset == hw ? MemoryRecords.EMPTY
                : log.read(fetch.fetchOffset, fetch.maxBytes);
            partition.setRecords(records);
        }
        final FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse()
            .setTopic(Topic.CLUSTER_METADATA_TOPIC_NAME)
            .setTopicId(Uuid.METADATA_TOPIC_ID)
            .setPartitions(new ArrayList<>(List.of(partition)));
        final FetchResponseData response = new FetchResponseData()
            .setErrorCode(Errors.NONE.code())
            .setSessionId(0)
            .setResponses(new ArrayList<>(List.of(topic)));
        fetch.future.complete(FetchResponse.of(response));
    }

    /**
     * A {@link NodeClient} that hands requests to this controller in-process: the controller node's own broker
     * side (lifecycle manager, MetadataApis forwarding, ISR channel) uses it instead of a socket to itself.
     */
    public NodeClient localClient()
    {
        return new LocalClient();
    }

    @Override
    public void close()
    {
        closed = true;
        if (tickTask != null)
        {
            tickTask.cancel(false);
        }
        final CompletableFuture<Void> drained = new CompletableFuture<>();
        try
        {
            eventThread.execute(() ->
            {
                for (final ParkedFetch fetch : parked)
                {
                    answer(fetch);
                }
                parked.clear();
                // Appended but not committed: whether it will be is unknown, as when leadership is lost.
                final NotControllerException closing = new NotControllerException("the controller closed before "
                    + "the operation's records were committed");
                failAwaitingCommit(closing);
                drained.complete(null);
            });
            drained.get(5, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            // The event thread is gone or stuck; parked fetches are abandoned with it.
        }
        if (ownsEventThread)
        {
            eventThread.shutdownNow();
        }
    }

    /** Fails every operation still waiting for its records to commit (their fate is unknown here). */
    private void failAwaitingCommit(final NotControllerException why)
    {
        awaitingCommit.values().forEach(answers -> answers.forEach(answer -> answer.fail(why)));
        awaitingCommit.clear();
    }

    /** An operation's result, sent once its records are committed. */
    private record HeldAnswer<T>(CompletableFuture<T> future, T result)
    {
        void complete()
        {
            future.complete(result);
        }

        void fail(final Throwable error)
        {
            future.completeExceptionally(error);
        }
    }

    private static final class ParkedFetch
    {
        final CompletableFuture<AbstractResponse> future;
        final FetchRequest request;
        final long fetchOffset;
        final int maxBytes;
        ScheduledFuture<?> timeout;

        ParkedFetch(final CompletableFuture<AbstractResponse> future, final FetchRequest request,
            final long fetchOffset, final int maxBytes)
        {
            this.future = future;
            this.request = request;
            this.fetchOffset = fetchOffset;
            this.maxBytes = maxBytes;
        }
    }

    private final class LocalClient implements NodeClient
    {
        @Override
        public <R extends AbstractResponse> CompletableFuture<R> send(final AbstractRequest.Builder<?> builder)
        {
            final ApiKeys key = builder.apiKey();
            final short version = (short) Math.min(builder.latestAllowedVersion(), maxVersion(key));
            final AbstractRequest request;
            try
            {
                request = builder.build(version);
            }
            catch (final RuntimeException e)
            {
                return CompletableFuture.failedFuture(e);
            }
            final RequestContext context = new RequestContext(new RequestHeader(key, version, "controller-local", 0),
                InetAddress.getLoopbackAddress(), -1, "local");
            return handle(context, request).thenApply(LocalClient::cast);
        }

        // The caller names the response type of the request it built; a wrong guess fails at its use site,
        // exactly as it would for a network client's deserialized response.
        @SuppressWarnings("unchecked")
        private static <R extends AbstractResponse> R cast(final AbstractResponse response)
        {
            return (R) response;
        }

        @Override
        public boolean isReady()
        {
            return !closed;
        }

        @Override
        public void close()
        {
        }
    }
}
