package io.syncmirror.tests;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sync spec's Kafka Streams disaster recovery, end to end on the {@link ZeroRpoTrial} harness: 3-broker source
 * and destination clusters of broker processes, RF 3 and min ISR 2 everywhere, 10 ms of injected one-way delay on
 * the mirror link. A Streams application ({@link ColourCountApp}: a re-keying count) runs on the source; its input,
 * repartition, changelog and output topics are mirrored in SYNC, and its consumer group's offsets are copied
 * asynchronously by the mirror, as the spec says.
 *
 * <ul>
 * <li>Planned failover: the load stops, the application stops, the topics fail over with the CLI, the group's
 * offsets committed on the source are moved to the destination with {@code kafka-consumer-groups --reset-offsets}
 * (the spec's mitigation), the application starts on the destination and more input arrives there: the counts equal
 * the model exactly.</li>
 * <li>Unplanned failover: every source broker SIGKILLed under load, the topics fail over, the offsets the destination
 * has are applied with {@code --reset-offsets} (Kafka's tool clamps them to the logs), the application restarts on
 * the destination with empty local state: no acknowledged input record is lost, every count is at least the model's,
 * and the over-count is at most the records past the destination's committed offsets (the reprocessing the spec
 * calls bounded), a window this test also bounds in time.</li>
 * <li>The same unplanned run in ASYNC mode loses acknowledged input: the check can fail.</li>
 * </ul>
 */
@Tag("system")
class StreamsDisasterRecoveryTest
{
    private static final double INJECTED_DELAY_MS = 10;
    /**
     * The ASYNC control's link delay. What it loses is the input acknowledged in the last fetch cycle before the
     * kill (a cycle is at least twice the one-way delay): at 10 ms that was 9 records in one run and none in
     * another (the load's acknowledgements come in bursts), so the control could not always tell loss from none.
     * 40 ms makes the window four times as wide; it is still nothing but a link delay.
     */
    private static final double ASYNC_CONTROL_DELAY_MS = 40;
    private static final String MIRROR = "dr";
    private static final String INPUT = ZeroRpoTrial.TOPIC;
    /** Input records per second: with the application's three writes per input record, well inside 2 cores. */
    private static final double RECORDS_PER_SEC = 400;
    /** Records produced on the destination after a planned failover: the state must go on from the exact count. */
    private static final int RECORDS_AFTER_FAILOVER = 1_000;
    /**
     * How far, in time, the destination's committed offsets may trail what the application had processed at the
     * kill: its commit interval, the mirror's group offset copy interval (300 ms in the tests' settings) and its
     * round trips, and a margin for a loaded 2-core machine. The over-count is bounded by the records in it.
     */
    private static final long REPROCESSING_WINDOW_MS = 10_000;
    private static final long WAIT_MS = 120_000;

    /** Kept when a test fails: the brokers' configs and logs are what explains it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    static Stream<Long> seeds()
    {
        return ZeroRpoScenarioTest.seeds();
    }

    @ParameterizedTest(name = "Streams DR, planned failover: offsets moved with --reset-offsets, the state and "
        + "output on the destination equal the model exactly: seed {0}")
    @MethodSource("seeds")
    @Timeout(360)
    void shouldCarryOnExactlyAfterAPlannedFailover(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            final ColourCountApp sourceApp = startOnSourceAndMirror(trial, MirrorType.SYNC);
            trial.awaitAcked(3_000 + trial.random().nextInt(2_000), MIRROR, 0);
            trial.load().stop();
            trial.note("load stopped: %d acknowledged, %d failed", trial.ledger().ackedCount(),
                trial.ledger().failedCount());
            assertTrue(sourceApp.close(Duration.ofSeconds(60)), "the application did not close on the source");
            final Map<TopicPartition, Long> sourceCommitted;
            try (Admin admin = Clients.admin(trial.source().bootstrapServers()))
            {
                sourceCommitted = committed(admin, trial.partitions());
            }
            trial.note("application stopped on the source; its group committed %s", sourceCommitted);

            trial.failOver(0, MIRROR, ColourCountApp.topics(INPUT));
            final AckLedger.Verdict verdict = trial.check(0);
            assertEquals(0, verdict.lost(), () -> "acknowledged input lost: " + verdict + "\n" + log(trial));
            final String destination = trial.destination(0).bootstrapServers();
            resetOffsets(trial, destination, sourceCommitted);
            try (Admin admin = Clients.admin(destination))
            {
                assertEquals(sourceCommitted, committed(admin, trial.partitions()),
                    "the group's offsets on the destination after --reset-offsets");
            }

            try (ColourCountApp app = ColourCountApp.start(destination, INPUT, dir.resolve("state-destination")))
            {
                trial.note("application running on the destination");
                produce(destination, trial.partitions(), RECORDS_AFTER_FAILOVER, seed);
                awaitCaughtUp(trial, app, destination);
                final Map<String, Long> model = model(Clients.readToEnd(destination, INPUT, trial.partitions(),
                    WAIT_MS));
                final Map<String, Long> counts = lastCounts(destination, trial.partitions());
                trial.note("model %s; counts %s", model, counts);
                assertEquals(model, counts, () -> "the counts after a planned failover\n" + log(trial));
            }
        }
    }

    @ParameterizedTest(name = "Streams DR, unplanned failover (SIGKILL of every source broker under load): no "
        + "acknowledged input lost, the over-count within the reprocessing window: seed {0}")
    @MethodSource("seeds")
    @Timeout(360)
    void shouldLoseNoInputAndReprocessOnlyTheWindowAfterAnUnplannedFailover(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            final AckLedger.Verdict verdict = killUnderLoadAndFailOver(trial, MirrorType.SYNC);
            assertTrue(verdict.acked() >= 5_000, () -> "too few acknowledged: " + verdict);
            assertEquals(0, verdict.duplicateAcks(), () -> "offsets acknowledged twice: " + verdict);
            assertEquals(0, verdict.lost(), () -> "acknowledged input lost: " + verdict + "\n" + log(trial));

            final String destination = trial.destination(0).bootstrapServers();
            final long window;
            try (Admin admin = Clients.admin(destination))
            {
                final Map<TopicPartition, Long> copied = committed(admin, trial.partitions());
                trial.note("the group's offsets the mirror copied to the destination: %s", copied);
                assertEquals(2 * trial.partitions(), copied.size(), () -> "the destination lacks the group's offsets "
                    + "of some partition: " + copied + "\n" + log(trial));
                resetOffsets(trial, destination, copied);
                final Map<TopicPartition, Long> start = committed(admin, trial.partitions());
                final Map<TopicPartition, Long> ends = endOffsets(admin, trial.partitions());
                window = ends.entrySet().stream().mapToLong(e -> e.getValue() - start.get(e.getKey())).sum();
                trial.note("reprocessing window: %d records past the committed offsets %s (log ends %s)", window, start,
                    ends);
            }
            final long windowBound = (long)(RECORDS_PER_SEC * REPROCESSING_WINDOW_MS / 1000.0);
            assertTrue(window <= windowBound, () -> "the destination's committed offsets trail its logs by " + window
                + " records, more than " + REPROCESSING_WINDOW_MS + " ms of input (" + windowBound + ")\n" + log(trial));

            final Map<String, Long> model = model(Clients.readToEnd(destination, INPUT, trial.partitions(),
                WAIT_MS));
            try (ColourCountApp app = ColourCountApp.start(destination, INPUT, dir.resolve("state-destination")))
            {
                trial.note("application running on the destination with empty local state");
                awaitCaughtUp(trial, app, destination);
                final Map<String, Long> counts = lastCounts(destination, trial.partitions());
                long overCount = 0;
                for (final Map.Entry<String, Long> expected : model.entrySet())
                {
                    final long count = counts.getOrDefault(expected.getKey(), 0L);
                    assertTrue(count >= expected.getValue(), () -> expected.getKey() + " counted " + count + " < " +
                        expected.getValue() + " records of the destination's input: state lost\n" + log(trial));
                    overCount += count - expected.getValue();
                }
                assertEquals(model.keySet(), counts.keySet(), "the colours counted");
                final long overCounted = overCount;
                trial.note("model %s; counts %s; over-count %d (window %d)", model, counts, overCounted, window);
                assertTrue(overCounted <= window, () -> "over-counted by " + overCounted + ", more than the " + window
                    + " records past the committed offsets could explain\n" + log(trial));
            }
        }
    }

    @ParameterizedTest(name = "Streams DR negative control: the unplanned failover in ASYNC mode loses "
        + "acknowledged input: seed {0}")
    @MethodSource("seeds")
    @Timeout(360)
    void shouldLoseAcknowledgedInputInAsyncMode(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, ASYNC_CONTROL_DELAY_MS))
        {
            final AckLedger.Verdict verdict = killUnderLoadAndFailOver(trial, MirrorType.ASYNC);
            assertTrue(verdict.lost() > 0, () -> "the ASYNC control lost no acknowledged input, so the check cannot "
                + "tell loss from none: " + verdict + "\n" + log(trial));
        }
    }

    /**
     * Creates the input and output topics on the source, starts the application there (it creates its internal
     * topics), mirrors all four with {@code type}, and starts the input load.
     */
    private ColourCountApp startOnSourceAndMirror(final ZeroRpoTrial trial, final MirrorType type) throws Exception
    {
        trial.createTopic();
        try (Admin admin = Clients.admin(trial.source().bootstrapServers()))
        {
            Clients.createTopic(admin, ColourCountApp.OUTPUT, trial.partitions(), ZeroRpoTrial.REPLICATION_FACTOR,
                Map.of("min.insync.replicas", Integer.toString(ZeroRpoTrial.MIN_INSYNC_REPLICAS)));
        }
        final ColourCountApp app = ColourCountApp.start(trial.source().bootstrapServers(), INPUT,
            dir.resolve("state-source"));
        trial.note("application running on the source");
        try
        {
            trial.mirror(0, MIRROR, type, ColourCountApp.topics(INPUT));
            trial.startLoad(RECORDS_PER_SEC);
            return app;
        }
        catch (final Exception | AssertionError e)
        {
            app.close(Duration.ofSeconds(10));
            throw e;
        }
    }

    /**
     * The unplanned failover: the application on the source under load, every source broker SIGKILLed at a seeded
     * point, the application closed (its clients give up within seconds; it must close, not linger), the four
     * topics failed over; returns the check of the acknowledged input on the destination.
     */
    private AckLedger.Verdict killUnderLoadAndFailOver(final ZeroRpoTrial trial, final MirrorType type)
        throws Exception
    {
        final ColourCountApp sourceApp = startOnSourceAndMirror(trial, type);
        trial.awaitAcked(5_000 + trial.random().nextInt(2_000), MIRROR, 0);
        trial.killSource();
        final boolean closed = sourceApp.close(Duration.ofSeconds(60));
        trial.note("application on the dead source %s", closed ? "closed" : "did NOT close within 60 s; its threads:\n"
            + ColourCountApp.applicationThreads());
        assertTrue(closed, "the application on the dead source did not close");
        trial.failOver(0, MIRROR, ColourCountApp.topics(INPUT));
        return trial.check(0);
    }

    /**
     * {@code kafka-consumer-groups --reset-offsets --from-file --execute} against {@code bootstrap}: the group's
     * offsets set to {@code offsets}, as an operator moves them.
     */
    private static void resetOffsets(final ZeroRpoTrial trial, final String bootstrap,
        final Map<TopicPartition, Long> offsets) throws Exception
    {
        final Path csv = Files.createTempFile("reset-offsets", ".csv");
        try
        {
            final StringBuilder lines = new StringBuilder();
            offsets.forEach((tp, offset) -> lines.append(tp.topic()).append(',').append(tp.partition()).append(',')
                .append(offset).append('\n'));
            Files.writeString(csv, lines, StandardCharsets.UTF_8);
            final KafkaTools.Output output = KafkaTools.run("kafka-consumer-groups", ConsumerGroupCommand::main,
                List.of("--bootstrap-server", bootstrap, "--group", ColourCountApp.APPLICATION_ID, "--reset-offsets",
                    "--from-file", csv.toString(), "--execute"));
            assertEquals(0, output.status(), output::toString);
            assertTrue(output.out().contains("NEW-OFFSET"), () -> "--reset-offsets printed no plan: " + output);
            trial.note("kafka-consumer-groups --reset-offsets --from-file --execute on %s: %d partitions", bootstrap,
                offsets.size());
        }
        finally
        {
            Files.deleteIfExists(csv);
        }
    }

    /** The application's committed offsets on its consumed topics, partitions without one left out. */
    private static Map<TopicPartition, Long> committed(final Admin admin, final int partitions) throws Exception
    {
        final Map<TopicPartition, OffsetAndMetadata> offsets = admin
            .listConsumerGroupOffsets(ColourCountApp.APPLICATION_ID).partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
        final Map<TopicPartition, Long> result = new TreeMap<>(StreamsDisasterRecoveryTest::compare);
        for (final TopicPartition tp : consumedPartitions(partitions))
        {
            final OffsetAndMetadata offset = offsets.get(tp);
            if (offset != null)
            {
                result.put(tp, offset.offset());
            }
        }
        return result;
    }

    private static Map<TopicPartition, Long> endOffsets(final Admin admin, final int partitions) throws Exception
    {
        final Map<TopicPartition, Long> result = new TreeMap<>(StreamsDisasterRecoveryTest::compare);
        result.putAll(Clients.endOffsets(admin, consumedPartitions(partitions), 30_000));
        return result;
    }

    private static int compare(final TopicPartition a, final TopicPartition b)
    {
        final int byTopic = a.topic().compareTo(b.topic());
        return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
    }

    private static List<TopicPartition> consumedPartitions(final int partitions)
    {
        final List<TopicPartition> result = new ArrayList<>();
        for (final String topic : ColourCountApp.consumedTopics(INPUT))
        {
            for (int p = 0; p < partitions; p++)
            {
                result.add(new TopicPartition(topic, p));
            }
        }
        return result;
    }

    /**
     * Waits until the application has committed every record of its input and repartition topics: then every
     * count it derived is in the output (at_least_once flushes its writes before it commits).
     */
    private static void awaitCaughtUp(final ZeroRpoTrial trial, final ColourCountApp app, final String bootstrap)
        throws Exception
    {
        try (Admin admin = Clients.admin(bootstrap))
        {
            Clients.awaitCondition(() ->
            {
                app.assertHealthy();
                try
                {
                    return committed(admin, trial.partitions()).equals(endOffsets(admin, trial.partitions()));
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, WAIT_MS, "the application never committed its input and repartition topics to their ends");
        }
        trial.note("application caught up: committed offsets at the log ends");
    }

    /** The model: how many of {@code input} name each colour. */
    private static Map<String, Long> model(final List<ConsumerRecord<byte[], byte[]>> input)
    {
        final Map<String, Long> counts = new TreeMap<>();
        input.forEach(r -> counts.merge(ColourCountApp.colourOf(r.value()), 1L, Long::sum));
        return counts;
    }

    /** The application's output: the last count written for each colour. */
    private static Map<String, Long> lastCounts(final String bootstrap, final int partitions)
    {
        final Map<String, Long> counts = new TreeMap<>();
        for (final ConsumerRecord<byte[], byte[]> record : Clients.readToEnd(bootstrap, ColourCountApp.OUTPUT,
            partitions, WAIT_MS))
        {
            counts.put(new String(record.key(), StandardCharsets.UTF_8), ByteBuffer.wrap(record.value()).getLong());
        }
        return counts;
    }

    /** {@code count} acks=all records with unique values onto the input on {@code bootstrap}, round robin. */
    private static void produce(final String bootstrap, final int partitions, final int count, final long seed)
        throws Exception
    {
        final Random random = new Random(seed ^ 0x5eed);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of()))
        {
            final List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < count; i++)
            {
                final byte[] value = new byte[64];
                random.nextBytes(value);
                final byte[] header = ("after failover n" + i + " ").getBytes(StandardCharsets.UTF_8);
                System.arraycopy(header, 0, value, 0, header.length);
                sends.add(producer.send(new ProducerRecord<>(INPUT, i % partitions, null, value)));
            }
            for (final Future<?> send : sends)
            {
                send.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static String log(final ZeroRpoTrial trial)
    {
        return String.join("\n", trial.log());
    }
}
