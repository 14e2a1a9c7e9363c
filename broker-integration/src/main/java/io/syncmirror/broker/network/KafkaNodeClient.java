package io.syncmirror.broker.network;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.slf4j.Logger;

/**
 * A {@link NodeClient} over kafka-clients' own {@link NetworkClient}: one connection to one node (plaintext, or
 * secured with Kafka client settings),
 * version negotiation by ApiVersions on connect, reconnect with exponential backoff, request timeouts.
 * Thread-safe: {@link #send}, {@link #isReady} and {@link #close} may be called from any thread.
 *
 * <p>Threads: one I/O thread per client ({@code syncmirror-node-client-<clientId>-<nodeId>}, daemon, ended by
 * {@link #close}) owns the NetworkClient, which is not thread-safe. {@link #send} appends to a lock-free inbox
 * and wakes the selector; the I/O thread moves the inbox into NetworkClient when the connection is ready,
 * polls, and completes futures from NetworkClient's callbacks, on that thread. The thread parks in the
 * selector between events (no spinning): its poll timeout is the nearest of the connection's next backoff or
 * setup deadline and the oldest waiting request's deadline.
 *
 * <p>The connection is opened when the client starts and re-opened after every loss, whether or not requests
 * are waiting, so that {@link #isReady} says whether a send would go out now.
 *
 * <p>Failures: a request waiting for a connection fails with {@code DisconnectException} when a connection
 * attempt fails (so callers see an unreachable node after one attempt, not after request.timeout.ms), with Kafka's
 * {@code AuthenticationException} when the node refused the connection's TLS handshake or SASL login, or with
 * {@code TimeoutException} when it has waited request.timeout.ms. A sent request fails with
 * {@code DisconnectException} when the connection drops, {@code TimeoutException} after request.timeout.ms, or
 * {@code UnsupportedVersionException} when the node does not serve any version of it this client speaks.
 */
public final class KafkaNodeClient implements NodeClient
{
    private final Node node;
    private final String nodeKey;
    private final NodeClientConfig config;
    private final Time time;
    private final Logger log;
    private final Metrics metrics;
    private final NetworkClient client;
    private final Thread ioThread;
    private final ConcurrentLinkedQueue<Outgoing<?>> inbox = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;
    private volatile boolean terminated;
    private volatile boolean ready;

    // Owned by the I/O thread.
    private final ArrayDeque<Outgoing<?>> waiting = new ArrayDeque<>();
    private final Map<Outgoing<?>, Boolean> inFlight = new IdentityHashMap<>();
    private boolean connecting;

    private KafkaNodeClient(final Node node, final NodeClientConfig config, final Time time,
        final Map<String, ?> securityConfigs)
    {
        this.node = Objects.requireNonNull(node, "node");
        this.nodeKey = node.idString();
        this.config = Objects.requireNonNull(config, "config");
        this.time = Objects.requireNonNull(time, "time");
        final LogContext logContext = new LogContext(
            "[NodeClient clientId=" + config.clientId() + ", node=" + node.id() + " " + node.host() + ":" + node.port() + "] ");
        this.log = logContext.logger(KafkaNodeClient.class);
        this.metrics = new Metrics(time);
        this.client = newNetworkClient(node, config, time, metrics, logContext, securityConfigs);
        this.ioThread = new Thread(this::run, "syncmirror-node-client-" + config.clientId() + "-" + node.id());
        this.ioThread.setDaemon(true);
    }

    /**
     * A kafka-clients {@code NetworkClient} to {@code node}: plaintext, version discovery through ApiVersions on
     * connect, the config's timeouts and backoff. Shared by this class and {@link BlockingNodeClient}.
     */
    static NetworkClient newNetworkClient(final Node node, final NodeClientConfig config, final Time time,
        final Metrics metrics, final LogContext logContext)
    {
        return newNetworkClient(node, config, time, metrics, logContext, Map.of());
    }

    /**
     * As above, with Kafka client security settings ({@code security.protocol}, {@code ssl.*}, {@code sasl.*}):
     * a mirror's connection to its source cluster uses the settings the mirror was created with, a broker's
     * connection to another node those of the listener it connects to.
     */
    static NetworkClient newNetworkClient(final Node node, final NodeClientConfig config, final Time time,
        final Metrics metrics, final LogContext logContext, final Map<String, ?> securityConfigs)
    {
        final ChannelBuilder channelBuilder = channelBuilder(securityConfigs, node.host() + ":" + node.port(), time,
            logContext);
        final Selector selector = new Selector(
            config.connectionsMaxIdleMs(), metrics, time, "node-client", channelBuilder, logContext);
        return new NetworkClient(
            selector,
            new ManualMetadataUpdater(List.of(node)),
            config.clientId(),
            config.maxInFlightRequests(),
            config.reconnectBackoffMs(),
            config.reconnectBackoffMaxMs(),
            Selectable.USE_DEFAULT_BUFFER_SIZE,
            Selectable.USE_DEFAULT_BUFFER_SIZE,
            config.requestTimeoutMs(),
            config.connectionSetupTimeoutMs(),
            config.connectionSetupTimeoutMaxMs(),
            time,
            true,
            new ApiVersions(),
            logContext,
            MetadataRecoveryStrategy.NONE,
            BootstrapConfiguration.DISABLED,
            false);
    }

