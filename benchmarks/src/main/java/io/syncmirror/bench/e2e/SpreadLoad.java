package io.syncmirror.bench.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The sync benchmark's load: {@code producers} real acks=all idempotent {@link KafkaProducer}s, fed by one pacing
 * thread at a fixed total rate, each record to the next partition of all the benchmark's partitions in turn, and
 * each acknowledgement's latency from the record's <em>intended</em> send time recorded in microseconds. Not
 * thread-safe: one thread calls {@link #run}; the producers' I/O threads run the callbacks, which only touch
 * {@link Recorder}s and {@link LongAdder}s.
 *
 * <p>Record {@code i} is due at {@code start + i / rate} and goes to global partition {@code i mod partitions}
 * (topic {@code t = g / partitionsPerTopic}, partition {@code g mod partitionsPerTopic}) on producer
 * {@code t mod producers}, so that every partition sees the same load, a 100k-partition run really touches 100k
 * partitions, and each producer owns a slice of the topics and knows the metadata of those alone. A producer's
 * sender walks, on every wake-up, each partition it has sent to and each partition its metadata puts on the node it
 * drains ({@code RecordAccumulator.ready} and {@code drainBatchesForOneNode}); one producer over 100k partitions
 * spends more CPU than the brokers it loads, and so do producers that split every topic between them. The thread
 * parks until a record is due (never spins: the brokers share the cores) and sends any backlog at once after a
 * stall; the latency is taken from the due time, so a stall is charged to every record it delayed (no coordinated
 * omission). Records due before the measured window go to a warm-up recorder.
 */
public final class SpreadLoad implements AutoCloseable
{
    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int METADATA_THREADS = 64;

    private final List<String> topics;
    private final int partitionsPerTopic;
    private final int partitions;
    private final byte[] value;
    private final List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();

    /**
     * The outcome of one mode's load.
     *
     * @param measuredSent     records of the measured window the producers took
     * @param measureElapsedNs from the measured window's start until its last record was handed to a producer: the
     *                         window's length when the pacing thread kept up, longer when it fell behind
     */
    public record Outcome(long sent, long warmupAcked, long errors, long measuredSent, long measureElapsedNs)
    {
        /** Records per second the measured window achieved (NaN when nothing was measured). */
        public double achievedRate()
        {
            return measureElapsedNs <= 0 ? Double.NaN : measuredSent * 1e9 / measureElapsedNs;
        }
    }

    /**
     * Creates the producers and fetches the metadata of every topic through each, so that no measured send waits
     * for metadata.
     */
    public SpreadLoad(final String bootstrapServers, final List<String> topics, final int partitionsPerTopic,
        final int partitions, final int producerCount, final int messageBytes)
    {
        this.topics = List.copyOf(topics);
        this.partitionsPerTopic = partitionsPerTopic;
        this.partitions = partitions;
        this.value = new byte[messageBytes];
        new SplittableRandom(42L).nextBytes(value);
        try
        {
            for (int i = 0; i < producerCount; i++)
            {
                final KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config(bootstrapServers,
                    "sync-bench-" + (i + 1)));
                producers.add(producer);
                final List<String> owned = new ArrayList<>();
                for (int t = i; t < this.topics.size(); t += producerCount)
                {
                    owned.add(this.topics.get(t));
                }
                if (!owned.isEmpty())
                {
                    fetchMetadata(producer, owned);
                }
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * Asks for every topic's metadata from many threads at once: the producer waits {@code retry.backoff.ms}
     * between metadata requests, so one topic at a time would take 100 ms per topic, while concurrent asks are
     * answered by a few requests that each name every topic waiting.
     */
    private static void fetchMetadata(final KafkaProducer<byte[], byte[]> producer, final List<String> topics)
    {
        final ExecutorService pool = Executors.newFixedThreadPool(Math.min(METADATA_THREADS, topics.size()), r ->
        {
            final Thread thread = new Thread(r, "sync-bench-metadata");
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            final List<Future<?>> asks = new ArrayList<>();
            for (final String topic : topics)
            {
                asks.add(pool.submit(() -> producer.partitionsFor(topic)));
            }
            for (final Future<?> ask : asks)
            {
                ask.get();
            }
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("the producer could not get a topic's metadata: " + ex.getCause(),
                ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted fetching metadata", ex);
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    static Map<String, Object> config(final String bootstrapServers, final String clientId)
    {
        final Map<String, Object> config = new HashMap<>(PacedProducer.producerConfig(bootstrapServers, clientId));
        // Batches at 100k partitions hold one record each, but each still takes batch.size from the pool: room for
        // a stall of a few seconds at the highest rate without send() blocking on memory.
        config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L * 1024 * 1024);
        // A SYNC run whose mirror stalls fails its records within the run instead of after Kafka's 2 minutes.
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        return config;
    }

    /**
     * Sends for {@code warmupSeconds + measureSeconds} at {@code ratePerSecond}, then waits for every callback.
     * Acknowledgements of records due in the last {@code measureSeconds} go to {@code measured}.
     *
     * @param onMeasureStart run on this thread when the measured window starts (to reset other recorders)
     */
    public Outcome run(final int ratePerSecond, final int warmupSeconds, final int measureSeconds,
        final Recorder measured, final Runnable onMeasureStart)
    {
        final Recorder warmup = new Recorder(3);
        final LongAdder errors = new LongAdder();
        final long records = (long)ratePerSecond * (warmupSeconds + measureSeconds);
        final long warmupRecords = (long)ratePerSecond * warmupSeconds;
        final long startNs = System.nanoTime();
        final long measureStartNs = startNs + warmupRecords * NANOS_PER_SECOND / ratePerSecond;
        long sent = 0;
        long measuredSent = 0;
        for (long i = 0; i < records; i++)
        {
            // From the start, not by adding an interval, so that rounding never drifts the rate.
            final long dueNs = startNs + i * NANOS_PER_SECOND / ratePerSecond;
            parkUntil(dueNs);
            if (i == warmupRecords)
            {
                onMeasureStart.run();
            }
            final Recorder recorder = i < warmupRecords ? warmup : measured;
            final int global = (int)(i % partitions);
            final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.get(global / partitionsPerTopic),
                global % partitionsPerTopic, null, value);
            try
            {
                final KafkaProducer<byte[], byte[]> owner = producers.get((global / partitionsPerTopic) %
                    producers.size());
                owner.send(record, (metadata, exception) ->
                {
                    if (exception != null)
                    {
                        errors.increment();
                        return;
                    }
                    recorder.recordValue(Math.max(0L, (System.nanoTime() - dueNs) / 1_000L));
                });
                sent++;
                if (i >= warmupRecords)
                {
                    measuredSent++;
                }
            }
            catch (final RuntimeException ex)
            {
                // The producer refused the record (e.g. buffer full past max.block.ms): a failed record.
                errors.increment();
            }
        }
        // The window ends when its last record is due, or later when the pacing thread fell behind.
        final long measureElapsedNs = Math.max(System.nanoTime(), startNs + records * NANOS_PER_SECOND / ratePerSecond)
            - measureStartNs;
        for (final KafkaProducer<byte[], byte[]> producer : producers)
        {
            // flush() returns once every callback has run (delivery.timeout.ms bounds it).
            producer.flush();
        }
        return new Outcome(sent, warmup.getIntervalHistogram().getTotalCount(), errors.sum(), measuredSent,
            measureElapsedNs);
    }

    private static void parkUntil(final long dueNs)
    {
        long remainingNs;
        while ((remainingNs = dueNs - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(remainingNs);
        }
    }

    @Override
    public void close()
    {
        for (final KafkaProducer<byte[], byte[]> producer : producers)
        {
            producer.close();
        }
        producers.clear();
    }
}
