package io.syncmirror.tests.connect;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/** A test sink connector: its task counts every value it is given ({@link CollectingSinkTask#RECEIVED}). */
public final class CollectingSinkConnector extends SinkConnector
{
    private Map<String, String> props;

    @Override
    public void start(final Map<String, String> props)
    {
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass()
    {
        return CollectingSinkTask.class;
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
        return new ConfigDef();
    }

    @Override
    public String version()
    {
        return "1";
    }
}
