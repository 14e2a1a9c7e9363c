package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;

/** A topic in the metadata image: id, configs set on it (over broker defaults) and partitions by index. */
public record TopicMetadata(String name, Uuid id, Map<String, String> config, List<PartitionState> partitions)
{
}
