package io.syncmirror.broker.controller.quorum;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.DescribeQuorumResponse;

import io.syncmirror.broker.network.RequestContext;

/**
 * DescribeQuorum on a client listener of any node of a cluster with a metadata quorum, as Kafka serves it: the
 * request is passed to the voters' controller listeners until the Raft leader answers, as a Kafka broker forwards
 * it to the controller (on a voter's controller listener Kafka's Raft driver answers it, through
 * {@link RaftApis}). Only the leader can describe the quorum: a follower answers NOT_LEADER_OR_FOLLOWER, which
 * moves the request on. So {@code Admin.describeMetadataQuorum} and Kafka's {@code kafka-metadata-quorum.sh
 * --bootstrap-server} work against any node. Thread-safety: stateless beyond its clients; any network thread may
 * call it.
 */
public final class DescribeQuorumApis
{
    private final ActiveControllerClient leader;

    /**
     * @param leader network clients to every voter's controller listener, moving on from a voter that answers
     *               NOT_LEADER_OR_FOLLOWER
     */
    public DescribeQuorumApis(final ActiveControllerClient leader)
    {
        this.leader = leader;
    }

    public short maxVersion(final ApiKeys key)
    {
        return key == ApiKeys.DESCRIBE_QUORUM ? key.latestVersion() : -1;
    }

    public short minVersion(final ApiKeys key)
    {
        return key.oldestVersion();
    }

    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (request.apiKey() != ApiKeys.DESCRIBE_QUORUM)
        {
            return CompletableFuture.failedFuture(new UnsupportedVersionException("not served here: " +
                request.apiKey()));
        }
        final DescribeQuorumRequestData data = ((DescribeQuorumRequest)request).data();
        return leader.<AbstractResponse>send(new DescribeQuorumRequest.Builder(data)).exceptionally(e ->
            // No voter answered as leader in time (no majority, or an election): Kafka's forwarding answers
            // REQUEST_TIMED_OUT, which clients retry until their own timeout.
            new DescribeQuorumResponse(new DescribeQuorumResponseData().setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                .setErrorMessage("no controller voter answered as the Raft leader: " + rootCause(e).getMessage())));
    }

    private static Throwable rootCause(final Throwable e)
    {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
