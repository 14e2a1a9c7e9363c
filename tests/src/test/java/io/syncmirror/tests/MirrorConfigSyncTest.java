package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.protocol.MirrorPartitionState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The controller's mirror metadata sync: source topic configs and partition counts follow; unclean-election
 * warnings.
 */
@Timeout(120)
class MirrorConfigSyncTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
    }

    @Test
    @DisplayName("AM-12 topic configs altered at the source reach the mirror topic within a few metadata refreshes")
    void shouldSyncSourceConfigChanges() throws Exception
    {
        final String topic = "synced";
        try (Admin sourceAdmin = Clients.admin(clusters.source().bootstrapServers());
             Admin destinationAdmin = Clients.admin(clusters.destination().bootstrapServers()))
        {
            Clients.createTopic(sourceAdmin, topic, 1, (short)1, Map.of("retention.ms", "86400000"));
            clusters.createMirror("m1");
            clusters.addAndAwaitMirroring("m1", topic, 1);
            assertEquals("86400000", config(destinationAdmin, topic, "retention.ms"));

            sourceAdmin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", "500000"), AlterConfigOp.OpType.SET))))
                .all().get();
            Clients.awaitCondition(() -> "3600000".equals(config(destinationAdmin, topic, "retention.ms")) &&
                "500000".equals(config(destinationAdmin, topic, "max.message.bytes")), 10_000,
                "altered source configs reach the destination within a few refreshes");
            assertEquals("m1", config(destinationAdmin, topic, "mirror.name"));
        }
        assertEquals(0L, Mirrors.metadataManager(clusters.destination()).uncleanLeaderElectionWarnings("m1"),
            "no unclean-election warning for a source topic without it");
    }

    @Test
    @DisplayName("AM-01 AM-12 partitions added to the source topic (CreatePartitions) are added to the mirror topic "
        + "and mirrored; a CreatePartitions on the mirror topic itself is refused")
    void shouldFollowSourcePartitionGrowth() throws Exception
    {
        final String topic = "growing";
        try (Admin sourceAdmin = Clients.admin(clusters.source().bootstrapServers());
             Admin destinationAdmin = Clients.admin(clusters.destination().bootstrapServers()))
        {
            Clients.createTopic(sourceAdmin, topic, 2, (short)1, Map.of());
            clusters.createMirror("m-grow");
            clusters.addAndAwaitMirroring("m-grow", topic, 2);

            sourceAdmin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
            Clients.awaitCondition(() -> partitionCount(destinationAdmin, topic) == 4, 15_000,
                "the mirror topic grows to the source's 4 partitions");
            clusters.awaitState("m-grow", topic, 4, MirrorPartitionState.MIRRORING, "all 4 partitions MIRRORING");
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                Map.of()))
            {
                producer.send(new ProducerRecord<>(topic, 3, null, "new-partition".getBytes(StandardCharsets.UTF_8)))
                    .get();
            }
            final TopicPartition added = new TopicPartition(topic, 3);
            clusters.awaitCaughtUp(added, 30_000);
            assertEquals(Mirrors.records(clusters.source(), added), Mirrors.records(clusters.destination(), added));

            final ExecutionException refused = assertThrows(ExecutionException.class, () -> destinationAdmin
                .createPartitions(Map.of(topic, NewPartitions.increaseTo(5))).all().get());
            assertInstanceOf(PolicyViolationException.class, refused.getCause());
        }
    }

    private static int partitionCount(final Admin admin, final String topic)
    {
        try
        {
            return Clients.describe(admin, topic).partitions().size();
        }
        catch (final Exception e)
        {
            return -1;
        }
    }

    @Test
    @DisplayName("AM-15 a source topic with unclean.leader.election.enable=true gets a WARN at each metadata sync")
    void shouldWarnAboutUncleanLeaderElectionEachSync() throws Exception
    {
        final String topic = "unclean";
        try (Admin sourceAdmin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(sourceAdmin, topic, 1, (short)1, Map.of("unclean.leader.election.enable", "true"));
        }
        clusters.createMirror("m-unclean");
        Mirrors.addOk(clusters.destination(), "m-unclean", topic);
        final MirrorMetadataManager manager = Mirrors.metadataManager(clusters.destination());
        assertNotNull(manager, "the destination controller runs the mirror metadata manager");
        Clients.awaitCondition(() -> manager.uncleanLeaderElectionWarnings("m-unclean") >= 1, 10_000,
            "a first warning");
        final long first = manager.uncleanLeaderElectionWarnings("m-unclean");
        // mirror.metadata.refresh.interval.ms is 300: another few syncs, another few warnings.
        Clients.awaitCondition(() -> manager.uncleanLeaderElectionWarnings("m-unclean") >= first + 2, 10_000,
            "a warning at each later sync");
    }

    private static String config(final Admin admin, final String topic, final String key)
    {
        try
        {
            final var entry = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic)))
                .all().get().values().iterator().next().get(key);
            return entry == null ? null : entry.value();
        }
        catch (final Exception e)
        {
            return null;
        }
    }
}
