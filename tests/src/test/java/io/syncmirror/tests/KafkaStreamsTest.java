package io.syncmirror.tests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An unmodified Kafka Streams 4.4 application with {@code processing.guarantee=exactly_once_v2} against a 3-broker
 * cluster: a re-keying count, so it has a repartition topic and a persistent store with a changelog; the test
 * thread drives it, the application runs its own stream thread.
 *
 * <p>What it exercises on the broker: the classic group protocol with Streams' own assignor, transactions across
 * the repartition, changelog and output topics with the consumer offsets (TxnOffsetCommit, AddOffsetsToTxn),
 * read_committed fetches of the repartition topic, and, after the local state is deleted, a restore of the store
 * from its changelog (read from the log start, up to the end offset the consumer lists).
 */
@Timeout(180)
class KafkaStreamsTest
{
    private static final String APPLICATION_ID = "sm-streams-count";
    private static final String INPUT = "streams-input";
    private static final String OUTPUT = "streams-output";
    private static final String STORE = "counts-by-colour";
    private static final int PARTITIONS = 6;
    private static final int INPUT_KEYS = 50;
    private static final int COLOURS = 23;
    private static final int FIRST_BATCH = 2_000;
    private static final int SECOND_BATCH = 1_000;

    private static EmbeddedCluster cluster;
    private static Admin admin;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void start() throws Exception
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
        admin = Clients.admin(cluster.bootstrapServers());
        Clients.createTopic(admin, INPUT, PARTITIONS, (short)3, Map.of());
        Clients.createTopic(admin, OUTPUT, PARTITIONS, (short)3, Map.of());
    }

    @AfterAll
    static void stop()
    {
        if (admin != null)
        {
            admin.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }

    /** Input record {@code i}: keyed by one of 50 keys, its value names the colour the application counts. */
    private static String inputKey(final int i)
    {
        return "key-" + (i % INPUT_KEYS);
    }

    private static String inputValue(final int i)
    {
        return "colour-" + ((i * 31) % COLOURS) + "#" + i;
    }

    /** The new key the application derives from a value: the colour before the '#'. */
    private static String colourOf(final String value)
    {
        return value.substring(0, value.indexOf('#'));
    }

    /** The model: how many of input records {@code [0, count)} name each colour. */
    private static Map<String, Long> model(final int count)
    {
        final Map<String, Long> counts = new HashMap<>();
        IntStream.range(0, count).forEach(i -> counts.merge(colourOf(inputValue(i)), 1L, Long::sum));
        return counts;
    }

    private static void produceInput(final int fromInclusive, final int toExclusive)
    {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(props, new StringSerializer(), new StringSerializer()))
        {
            for (int i = fromInclusive; i < toExclusive; i++)
            {
                producer.send(new ProducerRecord<>(INPUT, inputKey(i), inputValue(i)));
            }
            producer.flush();
        }
    }

    private static Topology topology()
    {
        final StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
            .selectKey((key, value) -> colourOf(value))
            .groupByKey()
            .count(Materialized.as(STORE))
            .toStream()
            .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private Properties streamsConfig()
    {
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return props;
    }

    /** Counts what a restore brought back into the store, and remembers a stream thread's failure. */
    private static final class Observed implements StateRestoreListener
    {
        final AtomicLong restoredRecords = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Override
        public void onRestoreStart(final TopicPartition partition, final String storeName, final long startOffset,
            final long endOffset)
        {
        }

        @Override
        public void onBatchRestored(final TopicPartition partition, final String storeName,
            final long batchEndOffset, final long numRestored)
        {
            restoredRecords.addAndGet(numRestored);
        }

        @Override
        public void onRestoreEnd(final TopicPartition partition, final String storeName, final long totalRestored)
        {
        }
    }

    private KafkaStreams startApplication(final Observed observed) throws InterruptedException
    {
        final KafkaStreams streams = new KafkaStreams(topology(), streamsConfig());
        streams.setGlobalStateRestoreListener(observed);
        streams.setUncaughtExceptionHandler(e ->
        {
            observed.failure.compareAndSet(null, e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.start();
        awaitWhileRunning(streams, observed, () -> streams.state() == KafkaStreams.State.RUNNING, 60_000,
            "the application never reached RUNNING");
        return streams;
    }

    private static void awaitWhileRunning(final KafkaStreams streams, final Observed observed,
        final BooleanSupplier condition, final long timeoutMs, final String message)
        throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            if (observed.failure.get() != null || streams.state() == KafkaStreams.State.ERROR)
            {
                fail(message + ": the application failed (" + streams.state() + ")", observed.failure.get());
            }
            return condition.getAsBoolean();
        }, timeoutMs, message);
    }

    private static void close(final KafkaStreams streams)
    {
        // Leaving the group lets the restarted instance's JoinGroup rebalance at once instead of waiting out the
        // session timeout of the member that is gone.
        final CloseOptions leave = CloseOptions
            .groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(30));
        assertTrue(streams.close(leave), "the application did not close in time");
    }

    /** A read_committed reader of the output that keeps the last count seen per colour. */
    private static final class OutputReader implements AutoCloseable
    {
        private final KafkaConsumer<String, Long> consumer;
        private final Map<String, Long> lastCounts = new HashMap<>();
        private long records;

        OutputReader()
        {
            final Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumer = new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer());
            final List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++)
            {
                partitions.add(new TopicPartition(OUTPUT, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        Map<String, Long> poll()
        {
            consumer.poll(Duration.ofMillis(100)).forEach(r ->
            {
                records++;
                lastCounts.put(r.key(), r.value());
            });
            return lastCounts;
        }

        /** Reads on to the end of the committed output, so that a count written after a match is seen too. */
        Map<String, Long> drain(final long timeoutMs) throws InterruptedException
        {
            final Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
            Clients.awaitCondition(() ->
            {
                poll();
                return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
            }, timeoutMs, "the output was not read to its end " + ends);
            return lastCounts;
        }

        long records()
        {
            return records;
        }

        @Override
        public void close()
        {
            consumer.close();
        }
    }

    private static void awaitOutput(final KafkaStreams streams, final Observed observed, final OutputReader reader,
        final Map<String, Long> expected, final String phase) throws InterruptedException
    {
        awaitWhileRunning(streams, observed, () -> reader.poll().equals(expected), 90_000,
            phase + ": the last count per colour never matched the model " + expected + "; read " + reader.poll());
        assertEquals(expected, reader.poll(), phase);
    }

    @Test
    @DisplayName("exactly_once_v2 re-keying count: output matches the model, and again after a restore from the "
        + "changelog with the local state deleted")
    void shouldCountExactlyOnceAndRestoreTheStoreFromItsChangelog() throws Exception
    {
        produceInput(0, FIRST_BATCH);
        final Observed first = new Observed();
        try (OutputReader reader = new OutputReader())
        {
            final KafkaStreams streams = startApplication(first);
            try
            {
                awaitOutput(streams, first, reader, model(FIRST_BATCH), "first run");
            }
            finally
            {
                close(streams);
            }
            assertNull(first.failure.get(), "the first run failed");
            assertEquals(model(FIRST_BATCH), reader.drain(30_000), "the committed output after the first run");
            assertTrue(reader.records() >= COLOURS, "fewer output records than colours: " + reader.records());
        }

        final Set<String> topics = admin.listTopics().names().get();
        final String changelog = APPLICATION_ID + "-" + STORE + "-changelog";
        assertTrue(topics.contains(changelog), "no changelog topic among " + topics);
        final List<String> repartition = topics.stream()
            .filter(t -> t.startsWith(APPLICATION_ID) && t.endsWith("-repartition")).toList();
        assertEquals(1, repartition.size(), "repartition topics among " + topics);
        for (final String internal : List.of(changelog, repartition.get(0)))
        {
            final TopicDescription description = Clients.describe(admin, internal);
            assertEquals(PARTITIONS, description.partitions().size(), internal);
            assertTrue(description.partitions().stream().allMatch(p -> p.replicas().size() == 3),
                internal + " is not replicated 3 times: " + description);
        }

        final Path applicationState = stateDir.resolve(APPLICATION_ID);
        assertTrue(applicationState.toFile().isDirectory(), "no local state at " + applicationState);
        Utils.delete(applicationState.toFile());
        assertFalse(applicationState.toFile().exists(), "the local state was not deleted");

        produceInput(FIRST_BATCH, FIRST_BATCH + SECOND_BATCH);
        final Observed second = new Observed();
        try (OutputReader reader = new OutputReader())
        {
            final KafkaStreams streams = startApplication(second);
            try
            {
                awaitOutput(streams, second, reader, model(FIRST_BATCH + SECOND_BATCH), "after the restore");
            }
            finally
            {
                close(streams);
            }
            assertNull(second.failure.get(), "the restarted run failed");
            assertEquals(model(FIRST_BATCH + SECOND_BATCH), reader.drain(30_000),
                "the committed output after the restarted run");
        }
        assertTrue(second.restoredRecords.get() >= COLOURS,
            "the store was not restored from its changelog: " + second.restoredRecords.get() + " records restored");
    }
}
