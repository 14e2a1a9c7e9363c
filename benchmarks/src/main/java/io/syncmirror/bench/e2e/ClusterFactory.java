package io.syncmirror.bench.e2e;

/**
 * Starts a fresh cluster of one system for one round of the latency harness. Implementations are stateless or
 * safe to call from one thread at a time.
 */
@FunctionalInterface
public interface ClusterFactory
{
    /**
     * Starts {@code brokers} brokers on loopback, each with its own fresh storage, and returns once clients can
     * connect to all of them.
     *
     * @param brokers the number of brokers, at least 1
     * @return the running cluster; the caller closes it, which also deletes its storage
     * @throws Exception when a broker fails to start; whatever was started is stopped first
     */
    ClusterUnderTest start(int brokers) throws Exception;
}
