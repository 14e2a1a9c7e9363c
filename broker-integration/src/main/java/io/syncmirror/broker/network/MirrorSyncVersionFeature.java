package io.syncmirror.broker.network;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;

/**
 * Advertises the {@code mirror.sync.version} feature in ApiVersions: supported levels 0 to 1 and, once finalized
 * above 0, the finalized level and its epoch. Thread-safe: the finalized level is one volatile snapshot, replaced
 * whole by {@link #setFinalized} and read by every network thread.
 *
 * <p>Before enabling sync mode a destination probes its source through ApiVersions (Fetch v20 served) and
 * {@code Admin.describeFeatures} ({@code mirror.sync.version} finalized), each cluster opting in to the feature. A
 * server without this hook advertises no feature at all, so nothing changes until a broker installs it. A level of
 * 0 means disabled and, as Kafka does for a feature at level 0, is not listed among the finalized features.
 * Features exist from ApiVersions v3; older versions get none.
 */
public final class MirrorSyncVersionFeature implements ApiVersionsFeatures
{
    /** The feature's name. */
    public static final String NAME = "mirror.sync.version";

    /** The lowest supported level (disabled). */
    public static final short MIN_LEVEL = 0;

    /** The highest supported level: synchronous mirroring enabled. */
    public static final short MAX_LEVEL = 1;

    /** The first ApiVersions version with feature fields. */
    private static final short FIRST_FEATURES_VERSION = 3;

    private volatile Finalized finalized;

    /**
     * @param finalizedLevel the finalized level, {@link #MIN_LEVEL} (disabled) to {@link #MAX_LEVEL}
     * @param epoch          the finalized features epoch (the metadata offset that set the level), or -1 if unknown
     */
    public MirrorSyncVersionFeature(final short finalizedLevel, final long epoch)
    {
        this.finalized = checked(finalizedLevel, epoch);
    }

    /** Replaces the finalized level and epoch, e.g. when the metadata log changes the feature. */
    public void setFinalized(final short finalizedLevel, final long epoch)
    {
        this.finalized = checked(finalizedLevel, epoch);
    }

    /** The finalized level now; 0 means synchronous mirroring is disabled. */
    public short finalizedLevel()
    {
        return finalized.level;
    }

    @Override
    public void addTo(final ApiVersionsResponseData response, final short version)
    {
        if (version < FIRST_FEATURES_VERSION)
        {
            return;
        }
        final Finalized snapshot = finalized;
        response.supportedFeatures().add(new SupportedFeatureKey().setName(NAME).setMinVersion(MIN_LEVEL)
            .setMaxVersion(MAX_LEVEL));
        if (snapshot.level > MIN_LEVEL)
        {
            response.finalizedFeatures().add(new FinalizedFeatureKey().setName(NAME)
                .setMinVersionLevel(snapshot.level).setMaxVersionLevel(snapshot.level));
        }
        // Another hook may have set an epoch: the response carries the newest.
        response.setFinalizedFeaturesEpoch(Math.max(response.finalizedFeaturesEpoch(), snapshot.epoch));
    }

    private static Finalized checked(final short level, final long epoch)
    {
        if (level < MIN_LEVEL || level > MAX_LEVEL)
        {
            throw new IllegalArgumentException(NAME + " level " + level + " is outside " + MIN_LEVEL + " to "
                + MAX_LEVEL);
        }
        if (epoch < -1)
        {
            throw new IllegalArgumentException(NAME + " epoch " + epoch + " must be -1 (unknown) or more");
        }
        return new Finalized(level, epoch);
    }

    private record Finalized(short level, long epoch)
    {
    }
}
