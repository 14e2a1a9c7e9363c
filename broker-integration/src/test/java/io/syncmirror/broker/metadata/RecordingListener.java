package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.common.TopicPartition;

/** A listener that records its calls as strings, for asserting order. */
final class RecordingListener implements MetadataListener
{
    final List<String> events = new ArrayList<>();
    /** A topic whose partition changes take {@link #slowMs} each to apply, as thousands of partitions do. */
    volatile String slowTopic;
    volatile long slowMs;
    /** Counted down when a change of the slow topic starts being applied. */
    final CountDownLatch slowStarted = new CountDownLatch(1);

    @Override
    public void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
    {
        if (state.topicPartition().topic().equals(slowTopic))
        {
            slowStarted.countDown();
            // Not cut short by an interrupt: applying thousands of partitions is CPU work, not a wait.
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(slowMs);
            for (long left = untilNs - System.nanoTime(); left > 0; left = untilNs - System.nanoTime())
            {
                LockSupport.parkNanos(left);
            }
        }
        record("changed " + state.topicPartition() + " leader=" + state.leader() + " isr=" + state.isr()
            + " config=" + topicConfig);
    }

    private synchronized void record(final String event)
    {
        events.add(event);
    }

    @Override
    public synchronized void onPartitionRemoved(final TopicPartition partition)
    {
        events.add("removed " + partition);
    }

    @Override
    public synchronized void onTopicConfigChanged(final String topic, final Map<String, String> topicConfig)
    {
        events.add("config " + topic + " " + topicConfig);
    }

    synchronized List<String> drain()
    {
        final List<String> out = new ArrayList<>(events);
        events.clear();
        return out;
    }
}
