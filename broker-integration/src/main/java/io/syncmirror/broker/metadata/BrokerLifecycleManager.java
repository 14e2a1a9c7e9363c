package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.BrokerHeartbeatRequest;
import org.apache.kafka.common.requests.BrokerHeartbeatResponse;
import org.apache.kafka.common.requests.BrokerRegistrationRequest;
import org.apache.kafka.common.requests.BrokerRegistrationResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.network.NodeClient;

/**
 * A broker's life with the controller: registration at start, a heartbeat every broker.heartbeat.interval.ms,
 * the long-polled fetch of the metadata log into the {@link BrokerMetadataApplier}, and controlled shutdown.
 * Thread-safety: public methods may be called from any thread. Two daemon threads own the state: the fetch loop,
 * every {@link BrokerMetadataApplier#apply} and the release of partitions at readiness run on
 * {@code broker-<id>-metadata} (the broker's metadata thread, where {@link MetadataListener} callbacks run);
 * registration and heartbeats run on {@code broker-<id>-lifecycle}, as Kafka's BrokerLifecycleManager has its own
 * event queue. Applying a large metadata batch (thousands of partitions becoming leaders or followers) takes
 * seconds on a busy machine, and heartbeats queued behind it let the broker's session expire: the controller
 * fenced it and moved its leaderships away.
 *
 * <p>Registration is retried with backoff (e.g. DUPLICATE_BROKER_REGISTRATION while a previous incarnation's
 * session lasts); a heartbeat answered STALE_BROKER_EPOCH or BROKER_ID_NOT_REGISTERED registers again. Once the
 * applied offset reaches the broker's registration, a heartbeat goes out at once so the controller unfences it
 * without waiting for the next interval.
 */
public final class BrokerLifecycleManager implements AutoCloseable
{
    public static final String BROKER_HEARTBEAT_INTERVAL_MS_CONFIG = "broker.heartbeat.interval.ms";
    public static final long BROKER_HEARTBEAT_INTERVAL_MS_DEFAULT = 2000;

    private static final Logger LOG = LoggerFactory.getLogger(BrokerLifecycleManager.class);
    private static final int FETCH_MAX_WAIT_MS = 500;
    private static final int FETCH_MAX_BYTES = 8 << 20;
    private static final long RETRY_BACKOFF_MS = 100;
    private static final long REGISTRATION_RETRY_BACKOFF_MS = 500;
    /** How long close waits for a metadata batch being applied (thousands of partitions take seconds). */
    private static final long CLOSE_WAIT_MS = 60_000;

    private final int brokerId;
    private final String clusterId;
    private final Uuid incarnationId;
    private final BrokerEndpoint advertised;
    private final String listenerName;
    private final NodeClient controller;
    private final BrokerMetadataApplier applier;
    private final long heartbeatIntervalMs;
    private final long previousBrokerEpoch;
    private final ScheduledExecutorService thread;
    private final ScheduledExecutorService lifecycle;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> shutdownAcknowledged = new CompletableFuture<>();

    // Written by the lifecycle thread; volatile for the metadata thread and readers elsewhere.
    private volatile long brokerEpoch = -1;
    private volatile boolean fenced = true;
    private volatile boolean closed;
    // Lifecycle thread only.
    private boolean registering;
    private boolean heartbeatInFlight;
    private boolean wantShutDown;
    // Metadata thread only.
    private boolean fetchedOnce;
    private volatile Thread metadataThread;

