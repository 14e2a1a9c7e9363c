package io.syncmirror.bench.e2e;

import java.util.Map;

import io.syncmirror.broker.cluster.EmbeddedCluster;

/**
 * The factory for the reference broker's side of the comparison ("ours"): it starts the broker-integration
 * module's {@link EmbeddedCluster} of {@code brokers} reference brokers on loopback with durable storage (Kafka's
 * log engine, as the Kafka side uses) and wraps it as a {@link ClusterUnderTest} named {@code ours}. Stateless.
 */
public final class OursClusterFactory implements ClusterFactory
{
    /** The name the harness prints for this system. */
    public static final String NAME = "ours";
    /** The same system with its client listener and inter-broker links in TLS. */
    public static final String TLS_NAME = "ours-tls";

    private final TlsSetup tls;

    /** The plaintext system. */
    public OursClusterFactory()
    {
        this(null);
    }

    /** The system in TLS with {@code tls}'s stores, or plaintext when it is null. */
    public OursClusterFactory(final TlsSetup tls)
    {
        this.tls = tls;
    }

    /** Whether the reference broker's embedded cluster is wired in, so that {@code --systems ours} can run. */
    public static boolean isAvailable()
    {
        return true;
    }

    @Override
    public ClusterUnderTest start(final int brokers)
    {
        final EmbeddedCluster cluster = EmbeddedCluster.start(brokers, tls == null ? Map.of() : tls.brokerOverrides());
        return new ClusterUnderTest()
        {
            @Override
            public String name()
            {
                return tls == null ? NAME : TLS_NAME;
            }

            @Override
            public Map<String, Object> clientConfigs()
            {
                return tls == null ? Map.of() : tls.clientConfigs();
            }

            @Override
            public String bootstrapServers()
            {
                return cluster.bootstrapServers();
            }

            @Override
            public void close()
            {
                cluster.close();
            }
        };
    }
}
