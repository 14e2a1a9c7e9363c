package io.syncmirror.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

/**
 * A source cluster gates produces on at most as many sync mirrors as its brokers have links: a Register that would
 * exceed it is refused over the wire, per topic, with a reason, and admitted once a link is free again.
 */
@Timeout(120)
class SyncAdmissionLimitTest
{
    private static final String TOPIC = "limited";

    @Test
    @DisplayName("SU-07 (admission) a Register of one sync mirror more than the source's brokers have links for is "
        + "refused with POLICY_VIOLATION naming the limit; after a clean Unregister of one mirror it is admitted and "
        + "gates on the link the other left")
    void shouldRefuseMoreSyncMirrorsThanLinks() throws Exception
    {
        try (EmbeddedCluster source = EmbeddedCluster.start(1, new HashMap<>(Mirrors.FAST)))
        {
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
            }
            final Uuid topicId = SyncMirrors.topicId(source, TOPIC);
            for (int i = 0; i < MirrorLinks.LINKS_DEFAULT; i++)
            {
                final MirrorTopicResult admitted = SyncMirrors.register(source, "dr-" + i, TOPIC,
                    topicId, false);
                assertEquals(Errors.NONE.code(), admitted.errorCode(), "mirror dr-" + i + ": " +
                    admitted.errorMessage());
            }
            final MirrorTopicResult refused = SyncMirrors.register(source, "dr-late", TOPIC,
                topicId, false);
            assertEquals(Errors.POLICY_VIOLATION.code(), refused.errorCode(), String.valueOf(refused.errorMessage()));
            assertTrue(refused.errorMessage().contains(MirrorLinks.LINKS_DEFAULT + " sync mirrors"),
                refused.errorMessage());
            assertTrue(!SyncMirrors.registeredMirrors(source, 1, TOPIC).contains("dr-late"));

            try (var client = Mirrors.client(source, 1))
            {
                final UnregisterMirrorSyncTopicResponseData unregistered = client.send(
                    new UnregisterMirrorSyncTopicRequestData().setMirrorName("dr-0").setTopics(java.util.List.of(
                        new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId)
                            .setTopicName(TOPIC))), UnregisterMirrorSyncTopicResponseData.class);
                assertEquals(Errors.NONE.code(), unregistered.errorCode(), unregistered.errorMessage());
            }
            final MirrorTopicResult later = SyncMirrors.register(source, "dr-late", TOPIC,
                topicId, false);
            assertEquals(Errors.NONE.code(), later.errorCode(), String.valueOf(later.errorMessage()));
            SyncMirrors.awaitRegistered(source, TOPIC, "dr-late", true, 10_000);
            final var replicas = source.broker(1).replicaManager();
            Clients.awaitCondition(() -> replicas.mirrorLinks().indexOf("dr-late") >= 0, 10_000,
                "dr-late has a link on the source broker");
            assertEquals(-1, replicas.mirrorLinks().indexOf("dr-0"), "dr-0's link was released");
            assertTrue(replicas.mirrorLinks().indexOf("dr-late") >= 0, "and given to dr-late");
            assertEquals(0, replicas.topicsHeldWithoutLink(), "a ninth mirror name over the broker's life gates");
        }
    }
}
