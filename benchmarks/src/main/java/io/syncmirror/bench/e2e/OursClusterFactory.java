package io.syncmirror.bench.e2e;

/**
 * The factory for the reference broker's side of the comparison ("ours"): it starts the broker-integration
 * module's embedded cluster ({@code io.syncmirror.broker.cluster.EmbeddedCluster}) of {@code brokers} reference
 * brokers on loopback with durable storage, and wraps it as a {@link ClusterUnderTest} named {@code ours}.
 * Stateless.
 *
 * <p>This class is wired to the embedded cluster by the broker-integration work, which adds that module as a
 * dependency of {@code benchmarks}, implements {@link #start(int)} and makes {@link #isAvailable()} return
 * {@code true}. Until then the harness refuses {@code --systems ours} with a usage message, so that no figure is
 * ever printed under the name of a system that did not run.
 */
public final class OursClusterFactory implements ClusterFactory
{
    /** The name the harness prints for this system. */
    public static final String NAME = "ours";

    /** Whether the reference broker's embedded cluster is wired in, so that {@code --systems ours} can run. */
    public static boolean isAvailable()
    {
        return false;
    }

    @Override
    public ClusterUnderTest start(final int brokers)
    {
        throw new UnsupportedOperationException(
            "the reference broker's embedded cluster is not wired into the benchmarks module");
    }
}
