package io.syncmirror.broker.network;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.server.common.GroupVersion;

/**
 * Kafka's {@code group.version} feature in ApiVersions: supported 0 to 1 and finalized at 1 (KIP-848's consumer
 * protocol, served by Kafka's group coordinator, which in Kafka 4.4 cannot be turned off), as a Kafka 4.4 cluster
 * advertises it; clients and Kafka's tools read it to choose the group protocol's APIs. Stateless, so thread-safe.
 * Features exist from ApiVersions v3.
 */
public final class GroupVersionFeature implements ApiVersionsFeatures
{
    private static final short FIRST_FEATURES_VERSION = 3;

    @Override
    public void addTo(final ApiVersionsResponseData response, final short version)
    {
        if (version < FIRST_FEATURES_VERSION)
        {
            return;
        }
        response.supportedFeatures().add(new SupportedFeatureKey().setName(GroupVersion.FEATURE_NAME)
            .setMinVersion(GroupVersion.GV_0.featureLevel()).setMaxVersion(GroupVersion.GV_1.featureLevel()));
        response.finalizedFeatures().add(new FinalizedFeatureKey().setName(GroupVersion.FEATURE_NAME)
            .setMinVersionLevel(GroupVersion.GV_1.featureLevel()).setMaxVersionLevel(GroupVersion.GV_1.featureLevel()));
        response.setFinalizedFeaturesEpoch(Math.max(response.finalizedFeaturesEpoch(), 0L));
    }
}
