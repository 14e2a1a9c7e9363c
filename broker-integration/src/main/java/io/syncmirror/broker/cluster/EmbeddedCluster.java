package io.syncmirror.broker.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.storage.internals.log.CleanerConfig;

import io.syncmirror.broker.server.BrokerConfig;
import io.syncmirror.broker.server.BrokerServer;

/**
 * N brokers of the reference broker in this JVM on loopback, for tests and benchmarks: nodes 1..V (1 by
 * {@link #start}, 1, 3 or 5 by {@link #startWithQuorum}) are also the voters of the metadata quorum, each with a
 * CONTROLLER listener of its own; the other nodes are brokers only. Each broker has its own port and log directory under one temp directory, deleted on
 * {@link #close()}. Brokers can be stopped cleanly, killed (no clean shutdown, as after SIGKILL), restarted on
 * the same log directory, and have their replication paused. Thread-safety: one controlling thread.
 */
public final class EmbeddedCluster implements AutoCloseable
{
    private final int size;
    private final Path root;
    private final boolean ownsRoot;
    private final Map<String, String> overrides;
    private final int[] ports;
    /** Voters of the metadata quorum: nodes 1..voters. */
    private final int voters;
    private final int[] controllerPorts;
    /** A second client listener on every node (its name), or null; its ports are {@link #extraPorts}. */
    private final String extraListener;
    private final int[] extraPorts;
    private final BrokerServer[] brokers;

    private EmbeddedCluster(final int size, final int voters, final Path root, final boolean ownsRoot,
        final Map<String, String> overrides, final String extraListener)
    {
        this.extraListener = extraListener;
        this.extraPorts = new int[extraListener == null ? 0 : size];
        for (int i = 0; i < extraPorts.length; i++)
        {
            extraPorts[i] = ListenerPorts.next();
        }
        this.size = size;
        this.voters = voters;
        this.root = root;
        this.ownsRoot = ownsRoot;
        this.overrides = overrides;
        this.ports = new int[size];
        this.controllerPorts = new int[voters];
        this.brokers = new BrokerServer[size];
        for (int i = 0; i < size; i++)
        {
            ports[i] = ListenerPorts.next();
        }
        for (int i = 0; i < voters; i++)
        {
            controllerPorts[i] = ListenerPorts.next();
        }
    }

    /**
     * Starts {@code size} brokers, node 1 also the one voter of the metadata quorum. {@code overrides} are
     * server.properties keys applied to every broker (e.g. {@code min.insync.replicas},
     * {@code syncmirror.log.storage=memory}).
     */
    public static EmbeddedCluster start(final int size, final Map<String, String> overrides)
    {
        return start(size, 1, overrides);
    }

    /**
     * Starts {@code size} brokers whose controller is replicated: nodes 1..{@code voters} (1, 3 or 5) are also
     * voters of the metadata quorum, with short Raft timeouts (elections in well under a second).
     */
    public static EmbeddedCluster startWithQuorum(final int size, final int voters, final Map<String, String> overrides)
    {
        if (voters < 1 || voters > size)
        {
            throw new IllegalArgumentException(voters + " voters among " + size + " nodes");
        }
        return start(size, voters, overrides);
    }

    /**
     * Starts {@code size} brokers (node 1 the one voter) with a second client listener named {@code extraListener}
     * beside PLAINTEXT on every node, advertised too: its protocol comes from {@code overrides}'
     * {@code listener.security.protocol.map}, and {@link #bootstrapServers(String)} names its addresses.
     */
    public static EmbeddedCluster startWithListener(final int size, final String extraListener,
        final Map<String, String> overrides)
    {
        return start(size, 1, overrides, Objects.requireNonNull(extraListener, "extraListener"));
    }

    private static EmbeddedCluster start(final int size, final int voters, final Map<String, String> overrides)
    {
        return start(size, voters, overrides, null);
    }

