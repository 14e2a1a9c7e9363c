package io.syncmirror.tests;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.MirrorStateStore;
import io.syncmirror.broker.mirror.SyncRegistrationLedger;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.WireSecurity;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Mirror management over the wire, addressed by the port of a destination broker on loopback, so that the same
 * calls reach an in-JVM cluster and a broker process: create, add with a mirror type, failover, describe, and the
 * waits on partition states and on the effective mirror type. Stateless; each call opens its own connection.
 */
final class TrialMirrors
{
    private TrialMirrors()
    {
    }

    static MirrorWireClient client(final int port) throws IOException
    {
        return client(port, WireSecurity.PLAINTEXT);
    }

    static MirrorWireClient client(final int port, final WireSecurity security) throws IOException
    {
        return MirrorWireClient.connect("127.0.0.1", port, "sync-mirror-test", 10_000, 30_000, security);
    }

    static void create(final int destinationPort, final String mirror, final String sourceBootstrap)
        throws IOException
    {
        try (MirrorWireClient client = client(destinationPort))
        {
            final CreateClusterMirrorResponseData response = client.send(new CreateClusterMirrorRequestData()
                .setMirrorName(mirror).setSourceBootstrapServers(sourceBootstrap),
                CreateClusterMirrorResponseData.class);
            assertEquals(Errors.NONE.code(), response.errorCode(), String.valueOf(response.errorMessage()));
        }
    }

    /** Adds topics to the mirror with the desired {@code type}; fails the test on any topic's error. */
    static void add(final int destinationPort, final String mirror, final MirrorType type, final String... topics)
        throws IOException
    {
        final List<AddTopicsToMirrorRequestData.TopicState> states = new ArrayList<>();
        for (final String topic : topics)
        {
            states.add(new AddTopicsToMirrorRequestData.TopicState().setTopicId(Uuid.ZERO_UUID).setTopicName(topic)
                .setMirrorName(mirror).setMirrorType(type.id()));
        }
        try (MirrorWireClient client = client(destinationPort))
        {
            assertOk("AddTopicsToMirror " + type, MirrorTopicResult.of(client.send(
                new AddTopicsToMirrorRequestData().setTopics(states), AddTopicsToMirrorResponseData.class)));
        }
    }

    /** Fails the topics over (RemoveTopicsFromMirror, the command's {@code --remove}/{@code --stop}). */
    static void failOver(final int destinationPort, final String mirror, final String... topics) throws IOException
    {
        final List<RemoveTopicsFromMirrorRequestData.TopicState> states = new ArrayList<>();
        for (final String topic : topics)
        {
            states.add(new RemoveTopicsFromMirrorRequestData.TopicState().setTopicName(topic).setMirrorName(mirror));
        }
        try (MirrorWireClient client = client(destinationPort))
        {
            assertOk("RemoveTopicsFromMirror", MirrorTopicResult.of(client.send(
                new RemoveTopicsFromMirrorRequestData().setTopics(states), RemoveTopicsFromMirrorResponseData.class)));
        }
    }

    private static void assertOk(final String what, final List<MirrorTopicResult> results)
    {
        for (final MirrorTopicResult result : results)
        {
            assertEquals(Errors.NONE.code(), result.errorCode(), what + " of " + result.topicName() + ": " +
                result.errorMessage());
        }
    }

    /** The mirror's description of {@code topic}, or null when the mirror does not list it. */
    static DescribeClusterMirrorsResponseData.MirrorTopic describe(final int destinationPort, final String mirror,
        final String topic) throws IOException
    {
        return describe(destinationPort, WireSecurity.PLAINTEXT, mirror, topic);
    }

