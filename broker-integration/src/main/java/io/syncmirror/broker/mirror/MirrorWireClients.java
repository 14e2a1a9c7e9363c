package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.protocol.ApiMessage;

import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

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
    private final WireSecurity brokerSecurity;
    private final WireSecurity controllerSecurity;
    private final Map<String, MirrorWireClient> clients = new ConcurrentHashMap<>();

    /**
     * @param brokerSecurity     how this cluster's brokers are reached (their inter-broker listener's settings)
     * @param controllerSecurity how its controllers are reached (their listener's settings)
     */
    MirrorWireClients(final String clientId, final int connectTimeoutMs, final int requestTimeoutMs,
        final WireSecurity brokerSecurity, final WireSecurity controllerSecurity)
    {
        this.clientId = clientId;
        this.connectTimeoutMs = connectTimeoutMs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.brokerSecurity = brokerSecurity;
        this.controllerSecurity = controllerSecurity;
    }

    /** Sends one request to this cluster's broker at host:port and returns its response; IOException when it cannot. */
    <T extends ApiMessage> T send(final String host, final int port, final ApiMessage request, final Class<T> type)
        throws IOException
    {
        return send(host, port, brokerSecurity, request, type);
    }

    /**
     * Sends one request to host:port over a connection secured as {@code security} says (a mirror's source link);
     * IOException when it cannot.
     */
    <T extends ApiMessage> T send(final String host, final int port, final WireSecurity security,
        final ApiMessage request, final Class<T> type) throws IOException
    {
        final String key = host + ":" + port;
        MirrorWireClient client = clients.get(key);
        if (client == null)
        {
            client = MirrorWireClient.connect(host, port, clientId, connectTimeoutMs, requestTimeoutMs, security);
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

    /** Sends one request to the controller listener at {@code address}. */
    <T extends ApiMessage> T sendToController(final InetSocketAddress address, final ApiMessage request,
        final Class<T> type) throws IOException
    {
        return send(address.getHostString(), address.getPort(), controllerSecurity, request, type);
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
