package io.syncmirror.tests;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Mirror management over the wire for the mirroring tests: what the cluster mirrors command sends. */
final class Mirrors
{
    /** Broker settings that make a test cluster's mirroring react within a fraction of a second. */
    static final Map<String, String> FAST = Map.of(
        "mirror.metadata.refresh.interval.ms", "300",
        "mirror.coordinator.tick.ms", "50",
        "mirror.retry.backoff.ms", "200",
        "mirror.retry.backoff.max.ms", "1000",
        "mirror.request.timeout.ms", "10000",
        "replica.fetch.backoff.ms", "200",
        "replica.lag.time.max.ms", "3000");

    private Mirrors()
    {
    }

    static MirrorWireClient client(final EmbeddedCluster cluster, final int nodeId) throws IOException
    {
        return MirrorWireClient.connect("127.0.0.1", cluster.port(nodeId), "mirror-test", 10_000, 30_000);
    }

    static void create(final EmbeddedCluster destination, final String mirror, final EmbeddedCluster source)
        throws IOException
    {
        try (MirrorWireClient client = client(destination, 1))
        {
            final CreateClusterMirrorResponseData response = client.send(new CreateClusterMirrorRequestData()
                .setMirrorName(mirror).setSourceBootstrapServers(source.bootstrapServers()),
                CreateClusterMirrorResponseData.class);
            assertEquals(Errors.NONE.code(), response.errorCode(), String.valueOf(response.errorMessage()));
        }
    }

    /** Adds topics (sent to {@code nodeId}, which forwards to the controller unless it is one); their results. */
    static List<MirrorTopicResult> add(final EmbeddedCluster destination, final int nodeId,
        final String mirror, final String... topics) throws IOException
    {
        final List<AddTopicsToMirrorRequestData.TopicState> states = new ArrayList<>();
        for (final String topic : topics)
        {
            states.add(new AddTopicsToMirrorRequestData.TopicState().setTopicId(Uuid.ZERO_UUID).setTopicName(topic)
                .setMirrorName(mirror));
        }
        try (MirrorWireClient client = client(destination, nodeId))
        {
            return MirrorTopicResult.of(client.send(new AddTopicsToMirrorRequestData().setTopics(states),
                AddTopicsToMirrorResponseData.class));
        }
    }

    static void addOk(final EmbeddedCluster destination, final String mirror, final String... topics)
        throws IOException
    {
        for (final MirrorTopicResult result : add(destination, 1, mirror, topics))
        {
            assertEquals(Errors.NONE.code(), result.errorCode(), result.topicName() + ": " + result.errorMessage());
        }
    }

    static void remove(final EmbeddedCluster destination, final String mirror, final String... topics)
        throws IOException
    {
        final List<RemoveTopicsFromMirrorRequestData.TopicState> states = new ArrayList<>();
        for (final String topic : topics)
        {
            states.add(new RemoveTopicsFromMirrorRequestData.TopicState().setTopicName(topic).setMirrorName(mirror));
        }
        try (MirrorWireClient client = client(destination, 1))
        {
            for (final MirrorTopicResult result : MirrorTopicResult.of(client.send(
                new RemoveTopicsFromMirrorRequestData().setTopics(states), RemoveTopicsFromMirrorResponseData.class)))
            {
                assertEquals(Errors.NONE.code(), result.errorCode(), result.topicName() + ": " +
                    result.errorMessage());
            }
        }
    }

