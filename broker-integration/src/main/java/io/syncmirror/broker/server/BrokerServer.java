package io.syncmirror.broker.server;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.controller.AdminSourceClusterClient;
import io.syncmirror.broker.controller.Controller;
import io.syncmirror.broker.controller.ControllerApis;
import io.syncmirror.broker.controller.MirrorController;
import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.broker.controller.quorum.ActiveControllerClient;
import io.syncmirror.broker.controller.quorum.ControllerRaftListener;
import io.syncmirror.broker.controller.quorum.DescribeQuorumApis;
import io.syncmirror.broker.controller.quorum.EmptyVoterCheck;
import io.syncmirror.broker.controller.quorum.MetadataQuorum;
import io.syncmirror.broker.controller.quorum.RaftApis;
import io.syncmirror.broker.controller.quorum.RaftMetadataLog;
import io.syncmirror.broker.coordinator.Coordinators;
import io.syncmirror.broker.group.GroupApis;
import io.syncmirror.broker.group.GroupCoordinatorHost;
import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.ListenerEndpoint;
import io.syncmirror.broker.metadata.BrokerLifecycleManager;
import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.ControllerIsrChannel;
import io.syncmirror.broker.metadata.IsrChangeChannel;
import io.syncmirror.broker.authorization.AclApis;
import io.syncmirror.broker.authorization.BrokerAuthorizer;
import io.syncmirror.broker.authorization.RequestAuthorization;
import io.syncmirror.broker.metadata.MetadataApis;
import io.syncmirror.broker.metadata.ScramCredentialApis;
import io.syncmirror.broker.metadata.ScramCredentialsFeed;
import io.syncmirror.broker.metadata.KafkaImageBridge;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.mirror.ControllerForwarder;
import io.syncmirror.broker.mirror.MirrorApis;
import io.syncmirror.broker.mirror.MirrorCoordinator;
import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.broker.mirror.SourceCluster;
import io.syncmirror.broker.mirror.TopicMirrorStateStore;
import io.syncmirror.broker.network.AuthenticationMetrics;
import io.syncmirror.broker.network.KafkaSocketServer;
import io.syncmirror.broker.network.GroupVersionFeature;
import io.syncmirror.broker.network.MirrorSyncVersionFeature;
import io.syncmirror.broker.network.Listener;
import io.syncmirror.broker.network.ListenerSecurity;
import io.syncmirror.protocol.WireSecurity;
import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.network.NodeClients;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;
import io.syncmirror.broker.network.ScramCredentialStore;
import io.syncmirror.broker.network.SocketServerConfig;
import io.syncmirror.broker.replica.DataPathApis;
import io.syncmirror.broker.replica.OffsetApis;
import io.syncmirror.broker.replica.PartitionAdminApis;
import io.syncmirror.broker.replica.ReplicaApis;
import io.syncmirror.broker.replica.ReplicaFetchers;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.replica.SyncSourceMetrics;
import io.syncmirror.broker.storage.DurableLogStore;
import io.syncmirror.broker.storage.LogStore;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.fetch.FetchSessionCache;
import io.syncmirror.fetch.FetcherConfig;

/**
 * One broker of the reference cluster, wired from its parts: storage, the replica layer with the hot path, the
 * metadata image and the broker lifecycle, the coordinators, the controller on the node that runs it, and the
 * socket server. Thread-safety: start and stop from one controlling thread.
 *
 * <p>Start order: logs, the controller (its metadata log lives in the same log store), the replica layer and the
 * coordinators, the socket server, then registration with the controller and the metadata fetch loop; the
 * broker is ready once it is unfenced and has applied the metadata log up to what it heard of.
 */
