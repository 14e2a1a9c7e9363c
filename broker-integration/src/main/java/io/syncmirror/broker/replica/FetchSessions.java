package io.syncmirror.broker.replica;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

import io.syncmirror.broker.network.RequestContext;

/**
 * Turns a Fetch request into the partitions to read and the partitions' results into a response. This one
 * serves sessionless fetches: every fetch names all its partitions and a new-session request is answered with
 * session id 0, which Kafka clients and followers accept as "no session". Thread-safety: stateless.
 */
public class FetchSessions
{
    /** One partition to read: as asked, and the local replica (null when this broker has none). */
    public record Entry(Uuid topicId, String topic, int partitionIndex, FetchRequestData.FetchPartition request,
        Partition partition)
    {
    }

    /** The partitions of one fetch, or a request-level error. */
    public record Resolved(Errors error, int sessionId, List<Entry> entries)
    {
    }

    protected final ReplicaManager replicas;

    public FetchSessions(final ReplicaManager replicas)
    {
        this.replicas = replicas;
    }

    public Resolved resolve(final RequestContext context, final FetchRequest request)
    {
        final FetchMetadata metadata = request.metadata();
        if (metadata.sessionId() != FetchMetadata.INVALID_SESSION_ID)
        {
            return new Resolved(Errors.FETCH_SESSION_ID_NOT_FOUND, 0, List.of());
        }
        return new Resolved(Errors.NONE, 0, entries(request));
    }

    protected List<Entry> entries(final FetchRequest request)
    {
        final boolean byId = request.version() >= 13;
        final List<Entry> entries = new ArrayList<>();
        for (final FetchRequestData.FetchTopic topic : request.data().topics())
        {
            for (final FetchRequestData.FetchPartition asked : topic.partitions())
            {
                final Partition partition = byId ? replicas.partitionOrNull(topic.topicId(), asked.partition()) :
                    replicas.partitionOrNull(new TopicPartition(topic.topic(), asked.partition()));
                final String name = partition != null ? partition.topicPartition().topic() : topic.topic();
                entries.add(new Entry(topic.topicId(), name, asked.partition(), asked, partition));
            }
        }
        return entries;
    }

    public FetchResponse respond(final Resolved resolved, final List<Entry> entries,
        final FetchResponseData.PartitionData[] results, final short version)
    {
        final LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> data = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++)
        {
            final Entry entry = entries.get(i);
            data.put(new TopicIdPartition(entry.topicId(), entry.partitionIndex(), entry.topic()), results[i]);
        }
        return FetchResponse.of(Errors.NONE, 0, resolved.sessionId(), data, List.of());
    }
}
