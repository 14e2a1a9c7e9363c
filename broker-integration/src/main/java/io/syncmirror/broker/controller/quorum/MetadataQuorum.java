package io.syncmirror.broker.controller.quorum;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.raft.Endpoints;
import org.apache.kafka.raft.FileQuorumStateStore;
import org.apache.kafka.raft.KafkaNetworkChannel;
import org.apache.kafka.raft.KafkaRaftClient;
import org.apache.kafka.raft.KafkaRaftClientDriver;
import org.apache.kafka.raft.MetadataLogConfig;
import org.apache.kafka.raft.QuorumConfig;
import org.apache.kafka.raft.RaftClient;
import org.apache.kafka.raft.TimingWheelExpirationService;
import org.apache.kafka.raft.internals.KafkaRaftLog;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.fault.FaultHandler;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.network.KafkaNodeClient;

/**
 * One voter of the metadata quorum: Kafka's own {@link KafkaRaftClient} over {@link KafkaRaftLog} (the
 * {@code __cluster_metadata-0} directory under the metadata log dir, with its {@code quorum-state} file), driven
 * by Kafka's {@link KafkaRaftClientDriver} thread and talking to the other voters through Kafka's
 * {@link KafkaNetworkChannel} on a {@link NetworkClient}. This class builds and wires those parts the way Kafka's
 * {@code KafkaRaftManager} does and owns their lifecycle; it adds no consensus logic of its own.
 *
 * <p>The voter set is static ({@code controller.quorum.voters}); the record type is {@link MetadataRecord}
 * through {@link MetadataRecordSerde}. Inbound Raft RPCs arrive through {@link RaftApis}. Thread-safety: the Raft
 * client is Kafka's (its listeners run on the driver thread); {@link #start} and {@link #close} once each.
 */
