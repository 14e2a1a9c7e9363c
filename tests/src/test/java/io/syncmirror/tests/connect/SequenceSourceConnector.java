package io.syncmirror.tests.connect;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A test source connector: one task that writes the records {@code 0 .. count-1} of a named sequence to a topic
 * and keeps its position in Connect's offsets, so a restarted worker resumes where the last one stopped.
 */
public final class SequenceSourceConnector extends SourceConnector
{
    public static final String TOPIC_CONFIG = "topic";
    public static final String COUNT_CONFIG = "count";
    public static final String SEQUENCE_CONFIG = "sequence";

    private static final ConfigDef CONFIG = new ConfigDef()
        .define(TOPIC_CONFIG, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "where the records go")
        .define(COUNT_CONFIG, ConfigDef.Type.LONG, ConfigDef.Importance.HIGH, "how many records in all")
        .define(SEQUENCE_CONFIG, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "the source partition's name");

    private Map<String, String> props;

    @Override
    public void start(final Map<String, String> props)
    {
        CONFIG.parse(props);
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass()
    {
        return SequenceSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(final int maxTasks)
    {
        return List.of(props);
    }

    @Override
    public void stop()
    {
    }

    @Override
    public ConfigDef config()
    {
        return CONFIG;
    }

    @Override
    public String version()
    {
        return "1";
    }
}
