package io.syncmirror.tools;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

/**
 * The source-compatibility probe that runs before a topic is asked to mirror synchronously: asks a source cluster
 * for its ApiVersions and finalized features and judges whether it can serve a sync mirror. Stateless; its static
 * methods are safe to call from several threads at once.
 *
 * <p>A source can serve a sync mirror when it serves Fetch version {@value #MIN_FETCH_VERSION} or later (the
 * version that carries MirrorReplicaInfo) and has the feature {@value #SYNC_FEATURE} finalized at level
 * {@value #MIN_SYNC_FEATURE_LEVEL} or above. One broker's answer speaks for the cluster, as the finalized features
 * are cluster-wide; a broker that answers with an error or cannot be reached passes the question to the next
 * bootstrap server.
 */
public final class SourceCompatibilityProbe
{
    /** The first Fetch version with MirrorReplicaInfo, which sync mirroring needs. */
    public static final short MIN_FETCH_VERSION = 20;
    /** The feature that enables sync mirroring on a cluster. */
    public static final String SYNC_FEATURE = "mirror.sync.version";
    /** The lowest finalized level of {@link #SYNC_FEATURE} that enables sync mirroring. */
    public static final short MIN_SYNC_FEATURE_LEVEL = 1;

    static final String CLIENT_ID = "kafka-cluster-mirrors-probe";

    /** What the probe found. */
    public enum Outcome
    {
        /** The source serves a sync mirror. */
        COMPATIBLE,
        /** The source answered and lacks what a sync mirror needs; the detail names it. */
        INCOMPATIBLE,
        /** No source broker answered; the detail says why. */
        UNREACHABLE
    }

    /** The probe's outcome and, unless compatible, a one-line detail for the operator. */
    public record Result(Outcome outcome, String detail)
    {
    }

    private SourceCompatibilityProbe()
    {
    }

    /**
     * Probes the source cluster at {@code bootstrapServers} ({@code host:port}, comma-separated), trying each
     * server in turn until one answers.
     *
     * @param timeoutMs how long to wait to connect and for the answer, per server; positive
     */
    public static Result probe(final String bootstrapServers, final int timeoutMs)
    {
        return probe(bootstrapServers, timeoutMs, WireSecurity.PLAINTEXT);
    }

    /** As above, over connections secured as {@code security} says. */
    public static Result probe(final String bootstrapServers, final int timeoutMs, final WireSecurity security)
    {
        final List<MirrorWireClient.HostPort> servers = new ArrayList<>();
        for (final String part : (bootstrapServers == null ? "" : bootstrapServers).split(",", -1))
        {
            try
            {
                servers.add(MirrorWireClient.parse(part));
            }
            catch (final IllegalArgumentException e)
            {
                return new Result(Outcome.UNREACHABLE, "the source bootstrap servers '" + bootstrapServers
                    + "' cannot be parsed: " + e.getMessage());
            }
        }
        final List<String> failures = new ArrayList<>();
        for (final MirrorWireClient.HostPort server : servers)
        {
            try (MirrorWireClient client = MirrorWireClient.connect(server.host(), server.port(), CLIENT_ID,
                timeoutMs, timeoutMs, security))
            {
                final ApiVersionsResponseData versions = client.apiVersions();
                if (versions.errorCode() == Errors.UNSUPPORTED_VERSION.code())
                {
                    return new Result(Outcome.INCOMPATIBLE, "broker " + server + " does not serve ApiVersions v3, "
                        + "so it has neither Fetch v" + MIN_FETCH_VERSION + " nor the " + SYNC_FEATURE + " feature");
                }
                if (versions.errorCode() != Errors.NONE.code())
                {
                    failures.add(server + " answered ApiVersions with "
                        + ClusterMirrorsCommand.errorName(versions.errorCode()));
                    continue;
                }
                return judge(versions);
            }
            catch (final IOException e)
            {
                failures.add(e.getMessage());
            }
        }
        return new Result(Outcome.UNREACHABLE, String.join("; ", failures));
    }

    /** Judges one broker's ApiVersions answer, naming everything that is missing. */
    public static Result judge(final ApiVersionsResponseData versions)
    {
        final List<String> missing = new ArrayList<>();
        final ApiVersionsResponseData.ApiVersion fetch = versions.apiKeys().find(ApiKeys.FETCH.id);
        if (fetch == null || fetch.maxVersion() < MIN_FETCH_VERSION)
        {
            missing.add("Fetch v" + MIN_FETCH_VERSION + " is not served (highest: "
                + (fetch == null ? "none" : "v" + fetch.maxVersion()) + ")");
        }
        final ApiVersionsResponseData.FinalizedFeatureKey feature = versions.finalizedFeatures().find(SYNC_FEATURE);
        if (feature == null || feature.maxVersionLevel() < MIN_SYNC_FEATURE_LEVEL)
        {
            missing.add("feature " + SYNC_FEATURE + " is not finalized at level " + MIN_SYNC_FEATURE_LEVEL
                + " or above (" + (feature == null ? "not finalized" : "level " + feature.maxVersionLevel()) + ")");
        }
        return missing.isEmpty() ? new Result(Outcome.COMPATIBLE, null)
            : new Result(Outcome.INCOMPATIBLE, String.join(" and ", missing));
    }
}
