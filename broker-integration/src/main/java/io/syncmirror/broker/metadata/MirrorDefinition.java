package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Map;

/** A cluster mirror as the destination's metadata defines it. Immutable. */
public record MirrorDefinition(String name, String sourceBootstrapServers, Map<String, String> sourceConfigs,
    List<String> includeTopics, List<String> excludeTopics)
{
}
