package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A continuous acks=all, idempotent produce load at a steady rate over all partitions of a topic, each record's
 * value unique (a readable header and seeded random bytes of seeded length), every acknowledgement entered in an
 * {@link AckLedger}. Thread-safe: one daemon thread sends; {@link #stop()} may be called from any thread, once.
 */
final class AckedLoad implements AutoCloseable
{
    /** Sends not yet answered, bounded so that a dead cluster does not pile records up in the producer. */
    private static final int MAX_OUTSTANDING = 2000;

    private final AckLedger ledger;
    private final int partitions;
    private final long seed;
    private final double recordsPerSec;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Semaphore outstanding = new Semaphore(MAX_OUTSTANDING);
    private final Thread thread;
    /** The shortest send-to-acknowledgement time seen: under SYNC at least one round trip of the mirror link. */
    private final LongAccumulator minAckLatencyNs = new LongAccumulator(Math::min, Long.MAX_VALUE);
    /** Send-to-acknowledgement times in microseconds, recorded by the producer's I/O thread (its one writer). */
    private final Recorder ackLatencyMicros = new Recorder(TimeUnit.MINUTES.toMicros(5), 3);
    /** When the latest acknowledgement came, and the longest wait between two; written by the I/O thread only. */
    private volatile long lastAckNs;
    private volatile long longestAckGapNs;
    private volatile boolean running = true;
    private volatile Throwable failure;

    AckedLoad(final String bootstrap, final AckLedger ledger, final int partitions, final long seed,
        final double recordsPerSec)
    {
        this(bootstrap, Map.of(), ledger, partitions, seed, recordsPerSec);
    }

    /** The same with {@code security} (Kafka client settings) on the producer. */
    AckedLoad(final String bootstrap, final Map<String, Object> security, final AckLedger ledger,
        final int partitions, final long seed, final double recordsPerSec)
    {
        this.ledger = ledger;
        this.partitions = partitions;
        this.seed = seed;
        this.recordsPerSec = recordsPerSec;
        // A short max.block.ms: once the source is dead, send() must not hold the thread for a minute.
        final Map<String, Object> settings = new HashMap<>(security);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
        settings.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        this.producer = Clients.producer(bootstrap, settings);
        this.thread = new Thread(this::run, "acked-load-" + ledger.topic());
        this.thread.setDaemon(true);
    }

    AckedLoad start()
    {
        thread.start();
        return this;
    }

    private void run()
    {
        final Random random = new Random(seed);
        final long startNs = System.nanoTime();
        long sequence = 0;
        try
        {
            while (running)
            {
                final long dueNs = startNs + (long)(sequence * 1e9 / recordsPerSec);
                final long aheadNs = dueNs - System.nanoTime();
                if (aheadNs > 0)
                {
                    LockSupport.parkNanos(aheadNs);
                }
                if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS))
                {
                    continue;
                }
                final int partition = (int)(sequence % partitions);
                final byte[] header = ("seed " + seed + " p" + partition + " n" + sequence + " ")
                    .getBytes(StandardCharsets.UTF_8);
                final byte[] value = new byte[header.length + 16 + random.nextInt(200)];
                random.nextBytes(value);
                System.arraycopy(header, 0, value, 0, header.length);
                sequence++;
                final long sentNs = System.nanoTime();
                try
                {
                    producer.send(new ProducerRecord<>(ledger.topic(), partition, null, value), (metadata, error) ->
                    {
                        outstanding.release();
                        if (error == null)
                        {
                            final long nowNs = System.nanoTime();
                            final long latencyNs = nowNs - sentNs;
                            if (lastAckNs != 0)
                            {
                                longestAckGapNs = Math.max(longestAckGapNs, nowNs - lastAckNs);
                            }
                            lastAckNs = nowNs;
                            minAckLatencyNs.accumulate(latencyNs);
                            ackLatencyMicros.recordValue(Math.min(TimeUnit.MINUTES.toMicros(5), latencyNs / 1000));
                            ledger.onAcked(metadata.partition(), metadata.offset(), value);
                        }
                        else
                        {
                            ledger.onFailed();
                        }
                    });
                }
                catch (final RuntimeException e)
                {
                    // send() itself fails (metadata timeout) once the cluster is gone: not an acknowledgement.
                    outstanding.release();
                    ledger.onFailed();
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Throwable t)
        {
            failure = t;
        }
    }

    /**
     * Measures the shortest acknowledgement time anew from now on: for a run with a window in which no sync mirror
     * gated the source (one released before the other registered), so that the bound covers what follows it.
     */
    void restartMinAckLatency()
    {
        minAckLatencyNs.reset();
    }

    /** The shortest time from send to acknowledgement so far, in ms; -1 before the first acknowledgement. */
    double minAckLatencyMs()
    {
        final long ns = minAckLatencyNs.get();
        return ns == Long.MAX_VALUE ? -1 : ns / 1e6;
    }

    /** The longest time between two consecutive acknowledgements so far, in ms: how long the load stalled. */
    double longestAckGapMs()
    {
        return longestAckGapNs / 1e6;
    }

    /**
     * The acknowledgement latencies (µs) recorded since the previous call (or the start), as a new histogram; the
     * caller owns it.
     */
    Histogram takeLatencies()
    {
        return ackLatencyMicros.getIntervalHistogram();
    }

    /**
     * Stops sending, then closes the producer with a grace period, so that acknowledgements the cluster sent
     * before it died (already in the socket) still reach the ledger; sends never answered fail.
     */
    void stop() throws InterruptedException
    {
        running = false;
        thread.join(10_000);
        producer.close(Duration.ofSeconds(3));
        if (failure != null)
        {
            throw new AssertionError("the load thread failed", failure);
        }
    }

    @Override
    public void close()
    {
        running = false;
        producer.close(Duration.ZERO);
    }
}
