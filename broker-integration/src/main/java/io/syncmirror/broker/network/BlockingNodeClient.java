package io.syncmirror.broker.network;

import java.io.IOException;
import java.util.Map;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * A client to one node whose requests run on the caller's thread, as Kafka's own replica fetcher sends
 * ({@code ReplicaFetcherBlockingSend}): connect, send, poll until the answer. For a loop that does one request
 * at a time (a follower's fetcher), it saves the two thread hand-offs per round trip that a client with its own
 * I/O thread costs. Thread-safety: {@link #sendAndReceive} from one thread; {@link #wakeup()} and
 * {@link #close()} from any thread.
 */
public final class BlockingNodeClient implements AutoCloseable
{
    private final Node node;
    private final NodeClientConfig config;
    private final Time time;
    private final Metrics metrics;
    private final NetworkClient client;
    private volatile boolean closed;

    public BlockingNodeClient(final Node node, final NodeClientConfig config, final Time time)
    {
        this(node, config, time, Map.of());
    }

    /**
     * A client whose connection uses Kafka client security settings: a mirror's link to its source, a follower's
     * to its leader's inter-broker listener.
     */
    public BlockingNodeClient(final Node node, final NodeClientConfig config, final Time time,
        final Map<String, ?> securityConfigs)
    {
        this.node = node;
        this.config = config;
        this.time = time;
        this.metrics = new Metrics(time);
        this.client = KafkaNodeClient.newNetworkClient(node, config, time, metrics, new LogContext(
            "[BlockingNodeClient clientId=" + config.clientId() + ", node=" + node.id() + " " + node.host() + ":" +
                node.port() + "] "), securityConfigs);
    }

    public Node node()
    {
        return node;
    }

    /**
     * Sends one request and waits for its answer, connecting first (version discovery included) within the
     * request timeout.
     *
     * @throws DisconnectException the connection failed or dropped.
     * @throws TimeoutException    no connection or no answer within request.timeout.ms.
     */
    @SuppressWarnings("unchecked")
    public <R extends AbstractResponse> R sendAndReceive(final AbstractRequest.Builder<?> request)
    {
        if (closed)
        {
            throw new DisconnectException("client to node " + node.id() + " is closed");
        }
        try
        {
            if (!NetworkClientUtils.awaitReady(client, node, time, config.requestTimeoutMs()))
            {
                throw new TimeoutException("node " + node.id() + " not ready within " + config.requestTimeoutMs() +
                    " ms");
            }
            final ClientRequest clientRequest = client.newClientRequest(node.idString(), request,
                time.milliseconds(), true);
            final ClientResponse response = NetworkClientUtils.sendAndReceive(client, clientRequest, time);
            if (response.versionMismatch() != null)
            {
                throw response.versionMismatch();
            }
            return (R)response.responseBody();
        }
        catch (final IOException ex)
        {
            client.close(node.idString());
            throw new DisconnectException("request to node " + node.id() + " failed: " + ex.getMessage(), ex);
        }
    }

    /** Ends a poll in progress early (the next send fails fast if closed). */
    public void wakeup()
    {
        client.wakeup();
    }

    @Override
    public void close()
    {
        closed = true;
        client.wakeup();
    }

    /** Releases the sockets; call from the thread that sends, or after it ended. */
    public void release()
    {
        client.close();
        metrics.close();
    }
}
