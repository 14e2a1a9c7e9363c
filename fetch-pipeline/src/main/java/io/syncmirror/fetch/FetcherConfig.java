package io.syncmirror.fetch;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Settings of one fetcher, named after Kafka's replica fetcher configs. Immutable.
 *
 * @param replicaId         this broker's id (a follower's replica id; v15+ sends it in ReplicaState).
 * @param brokerEpoch       this broker's epoch, -1 if unknown (ReplicaState, v15+).
 * @param maxWaitMs         {@value #REPLICA_FETCH_WAIT_MAX_MS_CONFIG}: how long the leader may park a fetch.
 * @param minBytes          {@value #REPLICA_FETCH_MIN_BYTES_CONFIG}.
 * @param maxBytes          {@value #REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG}: response size cap.
 * @param partitionMaxBytes {@value #REPLICA_FETCH_MAX_BYTES_CONFIG}: per-partition size cap.
 * @param backoffMs         {@value #REPLICA_FETCH_BACKOFF_MS_CONFIG}: wait after a failed request or a partition error.
 * @param requestTimeoutMs  how long past maxWaitMs a response may take before the fetcher gives up on it.
 * @param fetchVersion      the highest Fetch version to build (the transport may negotiate lower).
 */
public record FetcherConfig(
    int replicaId,
    long brokerEpoch,
    int maxWaitMs,
    int minBytes,
    int maxBytes,
    int partitionMaxBytes,
    long backoffMs,
    long requestTimeoutMs,
    short fetchVersion)
{
    public static final String REPLICA_FETCH_WAIT_MAX_MS_CONFIG = "replica.fetch.wait.max.ms";
    public static final int REPLICA_FETCH_WAIT_MAX_MS_DEFAULT = 500;
    public static final String REPLICA_FETCH_MIN_BYTES_CONFIG = "replica.fetch.min.bytes";
    public static final int REPLICA_FETCH_MIN_BYTES_DEFAULT = 1;
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG = "replica.fetch.response.max.bytes";
    public static final int REPLICA_FETCH_RESPONSE_MAX_BYTES_DEFAULT = 10 * 1024 * 1024;
    public static final String REPLICA_FETCH_MAX_BYTES_CONFIG = "replica.fetch.max.bytes";
    public static final int REPLICA_FETCH_MAX_BYTES_DEFAULT = 1024 * 1024;
    public static final String REPLICA_FETCH_BACKOFF_MS_CONFIG = "replica.fetch.backoff.ms";
    public static final long REPLICA_FETCH_BACKOFF_MS_DEFAULT = 1000L;
    public static final long REQUEST_TIMEOUT_MS_DEFAULT = 30_000L;

    public FetcherConfig
    {
        if (maxWaitMs < 0 || minBytes < 0 || maxBytes < 1 || partitionMaxBytes < 1 || backoffMs < 1 ||
            requestTimeoutMs < 1)
        {
            throw new IllegalArgumentException("invalid fetcher config");
        }
    }

    /** Kafka's defaults for a follower with this replica id. */
    public static FetcherConfig defaults(final int replicaId)
    {
        return new FetcherConfig(replicaId, -1L, REPLICA_FETCH_WAIT_MAX_MS_DEFAULT, REPLICA_FETCH_MIN_BYTES_DEFAULT,
            REPLICA_FETCH_RESPONSE_MAX_BYTES_DEFAULT, REPLICA_FETCH_MAX_BYTES_DEFAULT, REPLICA_FETCH_BACKOFF_MS_DEFAULT,
            REQUEST_TIMEOUT_MS_DEFAULT, ApiKeys.FETCH.latestVersion());
    }

    public FetcherConfig withBackoffMs(final long newBackoffMs)
    {
        return new FetcherConfig(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes, partitionMaxBytes, newBackoffMs,
            requestTimeoutMs, fetchVersion);
    }

    public FetcherConfig withMaxWaitMs(final int newMaxWaitMs)
    {
        return new FetcherConfig(replicaId, brokerEpoch, newMaxWaitMs, minBytes, maxBytes, partitionMaxBytes, backoffMs,
            requestTimeoutMs, fetchVersion);
    }

    public FetcherConfig withBrokerEpoch(final long newBrokerEpoch)
    {
        return new FetcherConfig(replicaId, newBrokerEpoch, maxWaitMs, minBytes, maxBytes, partitionMaxBytes, backoffMs,
            requestTimeoutMs, fetchVersion);
    }
}
