package io.syncmirror.broker.replica;

/**
 * The replica layer's settings, with Kafka's keys where Kafka has one.
 *
 * @param brokerId               node.id
 * @param defaultMinIsr          min.insync.replicas (broker default; a topic's override wins)
 * @param replicaLagTimeMaxMs    replica.lag.time.max.ms: a follower not caught up for this long leaves the ISR
 * @param maxReplicas            the largest replication factor a partition may have here
 * @param partitionSlots         syncmirror.partition.slots: partitions this broker may lead at once
 * @param waitersPerPartition    syncmirror.produce.waiters.per.partition: acks=all produces waiting on one
 *                               partition at once (a power of two)
 * @param maxRequestsPerOwner    acks=all produce requests in flight per event loop
 * @param syncMirrorLinks        syncmirror.sync.mirror.links: sync mirrors that can gate this broker's partitions
 *                               at once (see MirrorLinks)
 */
public record ReplicaConfig(int brokerId, int defaultMinIsr, long replicaLagTimeMaxMs, int maxReplicas,
    int partitionSlots, int waitersPerPartition, int maxRequestsPerOwner, int syncMirrorLinks)
{
    /** With the default number of sync mirror links. */
    public ReplicaConfig(final int brokerId, final int defaultMinIsr, final long replicaLagTimeMaxMs,
        final int maxReplicas, final int partitionSlots, final int waitersPerPartition, final int maxRequestsPerOwner)
    {
        this(brokerId, defaultMinIsr, replicaLagTimeMaxMs, maxReplicas, partitionSlots, waitersPerPartition,
            maxRequestsPerOwner, io.syncmirror.broker.adapter.MirrorLinks.LINKS_DEFAULT);
    }

    public static final String PARTITION_SLOTS_CONFIG = "syncmirror.partition.slots";
    public static final int PARTITION_SLOTS_DEFAULT = 16384;
    public static final String WAITERS_PER_PARTITION_CONFIG = "syncmirror.produce.waiters.per.partition";
    public static final int WAITERS_PER_PARTITION_DEFAULT = 64;
    public static final int MAX_REPLICAS = 8;
    public static final int MAX_REQUESTS_PER_OWNER = 4096;
}
