package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Optional;

/**
 * A registered broker and the addresses it is reached at. Immutable.
 *
 * @param host      the inter-broker listener's host: where other brokers, and this broker's own clients, connect
 * @param port      its port
 * @param listeners every advertised listener, the inter-broker one among them; empty for a registration that named
 *                  one endpoint only (then {@code host:port} serves every client)
 */
public record BrokerEndpoint(int id, String host, int port, String rack, List<ListenerEndpoint> listeners)
{
    public BrokerEndpoint
    {
        listeners = listeners == null ? List.of() : List.copyOf(listeners);
    }

    /** A broker registered with one endpoint. */
    public BrokerEndpoint(final int id, final String host, final int port, final String rack)
    {
        this(id, host, port, rack, List.of());
    }

    /**
     * This broker as a client of listener {@code listenerName} must see it: at that listener's address, or empty
     * when the broker does not advertise that listener (Kafka leaves such a broker out of the answer). A broker
     * registered with one endpoint is at that endpoint for every listener.
     */
    public Optional<BrokerEndpoint> at(final String listenerName)
    {
        if (listeners.isEmpty())
        {
            return Optional.of(this);
        }
        for (final ListenerEndpoint listener : listeners)
        {
            if (listener.name().equalsIgnoreCase(listenerName))
            {
                return Optional.of(new BrokerEndpoint(id, listener.host(), listener.port(), rack, listeners));
            }
        }
        return Optional.empty();
    }
}
