package io.syncmirror.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetaDirectoryTest
{
    @TempDir
    Path dir;

    @Test
    @DisplayName("an empty log dir is formatted once (Kafka's meta.properties) and keeps its directory id")
    void shouldFormatAnEmptyDirOnce() throws Exception
    {
        final Uuid first = MetaDirectory.ensure(dir, "cluster-a", 2);
        final MetaProperties written = new MetaProperties.Builder(
            PropertiesUtils.readPropertiesFile(dir.resolve(MetaDirectory.FILE_NAME).toString())).build();
        assertEquals("cluster-a", written.clusterId().orElseThrow());
        assertEquals(2, written.nodeId().getAsInt());
        assertEquals(first, written.directoryId().orElseThrow());
        assertEquals(first, MetaDirectory.ensure(dir, "cluster-a", 2), "the same id on every later start");
    }

    @Test
    @DisplayName("a log dir of another cluster or node, or one the single controller wrote, is refused")
    void shouldRefuseADirThatIsNotThisNodes() throws Exception
    {
        MetaDirectory.ensure(dir, "cluster-a", 2);
        assertTrue(assertThrows(ConfigException.class, () -> MetaDirectory.ensure(dir, "cluster-b", 2))
            .getMessage().contains("belongs to cluster cluster-a"));
        assertTrue(assertThrows(ConfigException.class, () -> MetaDirectory.ensure(dir, "cluster-a", 3))
            .getMessage().contains("belongs to node"));

        final Path legacy = Files.createDirectories(dir.resolve("legacy").resolve("__cluster_metadata-0"));
        assertTrue(assertThrows(ConfigException.class, () -> MetaDirectory.ensure(legacy.getParent(), "c", 1))
            .getMessage().contains("single, unreplicated controller"));

        final Path garbled = Files.createDirectories(dir.resolve("garbled"));
        Files.writeString(garbled.resolve(MetaDirectory.FILE_NAME), "version=7\n");
        assertTrue(assertThrows(ConfigException.class, () -> MetaDirectory.ensure(garbled, "c", 1))
            .getMessage().contains("is not valid"));
    }
}
