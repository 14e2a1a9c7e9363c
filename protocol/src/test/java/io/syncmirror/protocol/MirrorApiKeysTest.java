package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MirrorApiKeysTest
{
    @Test
    void shouldKeepKey95ForAddTopicsToMirrorAsTheSpecGivesIt()
    {
        assertEquals(95, MirrorApiKeys.ADD_TOPICS_TO_MIRROR.id());
    }

    @Test
    void shouldKeyTheMirrorDefinitionAndFailoverRpcsAfterTheSpecRpcs()
    {
        assertEquals(102, MirrorApiKeys.CREATE_CLUSTER_MIRROR.id());
        assertEquals(103, MirrorApiKeys.DELETE_CLUSTER_MIRROR.id());
        assertEquals(104, MirrorApiKeys.BUMP_LEADER_EPOCHS.id());
        assertEquals(104, MirrorApiKeys.MAX_ID);
        assertSame(MirrorApiKeys.BUMP_LEADER_EPOCHS, MirrorApiKeys.forId(104));
        assertFalse(MirrorApiKeys.CREATE_CLUSTER_MIRROR.latestVersionUnstable());
        assertFalse(MirrorApiKeys.BUMP_LEADER_EPOCHS.latestVersionUnstable());
    }

    @Test
    void shouldNotCollideWithAnyKeyKafkaClientsKnows()
    {
        for (final MirrorApiKeys key : MirrorApiKeys.values())
        {
            assertFalse(ApiKeys.hasId(key.id()), key + " collides with " + key.id());
        }
        for (final ApiKeys kafkaKey : ApiKeys.values())
        {
            assertNull(MirrorApiKeys.forId(kafkaKey.id), kafkaKey.name());
        }
    }

    @Test
    void shouldGiveEachRpcADistinctKeyInTheDeclaredRange()
    {
        final Set<Short> ids = new HashSet<>();
        for (final MirrorApiKeys key : MirrorApiKeys.values())
        {
            assertTrue(ids.add(key.id()), "duplicate " + key.id());
            assertTrue(key.id() >= MirrorApiKeys.MIN_ID && key.id() <= MirrorApiKeys.MAX_ID);
            assertSame(key, MirrorApiKeys.forId(key.id()));
        }
        assertNull(MirrorApiKeys.forId(MirrorApiKeys.MIN_ID - 1));
        assertNull(MirrorApiKeys.forId(MirrorApiKeys.MAX_ID + 1));
        assertNull(MirrorApiKeys.forId(-1));
    }

    @Test
    void shouldDeclareVersionZeroOnlyFlexibleWithHeaderVersionsTwoAndOne()
    {
        for (final MirrorApiKeys key : MirrorApiKeys.values())
        {
            assertEquals(0, key.oldestVersion());
            assertEquals(0, key.latestVersion());
            assertTrue(key.isFlexible((short)0));
            assertFalse(key.isVersionSupported((short)1));
            assertFalse(key.isVersionSupported((short)-1));
            assertEquals(2, key.requestHeaderVersion((short)0));
            assertEquals(1, key.responseHeaderVersion((short)0));
        }
    }

    @Test
    void shouldMarkOnlyTheSyncRpcsLatestVersionUnstableAsTheSpecDoes()
    {
        assertTrue(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC.latestVersionUnstable());
        assertTrue(MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC.latestVersionUnstable());
        assertTrue(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE.latestVersionUnstable());
        assertFalse(MirrorApiKeys.ADD_TOPICS_TO_MIRROR.latestVersionUnstable());
    }

    @Test
    void shouldCreateFreshRequestAndResponseDataCarryingTheirOwnKeyAndVersions()
    {
        for (final MirrorApiKeys key : MirrorApiKeys.values())
        {
            for (final ApiMessage data : new ApiMessage[] {key.newRequestData(), key.newResponseData()})
            {
                assertEquals(key.id(), data.apiKey(), data.getClass().getSimpleName());
                assertEquals(key.oldestVersion(), data.lowestSupportedVersion());
                assertEquals(key.latestVersion(), data.highestSupportedVersion());
            }
            assertNotSame(key.newRequestData(), key.newRequestData());
            assertTrue(key.newRequestData().getClass().getSimpleName().endsWith("RequestData"));
            assertTrue(key.newResponseData().getClass().getSimpleName().endsWith("ResponseData"));
        }
    }
}
