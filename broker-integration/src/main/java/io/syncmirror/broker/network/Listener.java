package io.syncmirror.broker.network;

import java.util.Objects;

/**
 * One listener the socket server binds: a name clients and the broker's metadata refer to, a host, a port and
 * how its connections are secured. Immutable.
 *
 * @param name listener name (e.g. {@code PLAINTEXT}, {@code REPLICATION}); carried in each request's
 *             {@link RequestContext#listenerName()}
 * @param host the address to bind; {@code 0.0.0.0} or an empty host binds every interface
 * @param port the port to bind; 0 picks an ephemeral port, reported by {@link KafkaSocketServer#boundPort}
 * @param security the listener's security protocol and, for TLS, its engine factory; the socket server closes it
 */
public record Listener(String name, String host, int port, ListenerSecurity security)
{
    public Listener
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(security, "security");
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** A plaintext listener. */
    public Listener(final String name, final String host, final int port)
    {
        this(name, host, port, ListenerSecurity.plaintext(name));
    }
}
