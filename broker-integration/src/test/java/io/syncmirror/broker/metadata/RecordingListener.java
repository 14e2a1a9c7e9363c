package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/** A listener that records its calls as strings, for asserting order. */
final class RecordingListener implements MetadataListener
{
    final List<String> events = new ArrayList<>();
    /** A topic whose partition changes take {@link #slowMs} each to apply, as thousands of partitions do. */
    volatile String slowTopic;
    volatile long slowMs;

    @Override
    public void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
    {
        if (state.topicPartition().topic().equals(slowTopic))
        {
            try
            {
                Thread.sleep(slowMs);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
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
