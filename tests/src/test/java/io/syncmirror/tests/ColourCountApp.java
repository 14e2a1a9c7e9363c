package io.syncmirror.tests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * An unmodified Kafka Streams 4.4 application for disaster-recovery trials: it re-keys each input record by a colour
 * derived from its value bytes and counts records per colour, so it has all three kinds of topic a Streams
 * application owns: its input, a repartition topic ({@link #repartitionTopic()}) and a store's changelog
 * ({@link #changelogTopic()}), and it writes every new count to {@link #OUTPUT}.
 *
 * <p>{@code at_least_once} with a 500 ms commit interval and no record cache: every update reaches the changelog and
 * the output at once, and a failover reprocesses only what came after the last commit the destination has. The
 * clients' timeouts are short so that the application gives up on a dead cluster within seconds instead of
 * minutes. The application runs its own stream thread; the test thread starts, watches and closes it.
 */
final class ColourCountApp implements AutoCloseable
{
    static final String APPLICATION_ID = "sm-dr-colour-count";
    static final String OUTPUT = "colour-counts";
    static final int COLOURS = 23;
    static final long COMMIT_INTERVAL_MS = 500;
    private static final String STORE = "counts";
    private static final String REPARTITION = "by-colour";

    private final KafkaStreams streams;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ColourCountApp(final String bootstrap, final String input, final Path stateDir)
    {
        streams = new KafkaStreams(topology(input), config(bootstrap, stateDir));
        streams.setUncaughtExceptionHandler(e ->
        {
            failure.compareAndSet(null, e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    }

    /** Starts the application on {@code bootstrap} with its state under {@code stateDir}, and waits for RUNNING. */
    static ColourCountApp start(final String bootstrap, final String input, final Path stateDir)
        throws InterruptedException
    {
        final ColourCountApp app = new ColourCountApp(bootstrap, input, stateDir);
        app.streams.start();
        try
        {
            Clients.awaitCondition(() ->
            {
                app.assertHealthy();
                return app.streams.state() == KafkaStreams.State.RUNNING;
            }, 90_000, "the application never reached RUNNING on " + bootstrap);
        }
        catch (final RuntimeException | AssertionError | InterruptedException e)
        {
            app.streams.close(Duration.ofSeconds(10));
            throw e;
        }
        return app;
    }

    /** The colour a value names: a function of its bytes only, so a model can be computed from any copy of it. */
    static String colourOf(final byte[] value)
    {
        return "colour-" + Math.floorMod(Arrays.hashCode(value), COLOURS);
    }

    static String repartitionTopic()
    {
        return APPLICATION_ID + "-" + REPARTITION + "-repartition";
    }

    static String changelogTopic()
    {
        return APPLICATION_ID + "-" + STORE + "-changelog";
    }

    /** Every topic the application reads or writes, {@code input} first. */
    static List<String> topics(final String input)
    {
        return List.of(input, repartitionTopic(), changelogTopic(), OUTPUT);
    }

    /** The topics the application's consumer group commits offsets for. */
    static List<String> consumedTopics(final String input)
    {
        return List.of(input, repartitionTopic());
    }

    private static Topology topology(final String input)
    {
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
            .selectKey((key, value) -> colourOf(value))
            .groupByKey(Grouped.with(REPARTITION, Serdes.String(), Serdes.ByteArray()))
            .count(Materialized.as(STORE))
            .toStream()
            .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private static Properties config(final String bootstrap, final Path stateDir)
    {
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int)ZeroRpoTrial.REPLICATION_FACTOR);
        props.put(StreamsConfig.topicPrefix("min.insync.replicas"), ZeroRpoTrial.MIN_INSYNC_REPLICAS);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        props.put(StreamsConfig.producerPrefix(ProducerConfig.ACKS_CONFIG), "all");
        // A dead cluster must fail the application within seconds (the test then closes it), not in minutes.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG), 5_000);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_BLOCK_MS_CONFIG), 5_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG), 5_000);
        // KafkaStreams.close closes its admin client last, and that waits for the admin's pending calls to reach
        // their deadline: 60 s by default, which alone can outlast the test's close timeout. The stream thread
        // purges the repartition topic's committed records through the admin every 30 s, after the kill too.
        props.put(StreamsConfig.adminClientPrefix(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.adminClientPrefix(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG), 5_000);
        return props;
    }

    /** Fails the test when a stream thread died or the application went to ERROR. */
    void assertHealthy()
    {
        if (failure.get() != null || streams.state() == KafkaStreams.State.ERROR)
        {
            throw new AssertionError("the application failed (" + streams.state() + ")", failure.get());
        }
    }

    /**
     * Closes the application and leaves the group, so that a group reset or another instance need not wait out
     * the member's session; true when it closed within {@code timeout}.
     */
    boolean close(final Duration timeout)
    {
        return streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(timeout));
    }

    /**
     * The stacks of this JVM's threads that belong to an application with {@link #APPLICATION_ID} (stream, close,
     * admin and client network threads are named after it): where a close that did not finish is waiting.
     */
    static String applicationThreads()
    {
        final StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) ->
        {
            if (thread.getName().contains(APPLICATION_ID))
            {
                out.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                for (final StackTraceElement frame : stack)
                {
                    out.append("    at ").append(frame).append('\n');
                }
            }
        });
        return out.toString();
    }

    @Override
    public void close()
    {
        close(Duration.ofSeconds(30));
    }
}
