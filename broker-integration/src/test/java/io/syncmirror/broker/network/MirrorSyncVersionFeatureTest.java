package io.syncmirror.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MirrorSyncVersionFeatureTest
{
    @Test
    void shouldAddNothingBelowApiVersionsV3()
    {
        final ApiVersionsResponseData response = new ApiVersionsResponseData();
        new MirrorSyncVersionFeature((short)1, 7).addTo(response, (short)2);
        assertTrue(response.supportedFeatures().isEmpty());
        assertTrue(response.finalizedFeatures().isEmpty());
        assertEquals(-1, response.finalizedFeaturesEpoch());
    }

    @Test
    void shouldListTheFinalizedLevelOnlyAboveZeroAndKeepTheNewestEpoch()
    {
        final MirrorSyncVersionFeature feature = new MirrorSyncVersionFeature((short)0, 3);
        final ApiVersionsResponseData disabled = new ApiVersionsResponseData();
        feature.addTo(disabled, (short)3);
        assertEquals(1, disabled.supportedFeatures().find(MirrorSyncVersionFeature.NAME).maxVersion());
        assertNull(disabled.finalizedFeatures().find(MirrorSyncVersionFeature.NAME));

        feature.setFinalized((short)1, 5);
        final ApiVersionsResponseData enabled = new ApiVersionsResponseData().setFinalizedFeaturesEpoch(9);
        feature.addTo(enabled, (short)4);
        assertEquals(1, enabled.finalizedFeatures().find(MirrorSyncVersionFeature.NAME).maxVersionLevel());
        assertEquals(9, enabled.finalizedFeaturesEpoch(), "an epoch another hook set later is kept");
        assertEquals(1, feature.finalizedLevel());
    }

    @Test
    void shouldRejectLevelsOutsideTheSupportedRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new MirrorSyncVersionFeature((short)2, 0));
        assertThrows(IllegalArgumentException.class, () -> new MirrorSyncVersionFeature((short)-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new MirrorSyncVersionFeature((short)1, -2));
    }

    @Test
    void shouldComposeWithAnotherHook()
    {
        final ApiVersionsResponseData response = new ApiVersionsResponseData();
        final ApiVersionsFeatures other = (r, v) -> r.supportedFeatures().add(
            new ApiVersionsResponseData.SupportedFeatureKey().setName("other.version").setMaxVersion((short)2));
        new MirrorSyncVersionFeature((short)1, 1).andThen(other).addTo(response, (short)3);
        assertEquals(2, response.supportedFeatures().size());
    }
}