    /**
     * @param advertised          this broker's id, advertised host/port and rack, as it registers them
     * @param listenerName        the listener name it registers the endpoint under
     * @param controller          a client to the controller node (or the controller's in-process client on the
     *                            controller node)
     * @param previousBrokerEpoch the epoch of this broker's previous clean run, or -1; lets the controller accept
     *                            a restart before the old session expires
     */
    public BrokerLifecycleManager(final BrokerEndpoint advertised, final String listenerName, final String clusterId,
        final NodeClient controller, final BrokerMetadataApplier applier, final long heartbeatIntervalMs,
        final long previousBrokerEpoch)
    {
        this.brokerId = advertised.id();
        this.clusterId = clusterId;
        this.incarnationId = Uuid.randomUuid();
        this.advertised = advertised;
        this.listenerName = listenerName;
        this.controller = controller;
        this.applier = applier;
        // Nothing is led on the replayed image before this broker is registered, caught up and unfenced.
        applier.holdPartitions();
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.previousBrokerEpoch = previousBrokerEpoch;
        this.thread = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "broker-" + advertised.id() + "-metadata");
            t.setDaemon(true);
            metadataThread = t;
            return t;
        });
        this.lifecycle = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "broker-" + advertised.id() + "-lifecycle");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts registration, heartbeats and the metadata fetch loop. */
    public void start()
    {
        runLifecycle(this::register);
        run(this::fetch);
        lifecycle.scheduleWithFixedDelay(this::maybeHeartbeat, heartbeatIntervalMs, heartbeatIntervalMs,
            TimeUnit.MILLISECONDS);
    }

    /** The broker epoch the controller granted, or -1 before registration. */
    public long brokerEpoch()
    {
        return brokerEpoch;
    }

    public boolean isFenced()
    {
        return fenced;
    }

    public BrokerMetadataApplier applier()
    {
        return applier;
    }

    /**
     * Blocks until the broker is registered, has applied the metadata log up to what the controller had committed,
     * and the controller has unfenced it. For startup: call it before opening the client listener.
     */
    public void awaitRegisteredAndCaughtUp(final long timeoutMs) throws InterruptedException, TimeoutException
    {
        try
        {
            ready.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException("broker lifecycle failed", e.getCause());
        }
    }

    /** Completes when registered, caught up and unfenced (the future form of {@link #awaitRegisteredAndCaughtUp}). */
    public CompletableFuture<Void> readyFuture()
    {
        return ready;
    }

    /**
     * Controlled shutdown: asks the controller to move leadership away and fence this broker. The future completes
     * when the controller answers shouldShutDown; then {@link #close()}.
     */
    public CompletableFuture<Void> controlledShutdown()
    {
        runLifecycle(() ->
        {
            wantShutDown = true;
            maybeHeartbeat();
        });
        return shutdownAcknowledged;
    }

    /**
     * Stops both threads and waits for a metadata batch being applied to finish: the broker closes its replicas
     * next, and the partitions' off-heap rows take one writer at a time (a batch still applying leaderships while
     * the replicas closed left the slot index's sequence odd, and every lookup spun on it).
     */
    @Override
    public void close()
    {
        closed = true;
        lifecycle.shutdownNow();
        thread.shutdownNow();
        try
        {
            if (Thread.currentThread() != metadataThread &&
                !thread.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS))
            {
                LOG.warn("Broker {}: the metadata thread did not stop within {} ms of close", brokerId,
                    CLOSE_WAIT_MS);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        if (!ready.isDone())
        {
            ready.completeExceptionally(new IllegalStateException("closed before ready"));
        }
    }

    private void run(final Runnable task)
    {
        try
        {
            thread.execute(task);
        }
        catch (final RejectedExecutionException e)
        {
            // Closed: nothing more to do.
        }
    }

    private void runLater(final Runnable task, final long delayMs)
    {
        runLater(thread, task, delayMs);
    }

    private void runLifecycle(final Runnable task)
    {
        try
        {
            lifecycle.execute(task);
        }
        catch (final RejectedExecutionException e)
        {
            // Closed: nothing more to do.
        }
    }

    private static void runLater(final ScheduledExecutorService executor, final Runnable task, final long delayMs)
    {
        try
        {
            executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        }
        catch (final RejectedExecutionException e)
        {
            // Closed.
        }
    }

    /** A send whose synchronous failure becomes a failed future, so no loop or periodic task dies of it. */
    private <R> CompletableFuture<R> sendSafely(final Supplier<CompletableFuture<R>> send)
    {
        try
        {
            return send.get();
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void register()
    {
        if (closed || registering)
        {
            return;
        }
        registering = true;
        final BrokerRegistrationRequestData.ListenerCollection listeners =
            new BrokerRegistrationRequestData.ListenerCollection();
        listeners.add(new BrokerRegistrationRequestData.Listener().setName(listenerName)
            .setHost(advertised.host()).setPort(advertised.port()).setSecurityProtocol((short) 0));
        for (final ListenerEndpoint other : advertised.listeners())
        {
            if (!other.name().equals(listenerName))
            {
                listeners.add(new BrokerRegistrationRequestData.Listener().setName(other.name())
                    .setHost(other.host()).setPort(other.port()).setSecurityProtocol((short) 0));
            }
        }
        final BrokerRegistrationRequestData data = new BrokerRegistrationRequestData().setBrokerId(brokerId)
            .setClusterId(clusterId).setIncarnationId(incarnationId).setListeners(listeners)
            .setRack(advertised.rack()).setPreviousBrokerEpoch(previousBrokerEpoch).setLogDirs(List.of());
        this.<BrokerRegistrationResponse>sendSafely(() -> controller.send(new BrokerRegistrationRequest.Builder(data)))
            .whenCompleteAsync((response, error) ->
            {
                registering = false;
                final Errors code = error == null ? Errors.forCode(response.data().errorCode()) : null;
                if (error != null || code != Errors.NONE)
                {
                    LOG.info("Broker {} registration failed ({}), retrying", brokerId,
                        error != null ? error.toString() : code);
                    runLater(lifecycle, this::register, REGISTRATION_RETRY_BACKOFF_MS);
                    return;
                }
                brokerEpoch = response.data().brokerEpoch();
                fenced = true;
                maybeHeartbeat();
            }, lifecycle);
    }

    /** Sends a heartbeat unless one is on its way. Lifecycle thread. */
    private void maybeHeartbeat()
    {
        if (closed || brokerEpoch < 0 || heartbeatInFlight)
        {
            return;
        }
        heartbeatInFlight = true;
        final long epoch = brokerEpoch;
        final BrokerHeartbeatRequestData data = new BrokerHeartbeatRequestData().setBrokerId(brokerId)
            .setBrokerEpoch(epoch).setCurrentMetadataOffset(applier.image().appliedOffset())
            .setWantFence(false).setWantShutDown(wantShutDown);
        this.<BrokerHeartbeatResponse>sendSafely(() -> controller.send(new BrokerHeartbeatRequest.Builder(data)))
            .whenCompleteAsync((response, error) ->
            {
                heartbeatInFlight = false;
                if (error != null)
                {
                    return;
                }
                final Errors code = Errors.forCode(response.data().errorCode());
                if (code == Errors.STALE_BROKER_EPOCH || code == Errors.BROKER_ID_NOT_REGISTERED)
                {
                    if (epoch == brokerEpoch)
                    {
                        brokerEpoch = -1;
                        fenced = true;
                        register();
                    }
                    return;
                }
                if (code != Errors.NONE)
                {
                    return;
                }
                fenced = response.data().isFenced();
                if (response.data().shouldShutDown())
                {
                    shutdownAcknowledged.complete(null);
                }
                if (!fenced && !ready.isDone())
                {
                    run(this::maybeReady);
                }
            }, lifecycle);
    }

    /**
     * How far this broker follows the metadata log: everything, fetched but not applied (it then knows the
     * controller's latest offset and sees itself behind), or not even fetched (it believes itself current). For
     * tests of metadata propagation lag; a production broker always follows everything.
     */
    public enum MetadataHold
    {
        NONE,
        APPLY,
        FETCH
    }

    private volatile MetadataHold hold = MetadataHold.NONE;
    /** Completed by the fetch loop once it sees a FETCH hold with no fetch of its own on the way. */
    private volatile CompletableFuture<Void> fetchHeld = CompletableFuture.completedFuture(null);

    /**
     * Sets how far this broker follows the metadata log from its next fetch on; see {@link MetadataHold}. Completes
     * once it is in force: at once, or for FETCH once no metadata fetch is on its way (one sent before the hold
     * could still tell this broker the controller's latest offset).
     */
    public CompletableFuture<Void> hold(final MetadataHold newHold)
    {
        final CompletableFuture<Void> held = newHold == MetadataHold.FETCH ? new CompletableFuture<>() :
            CompletableFuture.completedFuture(null);
        fetchHeld = held;
        hold = newHold;
        return held;
    }

    private void fetch()
    {
        if (closed)
        {
            return;
        }
        if (hold == MetadataHold.FETCH)
        {
            fetchHeld.complete(null);
            runLater(this::fetch, RETRY_BACKOFF_MS);
            return;
        }
        final long fetchOffset = applier.image().appliedOffset() + 1;
        final long epoch = brokerEpoch;
        this.<FetchResponse>sendSafely(() -> controller.send(new MetadataFetchRequestBuilder(brokerId, epoch,
            fetchOffset, FETCH_MAX_WAIT_MS, FETCH_MAX_BYTES)))
            .whenCompleteAsync((response, error) ->
            {
                if (closed)
                {
                    return;
                }
                if (error == null && hold == MetadataHold.NONE && snapshotToLoad(response) != null)
                {
                    loadSnapshot(snapshotToLoad(response));
                    return;
                }
                if (error != null || !onFetchResponse(response) || hold != MetadataHold.NONE)
                {
                    runLater(this::fetch, RETRY_BACKOFF_MS);
                    return;
                }
                fetch();
            }, thread);
    }

    /** The snapshot a metadata fetch below the voter's log start was told to load, or null. */
    private static FetchResponseData.SnapshotId snapshotToLoad(final FetchResponse response)
    {
        final FetchResponseData data = response.data();
        if (data.errorCode() != Errors.NONE.code() || data.responses().isEmpty()
            || data.responses().get(0).partitions().isEmpty())
        {
            return null;
        }
        final FetchResponseData.SnapshotId id = data.responses().get(0).partitions().get(0).snapshotId();
        return id.endOffset() >= 0 && id.epoch() >= 0 ? id : null;
    }

    /**
     * Downloads the snapshot and replaces the image with it, then fetches on from its end; on any error the loop
     * backs off and fetches again (and is told the voter's current snapshot).
     */
    private void loadSnapshot(final FetchResponseData.SnapshotId id)
    {
        LOG.info("Broker {} is behind the metadata log start at offset {}: loading snapshot {}-{}", brokerId,
            applier.image().appliedOffset() + 1, id.endOffset(), id.epoch());
        final long startNs = System.nanoTime();
        new MetadataSnapshotDownload(controller, brokerId, id.endOffset(), id.epoch()).start()
            .whenCompleteAsync((records, error) ->
            {
                if (closed)
                {
                    return;
                }
                if (error != null)
                {
                    LOG.warn("Broker {} could not load metadata snapshot {}-{}: {}", brokerId, id.endOffset(),
                        id.epoch(), error.toString());
                    runLater(this::fetch, RETRY_BACKOFF_MS);
                    return;
                }
                try
                {
                    applier.loadSnapshot(records, id.endOffset());
                }
                catch (final RuntimeException e)
                {
                    LOG.error("Broker {} failed to apply metadata snapshot {}-{}", brokerId, id.endOffset(),
                        id.epoch(), e);
                    runLater(this::fetch, RETRY_BACKOFF_MS);
                    return;
                }
                LOG.info("Broker {} loaded metadata snapshot {}-{} ({} bytes) in {} ms", brokerId, id.endOffset(),
                    id.epoch(), records.sizeInBytes(), (System.nanoTime() - startNs) / 1_000_000);
                fetch();
            }, thread);
    }

    /** Applies one response; false when it carried an error (the loop backs off). */
    private boolean onFetchResponse(final FetchResponse response)
    {
        final FetchResponseData data = response.data();
        if (data.errorCode() != Errors.NONE.code() || data.responses().isEmpty()
            || data.responses().get(0).partitions().isEmpty())
        {
            return false;
        }
        final FetchResponseData.PartitionData partition = data.responses().get(0).partitions().get(0);
        if (partition.errorCode() != Errors.NONE.code())
        {
            LOG.warn("Broker {} metadata fetch failed: {}", brokerId, Errors.forCode(partition.errorCode()));
            return false;
        }
        final Records records = partition.records() instanceof Records r && hold == MetadataHold.NONE ? r :
            MemoryRecords.EMPTY;
        try
        {
            applier.apply(records, partition.highWatermark());
        }
        catch (final RuntimeException e)
        {
            LOG.error("Broker {} failed to apply metadata at offset {}", brokerId, applier.image().appliedOffset(), e);
            return false;
        }
        fetchedOnce = true;
        if (fenced && brokerEpoch >= 0 && applier.image().appliedOffset() >= brokerEpoch)
        {
            // Caught up to the registration: the controller unfences on the next heartbeat; send it now.
            runLifecycle(this::maybeHeartbeat);
        }
        maybeReady();
        return true;
    }

    /** Metadata thread: releasing the partitions runs the metadata listeners. */
    private void maybeReady()
    {
        if (!ready.isDone() && fetchedOnce && brokerEpoch >= 0 && !fenced && applier.image().caughtUp())
        {
            applier.releasePartitions();
            ready.complete(null);
        }
    }
}
