package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.protocol.ApiMessage;

import io.syncmirror.protocol.MirrorWireClient;

/**
 * Connections for the mirror RPCs this broker sends (forwarding to the controller, fan-out describes,
 * LastMirroredOffsets to a source), one {@link MirrorWireClient} per host:port, opened on first use and dropped
 * after a failure. Thread-safe; each connection carries one request at a time, so callers run on their own
 * threads (never a Netty event loop).
 */
final class MirrorWireClients implements AutoCloseable
{
    private final String clientId;
    private final int connectTimeoutMs;
    private final int requestTimeoutMs;
    private final Map<String, MirrorWireClient> clients = new ConcurrentHashMap<>();

    MirrorWireClients(final String clientId, final int connectTimeoutMs, final int requestTimeoutMs)
    {
        this.clientId = clientId;
        this.connectTimeoutMs = connectTimeoutMs;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** Sends one request to host:port and returns its response; IOException when it cannot. */
    <T extends ApiMessage> T send(final String host, final int port, final ApiMessage request, final Class<T> type)
        throws IOException
    {
        final String key = host + ":" + port;
        MirrorWireClient client = clients.get(key);
        if (client == null)
        {
            client = MirrorWireClient.connect(host, port, clientId, connectTimeoutMs, requestTimeoutMs);
            final MirrorWireClient raced = clients.putIfAbsent(key, client);
            if (raced != null)
            {
                client.close();
                client = raced;
            }
        }
        try
        {
            return client.send(request, type);
        }
        catch (final IOException e)
        {
            clients.remove(key, client);
            client.close();
            throw e;
        }
    }

    /** {@link #send(String, int, ApiMessage, Class)} to {@code address}. */
    <T extends ApiMessage> T send(final InetSocketAddress address, final ApiMessage request, final Class<T> type)
        throws IOException
    {
        return send(address.getHostString(), address.getPort(), request, type);
    }

    @Override
    public void close()
    {
        for (final MirrorWireClient client : clients.values())
        {
            client.close();
        }
        clients.clear();
    }
}