    private static EmbeddedCluster start(final int size, final int voters, final Map<String, String> overrides,
        final String extraListener)
    {
        final Path root;
        try
        {
            root = Files.createTempDirectory("syncmirror-cluster");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final EmbeddedCluster cluster = new EmbeddedCluster(size, voters, root, true, Map.copyOf(overrides),
            extraListener);
        try
        {
            for (int node = 1; node <= size; node++)
            {
                cluster.startBroker(node);
            }
            cluster.awaitBrokersRegistered();
        }
        catch (final RuntimeException ex)
        {
            cluster.close();
            throw ex;
        }
        return cluster;
    }

    public int size()
    {
        return size;
    }

    /** host:port of every broker, for a client's bootstrap.servers. */
    public String bootstrapServers()
    {
        final StringJoiner joiner = new StringJoiner(",");
        for (int i = 0; i < size; i++)
        {
            joiner.add("127.0.0.1:" + ports[i]);
        }
        return joiner.toString();
    }

    /** host:port of every broker's {@code listener} (PLAINTEXT, or the one {@link #startWithListener} added). */
    public String bootstrapServers(final String listener)
    {
        if (!listener.equals(extraListener))
        {
            return bootstrapServers();
        }
        final StringJoiner joiner = new StringJoiner(",");
        for (final int port : extraPorts)
        {
            joiner.add("127.0.0.1:" + port);
        }
        return joiner.toString();
    }

    /** The broker with {@code nodeId} (1-based), or null while it is stopped. */
    public BrokerServer broker(final int nodeId)
    {
        return brokers[nodeId - 1];
    }

    public int port(final int nodeId)
    {
        return ports[nodeId - 1];
    }

    /** The CONTROLLER listener's port of voter {@code nodeId}. */
    public int controllerPort(final int nodeId)
    {
        return controllerPorts[nodeId - 1];
    }

    public Path logDir(final int nodeId)
    {
        return root.resolve("broker-" + nodeId);
    }

    /** The server.properties of broker {@code nodeId}. */
    public Properties properties(final int nodeId)
    {
        final Properties props = new Properties();
        props.put(BrokerConfig.NODE_ID_CONFIG, Integer.toString(nodeId));
        final boolean voter = nodeId <= voters;
        props.put(BrokerConfig.PROCESS_ROLES_CONFIG, voter ? "broker,controller" : "broker");
        final String extra = extraListener == null ? "" :
            "," + extraListener + "://127.0.0.1:" + extraPorts[nodeId - 1];
        props.put(BrokerConfig.LISTENERS_CONFIG, "PLAINTEXT://127.0.0.1:" + ports[nodeId - 1] + extra
            + (voter ? ",CONTROLLER://127.0.0.1:" + controllerPorts[nodeId - 1] : ""));
        props.put(BrokerConfig.CONTROLLER_LISTENER_NAMES_CONFIG, "CONTROLLER");
        final StringJoiner quorum = new StringJoiner(",");
        for (int v = 1; v <= voters; v++)
        {
            quorum.add(v + "@127.0.0.1:" + controllerPorts[v - 1]);
        }
        props.put(BrokerConfig.CONTROLLER_VOTERS_CONFIG, quorum.toString());
        props.put("controller.quorum.election.timeout.ms", "500");
        props.put("controller.quorum.fetch.timeout.ms", "1000");
        props.put("controller.quorum.election.backoff.max.ms", "200");
        props.put(BrokerConfig.LOG_DIRS_CONFIG, logDir(nodeId).toString());
        final int rf = Math.min(3, size);
        props.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG, Integer.toString(rf));
        props.put(BrokerConfig.TXN_TOPIC_REPLICATION_FACTOR_CONFIG, Integer.toString(rf));
        props.put(BrokerConfig.TXN_TOPIC_MIN_ISR_CONFIG, Integer.toString(Math.min(2, rf)));
        props.put(BrokerConfig.OFFSETS_TOPIC_PARTITIONS_CONFIG, "5");
        props.put(BrokerConfig.TXN_TOPIC_PARTITIONS_CONFIG, "5");
        props.put(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        props.put(BrokerConfig.BROKER_SESSION_TIMEOUT_MS_CONFIG, "3000");
        props.put(BrokerConfig.REPLICA_FETCH_BACKOFF_MS_CONFIG, "100");
        // Kafka's own test brokers take 2 MiB: the 128 MiB default is allocated on the heap for every broker.
        props.put(CleanerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE_PROP, Integer.toString(2 * 1024 * 1024));
        props.putAll(overrides);
        return props;
    }

    /** Starts (or restarts, on the same log directory) broker {@code nodeId}. */
    public BrokerServer startBroker(final int nodeId)
    {
        if (brokers[nodeId - 1] != null)
        {
            throw new IllegalStateException("broker " + nodeId + " is running");
        }
        final BrokerServer broker = new BrokerServer(BrokerConfig.fromProperties(properties(nodeId)));
        broker.start();
        brokers[nodeId - 1] = broker;
        return broker;
    }

    /** Stops broker {@code nodeId} cleanly (checkpoints, clean-shutdown marker). */
    public void stopBroker(final int nodeId)
    {
        final BrokerServer broker = brokers[nodeId - 1];
        brokers[nodeId - 1] = null;
        if (broker != null)
        {
            broker.close();
        }
    }

    /** Stops broker {@code nodeId} as a crash would: no checkpoint, no clean-shutdown marker. */
    public void killBroker(final int nodeId)
    {
        final BrokerServer broker = brokers[nodeId - 1];
        brokers[nodeId - 1] = null;
        if (broker != null)
        {
            broker.kill();
        }
    }

    /**
     * The running voter that is the quorum's active controller, waited for up to {@code timeoutMs} (an election
     * may be under way).
     */
    public int awaitActiveController(final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline)
        {
            for (int node = 1; node <= voters; node++)
            {
                final BrokerServer broker = brokers[node - 1];
                if (broker != null && broker.isActiveController())
                {
                    return node;
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no active controller among the voters after " + timeoutMs + " ms");
    }

    /** Waits until every running broker is registered, unfenced and has caught up with the metadata log. */
    public void awaitBrokersRegistered()
    {
        for (final BrokerServer broker : brokers)
        {
            if (broker != null)
            {
                broker.awaitReady(30_000);
            }
        }
    }

    @Override
    public void close()
    {
        final List<RuntimeException> failures = new ArrayList<>();
        for (int node = size; node >= 1; node--)
        {
            try
            {
                stopBroker(node);
            }
            catch (final RuntimeException ex)
            {
                failures.add(ex);
            }
        }
        if (ownsRoot)
        {
            deleteRecursively(root);
        }
        if (!failures.isEmpty())
        {
            throw failures.get(0);
        }
    }

    /** Settings for an in-memory cluster (benchmarks at many partitions). */
    public static Map<String, String> memoryStorage()
    {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.LOG_STORAGE_CONFIG, BrokerConfig.LOG_STORAGE_MEMORY);
        return settings;
    }

    private static void deleteRecursively(final Path path)
    {
        if (!Files.exists(path))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(path))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
