package io.syncmirror.broker.server;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.admin.EndpointType;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchSnapshotRequest;

import io.syncmirror.broker.controller.ControllerApis;
import io.syncmirror.broker.controller.quorum.MetadataQuorum;
import io.syncmirror.broker.controller.quorum.RaftApis;
import io.syncmirror.broker.metadata.EndpointTypeCheck;
import io.syncmirror.broker.network.RequestContext;

/**
 * What a voter's controller listener serves, and nothing else, as Kafka's controller listener serves only
 * {@code ControllerApis}: the Raft RPCs (a Fetch from a Raft replica included) and DescribeQuorum go to Kafka's
 * Raft driver, every other controller RPC (registration, heartbeats, AlterPartition, producer ids, a broker's
 * metadata fetch, and the topic and config changes brokers forward) to this node's controller, which answers
 * NOT_CONTROLLER while it is a standby; DescribeCluster names the voters at their controller listeners and the Raft
 * leader as the controller, as Kafka answers a client bootstrapped with {@code bootstrap.controllers} (KIP-919),
 * so {@code kafka-metadata-quorum.sh --bootstrap-controller} works.
 *
 * <p>Why its own dispatcher: brokers forward CreateTopics and the like to a voter's controller listener. Were
 * that listener to hand them to the broker's own {@code MetadataApis}, as a client listener does, a standby would
 * forward them again to the voter its own client believes active, and two standbys can forward one request to
 * each other until it times out (seen: a CreateTopics unanswered for 30 s after a controller failover).
 * Thread-safety: stateless; any network thread may call it.
 */
final class ControllerListenerApis implements ApiGroup
{
    private final ControllerApis controller;
    private final RaftApis raft;
    private final MetadataQuorum quorum;

    ControllerListenerApis(final ControllerApis controller, final RaftApis raft, final MetadataQuorum quorum)
    {
        this.controller = controller;
        this.raft = raft;
        this.quorum = quorum;
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        if (key == ApiKeys.DESCRIBE_CLUSTER)
        {
            return key.latestVersion();
        }
        if (key == ApiKeys.FETCH || key == ApiKeys.FETCH_SNAPSHOT)
        {
            return (short) Math.min(raft.maxVersion(key), controller.maxVersion(key));
        }
        if (RaftApis.serves(key))
        {
            return raft.maxVersion(key);
        }
        return controller.maxVersion(key);
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        if (key == ApiKeys.DESCRIBE_CLUSTER)
        {
            return key.oldestVersion();
        }
        if (RaftApis.serves(key))
        {
            return raft.minVersion(key);
        }
        return controller.minVersion(key);
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (request.apiKey() == ApiKeys.DESCRIBE_CLUSTER)
        {
            return CompletableFuture.completedFuture(describeCluster((DescribeClusterRequest) request));
        }
        if (request.apiKey() == ApiKeys.FETCH_SNAPSHOT
            && ((FetchSnapshotRequest) request).data().clusterId() == null)
        {
            // A broker loading a metadata snapshot (a Raft voter always sends its cluster id): any voter serves
            // it from its own snapshots, as it serves brokers' metadata fetches.
            return controller.handle(context, request);
        }
        if (RaftApis.serves(request.apiKey()))
        {
            return raft.handle(context, request);
        }
        if (request.apiKey() == ApiKeys.FETCH)
        {
            final FetchRequestData data = ((FetchRequest) request).data();
            if (RaftApis.isRaftFetch(data))
            {
                return raft.handle(context, request);
            }
        }
        // A Fetch of any other partition is refused by the controller with INVALID_REQUEST.
        return controller.handle(context, request);
    }

    /**
     * The controllers, as Kafka's controller describes them: every voter at its controller listener, the Raft
     * leader as the controller id (-1 during an election). A request for the broker endpoints (every v0 request,
     * whose endpoint type is BROKER) is refused as Kafka refuses it: the client asked a controller for brokers.
     */
    private AbstractResponse describeCluster(final DescribeClusterRequest request)
    {
        final AbstractResponse refused = EndpointTypeCheck.refusal(request, EndpointType.CONTROLLER);
        if (refused != null)
        {
            return refused;
        }
        final DescribeClusterResponseData.DescribeClusterBrokerCollection voters =
            new DescribeClusterResponseData.DescribeClusterBrokerCollection();
        quorum.settings().voters().forEach((id, address) -> voters.add(
            new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(id)
                .setHost(address.getHostString()).setPort(address.getPort())));
        return new DescribeClusterResponse(new DescribeClusterResponseData()
            .setEndpointType(EndpointType.CONTROLLER.id())
            .setClusterId(quorum.settings().clusterId())
            .setControllerId(quorum.client().leaderAndEpoch().leaderId().orElse(-1))
            .setBrokers(voters));
    }
}
