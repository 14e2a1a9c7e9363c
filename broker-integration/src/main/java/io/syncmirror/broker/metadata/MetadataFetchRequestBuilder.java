package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Builds a sessionless Fetch of {@code __cluster_metadata-0} for whatever version the connection negotiated: the
 * topic by id from v13, the replica in ReplicaState from v15. Immutable, so thread-safe.
 */
final class MetadataFetchRequestBuilder extends AbstractRequest.Builder<FetchRequest>
{
    private final int replicaId;
    private final long replicaEpoch;
    private final long fetchOffset;
    private final int maxWaitMs;
    private final int maxBytes;

    MetadataFetchRequestBuilder(final int replicaId, final long replicaEpoch, final long fetchOffset,
        final int maxWaitMs, final int maxBytes)
    {
        super(ApiKeys.FETCH, ApiKeys.FETCH.oldestVersion(), FetchRequestData.HIGHEST_SUPPORTED_VERSION);
        this.replicaId = replicaId;
        this.replicaEpoch = replicaEpoch;
        this.fetchOffset = fetchOffset;
        this.maxWaitMs = maxWaitMs;
        this.maxBytes = maxBytes;
    }

    @Override
    public FetchRequest build(final short version)
    {
        final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic()
            .setPartitions(new ArrayList<>(List.of(new FetchRequestData.FetchPartition().setPartition(0)
                .setFetchOffset(fetchOffset).setPartitionMaxBytes(maxBytes).setCurrentLeaderEpoch(-1)
                .setLastFetchedEpoch(-1).setLogStartOffset(-1))));
        if (version >= 13)
        {
            topic.setTopicId(Uuid.METADATA_TOPIC_ID);
        }
        else
        {
            topic.setTopic(Topic.CLUSTER_METADATA_TOPIC_NAME);
        }
        final FetchRequestData data = new FetchRequestData()
            .setMaxWaitMs(maxWaitMs)
            .setMinBytes(1)
            .setMaxBytes(maxBytes)
            .setSessionId(0)
            .setSessionEpoch(-1)
            .setTopics(new ArrayList<>(List.of(topic)));
        if (version >= 15)
        {
            data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(replicaId)
                .setReplicaEpoch(replicaEpoch));
        }
        else
        {
            data.setReplicaId(replicaId);
        }
        return new FetchRequest(data, version);
    }

    @Override
    public String toString()
    {
        return "MetadataFetch(replica=" + replicaId + ", offset=" + fetchOffset + ")";
    }
}