    static DescribeClusterMirrorsResponseData describe(final EmbeddedCluster destination, final int nodeId,
        final String mirror) throws IOException
    {
        try (MirrorWireClient client = client(destination, nodeId))
        {
            return client.send(new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirror)),
                DescribeClusterMirrorsResponseData.class);
        }
    }

    /** The partitions of a mirror topic as describe shows them. */
    static List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions(final EmbeddedCluster destination,
        final String mirror, final String topic) throws IOException
    {
        for (final DescribeClusterMirrorsResponseData.MirrorDescription description :
            describe(destination, 1, mirror).mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorTopic mirrorTopic : description.topics())
            {
                if (mirrorTopic.topicName().equals(topic))
                {
                    return mirrorTopic.partitions();
                }
            }
        }
        return List.of();
    }

    /** Whether every partition of the topic is in {@code state} (the state's byte). */
    static boolean allIn(final EmbeddedCluster destination, final String mirror, final String topic,
        final int partitions, final byte state)
    {
        try
        {
            final List<DescribeClusterMirrorsResponseData.MirrorPartition> described =
                partitions(destination, mirror, topic);
            return described.size() == partitions && described.stream().allMatch(p -> p.state() == state);
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    /** Waits until every partition of the mirror topic is in {@code state}; {@code what} names it on timeout. */
    static void awaitState(final EmbeddedCluster destination, final String mirror, final String topic,
        final int partitions, final MirrorPartitionState state, final String what) throws InterruptedException
    {
        Clients.awaitCondition(() -> allIn(destination, mirror, topic, partitions, state.id()), 30_000, what);
    }

    /**
     * Every record of the partition's leader log up to its HW, one line each: "offset key value" for data, with
     * " control" or " txn" appended for control records and transactional data; the batches' exact layout.
     */
    static List<String> records(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        final List<String> lines = new ArrayList<>();
        for (final RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(
            AsyncMirroringTest.batchBytes(cluster, tp))).batches())
        {
            for (final Record record : batch)
            {
                lines.add(record.offset() + " " + text(record.key()) + " " + text(record.value()) +
                    (batch.isControlBatch() ? " control" : batch.isTransactional() ? " txn" : ""));
            }
        }
        return lines;
    }

    private static String text(final ByteBuffer buffer)
    {
        if (buffer == null)
        {
            return "null";
        }
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Waits until the destination's HW of {@code tp} equals the source's. */
    static void awaitCaughtUp(final EmbeddedCluster source, final EmbeddedCluster destination,
        final TopicPartition tp, final long timeoutMs) throws InterruptedException
    {
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (true)
        {
            final long sourceHw = AsyncMirroringTest.hw(source, tp);
            final long destinationHw = AsyncMirroringTest.hw(destination, tp);
            if (sourceHw >= 0 && destinationHw == sourceHw)
            {
                return;
            }
            if (System.currentTimeMillis() > deadlineMs)
            {
                throw new AssertionError("destination HW " + destinationHw + " never caught up with the source HW " +
                    sourceHw + " on " + tp + "; mirror partitions: " + describeAll(destination, tp.topic()));
            }
            Thread.sleep(50);
        }
    }

    /** Every mirror's partitions of {@code topic} as describe shows them, for failure messages. */
    static String describeAll(final EmbeddedCluster destination, final String topic)
    {
        final StringBuilder text = new StringBuilder();
        try (MirrorWireClient client = client(destination, 1))
        {
            for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : client.send(
                new DescribeClusterMirrorsRequestData().setMirrorNames(null),
                DescribeClusterMirrorsResponseData.class).mirrors())
            {
                for (final DescribeClusterMirrorsResponseData.MirrorTopic mirrorTopic : mirror.topics())
                {
                    if (mirrorTopic.topicName().equals(topic))
                    {
                        mirrorTopic.partitions().forEach(p -> text.append(String.format(
                            "[%s p%d state %d source %d destination %d lag %d error %d %s] ", mirror.mirrorName(),
                            p.partitionIndex(), p.state(), p.sourceOffset(), p.destinationOffset(), p.lag(),
                            p.lastErrorCode(), p.lastErrorMessage())));
                    }
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            text.append("describe failed: ").append(e);
        }
        return text.toString();
    }

    /**
     * The controller node's mirror metadata manager. The broker has no accessor for it, so the test reads the
     * field; null when the node runs none.
     */
    static MirrorMetadataManager metadataManager(final EmbeddedCluster cluster)
    {
        return cluster.broker(1).mirrorMetadataManager();
    }
}
