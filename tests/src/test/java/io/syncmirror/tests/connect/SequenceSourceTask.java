package io.syncmirror.tests.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** {@link SequenceSourceConnector}'s task: up to 50 records per poll, each carrying its position as its offset. */
public final class SequenceSourceTask extends SourceTask
{
    static final String POSITION = "position";
    /**
     * Positions at and above this are held back (in every task of this JVM), so a test can stop a worker at a
     * known point of the sequence and let its successor write the rest.
     */
    public static volatile long limit = Long.MAX_VALUE;

    private String topic;
    private long count;
    private Map<String, String> partition;
    private long next;

    @Override
    public String version()
    {
        return "1";
    }

    @Override
    public void start(final Map<String, String> props)
    {
        topic = props.get(SequenceSourceConnector.TOPIC_CONFIG);
        count = Long.parseLong(props.get(SequenceSourceConnector.COUNT_CONFIG));
        partition = Map.of("sequence", props.get(SequenceSourceConnector.SEQUENCE_CONFIG));
        final Map<String, Object> stored = context.offsetStorageReader().offset(partition);
        next = stored == null ? 0 : ((Number)stored.get(POSITION)).longValue() + 1;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException
    {
        final long end = Math.min(count, limit);
        if (next >= end)
        {
            Thread.sleep(50);
            return null;
        }
        final List<SourceRecord> records = new ArrayList<>();
        for (int i = 0; i < 50 && next < end; i++, next++)
        {
            records.add(new SourceRecord(partition, Map.of(POSITION, next), topic, 0, Schema.STRING_SCHEMA,
                "k" + next, Schema.STRING_SCHEMA, "v" + next));
        }
        return records;
    }

    @Override
    public void stop()
    {
    }
}
