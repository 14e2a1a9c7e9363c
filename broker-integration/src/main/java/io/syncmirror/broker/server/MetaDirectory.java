package io.syncmirror.broker.server;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesVersion;
import org.apache.kafka.metadata.properties.PropertiesUtils;

/**
 * A log directory's identity, in Kafka's {@code meta.properties} (version 1: {@code cluster.id}, {@code node.id},
 * {@code directory.id}), read and written with Kafka's own {@link MetaProperties}. An empty directory is
 * formatted on first start (what {@code kafka-storage.sh format} does, so one command still starts a node); a
 * formatted one must belong to this node and cluster; a directory that holds a metadata log but no
 * {@code meta.properties} was written by the single, unreplicated controller, and the metadata quorum refuses
 * it rather than guess how its records map onto Raft epochs.
 */
public final class MetaDirectory
{
    public static final String FILE_NAME = "meta.properties";
    private static final String METADATA_LOG = "__cluster_metadata-0";

    private MetaDirectory()
    {
    }

    /** Formats {@code dir} if it is empty, checks it otherwise, and returns its directory id. */
    public static Uuid ensure(final Path dir, final String clusterId, final int nodeId)
    {
        final File file = dir.resolve(FILE_NAME).toFile();
        try
        {
            if (!file.exists())
            {
                if (Files.isDirectory(dir.resolve(METADATA_LOG)))
                {
                    throw new ConfigException("log dir " + dir + " holds a metadata log written by a single, "
                        + "unreplicated controller and no " + FILE_NAME + "; a node of the metadata quorum "
                        + "starts from an empty log dir");
                }
                Files.createDirectories(dir);
                final MetaProperties formatted = new MetaProperties.Builder()
                    .setVersion(MetaPropertiesVersion.V1)
                    .setClusterId(clusterId)
                    .setNodeId(nodeId)
                    .setDirectoryId(Uuid.randomUuid())
                    .build();
                PropertiesUtils.writePropertiesFile(formatted.toProperties(), file.getPath(), true);
                return formatted.directoryId().orElseThrow();
            }
            final Properties read = PropertiesUtils.readPropertiesFile(file.getPath());
            final MetaProperties meta = new MetaProperties.Builder(read).build();
            if (!meta.clusterId().orElse("").equals(clusterId))
            {
                throw new ConfigException("log dir " + dir + " belongs to cluster " + meta.clusterId().orElse("?")
                    + ", but this node's cluster.id is " + clusterId);
            }
            if (meta.nodeId().isEmpty() || meta.nodeId().getAsInt() != nodeId)
            {
                throw new ConfigException("log dir " + dir + " belongs to node " + meta.nodeId() + ", but this "
                    + "node's node.id is " + nodeId);
            }
            return meta.directoryId().orElseThrow(() -> new ConfigException("log dir " + dir + "'s " + FILE_NAME
                + " has no directory.id"));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read or write " + file, e);
        }
        catch (final RuntimeException e)
        {
            if (e instanceof ConfigException)
            {
                throw e;
            }
            throw new ConfigException("log dir " + dir + "'s " + FILE_NAME + " is not valid: " + e.getMessage());
        }
    }
}
