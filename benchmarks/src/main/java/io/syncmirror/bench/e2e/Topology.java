package io.syncmirror.bench.e2e;

/**
 * A cluster shape the harness measures: {@code brokers} brokers and a topic with replication factor
 * {@code replicationFactor} and {@code min.insync.replicas} {@code minInsyncReplicas}. Immutable.
 *
 * <p>Written {@code BxR}: {@code 1x1} is one broker with RF 1, {@code 3x3} three brokers with RF 3. The
 * min ISR is RF - 1 (at least 1), Kafka's usual production choice that tolerates one replica down: 2 for RF 3.
 *
 * @param name the label as given, e.g. {@code 3x3}
 */
public record Topology(String name, int brokers, short replicationFactor, int minInsyncReplicas)
{
    /**
     * Parses {@code BxR}.
     *
     * @throws IllegalArgumentException when it is not two positive numbers with R at most B and B at most
     *                                  {@link KafkaReferenceCluster#MAX_NODES}
     */
    public static Topology parse(final String text)
    {
        final String[] parts = text.trim().split("x", -1);
        if (parts.length != 2)
        {
            throw new IllegalArgumentException("a topology is BROKERSxRF, e.g. 3x3: " + text);
        }
        final int brokers;
        final int replicationFactor;
        try
        {
            brokers = Integer.parseInt(parts[0]);
            replicationFactor = Integer.parseInt(parts[1]);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("a topology is BROKERSxRF, e.g. 3x3: " + text, ex);
        }
        if (brokers < 1 || brokers > KafkaReferenceCluster.MAX_NODES || replicationFactor < 1 ||
            replicationFactor > brokers)
        {
            throw new IllegalArgumentException("a topology needs 1 <= RF <= BROKERS <= " +
                KafkaReferenceCluster.MAX_NODES + ": " + text);
        }
        return new Topology(brokers + "x" + replicationFactor, brokers, (short)replicationFactor,
            Math.max(1, replicationFactor - 1));
    }

    /** A line that says what this topology is, for people. */
    public String describe()
    {
        return brokers + (brokers == 1 ? " broker" : " brokers") + ", RF " + replicationFactor + ", min ISR " +
            minInsyncReplicas;
    }
}
