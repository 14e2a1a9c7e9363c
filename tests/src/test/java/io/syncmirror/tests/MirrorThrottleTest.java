package io.syncmirror.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mirror.replication.throttled.rate} bounds the bytes per second a destination broker mirrors. */
@Timeout(120)
class MirrorThrottleTest
{
    private static final long RATE_BYTES_PER_SEC = 200_000L;
    private static final int RECORDS = 200;
    private static final int VALUE_BYTES = 10_000;

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1,
            Map.of("mirror.replication.throttled.rate", Long.toString(RATE_BYTES_PER_SEC)));
    }

    @Test
    @DisplayName("AM-13 with mirror.replication.throttled.rate=200000 about 2 MB are mirrored at no more than 1.5x "
        + "that rate after the first second, and all of it arrives")
    void shouldMirrorAtThrottledRate() throws Exception
    {
        final String topic = "throttled";
        final TopicPartition tp = new TopicPartition(topic, 0);
        clusters.createSourceTopic(topic, 1);
        final Random random = new Random(42);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.<String, Object>of("compression.type", "none")))
        {
            for (int i = 0; i < RECORDS; i++)
            {
                final byte[] value = new byte[VALUE_BYTES];
                random.nextBytes(value);
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(); // a batch per record
            }
        }
        final byte[] sourceBytes = AsyncMirroringTest.batchBytes(clusters.source(), tp);
        final double bytesPerRecord = sourceBytes.length / (double)RECORDS;
        assertTrue(sourceBytes.length >= 2_000_000, "about 2 MB at the source: " + sourceBytes.length);

        clusters.createMirror("m1");
        Mirrors.addOk(clusters.destination(), "m1", topic);
        // Samples of (time, destination LEO) until every record arrived.
        final List<long[]> samples = new ArrayList<>();
        final long deadlineMs = System.currentTimeMillis() + 60_000;
        long leo = 0;
        while (leo < RECORDS)
        {
            assertTrue(System.currentTimeMillis() < deadlineMs, "everything mirrored in time; at " + leo);
            final Partition leader = AsyncMirroringTest.leader(clusters.destination(), tp);
            leo = leader == null ? 0 : leader.log().logEndOffset();
            if (leo > 0)
            {
                samples.add(new long[] {System.nanoTime(), leo});
            }
            Thread.sleep(20);
        }
        final long firstNanos = samples.get(0)[0];
        final long[] last = samples.get(samples.size() - 1);
        long[] afterFirstSecond = null;
        for (final long[] sample : samples)
        {
            if (sample[0] - firstNanos >= 1_000_000_000L)
            {
                afterFirstSecond = sample;
                break;
            }
        }
        assertTrue(afterFirstSecond != null, "mirroring took more than a second (unthrottled it takes far less)");
        final double seconds = (last[0] - afterFirstSecond[0]) / 1e9;
        final double bytes = (last[1] - afterFirstSecond[1]) * bytesPerRecord;
        final double rate = bytes / seconds;
        assertTrue(rate <= 1.5 * RATE_BYTES_PER_SEC, "mirrored at " + (long)rate + " B/s after the first second ("
            + (long)bytes + " B in " + seconds + " s), above 1.5x the throttle");
        final double totalSeconds = (last[0] - firstNanos) / 1e9;
        assertTrue(totalSeconds >= (sourceBytes.length - 2 * RATE_BYTES_PER_SEC) / (1.5 * RATE_BYTES_PER_SEC),
            "2 MB took " + totalSeconds + " s");

        clusters.awaitCaughtUp(tp, 30_000);
        assertArrayEquals(sourceBytes, AsyncMirroringTest.batchBytes(clusters.destination(), tp));
    }
}
