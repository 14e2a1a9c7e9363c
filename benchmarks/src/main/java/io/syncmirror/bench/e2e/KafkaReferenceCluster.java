package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * Real Apache Kafka 4.4 brokers started in this JVM, the baseline of the end-to-end latency harness: 1 to
 * {@link #MAX_NODES} nodes in KRaft combined mode (each node is both broker and controller, so 3 nodes form a
 * 3-voter quorum), each with its own log directory on disk, listening on 127.0.0.1 only. Safe to call from one
 * thread at a time; {@link #close()} stops every broker thread and deletes every directory.
 *
 * <p>Each node's storage is formatted the way {@code kafka-storage.sh format} does it (Kafka's {@link Formatter},
 * a static voter set in {@code controller.quorum.voters}), then every node starts on its own thread: a combined
 * node's startup waits for the controller quorum, which needs a majority of the voters running.
 *
 * <p>Brokers keep Kafka's defaults except where one machine needs otherwise: internal topics get a replication
 * factor the node count allows, automatic topic creation is off (the harness creates its topic explicitly), and
 * the group coordinator does not delay the first rebalance. Ports are picked free at start: a port picked may be
 * taken by another process before the broker binds it, in which case {@link #start} fails and is worth retrying.
 */
public final class KafkaReferenceCluster implements ClusterUnderTest
{
    /** The name the harness prints for this system. */
    public static final String NAME = "kafka";
    /** The same system with its client listener and inter-broker links in TLS. */
    public static final String TLS_NAME = "kafka-tls";
    /** The largest cluster this class starts: every node is a voter, and larger quorums only add load here. */
    public static final int MAX_NODES = 5;
    /** How long {@link #start} waits for every node to start and register as an unfenced broker. */
    public static final long STARTUP_TIMEOUT_MS = 120_000L;
    /** How long {@link #close()} waits for the nodes to shut down. */
    public static final long SHUTDOWN_TIMEOUT_MS = 60_000L;

    private static final String HOST = "127.0.0.1";
    private static final String BROKER_LISTENER = "PLAINTEXT";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";

    private final Path rootDir;
    private final List<KafkaRaftServer> servers;
    private final String bootstrapServers;
    private final String name;
    private final Map<String, Object> clientConfigs;
    private boolean closed;

    private KafkaReferenceCluster(final Path rootDir, final List<KafkaRaftServer> servers,
        final String bootstrapServers, final String name, final Map<String, Object> clientConfigs)
    {
        this.rootDir = rootDir;
        this.servers = servers;
        this.bootstrapServers = bootstrapServers;
        this.name = name;
        this.clientConfigs = Map.copyOf(clientConfigs);
    }

    /**
     * The cluster in TLS, named {@value #TLS_NAME}: {@code tls}'s broker settings on every node, its client settings
     * for every client (the startup check's, the harness's).
     */
    public static KafkaReferenceCluster startTls(final int nodes, final TlsSetup tls) throws Exception
    {
        return start(nodes, tls.brokerOverrides(), TLS_NAME, tls.clientConfigs());
    }

    /**
     * Formats and starts {@code nodes} combined broker+controller nodes and returns once all of them are
     * registered, unfenced brokers. On failure everything started is stopped and the directories are deleted.
     */
    public static KafkaReferenceCluster start(final int nodes) throws Exception
    {
        return start(nodes, Map.of());
    }

    /**
     * As {@link #start(int)}, with broker config overrides applied to every node after the defaults this class
     * sets (listeners, node ids, the quorum and the log directories cannot be overridden).
     */
    public static KafkaReferenceCluster start(final int nodes, final Map<String, String> brokerOverrides)
        throws Exception
    {
        return start(nodes, brokerOverrides, NAME, Map.of());
    }

    private static KafkaReferenceCluster start(final int nodes, final Map<String, String> brokerOverrides,
        final String name, final Map<String, Object> clientConfigs) throws Exception
    {
        if (nodes < 1 || nodes > MAX_NODES)
        {
            throw new IllegalArgumentException("nodes must be 1.." + MAX_NODES + ": " + nodes);
        }
        final Path rootDir = Files.createTempDirectory("syncmirror-kafka-");
        final List<KafkaRaftServer> started = new ArrayList<>();
        try
        {
            final int[] brokerPorts = new int[nodes];
            final int[] controllerPorts = new int[nodes];
            pickFreePorts(brokerPorts, controllerPorts);

            final StringJoiner voters = new StringJoiner(",");
            final StringJoiner bootstrap = new StringJoiner(",");
            for (int node = 0; node < nodes; node++)
            {
                voters.add(node + "@" + HOST + ":" + controllerPorts[node]);
                bootstrap.add(HOST + ":" + brokerPorts[node]);
            }

            final String clusterId = Uuid.randomUuid().toString();
            final List<KafkaConfig> configs = new ArrayList<>(nodes);
            for (int node = 0; node < nodes; node++)
            {
                final Path logDir = Files.createDirectories(rootDir.resolve("node-" + node));
                final KafkaConfig config = KafkaConfig.fromProps(brokerProperties(node, nodes, brokerPorts[node],
                    controllerPorts[node], voters.toString(), logDir, brokerOverrides), false);
                format(clusterId, node, logDir);
                configs.add(config);
            }

            startAll(configs, started);
            final KafkaReferenceCluster cluster = new KafkaReferenceCluster(rootDir, started, bootstrap.toString(),
                name, clientConfigs);
            cluster.awaitBrokersRegistered(nodes);
            return cluster;
        }
        catch (final Exception | Error ex)
        {
            try
            {
                shutdownAll(started);
            }
            catch (final RuntimeException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            deleteRecursively(rootDir);
            throw ex;
        }
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public Map<String, Object> clientConfigs()
    {
        return clientConfigs;
    }

    @Override
    public String bootstrapServers()
    {
        return bootstrapServers;
    }

    /** The number of nodes (each a broker and a controller). */
    public int nodeCount()
    {
        return servers.size();
    }

    /** The directory that holds every node's log directory; deleted by {@link #close()}. */
    public Path rootDir()
    {
        return rootDir;
    }

    /** Stops every node, waiting up to {@link #SHUTDOWN_TIMEOUT_MS}, and deletes all their storage. Idempotent. */
    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            shutdownAll(servers);
        }
        finally
        {
            deleteRecursively(rootDir);
        }
    }

    static Properties brokerProperties(final int nodeId, final int nodes, final int brokerPort,
        final int controllerPort, final String voters, final Path logDir, final Map<String, String> overrides)
    {
        final int internalReplicationFactor = Math.min(3, nodes);
        final int internalMinIsr = internalReplicationFactor >= 3 ? 2 : 1;
        final Properties props = new Properties();
        props.putAll(overrides);
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(nodeId));
        props.put("controller.quorum.voters", voters);
        props.put("controller.listener.names", CONTROLLER_LISTENER);
        props.put("inter.broker.listener.name", BROKER_LISTENER);
        props.put("listeners", BROKER_LISTENER + "://" + HOST + ":" + brokerPort + "," +
            CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        props.put("advertised.listeners", BROKER_LISTENER + "://" + HOST + ":" + brokerPort);
        props.putIfAbsent("listener.security.protocol.map", BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER +
            ":PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        props.put("metadata.log.dir", logDir.toString());
        props.putIfAbsent("auto.create.topics.enable", "false");
        props.putIfAbsent("group.initial.rebalance.delay.ms", "0");
        props.putIfAbsent("default.replication.factor", Integer.toString(internalReplicationFactor));
        props.putIfAbsent("offsets.topic.replication.factor", Integer.toString(internalReplicationFactor));
        props.putIfAbsent("offsets.topic.num.partitions", "1");
        props.putIfAbsent("transaction.state.log.replication.factor", Integer.toString(internalReplicationFactor));
        props.putIfAbsent("transaction.state.log.min.isr", Integer.toString(internalMinIsr));
        props.putIfAbsent("transaction.state.log.num.partitions", "1");
        props.putIfAbsent("share.coordinator.state.topic.replication.factor",
            Integer.toString(internalReplicationFactor));
        props.putIfAbsent("share.coordinator.state.topic.min.isr", Integer.toString(internalMinIsr));
        return props;
    }

    /** Writes meta.properties and the bootstrap metadata into {@code logDir}, as {@code kafka-storage.sh format}. */
    private static void format(final String clusterId, final int nodeId, final Path logDir) throws Exception
    {
        try (PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
        {
            new Formatter()
                .setPrintStream(quiet)
                .setClusterId(clusterId)
                .setNodeId(nodeId)
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setMetadataLogDirectory(logDir.toString())
                .setDirectories(List.of(logDir.toString()))
                .run();
        }
    }

    /**
     * Creates the nodes in order (into {@code started}, so that a failure stops them), then starts each on its own
     * thread: a voter's startup blocks until a majority of the voters is up.
     */
    private static void startAll(final List<KafkaConfig> configs, final List<KafkaRaftServer> started)
        throws Exception
    {
        for (final KafkaConfig config : configs)
        {
            started.add(new KafkaRaftServer(config, Time.SYSTEM));
        }
        final ExecutorService starter = Executors.newFixedThreadPool(configs.size(), (task) ->
        {
            final Thread thread = new Thread(task, "kafka-reference-starter");
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            final List<Future<?>> futures = new ArrayList<>(configs.size());
            for (final KafkaRaftServer server : List.copyOf(started))
            {
                futures.add(starter.submit(() ->
                {
                    server.startup();
                    return null;
                }));
            }
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STARTUP_TIMEOUT_MS);
            for (final Future<?> future : futures)
            {
                future.get(Math.max(0L, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause() instanceof Exception cause ? cause : ex;
        }
        finally
        {
            starter.shutdownNow();
        }
    }

    /**
     * Shuts every node down at once: shutting voters down one by one would leave the last ones without a quorum,
     * waiting for a controlled shutdown no controller can grant.
     */
    private static void shutdownAll(final List<KafkaRaftServer> servers)
    {
        final List<KafkaRaftServer> toStop = List.copyOf(servers);
        if (toStop.isEmpty())
        {
            return;
        }
        final ExecutorService stopper = Executors.newFixedThreadPool(toStop.size(), (task) ->
        {
            final Thread thread = new Thread(task, "kafka-reference-stopper");
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            final List<Future<?>> futures = new ArrayList<>(toStop.size());
            for (final KafkaRaftServer server : toStop)
            {
                futures.add(stopper.submit(() ->
                {
                    server.shutdown();
                    server.awaitShutdown();
                    return null;
                }));
            }
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_TIMEOUT_MS);
            RuntimeException failure = null;
            for (final Future<?> future : futures)
            {
                try
                {
                    future.get(Math.max(0L, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    failure = new IllegalStateException("interrupted while shutting Kafka down", ex);
                    break;
                }
                catch (final ExecutionException | TimeoutException ex)
                {
                    if (failure == null)
                    {
                        failure = new IllegalStateException("a Kafka node did not shut down cleanly", ex);
                    }
                }
            }
            if (failure != null)
            {
                throw failure;
            }
        }
        finally
        {
            stopper.shutdownNow();
        }
    }

    /** Waits until the cluster reports {@code nodes} brokers: each has registered and been unfenced. */
    private void awaitBrokersRegistered(final int nodes) throws Exception
    {
        final Map<String, Object> adminConfig = new HashMap<>(clientConfigs);
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "kafka-reference-startup");
        try (Admin admin = Admin.create(adminConfig))
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STARTUP_TIMEOUT_MS);
            while (admin.describeCluster().nodes().get(STARTUP_TIMEOUT_MS, TimeUnit.MILLISECONDS).size() < nodes)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new TimeoutException("fewer than " + nodes + " Kafka brokers registered after " +
                        STARTUP_TIMEOUT_MS + " ms");
                }
                Thread.sleep(50L);
            }
        }
    }

    /** Fills both arrays with distinct ports free on 127.0.0.1, holding them all open until all are picked. */
    private static void pickFreePorts(final int[] brokerPorts, final int[] controllerPorts) throws IOException
    {
        final List<ServerSocket> held = new ArrayList<>();
        try
        {
            final InetAddress loopback = InetAddress.getByName(HOST);
            for (int i = 0; i < brokerPorts.length; i++)
            {
                brokerPorts[i] = hold(held, loopback);
                controllerPorts[i] = hold(held, loopback);
            }
        }
        finally
        {
            for (final ServerSocket socket : held)
            {
                socket.close();
            }
        }
    }

    private static int hold(final List<ServerSocket> held, final InetAddress address) throws IOException
    {
        final ServerSocket socket = new ServerSocket(0, 1, address);
        held.add(socket);
        return socket.getLocalPort();
    }

    static void deleteRecursively(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            final List<Path> deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
            for (final Path path : deepestFirst)
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
