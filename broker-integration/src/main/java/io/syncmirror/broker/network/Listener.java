package io.syncmirror.broker.network;

import java.util.Objects;

/**
 * One listener the socket server binds: a name clients and the broker's metadata refer to, a host and a port.
 * Immutable.
 *
 * @param name listener name (e.g. {@code PLAINTEXT}, {@code REPLICATION}); carried in each request's
 *             {@link RequestContext#listenerName()}
 * @param host the address to bind; {@code 0.0.0.0} or an empty host binds every interface
 * @param port the port to bind; 0 picks an ephemeral port, reported by {@link KafkaSocketServer#boundPort}
 */
public record Listener(String name, String host, int port)
{
    public Listener
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }
}