public final class BrokerServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(BrokerServer.class);
    private static final TopicPartition METADATA_PARTITION = new TopicPartition("__cluster_metadata", 0);
    /** How long a request to the active controller keeps trying voters (elections take well under this). */
    private static final long ACTIVE_CONTROLLER_RETRY_MS = 30_000;
    /** How long a forwarded DescribeQuorum looks for the Raft leader (an election takes a few seconds). */
    private static final long DESCRIBE_QUORUM_RETRY_MS = 10_000;

    private final BrokerConfig config;
    private final Time time = Time.SYSTEM;
    private final List<AutoCloseable> started = new ArrayList<>();
    private LogStore logs;
    private NodeClients clients;
    private NodeClients controllerClients;
    private ControllerApis controllerApis;
    /** This node's voter of the metadata quorum (controller role), else null. */
    private MetadataQuorum quorum;
    private RaftApis raftApis;
    /** DescribeQuorum on every listener; its client to the voters. */
    private DescribeQuorumApis describeQuorumApis;
    private ActiveControllerClient quorumLeader;
    private ActiveControllerClient activeController;
    private NodeClient controllerClient;
    /** The voters' controller addresses, in id order. */
    private List<java.net.InetSocketAddress> activeVoters = List.of();
    private ReplicaManager replicas;
    private ReplicaFetchers fetchers;
    private BrokerMetadataApplier metadata;
    private Coordinators coordinators;
    private KafkaImageBridge imageBridge;
    private GroupCoordinatorHost groupCoordinator;
    private MetadataApis metadataApis;
    /** Null when no authorizer is configured. */
    private BrokerAuthorizer authorizer;
    private MirrorController mirrorController;
    private MirrorMetadataManager mirrorMetadataManager;
    private volatile MirrorCoordinator mirrorCoordinator;
    private MirrorMetrics mirrorMetrics;
    private MirrorApis mirrorApis;
    private KafkaSocketServer socketServer;
    private BrokerLifecycleManager lifecycle;
    private volatile IsrChangeChannel isrChannel;
    private boolean running;

    public BrokerServer(final BrokerConfig config)
    {
        this.config = config;
    }

    public BrokerConfig config()
    {
        return config;
    }

    public int nodeId()
    {
        return config.nodeId();
    }

    public ReplicaManager replicaManager()
    {
        return replicas;
    }

    public BrokerMetadataApplier metadata()
    {
        return metadata;
    }

    /** This broker's logs (a {@link DurableLogStore} with its log cleaner unless the storage is memory). */
    public LogStore logStore()
    {
        return logs;
    }

    /** This broker's mirror coordinator (destination side of cluster mirroring). */
    public MirrorCoordinator mirrorCoordinator()
    {
        return mirrorCoordinator;
    }

    /** The controller node's mirror metadata manager; null on other brokers. */
    public MirrorMetadataManager mirrorMetadataManager()
    {
        return mirrorMetadataManager;
    }

    /** Whether this node runs the controller that may change the metadata now (the quorum's leader). */
    public boolean isActiveController()
    {
        final ControllerApis apis = controllerApis;
        return apis != null && apis.isActive();
    }

    /**
     * The controller's state as the records of a snapshot of it, read on its event thread (what operators and
     * tests compare voters by); empty on a node that runs no controller.
     */
    public java.util.List<io.syncmirror.broker.metadata.MetadataRecord> controllerState()
        throws InterruptedException, java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException
    {
        final ControllerApis apis = controllerApis;
        if (apis == null)
        {
            return java.util.List.of();
        }
        final java.util.concurrent.CompletableFuture<java.util.List<io.syncmirror.broker.metadata.MetadataRecord>>
            state = new java.util.concurrent.CompletableFuture<>();
        apis.execute(() -> state.complete(apis.controller().snapshotRecords()));
        return state.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** This voter's metadata quorum member (Kafka's Raft client and log); null on a broker that is not a voter. */
    public MetadataQuorum metadataQuorum()
    {
        return quorum;
    }

    /** The controller's mirror operations on the controller node, null on other brokers. */
    public MirrorController mirrorController()
    {
        return mirrorController;
    }

    /** The mirroring metrics (JMX; closed once stopped): its broker tag names this broker's MBeans. */
    public MirrorMetrics mirrorMetrics()
    {
        return mirrorMetrics;
    }

    public synchronized void start()
    {
        if (running)
        {
            throw new IllegalStateException("broker " + nodeId() + " is running");
        }
        try
        {
            startParts();
            running = true;
        }
        catch (final RuntimeException ex)
        {
            stopParts(false);
            throw ex;
        }
    }

    private void startParts()
    {
        final int id = config.nodeId();
        final Map<String, String> props = new HashMap<>();
        config.originals().forEach((k, v) -> props.put(k, String.valueOf(v)));
        final String clusterId = config.getString(BrokerConfig.CLUSTER_ID_CONFIG);

        logs = config.durableStorage() ?
            new DurableLogStore(config.logDirs(), config.logDefaults(), time,
                config.getLong(BrokerConfig.HW_CHECKPOINT_INTERVAL_MS_CONFIG),
                config.getLong(BrokerConfig.LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG), config.cleanerConfig(),
                java.util.Set.of(METADATA_PARTITION.toString())) :
            new MemoryLogStore(config.logDefaults(), time);
        // Other brokers are reached on their inter-broker (first advertised) listener, the controllers on theirs,
        // each with that listener's security settings, as Kafka's broker connects.
        final SecurityConfig security = config.security();
        clients = new NodeClients(NodeClientConfig.defaults("broker-" + id),
            security.clientConfigs(config.interBrokerListener().name()), time);
        controllerClients = new NodeClients(NodeClientConfig.defaults("broker-" + id + "-controller"),
            security.controllerClientConfigs(), time);

        startQuorum(props, clusterId);

        replicas = new ReplicaManager(config.replicaConfig(), logs,
            (tp, topicId, leaderEpoch, partitionEpoch, isr) ->
                isrChannel.alterIsr(tp, topicId, leaderEpoch, partitionEpoch, isr),
            this::ensureTopic, time::milliseconds);
        metadata = new BrokerMetadataApplier(id, config.runsController() ? id : -1, new MirrorAwareListener());
        replicas.syncRegistrations(topicId -> metadata.image().syncState(topicId).registeredMirrors());
        final SyncSourceMetrics syncMetrics = new SyncSourceMetrics(id);
        syncMetrics.topicsHeldWithoutLink(id, replicas::topicsHeldWithoutLink);
        replicas.syncMetrics(syncMetrics);
        isrChannel = new ControllerIsrChannel(id, this::brokerEpoch, controllerClient, metadata);
        fetchers = new ReplicaFetchers(replicas, clients, metadata::broker, fetcherConfig());
        replicas.followerFetching(fetchers);
        replicas.isrEligibility(brokerId -> metadata.image().registration(brokerId)
            .map(registration -> !registration.fenced()).orElse(false));

        imageBridge = new KafkaImageBridge(id);
        groupCoordinator = new GroupCoordinatorHost(id, config.originals(), config.logDefaults(), replicas, metadata,
            time);
        imageBridge.subscribe(groupCoordinator);
        coordinators = new Coordinators(config.coordinatorConfig(), replicas, metadata, groupCoordinator,
            this::brokerEpoch, () -> controllerClient, brokerId -> metadata.broker(brokerId)
                .map(endpoint -> clients.get(brokerId, endpoint.host(), endpoint.port())).orElse(null), time,
            metadata::producerIdFloor);
        coordinators.startup();
        groupCoordinator.startup();
        // After the service started: it refuses metadata updates before.
        imageBridge.start();
        metadata.addImageListener(imageBridge::onImage);
        final GroupApis groupApis = new GroupApis(groupCoordinator.coordinator(), metadata);
        metadataApis = new MetadataApis(id, clusterId, metadata, controllerClient, props);
        authorizer = BrokerAuthorizer.create(props, clusterId, id);
        if (authorizer != null)
        {
            metadata.addImageListener(authorizer);
        }
        final AclApis aclApis = new AclApis(authorizer, metadata, controllerClient);
        final ScramCredentialApis scramApis = new ScramCredentialApis(metadata, controllerClient);
        final ScramCredentialStore scramCredentials = config.security().scramCredentialStore();
        metadata.addImageListener(new ScramCredentialsFeed(scramCredentials));

        // Session ids differ from run to run: seeded with the broker id alone, a restarted broker handed out its
        // previous run's ids again, and a peer's fetcher still holding one was taken for another session's client.
        final ReplicaApis replicaApis = new ReplicaApis(replicas,
            new FetchSessionCache(FetchSessionCache.MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_DEFAULT,
                FetchSessionCache.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS_DEFAULT,
                new java.security.SecureRandom().nextLong()),
            topicId -> metadata.topic(topicId).map(TopicMetadata::name).orElse(null),
            () -> metadata.appliedOffset() < metadata.latestKnownOffset());
        final DataPathApis dataPath = new DataPathApis(replicaApis, new OffsetApis(replicas),
            new PartitionAdminApis(replicas));
        final List<ApiGroup> groups = new ArrayList<>();
        if (describeQuorumApis != null)
        {
            groups.add(group(describeQuorumApis::maxVersion, describeQuorumApis::minVersion,
                describeQuorumApis::handle));
        }
        groups.add(group(dataPath::maxVersion, dataPath::minVersion, dataPath::handle));
        groups.add(group(metadataApis::maxVersion, metadataApis::minVersion, metadataApis::handle));
        groups.add(group(coordinators.apis()::maxVersion, coordinators.apis()::minVersion,
            coordinators.apis()::handle));
        groups.add(group(groupApis::maxVersion, groupApis::minVersion, groupApis::handle));
        groups.add(group(scramApis::maxVersion, scramApis::minVersion, scramApis::handle));
        groups.add(group(aclApis::maxVersion, aclApis::minVersion, aclApis::handle));

        startMirroring();

        final List<Listener> listeners = new ArrayList<>();
        for (final BrokerConfig.Listener listener : config.listeners())
        {
            final SecurityProtocol protocol = config.security().protocol(listener.name());
            final boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
            listeners.add(new Listener(listener.name(), listener.host(), listener.port(),
                protocol == SecurityProtocol.PLAINTEXT ? ListenerSecurity.plaintext(listener.name()) :
                    ListenerSecurity.create(listener.name(), protocol,
                        config.security().listenerConfigs(listener.name()),
                        sasl ? config.security().saslServers(listener.name(), scramCredentials) : null)));
        }
        final short syncVersion = config.getShort(BrokerConfig.MIRROR_SYNC_VERSION_CONFIG);
        final Map<String, RequestHandler> listenerHandlers = raftApis == null ? Map.of() :
            Map.of(config.controllerListener().name(), authorized(new KafkaApis(List.of(new ControllerListenerApis(
                controllerApis, raftApis, quorum)), mirrorApis.controllerListenerHandler(), false), true));
        socketServer = new KafkaSocketServer(listeners,
            authorized(new KafkaApis(groups, mirrorApis, syncVersion > 0), false),
            listenerHandlers, SocketServerConfig.defaults()
                .withMaxRequestBytes(config.getInt(BrokerConfig.SOCKET_REQUEST_MAX_BYTES_CONFIG))
                .withNetworkThreads(config.getInt(BrokerConfig.NUM_NETWORK_THREADS_CONFIG)),
            new MirrorSyncVersionFeature(syncVersion, syncVersion > 0 ? 0L : -1L)
                .andThen(new GroupVersionFeature()), AuthenticationMetrics.reportedToJmx(id));
        socketServer.start();

        // Registered: the inter-broker listener first, and every advertised listener, so that each client is answered
        // with the addresses of the listener it connected to.
        final BrokerConfig.Listener advertised = config.interBrokerListener();
        final List<ListenerEndpoint> endpoints = new ArrayList<>();
        for (final BrokerConfig.Listener listener : config.advertisedListeners())
        {
            endpoints.add(new ListenerEndpoint(listener.name(), listener.host(), advertisedPort(listener)));
        }
        lifecycle = new BrokerLifecycleManager(new BrokerEndpoint(id, advertised.host(), advertisedPort(advertised),
            null, endpoints.size() > 1 ? endpoints : List.of()), advertised.name(), clusterId, controllerClient,
            metadata,
            config.getInt(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS_CONFIG), -1L);
        lifecycle.start();
        lifecycle.readyFuture().thenRun(() -> replicas.deleteStrayLogs(METADATA_PARTITION::equals));
        mirrorCoordinator.start();
        if (mirrorMetadataManager != null)
        {
            mirrorMetadataManager.start();
        }
        LOG.info("broker {} started on {} ({} storage{})", id, socketServer.boundAddresses(),
            config.durableStorage() ? "durable" : "memory", config.runsController() ? ", controller" : "");
    }

    /**
     * The controller on the metadata quorum: on a voter, Kafka's Raft over the metadata log in the first log dir
     * (formatted on first start), the controller fed by its commits, and its Raft RPCs served on the controller
     * listener; on every node, the client that finds the active voter.
     */
    private void startQuorum(final Map<String, String> props, final String clusterId)
    {
        final int id = config.nodeId();
        final Map<Integer, java.net.InetSocketAddress> voters = new java.util.TreeMap<>();
        config.controllerVoters().forEach((voter, address) ->
            voters.put(voter, new java.net.InetSocketAddress(address.getHostString(), address.getPort())));
        if (config.runsController())
        {
            final java.nio.file.Path metadataDir = config.logDirs().get(0);
            if (!java.nio.file.Files.isDirectory(metadataDir.resolve(METADATA_PARTITION.topic() + "-" +
                METADATA_PARTITION.partition())))
            {
                // No metadata log here: a first start, or a lost log the quorum's leader remembers.
                final Map<Integer, NodeClient> others = new java.util.TreeMap<>();
                voters.forEach((voter, address) ->
                {
                    if (voter != id)
                    {
                        others.put(voter, controllerClients.get(voter, address.getHostString(), address.getPort()));
                    }
                });
                EmptyVoterCheck.refuseIfLost(id, others, metadataDir.toString());
            }
            final Uuid directoryId = MetaDirectory.ensure(metadataDir, clusterId, id);
            final Map<String, Object> quorumConfigs = new HashMap<>();
            props.forEach((key, value) ->
            {
                // Kafka's Raft keys, its metadata log's, and its retention (metadata.max.retention.*).
                if (key.startsWith("controller.quorum.") || key.startsWith("metadata.log.")
                    || key.startsWith("metadata.max."))
                {
                    quorumConfigs.put(key, value);
                }
            });
            quorum = new MetadataQuorum(new MetadataQuorum.Settings(id, directoryId, clusterId, metadataDir.toFile(),
                config.controllerListener().name(), voters, quorumConfigs,
                config.security().clientConfigs(config.controllerListener().name())), time, (message, cause) ->
                {
                    LOG.error("node {}: metadata quorum fault: {}", id, message, cause);
                    return new RuntimeException(message, cause);
                });
            final RaftMetadataLog log = new RaftMetadataLog(quorum.client(), quorum.raftLog());
            controllerApis = new ControllerApis(new Controller(log, time::milliseconds, props));
            quorum.register(new ControllerRaftListener(id, quorum.client(), log, controllerApis,
                committed -> new Controller(committed, time::milliseconds, props),
                new ControllerRaftListener.SnapshotPolicy(
                    config.getLong(BrokerConfig.METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG),
                    config.getLong(BrokerConfig.METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG)), time::milliseconds));
            controllerApis.start();
            raftApis = new RaftApis(quorum, time);
            quorum.start();
        }
        final List<NodeClient> targets = new ArrayList<>();
        voters.forEach((voter, address) -> targets.add(voter == id && controllerApis != null ?
            controllerApis.localClient() : controllerClients.get(voter, address.getHostString(), address.getPort())));
        activeController = new ActiveControllerClient(targets, ACTIVE_CONTROLLER_RETRY_MS, "broker-" + id);
        final List<NodeClient> controllerListeners = new ArrayList<>();
        voters.forEach((voter, address) -> controllerListeners.add(controllerClients.get(voter,
            address.getHostString(), address.getPort())));
        quorumLeader = new ActiveControllerClient(controllerListeners, DESCRIBE_QUORUM_RETRY_MS,
            "broker-" + id + "-quorum", response -> response.errorCounts().containsKey(Errors.NOT_LEADER_OR_FOLLOWER));
        describeQuorumApis = new DescribeQuorumApis(quorumLeader);
        controllerClient = activeController;
        activeVoters = List.copyOf(voters.values());
    }

    /**
     * Cluster mirroring, destination side: the mirror coordinator (every broker), the mirror RPC handler, and on
     * the controller node the controller's mirror operations and the metadata manager that syncs each mirror's
     * topics from its source. Started once the listener is bound (they connect to it).
     */
    private void startMirroring()
    {
        final int id = config.nodeId();
        final long timeoutMs = config.getInt(BrokerConfig.MIRROR_REQUEST_TIMEOUT_MS_CONFIG);
        if (controllerApis != null)
        {
            mirrorController = new MirrorController(controllerApis);
            mirrorMetadataManager = new MirrorMetadataManager(mirrorController,
                AdminSourceClusterClient.factory(timeoutMs), this::ownClusterClientConfigs,
                config.mirrorMetadataRefreshIntervalMs(), time::milliseconds);
        }
        final TopicMirrorStateStore store = new TopicMirrorStateStore(this::ownClusterClientConfigs,
            this::ensureMirrorStateTopic, timeoutMs);
        final MirrorCoordinator.Config coordinatorConfig = new MirrorCoordinator.Config(
            config.getLong(BrokerConfig.MIRROR_COORDINATOR_TICK_MS_CONFIG),
            config.getLong(BrokerConfig.MIRROR_RETRY_BACKOFF_MS_CONFIG),
            config.getLong(BrokerConfig.MIRROR_RETRY_BACKOFF_MAX_MS_CONFIG), timeoutMs,
            config.getLong(BrokerConfig.MIRROR_REPLICATION_THROTTLED_RATE_CONFIG), mirrorFetcherConfig(),
            NodeClientConfig.defaults("broker-" + id + "-mirror-fetcher"));
        // Operations that are the controller's go to the active voter's controller listener, retried across the
        // voters for up to the mirror request timeout.
        final ControllerForwarder forwarder = new ControllerForwarder(activeVoters, activeController::currentVoter,
            timeoutMs, time);
        final MirrorApis[] apis = new MirrorApis[1];
        mirrorCoordinator = new MirrorCoordinator(id, replicas, metadata::image, metadata::await, store,
            (topicId, epochs, floor) -> apis[0].controllerChannel().bumpLeaderEpochs(topicId, epochs, floor),
            (source, leader, topic, topicId, partition) ->
                apis[0].lastMirroredLookup().lastMirrored(source, leader, topic, topicId, partition),
            definition -> new SourceCluster(definition, "broker-" + id + "-mirror-" + definition.name(), timeoutMs),
            coordinatorConfig, time::milliseconds);
        mirrorCoordinator.injectLinkDelay(config.getDouble(BrokerConfig.MIRROR_LINK_INJECTED_DELAY_MS_CONFIG));
        mirrorCoordinator.configureSync(config.getShort(BrokerConfig.MIRROR_SYNC_VERSION_CONFIG),
            config.getLong(BrokerConfig.MIRROR_SYNC_TOPIC_DEMOTE_TIMEOUT_MS_CONFIG));
        mirrorMetrics = MirrorMetrics.forCoordinator(id, mirrorCoordinator, ManagementFactory.getPlatformMBeanServer(),
            time::milliseconds);
        mirrorApis = new MirrorApis(id, metadata::image, mirrorCoordinator, mirrorController, mirrorMetadataManager,
            forwarder, timeoutMs, replicas, () -> ensureMirrorStateTopic(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG,
                TopicConfig.CLEANUP_POLICY_COMPACT)), metadata::await,
            WireSecurity.forClientConfigs(config.security().clientConfigs(config.interBrokerListener().name())),
            WireSecurity.forClientConfigs(config.security().controllerClientConfigs()));
        apis[0] = mirrorApis;
    }

    /**
     * The replica manager's metadata listener that also wakes the mirror coordinator when a mirror topic's
     * partition or config changes (a failover's RemoveTopicsFromMirror, a new leader), so it acts without waiting
     * for its next tick.
     */
    private final class MirrorAwareListener implements MetadataListener
    {
        @Override
        public void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
        {
            replicas.onPartitionChanged(state, topicConfig);
            wakeMirrorCoordinator(topicConfig);
        }

        @Override
        public void onPartitionRemoved(final TopicPartition partition)
        {
            replicas.onPartitionRemoved(partition);
        }

        @Override
        public void onTopicConfigChanged(final String topic, final Map<String, String> topicConfig)
        {
            replicas.onTopicConfigChanged(topic, topicConfig);
            wakeMirrorCoordinator(topicConfig);
        }

        @Override
        public void onSyncRegistrationChanged(final Uuid topicId)
        {
            replicas.onSyncRegistrationChanged(topicId);
        }

        private void wakeMirrorCoordinator(final Map<String, String> topicConfig)
        {
            final MirrorCoordinator coordinator = mirrorCoordinator;
            if (coordinator != null && MirrorTopicConfig.isMirrorTopic(topicConfig))
            {
                coordinator.wakeup();
            }
        }
    }

    /** The mirror fetchers' settings: consumer-type fetches (replica id -1), throttled to the mirror rate. */
    private FetcherConfig mirrorFetcherConfig()
    {
        final long rate = config.getLong(BrokerConfig.MIRROR_REPLICATION_THROTTLED_RATE_CONFIG);
        final int maxBytes = (int)Math.min(config.getInt(BrokerConfig.REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG),
            Math.max(1024L, rate));
        final int partitionMaxBytes = Math.min(maxBytes, config.getInt(BrokerConfig.REPLICA_FETCH_MAX_BYTES_CONFIG));
        return new FetcherConfig(-1, -1L, config.getInt(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS_CONFIG),
            FetcherConfig.REPLICA_FETCH_MIN_BYTES_DEFAULT, maxBytes, partitionMaxBytes,
            Math.max(1, config.getInt(BrokerConfig.REPLICA_FETCH_BACKOFF_MS_CONFIG)),
            FetcherConfig.REQUEST_TIMEOUT_MS_DEFAULT, ApiKeys.FETCH.latestVersion());
    }

    /** Authentications (TLS handshakes, SASL logins) that failed on this broker's listeners since it started. */
    public long failedAuthentications()
    {
        return socketServer.failedAuthentications();
    }

    /**
     * Kafka client settings for the clients this broker runs against its own cluster: its own (first advertised)
     * listener as {@code bootstrap.servers}, and that listener's security settings.
     */
    private Map<String, Object> ownClusterClientConfigs()
    {
        final BrokerConfig.Listener advertised = config.interBrokerListener();
        final Map<String, Object> client = new HashMap<>(config.security().clientConfigs(advertised.name()));
        client.put("bootstrap.servers", advertised.host() + ":" + advertisedPort(advertised));
        return client;
    }

    /** An advertised listener's port: the one bound when it was configured as 0 (an ephemeral port). */
    private int advertisedPort(final BrokerConfig.Listener advertised)
    {
        return advertised.port() == 0 ? socketServer.boundPort(advertised.name()) : advertised.port();
    }

    private int ensureMirrorStateTopic(final Map<String, String> topicConfig) throws Exception
    {
        final int live = Math.max(1, metadata.image().liveBrokers().size());
        final short rf = (short)Math.min(live,
            config.getShort(BrokerConfig.MIRROR_STATE_TOPIC_REPLICATION_FACTOR_CONFIG));
        return metadataApis.ensureTopic(TopicMirrorStateStore.TOPIC,
            config.getInt(BrokerConfig.MIRROR_STATE_TOPIC_PARTITIONS_CONFIG), rf, topicConfig)
            .get(config.getInt(BrokerConfig.MIRROR_REQUEST_TIMEOUT_MS_CONFIG), TimeUnit.MILLISECONDS)
            .partitions().size();
    }

    private FetcherConfig fetcherConfig()
    {
        return new FetcherConfig(config.nodeId(), -1L, config.getInt(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS_CONFIG),
            FetcherConfig.REPLICA_FETCH_MIN_BYTES_DEFAULT,
            config.getInt(BrokerConfig.REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG),
            config.getInt(BrokerConfig.REPLICA_FETCH_MAX_BYTES_CONFIG),
            Math.max(1, config.getInt(BrokerConfig.REPLICA_FETCH_BACKOFF_MS_CONFIG)),
            FetcherConfig.REQUEST_TIMEOUT_MS_DEFAULT, ApiKeys.FETCH.latestVersion());
    }

    private long brokerEpoch()
    {
        final BrokerLifecycleManager manager = lifecycle;
        return manager == null ? -1L : manager.brokerEpoch();
    }

    private CompletableFuture<Void> ensureTopic(final String topic, final int partitions, final short rf,
        final Map<String, String> topicConfig)
    {
        return metadataApis.ensureTopic(topic, partitions, rf, topicConfig).thenApply(ignored -> null);
    }

    private interface Handler
    {
        CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request);
    }

    private interface Versions
    {
        short of(ApiKeys key);
    }

    private static ApiGroup group(final Versions max, final Versions min, final Handler handler)
    {
        return new ApiGroup()
        {
            @Override
            public short maxVersion(final ApiKeys key)
            {
                return max.of(key);
            }

            @Override
            public short minVersion(final ApiKeys key)
            {
                return min.of(key);
            }

            @Override
            public CompletableFuture<AbstractResponse> handle(final RequestContext context,
                final AbstractRequest request)
            {
                return handler.handle(context, request);
            }
        };
    }

    /** Waits until the broker is registered, unfenced and caught up with the metadata log. */
    public void awaitReady(final long timeoutMs)
    {
        try
        {
            lifecycle.awaitRegisteredAndCaughtUp(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for broker " + nodeId(), ex);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            throw new IllegalStateException("broker " + nodeId() + " not ready after " + timeoutMs + " ms", ex);
        }
    }

    public int boundPort()
    {
        return socketServer.boundPort(config.listeners().get(0).name());
    }

    /**
     * Holds back how far this broker follows the metadata log (tests of metadata propagation lag); completes once
     * the hold is in force (for FETCH: no metadata fetch is on its way any more).
     */
    public java.util.concurrent.CompletableFuture<Void> holdMetadata(final BrokerLifecycleManager.MetadataHold hold)
    {
        return lifecycle.hold(hold);
    }

    /** Stops following leaders (a stalled follower), for ISR tests. */
    public void pauseReplication()
    {
        fetchers.paused(true);
    }

    public void resumeReplication()
    {
        fetchers.paused(false);
    }

    /** Stops cleanly: controlled shutdown, checkpoints, logs closed cleanly. */
    @Override
    public synchronized void close()
    {
        if (!running)
        {
            return;
        }
        running = false;
        if (lifecycle != null)
        {
            try
            {
                lifecycle.controlledShutdown().get(5, TimeUnit.SECONDS);
            }
            catch (final Exception ex)
            {
                LOG.info("broker {}: controlled shutdown not acknowledged ({}); stopping anyway", nodeId(),
                    ex.toString());
            }
        }
        stopParts(false);
        LOG.info("broker {} stopped", nodeId());
    }

    /** Stops as a crash would, in this JVM: no controlled shutdown, no checkpoint, no clean-shutdown marker. */
    public synchronized void kill()
    {
        if (!running)
        {
            return;
        }
        running = false;
        stopParts(true);
        LOG.info("broker {} killed", nodeId());
    }

    /**
     * {@code apis} behind the authorizer's checks, or as they are when no authorizer is configured; on the
     * controller listener every request but DescribeCluster and DescribeQuorum is a broker's or a voter's.
     */
    private RequestHandler authorized(final RequestHandler apis, final boolean controllerListener)
    {
        return authorizer == null ? apis : new RequestAuthorization(apis, authorizer,
            topicId -> metadata.topic(topicId).map(TopicMetadata::name).orElse(null),
            name -> metadata.image().topic(name).isPresent(), controllerListener);
    }

    private void stopParts(final boolean crash)
    {
        closeQuietly(mirrorMetrics);
        closeQuietly(mirrorCoordinator);
        closeQuietly(mirrorMetadataManager);
        closeQuietly(mirrorApis);
        // Before the socket server: a leaving leader resigns, and the others' votes still reach it.
        closeQuietly(quorum);
        closeQuietly(socketServer);
        closeQuietly(lifecycle);
        closeQuietly(coordinators);
        closeQuietly(groupCoordinator);
        closeQuietly(imageBridge);
        closeQuietly(replicas);
        closeQuietly(controllerApis);
        closeQuietly(activeController);
        closeQuietly(quorumLeader);
        closeQuietly(clients);
        closeQuietly(controllerClients);
        closeQuietly(authorizer);
        if (crash && logs instanceof DurableLogStore durable)
        {
            durable.crash();
        }
        else
        {
            closeQuietly(logs);
        }
    }

    private void closeQuietly(final AutoCloseable closeable)
    {
        if (closeable == null)
        {
            return;
        }
        try
        {
            closeable.close();
        }
        catch (final Exception ex)
        {
            LOG.warn("broker {}: closing {} failed", nodeId(), closeable.getClass().getSimpleName(), ex);
        }
    }

    /**
     * Adds a receiver of each round trip, in nanoseconds, of this broker's mirror report requests to source
     * brokers: the mirror link's RTT as the sync path sees it (benchmarks print it beside the ack latency).
     */
    public void mirrorLinkRoundTrips(final java.util.function.LongConsumer nanosSink)
    {
        mirrorCoordinator.linkRoundTrips(nanosSink);
    }
}
