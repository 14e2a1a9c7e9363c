package io.syncmirror.broker.replica;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;

import io.syncmirror.broker.network.RequestContext;

/**
 * Routes the data-path API keys to {@link ReplicaApis} (Produce, Fetch), {@link OffsetApis} (ListOffsets,
 * OffsetsForLeaderEpoch) and {@link PartitionAdminApis} (DeleteRecords, DescribeProducers). Thread-safety:
 * stateless.
 */
public final class DataPathApis
{
    private final ReplicaApis apis;
    private final OffsetApis offsets;
    private final PartitionAdminApis admin;

    public DataPathApis(final ReplicaApis apis, final OffsetApis offsets, final PartitionAdminApis admin)
    {
        this.apis = apis;
        this.offsets = offsets;
        this.admin = admin;
    }

    public short maxVersion(final ApiKeys key)
    {
        return ReplicaApis.maxVersion(key);
    }

    public short minVersion(final ApiKeys key)
    {
        return ReplicaApis.minVersion(key);
    }

    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        return switch (request.apiKey())
        {
            case PRODUCE -> apis.handleProduce(context, (ProduceRequest)request);
            case FETCH -> apis.handleFetch(context, (FetchRequest)request);
            case LIST_OFFSETS -> offsets.handleListOffsets(context, (ListOffsetsRequest)request);
            case OFFSET_FOR_LEADER_EPOCH -> offsets.handleOffsetsForLeaderEpoch(context,
                (OffsetsForLeaderEpochRequest)request);
            case DELETE_RECORDS -> admin.handleDeleteRecords((DeleteRecordsRequest)request);
            case DESCRIBE_PRODUCERS -> admin.handleDescribeProducers((DescribeProducersRequest)request);
            default -> CompletableFuture.failedFuture(new UnsupportedVersionException(request.apiKey() +
                " is not a data-path API"));
        };
    }
}
