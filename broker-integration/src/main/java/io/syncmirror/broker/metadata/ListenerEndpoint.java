package io.syncmirror.broker.metadata;

import java.util.Objects;

/**
 * One advertised listener of a registered broker: the name a client's connection arrived on picks it, as Kafka
 * answers Metadata with the endpoints of the listener asked. Immutable.
 */
public record ListenerEndpoint(String name, String host, int port)
{
    public ListenerEndpoint
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
    }
}
