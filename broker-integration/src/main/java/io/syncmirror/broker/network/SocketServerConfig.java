package io.syncmirror.broker.network;

/**
 * Settings of a {@link KafkaSocketServer}. Immutable.
 *
 * @param maxRequestBytes                  the largest request frame accepted ({@value #SOCKET_REQUEST_MAX_BYTES_CONFIG});
 *                                         a larger or negative size prefix closes the connection
 * @param networkThreads                   event-loop threads that own accepted connections
 *                                         ({@value #NUM_NETWORK_THREADS_CONFIG}); 0 means one per available core
 * @param maxInFlightRequestsPerConnection requests of one connection parsed but not yet answered at which the
 *                                         server stops reading from that connection until some are answered
 */
public record SocketServerConfig(int maxRequestBytes, int networkThreads, int maxInFlightRequestsPerConnection)
{
    public static final String SOCKET_REQUEST_MAX_BYTES_CONFIG = "socket.request.max.bytes";
    public static final int SOCKET_REQUEST_MAX_BYTES_DEFAULT = 104_857_600;
    public static final String NUM_NETWORK_THREADS_CONFIG = "num.network.threads";
    public static final int NUM_NETWORK_THREADS_DEFAULT = 0;
    public static final int MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_DEFAULT = 100;

    public SocketServerConfig
    {
        if (maxRequestBytes <= 0)
        {
            throw new IllegalArgumentException(SOCKET_REQUEST_MAX_BYTES_CONFIG + " must be positive: " + maxRequestBytes);
        }
        if (networkThreads < 0)
        {
            throw new IllegalArgumentException(NUM_NETWORK_THREADS_CONFIG + " must not be negative: " + networkThreads);
        }
        if (maxInFlightRequestsPerConnection <= 0)
        {
            throw new IllegalArgumentException("maxInFlightRequestsPerConnection must be positive: " +
                maxInFlightRequestsPerConnection);
        }
    }

    /** Kafka's defaults: 100 MiB requests, one network thread per core, 100 requests in flight per connection. */
    public static SocketServerConfig defaults()
    {
        return new SocketServerConfig(
            SOCKET_REQUEST_MAX_BYTES_DEFAULT, NUM_NETWORK_THREADS_DEFAULT, MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_DEFAULT);
    }

    public SocketServerConfig withMaxRequestBytes(final int bytes)
    {
        return new SocketServerConfig(bytes, networkThreads, maxInFlightRequestsPerConnection);
    }

    public SocketServerConfig withNetworkThreads(final int threads)
    {
        return new SocketServerConfig(maxRequestBytes, threads, maxInFlightRequestsPerConnection);
    }

    public SocketServerConfig withMaxInFlightRequestsPerConnection(final int requests)
    {
        return new SocketServerConfig(maxRequestBytes, networkThreads, requests);
    }
}
