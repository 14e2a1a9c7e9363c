package io.syncmirror.broker.metadata;

import org.apache.kafka.clients.admin.EndpointType;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster's endpoint type (KIP-919), checked as Kafka checks it: a client listener describes brokers, a
 * controller listener controllers, and a request for the other kind (or an unknown kind) is refused with
 * MISMATCHED_ENDPOINT_TYPE (UNSUPPORTED_ENDPOINT_TYPE), or INVALID_REQUEST at v0. Stateless.
 */
public final class EndpointTypeCheck
{
    private EndpointTypeCheck()
    {
    }

    /** The refusal of {@code request} on a listener that describes {@code served}, or null when it may be served. */
    public static DescribeClusterResponse refusal(final DescribeClusterRequest request, final EndpointType served)
    {
        final EndpointType asked = EndpointType.fromId(request.data().endpointType());
        if (asked == served)
        {
            return null;
        }
        final boolean known = asked != EndpointType.UNKNOWN;
        final Errors error = request.version() == 0 ? Errors.INVALID_REQUEST :
            known ? Errors.MISMATCHED_ENDPOINT_TYPE : Errors.UNSUPPORTED_ENDPOINT_TYPE;
        return new DescribeClusterResponse(new DescribeClusterResponseData().setErrorCode(error.code())
            .setErrorMessage(known ? "this listener describes " + served.name().toLowerCase()
                + " endpoints, not " + asked.name().toLowerCase() + " endpoints"
                : "unsupported endpoint type " + request.data().endpointType()));
    }
}