public final class MetadataQuorum implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(MetadataQuorum.class);

    /** The metadata partition, as Kafka names it. */
    public static final TopicPartition METADATA_PARTITION = new TopicPartition(Topic.CLUSTER_METADATA_TOPIC_NAME, 0);

    private static final int MAX_IN_FLIGHT_PER_VOTER = 1;
    private static final long RECONNECT_BACKOFF_MS = 50;
    private static final long RECONNECT_BACKOFF_MAX_MS = 500;
    private static final long CONNECTIONS_MAX_IDLE_MS = 9 * 60 * 1000L;
    private static final long CONNECTION_SETUP_TIMEOUT_MS = 10_000;
    private static final long CONNECTION_SETUP_TIMEOUT_MAX_MS = 30_000;

    /**
     * What a voter is.
     *
     * @param nodeId      this voter's {@code node.id}; it must be one of {@code voters}
     * @param directoryId the metadata log directory's id ({@code directory.id} in its {@code meta.properties})
     * @param clusterId   the cluster id every Raft request carries and every voter checks
     * @param logDir      the metadata log dir; the Raft log is its {@code __cluster_metadata-0} subdirectory
     * @param listener    the controller listener's name: voters reach each other there, and inbound Raft
     *                    requests must arrive on it
     * @param voters      the static voter set, node id to its controller listener address
     * @param configs     {@code controller.quorum.*} and {@code metadata.log.*} keys, Kafka's meanings
     * @param clientSecurity Kafka client security settings of the connections to the other voters' controller
     *                    listener; empty for plaintext
     */
    public record Settings(int nodeId, Uuid directoryId, String clusterId, File logDir, String listener,
        Map<Integer, InetSocketAddress> voters, Map<String, ?> configs, Map<String, ?> clientSecurity)
    {
        public Settings
        {
            voters = Map.copyOf(voters);
            configs = Map.copyOf(configs);
            clientSecurity = Map.copyOf(clientSecurity);
            if (!voters.containsKey(nodeId))
            {
                throw new IllegalArgumentException("node " + nodeId + " is not among the voters " + voters.keySet());
            }
        }
    }

    private final Settings settings;
    private final Time time;
    private final ListenerName listenerName;
    private final QuorumConfig quorumConfig;
    private final Metrics metrics;
    private final KafkaScheduler scheduler;
    private final SystemTimer expirationTimer;
    private final TimingWheelExpirationService expirationService;
    private final KafkaRaftLog raftLog;
    private final KafkaNetworkChannel channel;
    private final KafkaRaftClient<MetadataRecord> client;
    private final KafkaRaftClientDriver<MetadataRecord> driver;
    private final File stateFile;
    private boolean started;

    /**
     * Opens (or creates) the Raft log and builds the client; nothing runs until {@link #start}.
     *
     * @param faults what a fatal Raft error does (Kafka's process-terminating handler, or a test's)
     */
    public MetadataQuorum(final Settings settings, final Time time, final FaultHandler faults)
    {
        this.settings = settings;
        this.time = time;
        this.listenerName = new ListenerName(settings.listener());
        this.quorumConfig = new QuorumConfig(new AbstractConfig(QuorumConfig.CONFIG_DEF, settings.configs(), false));
        final MetadataLogConfig logConfig = new MetadataLogConfig(
            new AbstractConfig(MetadataLogConfig.CONFIG_DEF, settings.configs(), false));
        final String prefix = "raft-" + settings.nodeId();
        final LogContext logContext = new LogContext("[raft node=" + settings.nodeId() + "] ");
        this.metrics = new Metrics(time);
        this.scheduler = new KafkaScheduler(1, true, prefix + "-scheduler");
        scheduler.startup();
        this.expirationTimer = new SystemTimer(prefix + "-expiration");
        this.expirationService = new TimingWheelExpirationService(expirationTimer);
        final File dataDir = new File(settings.logDir(), METADATA_PARTITION.topic() + "-" +
            METADATA_PARTITION.partition());
        try
        {
            this.raftLog = KafkaRaftLog.createLog(METADATA_PARTITION, Uuid.METADATA_TOPIC_ID, dataDir, time, scheduler,
                logConfig, settings.nodeId());
        }
        catch (final IOException e)
        {
            closeTimers();
            swallow("scheduler", () -> scheduler.shutdown());
            metrics.close();
            throw new UncheckedIOException("cannot open the metadata log in " + dataDir, e);
        }
        this.channel = new KafkaNetworkChannel(time, listenerName, networkClient(logContext),
            quorumConfig.requestTimeoutMs(), prefix + "-outbound");
        this.client = new KafkaRaftClient<>(OptionalInt.of(settings.nodeId()), settings.directoryId(),
            MetadataRecordSerde.INSTANCE, channel, raftLog, time, expirationService, logContext,
            true, settings.clusterId(), List.of(),
            Endpoints.fromInetSocketAddresses(Map.of(listenerName, settings.voters().get(settings.nodeId()))),
            Feature.KRAFT_VERSION.supportedVersionRange(), quorumConfig);
        this.driver = new KafkaRaftClientDriver<>(client, prefix + "-io", faults, logContext);
        this.stateFile = new File(dataDir, FileQuorumStateStore.DEFAULT_FILE_NAME);
    }

    private NetworkClient networkClient(final LogContext logContext)
    {
        final ChannelBuilder channelBuilder = KafkaNodeClient.channelBuilder(settings.clientSecurity(),
            settings.voters().toString(), time, logContext);
        final Selector selector = new Selector(NetworkReceive.UNLIMITED, CONNECTIONS_MAX_IDLE_MS, metrics, time,
            "raft-channel", Map.of(), false, channelBuilder, logContext);
        return new NetworkClient(selector, new ManualMetadataUpdater(), "raft-client-" + settings.nodeId(),
            MAX_IN_FLIGHT_PER_VOTER, RECONNECT_BACKOFF_MS, RECONNECT_BACKOFF_MAX_MS, Selectable.USE_DEFAULT_BUFFER_SIZE,
            Selectable.USE_DEFAULT_BUFFER_SIZE, quorumConfig.requestTimeoutMs(), CONNECTION_SETUP_TIMEOUT_MS,
            CONNECTION_SETUP_TIMEOUT_MAX_MS, time, true, new ApiVersions(), logContext, MetadataRecoveryStrategy.NONE,
            BootstrapConfiguration.DISABLED, false);
    }

    /** Registers a listener; Kafka calls it on the driver thread (commits, snapshots, leader changes). */
    public void register(final RaftClient.Listener<MetadataRecord> listener)
    {
        client.register(listener);
    }

    /** Joins the quorum: reads the election state, starts the outbound channel and the driver thread. */
    public synchronized void start()
    {
        if (started)
        {
            throw new IllegalStateException("already started");
        }
        client.initialize(settings.voters(), new FileQuorumStateStore(stateFile), metrics, ignored -> { });
        channel.start();
        driver.start();
        started = true;
        LOG.info("metadata quorum voter {} started: voters {}, log {}", settings.nodeId(), settings.voters(),
            raftLog.topicPartition());
    }

    /** Kafka's Raft client: leader and epoch, high watermark, appends and snapshots. */
    public KafkaRaftClient<MetadataRecord> client()
    {
        return client;
    }

    /** The driver that serves inbound Raft requests. */
    KafkaRaftClientDriver<MetadataRecord> driver()
    {
        return driver;
    }

    public ListenerName listenerName()
    {
        return listenerName;
    }

    public Settings settings()
    {
        return settings;
    }

    public QuorumConfig quorumConfig()
    {
        return quorumConfig;
    }

    /** The local Raft log, for reads of committed batches by brokers' metadata fetches. */
    public KafkaRaftLog raftLog()
    {
        return raftLog;
    }

    /**
     * Leaves the quorum: Kafka's graceful shutdown (a leader resigns so the others elect at once), then the
     * channel, the timers and the log, as Kafka's {@code KafkaRaftManager} shuts them down.
     */
    @Override
    public synchronized void close()
    {
        if (started)
        {
            swallow("driver", () -> driver.shutdown());
        }
        else
        {
            swallow("client", () -> client.close());
        }
        closeTimers();
        swallow("scheduler", () -> scheduler.shutdown());
        swallow("channel", () -> channel.close());
        swallow("log", () -> raftLog.close());
        swallow("metrics", () -> metrics.close());
    }

    /** Stops the expiration service and its timer (the Raft client's request and fetch timeouts). */
    private void closeTimers()
    {
        swallow("expiration service", () -> expirationService.shutdown());
        swallow("expiration timer", () -> expirationTimer.close());
    }

    private interface Step
    {
        void run() throws Exception;
    }

    private static void swallow(final String what, final Step step)
    {
        try
        {
            step.run();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception e)
        {
            LOG.warn("closing the metadata quorum's {} failed", what, e);
        }
    }
}
