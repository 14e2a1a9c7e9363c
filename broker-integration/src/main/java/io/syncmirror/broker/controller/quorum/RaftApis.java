package io.syncmirror.broker.controller.quorum;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.BeginQuorumEpochRequestData;
import org.apache.kafka.common.message.BeginQuorumEpochResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.EndQuorumEpochRequestData;
import org.apache.kafka.common.message.EndQuorumEpochResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.BeginQuorumEpochResponse;
import org.apache.kafka.common.requests.DescribeQuorumResponse;
import org.apache.kafka.common.requests.EndQuorumEpochResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FetchSnapshotResponse;
import org.apache.kafka.common.requests.UpdateRaftVoterResponse;
import org.apache.kafka.common.requests.VoteResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;

import io.syncmirror.broker.network.RequestContext;

/**
 * The Raft RPCs a voter serves, handed to Kafka's {@code KafkaRaftClientDriver} as Kafka's controller hands them:
 * Vote, BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot, DescribeQuorum, and a Fetch of the metadata partition
 * sent by a Raft replica ({@link #isRaftFetch}). Kafka's Raft client validates each (cluster id, voter set,
 * epochs, the listener) and answers with Kafka's errors; this class only translates our request context to
 * Kafka's and the answer back.
 *
 * <p>The voter set is static ({@code controller.quorum.voters}, kraft.version 0): AddRaftVoter and RemoveRaftVoter
 * are not served, and UpdateRaftVoter (which followers send to tell the leader their endpoints) goes to Kafka,
 * which cannot change a static set with it. Kafka grants a vote to a candidate outside its voter set (KIP-853: a
 * dynamic set may be stale); a static set is never stale, so Vote, BeginQuorumEpoch and EndQuorumEpoch from a
 * node outside it are refused here with INVALID_REQUEST before they can bump the epoch and unseat the leader.
 * Thread-safety: stateless beyond the quorum, so any network thread may call it.
 */
public final class RaftApis
{
    private static final Set<ApiKeys> SERVED = EnumSet.of(ApiKeys.VOTE, ApiKeys.BEGIN_QUORUM_EPOCH,
        ApiKeys.END_QUORUM_EPOCH, ApiKeys.FETCH_SNAPSHOT, ApiKeys.DESCRIBE_QUORUM, ApiKeys.UPDATE_RAFT_VOTER);

    private final MetadataQuorum quorum;
    private final Time time;

    public RaftApis(final MetadataQuorum quorum, final Time time)
    {
        this.quorum = quorum;
        this.time = time;
    }

    /** Whether {@code key} is one of the Raft-only APIs this class serves (Fetch is shared: see isRaftFetch). */
    public static boolean serves(final ApiKeys key)
    {
        return SERVED.contains(key);
    }

    /**
     * Whether a metadata-partition Fetch comes from a Raft replica: Kafka's Raft client always sends its cluster
     * id, while a broker's metadata fetch ({@code MetadataFetchRequestBuilder}) sends none and is served from
     * the committed log by the controller's APIs. A Raft fetch with a wrong cluster id is therefore refused by
     * Kafka's check (INCONSISTENT_CLUSTER_ID), not served as a broker's.
     */
    public static boolean isRaftFetch(final FetchRequestData data)
    {
        return data.clusterId() != null;
    }

    public short maxVersion(final ApiKeys key)
    {
        return serves(key) || key == ApiKeys.FETCH ? key.latestVersion() : -1;
    }

    public short minVersion(final ApiKeys key)
    {
        return key.oldestVersion();
    }

    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        final ApiKeys key = request.apiKey();
        if (!serves(key) && key != ApiKeys.FETCH)
        {
            return CompletableFuture.failedFuture(new UnsupportedVersionException("the Raft driver does not serve "
                + key));
        }
        if (!quorum.listenerName().value().equals(context.listenerName()))
        {
            return CompletableFuture.failedFuture(new InvalidRequestException(key + " must arrive on the controller "
                + "listener " + quorum.listenerName().value() + ", not " + context.listenerName()));
        }
        final int outsider = senderOutsideTheVoters(request.data());
        if (outsider >= 0)
        {
            return CompletableFuture.failedFuture(new InvalidRequestException(key + " from node " + outsider +
                ", which is not a voter of this static quorum " + quorum.settings().voters().keySet()));
        }
        final org.apache.kafka.common.requests.RequestContext kafkaContext =
            new org.apache.kafka.common.requests.RequestContext(context.header(),
                Long.toString(context.connectionId()), context.clientAddress(), KafkaPrincipal.ANONYMOUS,
                new ListenerName(context.listenerName()), SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, false);
        return quorum.driver().handleRequest(kafkaContext, context.header(), request.data(), time.milliseconds())
            .thenApply(RaftApis::response)
            .toCompletableFuture();
    }

    /** The candidate or leader id of a Vote/BeginQuorumEpoch/EndQuorumEpoch that is not a voter, else -1. */
    private int senderOutsideTheVoters(final ApiMessage data)
    {
        final Set<Integer> voters = quorum.settings().voters().keySet();
        for (final int sender : senders(data))
        {
            if (!voters.contains(sender))
            {
                return Math.max(0, sender);
            }
        }
        return -1;
    }

    /** The node ids a request speaks for: the candidate of a Vote, the leader of Begin/EndQuorumEpoch. */
    private static List<Integer> senders(final ApiMessage data)
    {
        if (data instanceof VoteRequestData vote)
        {
            return vote.topics().stream().flatMap(topic -> topic.partitions().stream())
                .map(VoteRequestData.PartitionData::replicaId).toList();
        }
        if (data instanceof BeginQuorumEpochRequestData begin)
        {
            return begin.topics().stream().flatMap(topic -> topic.partitions().stream())
                .map(BeginQuorumEpochRequestData.PartitionData::leaderId).toList();
        }
        if (data instanceof EndQuorumEpochRequestData end)
        {
            return end.topics().stream().flatMap(topic -> topic.partitions().stream())
                .map(EndQuorumEpochRequestData.PartitionData::leaderId).toList();
        }
        return List.of();
    }

    private static AbstractResponse response(final ApiMessage data)
    {
        return switch (ApiKeys.forId(data.apiKey()))
        {
            case VOTE -> new VoteResponse((VoteResponseData) data);
            case BEGIN_QUORUM_EPOCH -> new BeginQuorumEpochResponse((BeginQuorumEpochResponseData) data);
            case END_QUORUM_EPOCH -> new EndQuorumEpochResponse((EndQuorumEpochResponseData) data);
            case FETCH -> FetchResponse.of((FetchResponseData) data);
            case FETCH_SNAPSHOT -> new FetchSnapshotResponse((FetchSnapshotResponseData) data);
            case DESCRIBE_QUORUM -> new DescribeQuorumResponse((DescribeQuorumResponseData) data);
            case UPDATE_RAFT_VOTER -> new UpdateRaftVoterResponse((UpdateRaftVoterResponseData) data);
            default -> throw new IllegalStateException("the Raft driver answered with " +
                data.getClass().getSimpleName());
        };
    }
}
