package io.syncmirror.broker.coordinator;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.network.NodeClient;

/**
 * One broker's transaction coordinators wired together: producer ids, the transaction coordinator, the
 * WriteTxnMarkers writer and the API layer over them, with the two daemon threads they need. Consumer groups and
 * offsets are Kafka's group coordinator's ({@link GroupOffsetsPort}). Thread-safe.
 *
 * <p>Threads (started by {@link #startup()}, stopped by {@link #close()}): {@code coordinator-loader-<id>} replays
 * internal partitions on becoming their leader; {@code coordinator-scheduler-<id>} calls
 * {@link TransactionCoordinator#poll()} every {@code markerRetryBackoffMs} (transaction timeouts, marker retries).
 */
public final class Coordinators implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(Coordinators.class);

    private final CoordinatorConfig config;
    private final ExecutorService loader;
    private final ScheduledExecutorService scheduler;
    private final ProducerIdManager producerIds;
    private final TxnMarkerWriter markerWriter;
    private final TransactionCoordinator transactions;
    private final CoordinatorApis apis;

    /**
     * @param brokerEpoch      this broker's registration epoch (sent with AllocateProducerIds)
     * @param controllerClient the client of the active controller, asked anew for every allocation
     * @param nodeClients      the client of a broker by id (WriteTxnMarkers to partitions led elsewhere)
     */
    public Coordinators(final CoordinatorConfig config, final ReplicaAccess replicas, final MetadataView metadata,
        final GroupOffsetsPort groups, final LongSupplier brokerEpoch, final Supplier<NodeClient> controllerClient,
        final IntFunction<NodeClient> nodeClients, final Time time)
    {
        this(config, replicas, metadata, groups, brokerEpoch, controllerClient, nodeClients, time, () -> -1L);
    }

    /** As above, with the cluster's producer id floor from this broker's metadata (mirror failovers raise it). */
    public Coordinators(final CoordinatorConfig config, final ReplicaAccess replicas, final MetadataView metadata,
        final GroupOffsetsPort groups, final LongSupplier brokerEpoch, final Supplier<NodeClient> controllerClient,
        final IntFunction<NodeClient> nodeClients, final Time time, final LongSupplier producerIdFloor)
    {
        this.config = config;
        this.loader = Executors.newSingleThreadExecutor(daemon("coordinator-loader-" + config.brokerId()));
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
            daemon("coordinator-scheduler-" + config.brokerId()));
        this.producerIds = new ProducerIdManager(config.brokerId(), brokerEpoch, controllerClient, time,
            config.markerRetryBackoffMs(), producerIdFloor);
        this.markerWriter = new TxnMarkerWriter(replicas, time, config.appendTimeoutMs());
        this.transactions = new TransactionCoordinator(config, replicas, metadata, producerIds, nodeClients,
            markerWriter, loader, time);
        this.markerWriter.groups(groups);
        this.apis = new CoordinatorApis(transactions, groups, markerWriter, metadata,
            new TransactionAdminApis(transactions, time::milliseconds));
    }

    private static ThreadFactory daemon(final String name)
    {
        return runnable ->
        {
            final Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Registers the leadership listeners and starts the threads. Call before the replica layer applies the first
     * metadata, so that leadership of internal partitions already held is reported to the coordinators.
     */
    public void startup()
    {
        transactions.startup();
        final long periodMs = Math.max(1, config.markerRetryBackoffMs());
        scheduler.scheduleWithFixedDelay(() ->
        {
            try
            {
                transactions.poll();
            }
            catch (final RuntimeException e)
            {
                LOG.error("transaction coordinator poll failed", e);
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    public CoordinatorApis apis()
    {
        return apis;
    }

    public TransactionCoordinator transactions()
    {
        return transactions;
    }

    public TxnMarkerWriter markerWriter()
    {
        return markerWriter;
    }

    public ProducerIdManager producerIds()
    {
        return producerIds;
    }

    @Override
    public void close()
    {
        scheduler.shutdownNow();
        loader.shutdownNow();
        try
        {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            loader.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
