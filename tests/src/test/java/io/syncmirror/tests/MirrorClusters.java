package io.syncmirror.tests;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

/**
 * A source and a destination cluster of the reference broker in this JVM, both with the {@link Mirrors#FAST}
 * settings, for the mirroring tests. Not thread-safe: the test class or method that starts it owns it, and
 * {@link #close()} stops both clusters, the destination first, so that its mirror fetchers stop before their
 * source goes away.
 */
final class MirrorClusters implements AutoCloseable
{
    private final EmbeddedCluster source;
    private final EmbeddedCluster destination;

    private MirrorClusters(final EmbeddedCluster source, final EmbeddedCluster destination)
    {
        this.source = source;
        this.destination = destination;
    }

    /**
     * Starts the source, then the destination with {@code destinationOverrides} on top of the fast settings; a
     * destination that fails to start leaves no source running.
     */
    static MirrorClusters start(final int sourceBrokers, final int destinationBrokers,
        final Map<String, String> destinationOverrides)
    {
        return start(sourceBrokers, destinationBrokers, destinationOverrides, Map.of());
    }

    /** As {@link #start(int, int, Map)}, with {@code sourceOverrides} on top of the source's fast settings. */
    static MirrorClusters start(final int sourceBrokers, final int destinationBrokers,
        final Map<String, String> destinationOverrides, final Map<String, String> sourceOverrides)
    {
        final Map<String, String> destinationConfig = new HashMap<>(Mirrors.FAST);
        destinationConfig.putAll(destinationOverrides);
        final Map<String, String> sourceConfig = new HashMap<>(Mirrors.FAST);
        sourceConfig.putAll(sourceOverrides);
        final EmbeddedCluster source = EmbeddedCluster.start(sourceBrokers, sourceConfig);
        try
        {
            return new MirrorClusters(source, EmbeddedCluster.start(destinationBrokers, destinationConfig));
        }
        catch (final RuntimeException | Error e)
        {
            try
            {
                source.close();
            }
            catch (final RuntimeException closeFailure)
            {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    EmbeddedCluster source()
    {
        return source;
    }

    EmbeddedCluster destination()
    {
        return destination;
    }

    /** Creates a topic on the source with replication factor 1 and the broker defaults for its configs. */
    void createSourceTopic(final String topic, final int partitions) throws Exception
    {
        try (Admin admin = Clients.admin(source.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, partitions, (short)1, Map.of());
        }
    }

    /** Creates the mirror {@code mirror} of the source on the destination. */
    void createMirror(final String mirror) throws IOException
    {
        Mirrors.create(destination, mirror, source);
    }

    /** Adds the source topic to the destination's mirror and waits until all its partitions are MIRRORING. */
    void addAndAwaitMirroring(final String mirror, final String topic, final int partitions)
        throws IOException, InterruptedException
    {
        Mirrors.addOk(destination, mirror, topic);
        awaitState(mirror, topic, partitions, MirrorPartitionState.MIRRORING,
            partitions == 1 ? "partition MIRRORING" : "partitions MIRRORING");
    }

    /**
     * Adds the source topic to the mirror, waits until it is MIRRORING, promotes it to SYNC and waits until both
     * its desired and effective types are SYNC and the source gates on the mirror.
     */
    void addAndPromoteToSync(final String mirror, final String topic, final int partitions) throws Exception
    {
        addAndAwaitMirroring(mirror, topic, partitions);
        final MirrorTopicResult altered = SyncMirrors.alter(destination, 1, mirror, topic,
            MirrorType.SYNC);
        org.junit.jupiter.api.Assertions.assertEquals(Errors.NONE.code(), altered.errorCode(),
            String.valueOf(altered.errorMessage()));
        SyncMirrors.awaitTypes(destination, mirror, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(source, topic, mirror, true, 10_000);
    }

    /** Waits until every partition of the destination's mirror topic is in {@code state}. */
    void awaitState(final String mirror, final String topic, final int partitions, final MirrorPartitionState state,
        final String what) throws InterruptedException
    {
        Mirrors.awaitState(destination, mirror, topic, partitions, state, what);
    }

    /** Waits until the destination's HW of {@code tp} equals the source's. */
    void awaitCaughtUp(final TopicPartition tp, final long timeoutMs) throws InterruptedException
    {
        Mirrors.awaitCaughtUp(source, destination, tp, timeoutMs);
    }

    @Override
    public void close()
    {
        try
        {
            destination.close();
        }
        finally
        {
            source.close();
        }
    }
}
