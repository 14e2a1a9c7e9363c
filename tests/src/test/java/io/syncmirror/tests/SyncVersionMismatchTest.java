package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.tools.ClusterMirrorsCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A source cluster with {@code mirror.sync.version=0}: it cannot gate produces on a sync mirror. */
@Timeout(180)
class SyncVersionMismatchTest
{
    private static final String MIRROR = "old-src";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 1, Map.of(), Map.of("mirror.sync.version", "0"));
        clusters.createMirror(MIRROR);
    }

    @Test
    @DisplayName("SI-18 SU-10 a promotion the source answers MIRROR_SYNC_VERSION_MISMATCH leaves the topic ASYNC "
        + "with desired SYNC and counts SyncRegistrationRejected{reason=VERSION_MISMATCH}, retried with backoff")
    void shouldStayAsyncOnVersionMismatch() throws Exception
    {
        final String topic = "mismatch";
        clusters.createSourceTopic(topic, 1);
        produce(topic, 5);
        clusters.addAndAwaitMirroring(MIRROR, topic, 1);
        // A programmatic caller skips the command's probe: the broker-side check catches the incompatibility.
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, topic,
            MirrorType.SYNC).errorCode());
        Clients.awaitCondition(() -> rejected() >= 2, 20_000, "two rejected Registers (a retry)");
        final DescribeClusterMirrorsResponseData.MirrorTopic described =
            SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow();
        assertEquals(MirrorType.SYNC.id(), described.desiredMirrorType());
        assertEquals(MirrorType.ASYNC.id(), described.effectiveMirrorType());
        assertTrue(SyncMirrors.registeredMirrors(clusters.source(), 1, topic).isEmpty());
        assertEquals(MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code(), SyncMirrors.register(clusters.source(), MIRROR,
            topic, SyncMirrors.topicId(clusters.source(), topic), false).errorCode());
        // Backoff: 200 ms doubling to 1 s (Mirrors.FAST). Two more attempts after the second one wait at least the
        // third backoff (800 ms) between them; without a backoff they would come a tick (50 ms) apart.
        final long before = rejected();
        final long startNanos = System.nanoTime();
        Clients.awaitCondition(() -> rejected() >= before + 2, 20_000, "two more rejected Registers");
        final long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
        assertTrue(elapsedMs >= 700, "Registers were not backed off: two more in " + elapsedMs + " ms");
    }

    @Test
    @DisplayName("SI-17 --alter --sync against a source with mirror.sync.version disabled fails with a clear error, "
        + "exits non-zero, and leaves the desired type unchanged")
    void shouldRefuseTheAlterThroughTheProbe() throws Exception
    {
        final String topic = "probe-refused";
        clusters.createSourceTopic(topic, 1);
        clusters.addAndAwaitMirroring(MIRROR, topic, 1);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            exit = ClusterMirrorsCommand.run(new String[] {"--bootstrap-server",
                clusters.destination().bootstrapServers(), "--alter", "--mirror", MIRROR, "--topics", topic,
                "--sync"}, outStream, errStream);
        }
        final String errText = err.toString(StandardCharsets.UTF_8);
        assertNotEquals(ClusterMirrorsCommand.EXIT_OK, exit, errText);
        assertTrue(errText.contains("mirror.sync.version") || errText.contains("Fetch"), errText);
        // The probe refused before any AlterMirrorTopicType went out: nothing is on its way to change the type.
        assertEquals(MirrorType.ASYNC.id(), SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow()
            .desiredMirrorType());
    }

    private static long rejected()
    {
        try
        {
            final MirrorMetrics metrics = clusters.destination().broker(1).mirrorMetrics();
            return (Long)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncRegistrationRejectedName(metrics.brokerTag(),
                    RejectReason.VERSION_MISMATCH), MirrorMetrics.VALUE_ATTRIBUTE);
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
    }

    private static void produce(final String topic, final int records) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < records; i++)
            {
                producer.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
    }
}