    /** The same over a connection secured as {@code security} says. */
    static DescribeClusterMirrorsResponseData.MirrorTopic describe(final int destinationPort,
        final WireSecurity security, final String mirror, final String topic) throws IOException
    {
        try (MirrorWireClient client = client(destinationPort, security))
        {
            for (final DescribeClusterMirrorsResponseData.MirrorDescription description : client.send(
                new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirror)),
                DescribeClusterMirrorsResponseData.class).mirrors())
            {
                for (final DescribeClusterMirrorsResponseData.MirrorTopic mirrorTopic : description.topics())
                {
                    if (mirrorTopic.topicName().equals(topic))
                    {
                        return mirrorTopic;
                    }
                }
            }
        }
        return null;
    }

    /** One line of what describe shows of the topic, for failure messages and the trial's log. */
    static String summary(final int destinationPort, final String mirror, final String topic)
    {
        return summary(destinationPort, WireSecurity.PLAINTEXT, mirror, topic);
    }

    /** The same for broker 1 of a cluster of broker processes, with its operator's security. */
    static String summary(final ProcessCluster destination, final String mirror, final String topic)
    {
        return summary(destination.port(1), destination.security().wire(), mirror, topic);
    }

    private static String summary(final int destinationPort, final WireSecurity security, final String mirror,
        final String topic)
    {
        try
        {
            final DescribeClusterMirrorsResponseData.MirrorTopic described = describe(destinationPort, security,
                mirror, topic);
            if (described == null)
            {
                return mirror + "/" + topic + " not described";
            }
            final StringBuilder text = new StringBuilder(String.format("%s/%s desired %d effective %d status '%s':",
                mirror, topic, described.desiredMirrorType(), described.effectiveMirrorType(),
                described.statusMessage()));
            described.partitions().forEach(p -> text.append(String.format(
                " [p%d state %d source %d destination %d lag %d error %d %s]", p.partitionIndex(), p.state(),
                p.sourceOffset(), p.destinationOffset(), p.lag(), p.lastErrorCode(), p.lastErrorMessage())));
            return text.toString();
        }
        catch (final IOException | RuntimeException e)
        {
            return "describe failed: " + e;
        }
    }

    private static boolean allIn(final int destinationPort, final WireSecurity security, final String mirror,
        final String topic, final int partitions, final MirrorPartitionState state)
    {
        try
        {
            final DescribeClusterMirrorsResponseData.MirrorTopic described = describe(destinationPort, security,
                mirror, topic);
            return described != null && described.partitions().size() == partitions &&
                described.partitions().stream().allMatch(p -> p.state() == state.id());
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }

    /** Waits until every partition of the mirror topic is in {@code state}. */
    static void awaitState(final int destinationPort, final String mirror, final String topic, final int partitions,
        final MirrorPartitionState state, final long timeoutMs) throws InterruptedException
    {
        awaitState(destinationPort, WireSecurity.PLAINTEXT, mirror, topic, partitions, state, timeoutMs);
    }

    /** The same for broker 1 of a cluster of broker processes, with its operator's security. */
    static void awaitState(final ProcessCluster destination, final String mirror, final String topic,
        final int partitions, final MirrorPartitionState state, final long timeoutMs) throws InterruptedException
    {
        awaitState(destination.port(1), destination.security().wire(), mirror, topic, partitions, state, timeoutMs);
    }

    private static void awaitState(final int destinationPort, final WireSecurity security, final String mirror,
        final String topic, final int partitions, final MirrorPartitionState state, final long timeoutMs)
        throws InterruptedException
    {
        awaitOrFail(() -> allIn(destinationPort, security, mirror, topic, partitions, state), timeoutMs,
            () -> "partitions never all " + state + ": " + summary(destinationPort, security, mirror, topic));
    }

    /** Whether describe shows {@code type} as the topic's effective mirror type. */
    static boolean effectiveIs(final int destinationPort, final String mirror, final String topic,
        final MirrorType type)
    {
        return effectiveIs(destinationPort, WireSecurity.PLAINTEXT, mirror, topic, type);
    }

    private static boolean effectiveIs(final int destinationPort, final WireSecurity security, final String mirror,
        final String topic, final MirrorType type)
    {
        try
        {
            final DescribeClusterMirrorsResponseData.MirrorTopic described = describe(destinationPort, security,
                mirror, topic);
            return described != null && described.effectiveMirrorType() == type.id();
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }

    /** Waits until describe shows {@code type} as the topic's effective mirror type. */
    static void awaitEffective(final int destinationPort, final String mirror, final String topic,
        final MirrorType type, final long timeoutMs) throws InterruptedException
    {
        awaitEffective(destinationPort, WireSecurity.PLAINTEXT, mirror, topic, type, timeoutMs);
    }

    /** The same for broker 1 of a cluster of broker processes, with its operator's security. */
    static void awaitEffective(final ProcessCluster destination, final String mirror, final String topic,
        final MirrorType type, final long timeoutMs) throws InterruptedException
    {
        awaitEffective(destination.port(1), destination.security().wire(), mirror, topic, type, timeoutMs);
    }

    private static void awaitEffective(final int destinationPort, final WireSecurity security, final String mirror,
        final String topic, final MirrorType type, final long timeoutMs) throws InterruptedException
    {
        awaitOrFail(() -> effectiveIs(destinationPort, security, mirror, topic, type), timeoutMs,
            () -> "the effective mirror type never became " + type + ": " +
                summary(destinationPort, security, mirror, topic));
    }

    /**
     * The source's sync registration ledger entry of {@code mirror} as {@code __mirror_state} holds it (its latest
     * record), read with a consumer; empty when the mirror has none.
     */
    static List<SyncRegistrationLedger.Entry> syncLedger(final String sourceBootstrap, final String mirror)
        throws Exception
    {
        final int partitions;
        try (Admin admin = Clients.admin(sourceBootstrap))
        {
            partitions = Clients.describe(admin, MirrorStateStore.TOPIC).partitions().size();
        }
        final byte[] key = SyncRegistrationLedger.key(mirror);
        List<SyncRegistrationLedger.Entry> latest = List.of();
        for (final ConsumerRecord<byte[], byte[]> record : Clients.readToEnd(sourceBootstrap,
            MirrorStateStore.TOPIC, partitions, 60_000))
        {
            if (Arrays.equals(key, record.key()))
            {
                latest = record.value() == null ? List.of() : SyncRegistrationLedger.parseValue(record.value());
            }
        }
        return latest;
    }

    /** Polls {@code condition} every 50 ms; on timeout fails with the message computed then. */
    static void awaitOrFail(final BooleanSupplier condition, final long timeoutMs,
        final Supplier<String> message) throws InterruptedException
    {
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean())
        {
            if (System.currentTimeMillis() > deadlineMs)
            {
                throw new AssertionError(message.get());
            }
            Thread.sleep(50);
        }
    }
}
