package io.syncmirror.broker.replica;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source-side metrics of synchronous mirroring on one broker, in the {@code kafka.server} domain:
 * <ul>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=MirrorSyncReplicationLatencyMs,broker=<b>}: the time from an
 *   acks=all produce's append on a sync-gated partition (one with registered mirrors) to its answer, in ms, as
 *   Count, Mean, Max and the 50th, 99th and 99.9th percentiles since the broker started;</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=ProducesWaitingOnSync,broker=<b>}: acks=all produces on
 *   sync-gated partitions not answered yet.</li>
 * </ul>
 * Thread-safety: {@link #produceStarted()} and {@link #produceAnswered(long)} from any thread (a wait-free
 * HdrHistogram recorder and an atomic counter, nothing allocated per produce); JMX reads from any thread.
 */
public final class SyncSourceMetrics implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(SyncSourceMetrics.class);
    private static final long HIGHEST_TRACKABLE_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Recorder recorder = new Recorder(HIGHEST_TRACKABLE_MICROS, 3);
    private final AtomicLong waiting = new AtomicLong();
    private final List<ObjectName> names = new ArrayList<>();
    private final MBeanServer server;
    /** Everything recorded so far; folded from the recorder's intervals under this object's lock. */
    private Histogram total = new Histogram(HIGHEST_TRACKABLE_MICROS, 3);
    private Histogram interval;

    /** The latency distribution's attributes, as Kafka's JMX histograms name them. */
    public interface LatencyMBean
    {
        long getCount();

        double getMean();

        double getMax();

        double get50thPercentile();

        double get99thPercentile();

        double get999thPercentile();

        /**
         * Everything recorded since the broker started, in microseconds, as HdrHistogram's compressed encoding in
         * Base64 ({@code Histogram.fromString}): a reader subtracts two of these to get the exact distribution of the
         * window between them, which the percentiles above, taken since the start, cannot give.
         */
        String getEncodedHistogram();
    }

    /** A gauge's value. */
    public interface GaugeMBean
    {
        long getValue();
    }

    /** Metrics not registered anywhere (tests). */
    public SyncSourceMetrics()
    {
        this.server = null;
    }

    /** Registers the metrics of broker {@code brokerId} in the platform MBean server. */
    public SyncSourceMetrics(final int brokerId)
    {
        this.server = ManagementFactory.getPlatformMBeanServer();
        register("MirrorSyncReplicationLatencyMs", brokerId, new StandardMBean(new LatencyMBean()
        {
            @Override
            public long getCount()
            {
                return snapshot().getTotalCount();
            }

            @Override
            public double getMean()
            {
                return snapshot().getMean() / 1000.0;
            }

            @Override
            public double getMax()
            {
                return snapshot().getMaxValue() / 1000.0;
            }

            @Override
            public double get50thPercentile()
            {
                return snapshot().getValueAtPercentile(50) / 1000.0;
            }

            @Override
            public double get99thPercentile()
            {
                return snapshot().getValueAtPercentile(99) / 1000.0;
            }

            @Override
            public double get999thPercentile()
            {
                return snapshot().getValueAtPercentile(99.9) / 1000.0;
            }

            @Override
            public String getEncodedHistogram()
            {
                return encode(snapshot());
            }
        }, LatencyMBean.class, false));
        register("ProducesWaitingOnSync", brokerId, new StandardMBean((GaugeMBean)waiting::get, GaugeMBean.class,
            false));
    }

    /**
     * Registers the gauge of the topics whose partitions hold their HW because a registered sync mirror has no
     * link on this broker (MirrorLinks): each such topic acknowledges nothing until the registration goes.
     */
    public void topicsHeldWithoutLink(final int brokerId, final java.util.function.IntSupplier held)
    {
        if (server != null)
        {
            register("SyncTopicsHeldWithoutLink", brokerId, new StandardMBean((GaugeMBean)held::getAsInt,
                GaugeMBean.class, false));
        }
    }

    private void register(final String name, final int brokerId, final StandardMBean bean)
    {
        try
        {
            final ObjectName objectName = new ObjectName("kafka.server:type=MirrorMetrics,name=" + name +
                ",broker=" + brokerId);
            if (server.isRegistered(objectName))
            {
                server.unregisterMBean(objectName);
            }
            server.registerMBean(bean, objectName);
            names.add(objectName);
        }
        catch (final JMException e)
        {
            LOG.warn("could not register sync metric {} of broker {}", name, brokerId, e);
        }
    }

    /** An acks=all produce on a sync-gated partition was appended and waits for its answer. */
    public void produceStarted()
    {
        waiting.incrementAndGet();
    }

    /** That produce was answered {@code nanos} after its append. */
    public void produceAnswered(final long nanos)
    {
        waiting.decrementAndGet();
        recorder.recordValue(Math.min(HIGHEST_TRACKABLE_MICROS, Math.max(0L, nanos / 1000L)));
    }

    /** Acks=all produces on sync-gated partitions not answered yet. */
    public long producesWaiting()
    {
        return waiting.get();
    }

    /** {@code histogram} in HdrHistogram's compressed encoding, in Base64. */
    static String encode(final Histogram histogram)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        histogram.encodeIntoCompressedByteBuffer(buffer);
        buffer.flip();
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** Everything recorded so far (a copy). */
    public synchronized Histogram snapshot()
    {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        return total.copy();
    }

    @Override
    public void close()
    {
        if (server == null)
        {
            return;
        }
        for (final ObjectName name : names)
        {
            try
            {
                server.unregisterMBean(name);
            }
            catch (final JMException ignored)
            {
                // Already gone: nothing to clean.
            }
        }
    }
}
