package io.syncmirror.broker.network;

import java.util.Objects;

/**
 * Settings of a {@link KafkaNodeClient}, named as Kafka names the client settings they stand for. Immutable.
 *
 * @param clientId                      client id sent in every request header
 * @param requestTimeoutMs              {@value #REQUEST_TIMEOUT_MS_CONFIG}: how long a request may wait for a
 *                                      connection and then for its response before failing with TimeoutException
 * @param reconnectBackoffMs            {@value #RECONNECT_BACKOFF_MS_CONFIG}: first wait after a failed connection
 * @param reconnectBackoffMaxMs         {@value #RECONNECT_BACKOFF_MAX_MS_CONFIG}: the exponential backoff's ceiling
 * @param connectionSetupTimeoutMs      {@value #SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG}
 * @param connectionSetupTimeoutMaxMs   {@value #SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG}
 * @param connectionsMaxIdleMs          {@value #CONNECTIONS_MAX_IDLE_MS_CONFIG}; -1 keeps idle connections
 *                                      open, so a replication or controller channel never pays a reconnect
 * @param maxInFlightRequests           requests sent but not answered on the connection before later ones
 *                                      wait in the client
 */
public record NodeClientConfig(
    String clientId,
    int requestTimeoutMs,
    long reconnectBackoffMs,
    long reconnectBackoffMaxMs,
    long connectionSetupTimeoutMs,
    long connectionSetupTimeoutMaxMs,
    long connectionsMaxIdleMs,
    int maxInFlightRequests)
{
    public static final String REQUEST_TIMEOUT_MS_CONFIG = "request.timeout.ms";
    public static final int REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
    public static final String RECONNECT_BACKOFF_MS_CONFIG = "reconnect.backoff.ms";
    public static final long RECONNECT_BACKOFF_MS_DEFAULT = 50;
    public static final String RECONNECT_BACKOFF_MAX_MS_CONFIG = "reconnect.backoff.max.ms";
    public static final long RECONNECT_BACKOFF_MAX_MS_DEFAULT = 1_000;
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG = "socket.connection.setup.timeout.ms";
    public static final long SOCKET_CONNECTION_SETUP_TIMEOUT_MS_DEFAULT = 10_000;
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG = "socket.connection.setup.timeout.max.ms";
    public static final long SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_DEFAULT = 30_000;
    public static final String CONNECTIONS_MAX_IDLE_MS_CONFIG = "connections.max.idle.ms";
    public static final long CONNECTIONS_MAX_IDLE_MS_DEFAULT = -1;
    public static final int MAX_IN_FLIGHT_REQUESTS_DEFAULT = 100;

    public NodeClientConfig
    {
        Objects.requireNonNull(clientId, "clientId");
        if (requestTimeoutMs <= 0)
        {
            throw new IllegalArgumentException(REQUEST_TIMEOUT_MS_CONFIG + " must be positive: " + requestTimeoutMs);
        }
        if (reconnectBackoffMs < 0 || reconnectBackoffMaxMs < reconnectBackoffMs)
        {
            throw new IllegalArgumentException("reconnect backoff must satisfy 0 <= " + RECONNECT_BACKOFF_MS_CONFIG +
                " <= " + RECONNECT_BACKOFF_MAX_MS_CONFIG + ": " + reconnectBackoffMs + ", " + reconnectBackoffMaxMs);
        }
        if (connectionSetupTimeoutMs <= 0 || connectionSetupTimeoutMaxMs < connectionSetupTimeoutMs)
        {
            throw new IllegalArgumentException("connection setup timeouts must satisfy 0 < " +
                SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG + " <= " + SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG);
        }
        if (maxInFlightRequests <= 0)
        {
            throw new IllegalArgumentException("maxInFlightRequests must be positive: " + maxInFlightRequests);
        }
    }

    /** Kafka's client defaults, except that idle connections stay open. */
    public static NodeClientConfig defaults(final String clientId)
    {
        return new NodeClientConfig(clientId, REQUEST_TIMEOUT_MS_DEFAULT, RECONNECT_BACKOFF_MS_DEFAULT,
            RECONNECT_BACKOFF_MAX_MS_DEFAULT, SOCKET_CONNECTION_SETUP_TIMEOUT_MS_DEFAULT,
            SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_DEFAULT, CONNECTIONS_MAX_IDLE_MS_DEFAULT, MAX_IN_FLIGHT_REQUESTS_DEFAULT);
    }

    public NodeClientConfig withRequestTimeoutMs(final int timeoutMs)
    {
        return new NodeClientConfig(clientId, timeoutMs, reconnectBackoffMs, reconnectBackoffMaxMs,
            connectionSetupTimeoutMs, connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, maxInFlightRequests);
    }

    public NodeClientConfig withReconnectBackoffMs(final long backoffMs, final long backoffMaxMs)
    {
        return new NodeClientConfig(clientId, requestTimeoutMs, backoffMs, backoffMaxMs,
            connectionSetupTimeoutMs, connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, maxInFlightRequests);
    }
}