    /**
     * Kafka's channel builder for a client connection with {@code securityConfigs} (Kafka client settings; empty
     * for plaintext), built as Kafka's own clients build theirs, so TLS and SASL behave as in any Kafka client.
     */
    public static ChannelBuilder channelBuilder(final Map<String, ?> securityConfigs, final String target,
        final Time time, final LogContext logContext)
    {
        if (securityConfigs.isEmpty())
        {
            final ChannelBuilder plaintext = new PlaintextChannelBuilder(null);
            plaintext.configure(Map.of());
            return plaintext;
        }
        final Map<String, Object> props = new HashMap<>(securityConfigs);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target);
        return ClientUtils.createChannelBuilder(new AdminClientConfig(props), time, logContext);
    }

    /** Creates a client to {@code node} and starts its I/O thread, which connects at once. */
    public static KafkaNodeClient start(final Node node, final NodeClientConfig config)
    {
        return start(node, config, Time.SYSTEM);
    }

    /** As {@link #start(Node, NodeClientConfig)}, with the clock that timeouts and backoff are measured on. */
    public static KafkaNodeClient start(final Node node, final NodeClientConfig config, final Time time)
    {
        return start(node, config, time, Map.of());
    }

    /** As above, over a connection with Kafka client security settings (empty for plaintext). */
    public static KafkaNodeClient start(final Node node, final NodeClientConfig config, final Time time,
        final Map<String, ?> securityConfigs)
    {
        final KafkaNodeClient nodeClient = new KafkaNodeClient(node, config, time, securityConfigs);
        nodeClient.ioThread.start();
        return nodeClient;
    }

    /** The node this client talks to. */
    public Node node()
    {
        return node;
    }

    @Override
    public <R extends AbstractResponse> CompletableFuture<R> send(final AbstractRequest.Builder<?> request)
    {
        Objects.requireNonNull(request, "request");
        final CompletableFuture<R> future = new CompletableFuture<>();
        if (closed)
        {
            future.completeExceptionally(new DisconnectException("client to node " + nodeKey + " is closed"));
            return future;
        }
        inbox.add(new Outgoing<>(request, future, time.milliseconds() + config.requestTimeoutMs()));
        if (terminated)
        {
            // The I/O thread may have drained the inbox for the last time before the add above.
            failInbox(new DisconnectException("client to node " + nodeKey + " is closed"));
        }
        else
        {
            client.wakeup();
        }
        return future;
    }

    @Override
    public boolean isReady()
    {
        return ready;
    }

    /** Fails every outstanding request with DisconnectException, closes the connection and ends the I/O thread. */
    @Override
    public void close()
    {
        closed = true;
        client.wakeup();
        if (Thread.currentThread() != ioThread)
        {
            boolean interrupted = false;
            while (ioThread.isAlive())
            {
                try
                {
                    ioThread.join();
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run()
    {
        try
        {
            while (!closed)
            {
                runOnce();
            }
        }
        catch (final RuntimeException | Error e)
        {
            log.error("I/O thread failed; failing every request", e);
        }
        finally
        {
            shutdown();
        }
    }

    private void runOnce()
    {
        long nowMs = time.milliseconds();
        Outgoing<?> next;
        while ((next = inbox.poll()) != null)
        {
            waiting.addLast(next);
        }

        if (client.ready(node, nowMs))
        {
            connecting = false;
            while (!waiting.isEmpty() && client.isReady(node, nowMs))
            {
                sendNow(waiting.pollFirst(), nowMs);
            }
        }
        else if (!client.connectionFailed(node))
        {
            connecting = true;
        }
        expireWaiting(nowMs);
        ready = client.isReady(node, nowMs);

        client.poll(pollTimeoutMs(nowMs), nowMs);

        nowMs = time.milliseconds();
        if (connecting && client.connectionFailed(node))
        {
            connecting = false;
            // A refused TLS handshake or SASL login is Kafka's AuthenticationException: kept, so callers see why.
            final AuthenticationException refused = client.authenticationException(node);
            failWaiting(refused != null ? refused : new DisconnectException("connection to node " + nodeKey + " at "
                + node.host() + ":" + node.port() + " failed"));
        }
        ready = client.isReady(node, nowMs);
    }

    private long pollTimeoutMs(final long nowMs)
    {
        long timeoutMs = Math.max(0, client.connectionDelay(node, nowMs));
        final Outgoing<?> oldest = waiting.peekFirst();
        if (oldest != null)
        {
            timeoutMs = Math.min(timeoutMs, Math.max(0, oldest.deadlineMs - nowMs));
        }
        timeoutMs = Math.min(timeoutMs, config.requestTimeoutMs());
        // With reconnect.backoff.ms=0 and a target that refuses at once, a zero timeout would spin.
        return ready ? timeoutMs : Math.max(1, timeoutMs);
    }

    private void sendNow(final Outgoing<?> outgoing, final long nowMs)
    {
        final int remainingMs = (int)Math.max(1, outgoing.deadlineMs - nowMs);
        try
        {
            final ClientRequest request = client.newClientRequest(
                nodeKey, outgoing.builder, nowMs, true, remainingMs, response -> onResponse(outgoing, response));
            inFlight.put(outgoing, Boolean.TRUE);
            client.send(request, nowMs);
        }
        catch (final RuntimeException e)
        {
            inFlight.remove(outgoing);
            outgoing.fail(e);
        }
    }

    private void onResponse(final Outgoing<?> outgoing, final ClientResponse response)
    {
        inFlight.remove(outgoing);
        if (response.versionMismatch() != null)
        {
            outgoing.fail(response.versionMismatch());
        }
        else if (response.authenticationException() != null)
        {
            outgoing.fail(response.authenticationException());
        }
        else if (response.wasTimedOut())
        {
            outgoing.fail(new TimeoutException(outgoing.builder.apiKey() + " to node " + nodeKey + " got no response in " +
                response.requestLatencyMs() + " ms"));
        }
        else if (response.wasDisconnected())
        {
            outgoing.fail(new DisconnectException("node " + nodeKey + " disconnected before answering " +
                outgoing.builder.apiKey()));
        }
        else if (!response.hasResponse())
        {
            outgoing.fail(new KafkaException("no response body for " + outgoing.builder.apiKey()));
        }
        else
        {
            outgoing.complete(response.responseBody());
        }
    }

    private void expireWaiting(final long nowMs)
    {
        Outgoing<?> oldest;
        while ((oldest = waiting.peekFirst()) != null && oldest.deadlineMs <= nowMs)
        {
            waiting.pollFirst();
            oldest.fail(new TimeoutException("no connection to node " + nodeKey + " within " +
                config.requestTimeoutMs() + " ms"));
        }
    }

    private void failWaiting(final RuntimeException error)
    {
        Outgoing<?> outgoing;
        while ((outgoing = waiting.pollFirst()) != null)
        {
            outgoing.fail(error);
        }
    }

    private void failInbox(final RuntimeException error)
    {
        Outgoing<?> outgoing;
        while ((outgoing = inbox.poll()) != null)
        {
            outgoing.fail(error);
        }
    }

    private void shutdown()
    {
        ready = false;
        terminated = true;
        final DisconnectException closedError = new DisconnectException("client to node " + nodeKey + " is closed");
        final List<Outgoing<?>> sent = new ArrayList<>(inFlight.keySet());
        inFlight.clear();
        for (final Outgoing<?> outgoing : sent)
        {
            outgoing.fail(closedError);
        }
        failWaiting(closedError);
        failInbox(closedError);
        try
        {
            client.close();
        }
        catch (final RuntimeException e)
        {
            log.warn("Error closing the network client", e);
        }
        metrics.close();
    }

    /** A request on its way, with the future its caller holds. */
    private static final class Outgoing<R extends AbstractResponse>
    {
        final AbstractRequest.Builder<?> builder;
        final CompletableFuture<R> future;
        final long deadlineMs;

        Outgoing(final AbstractRequest.Builder<?> builder, final CompletableFuture<R> future, final long deadlineMs)
        {
            this.builder = builder;
            this.future = future;
            this.deadlineMs = deadlineMs;
        }

        // The caller chose R as the response type of the request it built; a wrong choice is the caller's
        // ClassCastException, as with NetworkClient's own untyped responses.
        @SuppressWarnings("unchecked")
        void complete(final AbstractResponse response)
        {
            future.complete((R)response);
        }

        void fail(final Throwable error)
        {
            future.completeExceptionally(error);
        }
    }
}
