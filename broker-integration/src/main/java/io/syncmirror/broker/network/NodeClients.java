package io.syncmirror.broker.network;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.utils.Time;

/**
 * The broker's clients to other nodes (the controller, partition leaders, transaction marker targets), one
 * {@link KafkaNodeClient} per target endpoint, created on first use. Thread-safe.
 *
 * <p>A target is a node id with its host and port, so a node that re-registers at a new endpoint gets a fresh
 * client; the owner {@link #remove}s the old one when metadata says it is gone.
 */
public final class NodeClients implements AutoCloseable
{
    private final NodeClientConfig config;
    private final Map<String, ?> securityConfigs;
    private final Time time;
    private final ConcurrentHashMap<Target, KafkaNodeClient> clients = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public NodeClients(final NodeClientConfig config)
    {
        this(config, Map.of(), Time.SYSTEM);
    }

    public NodeClients(final NodeClientConfig config, final Time time)
    {
        this(config, Map.of(), time);
    }

    /** Clients whose connections use Kafka client security settings: those of the listener they connect to. */
    public NodeClients(final NodeClientConfig config, final Map<String, ?> securityConfigs, final Time time)
    {
        this.config = Objects.requireNonNull(config, "config");
        this.securityConfigs = Map.copyOf(securityConfigs);
        this.time = Objects.requireNonNull(time, "time");
    }

    /** The Kafka client security settings these clients' connections use (empty for plaintext). */
    public Map<String, ?> securityConfigs()
    {
        return securityConfigs;
    }

    /** The client to {@code nodeId} at {@code host:port}, started (and connecting) on first request. */
    public NodeClient get(final int nodeId, final String host, final int port)
    {
        if (closed)
        {
            throw new IllegalStateException("node clients are closed");
        }
        final KafkaNodeClient client = clients.computeIfAbsent(new Target(nodeId, host, port),
            target -> KafkaNodeClient.start(new Node(nodeId, host, port), config, time, securityConfigs));
        if (closed)
        {
            // Raced with close(): make sure nothing started after it survives.
            closeAll();
            throw new IllegalStateException("node clients are closed");
        }
        return client;
    }

    /** Closes and forgets the client to {@code nodeId} at {@code host:port}, if there is one. */
    public void remove(final int nodeId, final String host, final int port)
    {
        final KafkaNodeClient client = clients.remove(new Target(nodeId, host, port));
        if (client != null)
        {
            client.close();
        }
    }

    /** Closes every client; outstanding requests fail with DisconnectException. Idempotent. */
    @Override
    public void close()
    {
        closed = true;
        closeAll();
    }

    private void closeAll()
    {
        final List<Target> targets = new ArrayList<>(clients.keySet());
        for (final Target target : targets)
        {
            final KafkaNodeClient client = clients.remove(target);
            if (client != null)
            {
                client.close();
            }
        }
    }

    /** A node at one endpoint. */
    public record Target(int nodeId, String host, int port)
    {
    }
}
