package io.syncmirror.fetch;

import java.nio.ByteBuffer;

import org.apache.kafka.clients.FetchSessionHandler;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/** Builds, serializes and parses Fetch requests and responses with kafka-clients' own classes, for tests. */
final class FetchWire
{
    static final short VERSION = ApiKeys.FETCH.latestVersion();
    static final int REPLICA_ID = 2;

    /** What the "log" of one partition reports when the handler reads it. */
    @FunctionalInterface
    interface PartitionReader
    {
        FetchResponseData.PartitionData read(FetchSession partitions, int slot);
    }

    private FetchWire()
    {
    }

    static FetchRequest.Builder requestBuilder(final FetchSessionHandler.FetchRequestData data, final short version)
    {
        return FetchRequest.Builder.forReplica(version, REPLICA_ID, -1L, 500, 1, data.toSend())
            .setMaxBytes(10 * 1024 * 1024)
            .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
            .metadata(data.metadata())
            .removed(data.toForget())
            .replaced(data.toReplace());
    }

    static ByteBuffer serialize(final FetchRequest request, final int correlationId)
    {
        return request.serializeWithHeader(new RequestHeader(ApiKeys.FETCH, request.version(), "replica-2", correlationId));
    }

    static FetchRequest parseRequest(final ByteBuffer wire)
    {
        final ByteBuffer buffer = wire.duplicate();
        final RequestHeader header = RequestHeader.parse(buffer);
        return (FetchRequest)AbstractRequest.parseRequest(
            ApiKeys.FETCH, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
    }

    /** What a broker's fetch handler does with a context: read every partition, keep what must be sent. */
    static FetchResponse respond(
        final FetchContext context, final PartitionReader reader, final short version, final long nowMs)
    {
        final FetchResponseAssembler response = new FetchResponseAssembler(context, version);
        if (context.error() == Errors.NONE)
        {
            final FetchSession partitions = context.partitions();
            for (int slot = partitions.firstSlot(); slot != FetchSession.NO_SLOT; slot = partitions.nextSlot(slot))
            {
                response.maybeAdd(slot, reader.read(partitions, slot));
            }
        }
        return response.build(nowMs, 0);
    }

    static ByteBuffer serialize(final FetchResponse response, final short version, final int correlationId)
    {
        final short headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        return RequestUtils.serialize(
            new ResponseHeader(correlationId, headerVersion).data(), headerVersion, response.data(), version);
    }

    static FetchResponse parseResponse(final ByteBuffer wire, final short version)
    {
        final ByteBuffer buffer = wire.duplicate();
        ResponseHeader.parse(buffer, ApiKeys.FETCH.responseHeaderVersion(version));
        return FetchResponse.parse(new ByteBufferAccessor(buffer), version);
    }
}
