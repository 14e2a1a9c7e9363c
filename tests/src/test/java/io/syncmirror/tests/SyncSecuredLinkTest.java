package io.syncmirror.tests;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mirror whose source link logs in with a SASL mechanism sync mode's fetches and reports do not serve (GSSAPI,
 * Kafka's default) takes no SYNC topic: refused rather than sent without its authentication. Its own clusters: the
 * mirror's source link cannot connect (the source listens in plaintext), which must not slow other tests' mirrors.
 */
@Timeout(120)
class SyncSecuredLinkTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
    }

    @Test
    @DisplayName("SI-04 a topic added as SYNC to a mirror whose source link is SASL_SSL with GSSAPI is refused with "
        + "INVALID_CONFIG (sync fetches and reports would not honour it) and not added")
    void shouldRefuseSyncOverASecuredSourceLink() throws Exception
    {
        try (MirrorWireClient client = Mirrors.client(clusters.destination(), 1))
        {
            final CreateClusterMirrorResponseData created = client.send(
                new CreateClusterMirrorRequestData().setMirrorName("secured")
                    .setSourceBootstrapServers(clusters.source().bootstrapServers())
                    .setSourceConfigs(List.of(new CreateClusterMirrorRequestData
                        .SourceConfig().setName("security.protocol").setValue("SASL_SSL"))),
                CreateClusterMirrorResponseData.class);
            assertEquals(Errors.NONE.code(), created.errorCode(), String.valueOf(created.errorMessage()));
            final AddTopicsToMirrorResponseData added = client.send(new AddTopicsToMirrorRequestData()
                .setTopics(List.of(new AddTopicsToMirrorRequestData.TopicState().setTopicName("tls-orders")
                    .setTopicId(Uuid.ZERO_UUID).setMirrorName("secured")
                    .setMirrorType(MirrorType.SYNC.id())))
                .setTopicPatterns(List.of(new AddTopicsToMirrorRequestData.TopicPattern()
                    .setPattern("tls-.*").setMirrorName("secured").setMirrorType(MirrorType.SYNC.id()))),
                AddTopicsToMirrorResponseData.class);
            assertEquals(2, added.topics().size(), added.toString());
            for (final MirrorTopicResult result : MirrorTopicResult.of(added))
            {
                assertEquals(Errors.INVALID_CONFIG.code(), result.errorCode(), result.toString());
                assertTrue(result.errorMessage().contains("sasl.mechanism=GSSAPI"), result.errorMessage());
            }
        }
        assertEquals("", Mirrors.describeAll(clusters.destination(), "tls-orders"), "nothing was added");
    }
}
