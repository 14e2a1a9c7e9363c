package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.apache.kafka.common.KafkaException;

import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;

/** The coordinator's clients to the mirrors' source clusters, following the mirrors defined. Coordinator thread. */
final class MirrorSources implements AutoCloseable
{
    private final Function<MirrorDefinition, SourceCluster> sourceFactory;
    private final Map<String, SourceCluster> sources = new HashMap<>();
    private final Map<String, MirrorDefinition> sourceDefinitions = new HashMap<>();

    MirrorSources(final Function<MirrorDefinition, SourceCluster> sourceFactory)
    {
        this.sourceFactory = sourceFactory;
    }


    /** The mirror's source client, opened on first use: a broker leading none of a mirror's partitions opens none. */
    SourceCluster source(final String mirrorName)
    {
        SourceCluster source = sources.get(mirrorName);
        if (source == null)
        {
            final MirrorDefinition definition = sourceDefinitions.get(mirrorName);
            if (definition == null)
            {
                throw new KafkaException("cluster mirror '" + mirrorName + "' is not defined on this cluster");
            }
            source = sourceFactory.apply(definition);
            sources.put(mirrorName, source);
        }
        return source;
    }

    /** The security settings of the mirror's source link, none when the mirror is not defined (any more). */
    Map<String, String> securityConfigs(final String mirrorName)
    {
        final MirrorDefinition definition = sourceDefinitions.get(mirrorName);
        return definition == null ? Map.of() : definition.sourceConfigs();
    }

    /** Follows the mirrors defined, closing the source clients of mirrors deleted or redefined. */
    void refresh(final MetadataImage current)
    {
        final Map<String, MirrorDefinition> defined = current.mirrors();
        for (final Map.Entry<String, MirrorDefinition> entry : new ArrayList<>(sourceDefinitions.entrySet()))
        {
            final MirrorDefinition now = defined.get(entry.getKey());
            if (now == null || !now.sourceBootstrapServers().equals(entry.getValue().sourceBootstrapServers()) ||
                !now.sourceConfigs().equals(entry.getValue().sourceConfigs()))
            {
                sourceDefinitions.remove(entry.getKey());
                final SourceCluster closed = sources.remove(entry.getKey());
                if (closed != null)
                {
                    closed.close();
                }
            }
        }
        for (final MirrorDefinition definition : defined.values())
        {
            sourceDefinitions.putIfAbsent(definition.name(), definition);
        }
    }

    @Override
    public void close()
    {
        for (final SourceCluster source : sources.values())
        {
            source.close();
        }
        sources.clear();
    }
}
