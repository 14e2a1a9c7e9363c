package io.syncmirror.tests.connect;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * {@link CollectingSinkConnector}'s task. What it received is kept in this JVM across workers, so a test can see
 * whether a restarted worker's task was given a record twice (its consumer group's offsets lost) or never.
 */
public final class CollectingSinkTask extends SinkTask
{
    /** How many times each value was put, by every task of every worker in this JVM. */
    public static final Map<String, AtomicInteger> RECEIVED = new ConcurrentHashMap<>();

    @Override
    public String version()
    {
        return "1";
    }

    @Override
    public void start(final Map<String, String> props)
    {
    }

    @Override
    public void put(final Collection<SinkRecord> records)
    {
        for (final SinkRecord record : records)
        {
            RECEIVED.computeIfAbsent(String.valueOf(record.value()), v -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Override
    public void stop()
    {
    }
}
