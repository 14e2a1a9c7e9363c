package io.syncmirror.tests;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Synchronous mirroring's control path over the wire, for the sync mirroring tests. */
final class SyncMirrors
{
    private SyncMirrors()
    {
    }

    /** AlterMirrorTopicType sent to {@code nodeId}; the topic's result. */
    static MirrorTopicResult alter(final EmbeddedCluster destination, final int nodeId,
        final String mirror, final String topic, final MirrorType type) throws IOException
    {
        try (MirrorWireClient client = Mirrors.client(destination, nodeId))
        {
            final AlterMirrorTopicTypeResponseData response = client.send(new AlterMirrorTopicTypeRequestData()
                .setMirrorName(mirror).setTopics(List.of(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic()
                    .setTopicName(topic).setMirrorType(type.id()))), AlterMirrorTopicTypeResponseData.class);
            return MirrorTopicResult.of(response).get(0);
        }
    }

    /** The topic as the destination's describe shows it, or empty. */
    static Optional<DescribeClusterMirrorsResponseData.MirrorTopic> topic(final EmbeddedCluster destination,
        final String mirror, final String topic) throws IOException
    {
        for (final DescribeClusterMirrorsResponseData.MirrorDescription description :
            Mirrors.describe(destination, 1, mirror).mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorTopic t : description.topics())
            {
                if (t.topicName().equals(topic))
                {
                    return Optional.of(t);
                }
            }
        }
        return Optional.empty();
    }

    /** Waits until describe shows the topic's desired and effective types. */
    static void awaitTypes(final EmbeddedCluster destination, final String mirror, final String topic,
        final MirrorType desired, final MirrorType effective, final long timeoutMs) throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            try
            {
                final Optional<DescribeClusterMirrorsResponseData.MirrorTopic> t = topic(destination, mirror, topic);
                return t.isPresent() && t.get().desiredMirrorType() == desired.id() &&
                    t.get().effectiveMirrorType() == effective.id();
            }
            catch (final IOException e)
            {
                return false;
            }
        }, timeoutMs, topic + " desired " + desired + ", effective " + effective);
    }

    /** The mirrors registered for sync on the topic, as the given source broker's metadata image has them. */
    static Set<String> registeredMirrors(final EmbeddedCluster source, final int nodeId, final String topic)
    {
        final Optional<TopicMetadata> metadata = source.broker(nodeId).metadata().image().topic(topic);
        return metadata.isEmpty() ? Set.of() :
            source.broker(nodeId).metadata().image().syncState(metadata.get().id()).registeredMirrors();
    }

    /**
     * The lowest LEO over the mirror's ISR as the source partition's leader last took it from the mirror's reports
     * (-1 when the mirror has no link there or the partition has no leader here).
     */
    static long reportedIsrMinLeo(final EmbeddedCluster source, final TopicPartition tp, final String mirror)
    {
        final io.syncmirror.broker.replica.Partition leader = AsyncMirroringTest.leader(source, tp);
        if (leader == null)
        {
            return -1L;
        }
        final int link = source.broker(leader.role().leaderId()).replicaManager().mirrorLinks().indexOf(mirror);
        return link < 0 ? -1L : leader.mirrorIsrMinLeo(link);
    }

    /** The source partition's high watermark on its leader, -1 without one. */
    static long sourceHighWatermark(final EmbeddedCluster source, final TopicPartition tp)
    {
        final io.syncmirror.broker.replica.Partition leader = AsyncMirroringTest.leader(source, tp);
        return leader == null ? -1L : leader.log().highWatermark();
    }

    /**
     * Waits until every running broker of the cluster applied the metadata log as far as its active controller had
     * written it when this was called: a change committed before (an admitted Register's, say) is in every image.
     */
    static void awaitMetadataCaughtUp(final EmbeddedCluster cluster) throws Exception
    {
        long last = -1L;
        for (int node = 1; node <= cluster.size() && last < 0; node++)
        {
            final BrokerServer broker = cluster.broker(node);
            if (broker != null && broker.mirrorController() != null && broker.mirrorController().isActive())
            {
                last = broker.mirrorController().lastMetadataOffset().get(10, TimeUnit.SECONDS);
            }
        }
        assertTrue(last >= 0, "no active controller");
        final long end = last;
        Clients.awaitCondition(() ->
        {
            for (int node = 1; node <= cluster.size(); node++)
            {
                final BrokerServer broker = cluster.broker(node);
                if (broker != null && broker.metadata().appliedOffset() < end)
                {
                    return false;
                }
            }
            return true;
        }, 10_000, "every broker applied the metadata log to offset " + end);
    }

    /**
     * Waits until every running source broker's image shows (or no longer shows) the mirror registered on the topic.
     */
    static void awaitRegistered(final EmbeddedCluster source, final String topic, final String mirror,
        final boolean registered, final long timeoutMs) throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            for (int node = 1; node <= source.size(); node++)
            {
                if (source.broker(node) != null && registeredMirrors(source, node, topic).contains(mirror) != registered)
                {
                    return false;
                }
            }
            return true;
        }, timeoutMs, "mirror " + mirror + (registered ? " registered" : " not registered") + " on " + topic +
            " at the source");
    }

    /** The source-side release (--release-sync) over the wire; NONE expected. */
    static void release(final EmbeddedCluster source, final String mirror, final String... topics) throws IOException
    {
        final List<UnregisterMirrorSyncTopicRequestData.TopicState> states = new ArrayList<>();
        for (final String topic : topics)
        {
            states.add(new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicName(topic));
        }
        try (MirrorWireClient client = Mirrors.client(source, source.size()))
        {
            final UnregisterMirrorSyncTopicResponseData response = client.send(
                new UnregisterMirrorSyncTopicRequestData().setMirrorName(mirror).setTopics(states).setRelease(true),
                UnregisterMirrorSyncTopicResponseData.class);
            if (response.errorCode() != Errors.NONE.code())
            {
                throw new AssertionError("release failed: " + response.errorCode() + " " + response.errorMessage());
            }
        }
    }

    /** A Register as a destination would send it; the topic's result. */
    static MirrorTopicResult register(final EmbeddedCluster source, final String mirror,
        final String topic, final Uuid topicId, final boolean recovery) throws IOException
    {
        try (MirrorWireClient client = Mirrors.client(source, source.size()))
        {
            return MirrorTopicResult.of(client.send(new RegisterMirrorSyncTopicRequestData().setMirrorName(mirror)
                .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId)
                    .setTopicName(topic).setRecoveryPromotion(recovery))),
                RegisterMirrorSyncTopicResponseData.class)).get(0);
        }
    }

    static Uuid topicId(final EmbeddedCluster cluster, final String topic)
    {
        return cluster.broker(1).metadata().image().topic(topic).orElseThrow().id();
    }
}
