package io.syncmirror.bench.e2e;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The load generator of the latency harness: one real {@link KafkaProducer} (acks=all, idempotent, linger.ms 0)
 * that sends fixed-size messages at a fixed rate and records each one's latency from its <em>intended</em> send
 * time to its acknowledgement callback. Not thread-safe: one round at a time from one thread; the producer's own
 * I/O thread runs the callbacks and is stopped before {@link #run} returns.
 *
 * <p>Message {@code i} is due at {@code start + i / rate}. The pacing thread parks until then (never spins: the
 * brokers share the machine's cores) and sends; the latency is taken from the due time, not from the call, so a
 * stall in the broker that holds up later sends (a full buffer, a blocked metadata wait, a late wake-up) is
 * charged to every message it delayed instead of vanishing from the histogram (coordinated omission). After a
 * stall the thread sends the backlog at once, as a client with a fixed arrival rate would.
 *
 * <p>Messages go round-robin to explicit partitions: Kafka's sticky partitioner would otherwise fill one
 * partition's batch after another and measure a different load per partition.
 */
public final class PacedProducer
{
    /** The harness's topic. */
    public static final String TOPIC = "e2e-latency";

    private static final int SIGNIFICANT_DIGITS = 3;

    private PacedProducer()
    {
    }

    /**
     * The outcome of one measured phase. Immutable once returned.
     *
     * @param histogram acknowledged messages' latencies in microseconds from their due time
     * @param sent      messages handed to the producer
     * @param errors    messages that failed (send threw, or the callback carried an exception)
     * @param cpuPercent this whole process's CPU use over the phase, 100 per busy core (load generator and any
     *                   in-process brokers alike); NaN when the JVM does not report it
     */
    public record PhaseResult(Histogram histogram, long sent, long errors, double cpuPercent)
    {
    }

    /** Warms up for {@code options.warmupSeconds()}, then measures for {@code options.measureSeconds()}. */
    public static PhaseResult run(final String bootstrapServers, final String clientId, final HarnessOptions options)
        throws InterruptedException
    {
        return run(bootstrapServers, clientId, options, Map.of());
    }

    /** As above, with Kafka client settings besides the bootstrap servers (TLS). */
    public static PhaseResult run(final String bootstrapServers, final String clientId, final HarnessOptions options,
        final Map<String, Object> clientConfigs) throws InterruptedException
    {
        final byte[] value = new byte[options.messageBytes()];
        new SplittableRandom(42L).nextBytes(value);
        final Map<String, Object> config = new HashMap<>(clientConfigs);
        config.putAll(producerConfig(bootstrapServers, clientId));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config))
        {
            if (options.warmupSeconds() > 0)
            {
                sendPaced(producer, value, options, options.warmupSeconds(), new Recorder(SIGNIFICANT_DIGITS),
                    new LongAdder());
                producer.flush();
            }
            final Recorder recorder = new Recorder(SIGNIFICANT_DIGITS);
            final LongAdder errors = new LongAdder();
            final long cpuStartNs = WindowMeter.processCpuTimeNs();
            final long wallStartNs = System.nanoTime();
            final long sent = sendPaced(producer, value, options, options.measureSeconds(), recorder, errors);
            // flush() returns once every callback of the measured messages has run.
            producer.flush();
            final double cpuPercent = cpuPercent(cpuStartNs, WindowMeter.processCpuTimeNs(), System.nanoTime() - wallStartNs);
            return new PhaseResult(recorder.getIntervalHistogram(), sent, errors.sum(), cpuPercent);
        }
    }

    static Map<String, Object> producerConfig(final String bootstrapServers, final String clientId)
    {
        final Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return config;
    }

    /** Sends {@code rate * seconds} messages at their due times; returns how many were handed to the producer. */
    private static long sendPaced(final KafkaProducer<byte[], byte[]> producer, final byte[] value,
        final HarnessOptions options, final int seconds, final Recorder recorder, final LongAdder errors)
    {
        final long rate = options.ratePerSecond();
        final long messages = rate * seconds;
        final int partitions = options.partitions();
        final long startNs = System.nanoTime();
        long sent = 0;
        for (long i = 0; i < messages; i++)
        {
            // Computed from the start, not by adding an interval, so that rounding never drifts the rate.
            final long dueNs = startNs + i * TimeUnit.SECONDS.toNanos(1) / rate;
            parkUntil(dueNs);
            final ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>(TOPIC, (int)(i % partitions), null, value);
            try
            {
                producer.send(record, (metadata, exception) ->
                {
                    if (exception != null)
                    {
                        errors.increment();
                        return;
                    }
                    recorder.recordValue(Math.max(0L, (System.nanoTime() - dueNs) / 1_000L));
                });
                sent++;
            }
            catch (final RuntimeException ex)
            {
                // The producer refused the message (e.g. buffer full past max.block.ms): a failed message, not a
                // failed round.
                errors.increment();
            }
        }
        return sent;
    }

    private static void parkUntil(final long dueNs)
    {
        long remainingNs;
        while ((remainingNs = dueNs - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(remainingNs);
        }
    }

    static double cpuPercent(final long cpuStartNs, final long cpuEndNs, final long wallNs)
    {
        if (cpuStartNs < 0 || cpuEndNs < 0 || wallNs <= 0)
        {
            return Double.NaN;
        }
        return 100.0 * (cpuEndNs - cpuStartNs) / wallNs;
    }
}
