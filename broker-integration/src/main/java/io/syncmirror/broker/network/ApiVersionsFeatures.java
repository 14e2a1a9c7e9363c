package io.syncmirror.broker.network;

import org.apache.kafka.common.message.ApiVersionsResponseData;

/**
 * Adds supported and finalized features (e.g. {@link MirrorSyncVersionFeature}) to the ApiVersions
 * responses the socket server builds. Implementations must be thread-safe: every network thread calls them.
 */
@FunctionalInterface
public interface ApiVersionsFeatures
{
    /** No features: ApiVersions v3+ carries empty feature lists and an unknown finalized epoch. */
    ApiVersionsFeatures NONE = (response, version) ->
    {
    };

    /**
     * Fills {@code supportedFeatures}, {@code finalizedFeatures} and {@code finalizedFeaturesEpoch} of a
     * successful response about to be sent at {@code version}.
     */
    void addTo(ApiVersionsResponseData response, short version);

    /** This hook's features, then {@code next}'s. */
    default ApiVersionsFeatures andThen(final ApiVersionsFeatures next)
    {
        return (response, version) ->
        {
            addTo(response, version);
            next.addTo(response, version);
        };
    }
}
