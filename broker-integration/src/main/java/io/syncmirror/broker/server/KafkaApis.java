package io.syncmirror.broker.server;

import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

import io.syncmirror.protocol.FetchRequestCodec;
import io.syncmirror.protocol.KafkaApiExtensions;
import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * The broker's request dispatcher: each API key goes to the one {@link ApiGroup} that serves it (the first in
 * the list that claims it). Thread-safety: immutable after construction.
 */
public final class KafkaApis implements RequestHandler
{
    private final EnumMap<ApiKeys, ApiGroup> routes = new EnumMap<>(ApiKeys.class);

    private final MirrorRequestHandler mirrorHandler;
    private final boolean syncMirroring;

    public KafkaApis(final List<ApiGroup> groups)
    {
        this(groups, null, false);
    }

    /**
     * @param mirrorHandler the cluster-mirroring RPCs' handler, or null when none is served
     * @param syncMirroring whether this broker gates produces on sync mirrors (mirror.sync.version 1): it then
     *                      serves Fetch v19/v20 (MirrorReplicaInfo) and Produce v14 (the sync error codes)
     */
    public KafkaApis(final List<ApiGroup> groups, final MirrorRequestHandler mirrorHandler,
        final boolean syncMirroring)
    {
        this.mirrorHandler = mirrorHandler;
        this.syncMirroring = syncMirroring;
        for (final ApiKeys key : ApiKeys.values())
        {
            for (final ApiGroup group : groups)
            {
                if (group.maxVersion(key) >= 0)
                {
                    routes.put(key, group);
                    break;
                }
            }
        }
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        final ApiGroup group = routes.get(key);
        return group == null ? -1 : group.maxVersion(key);
    }

    @Override
    public short maxVersionBeyondKafka(final ApiKeys key)
    {
        if (!syncMirroring)
        {
            return -1;
        }
        return switch (key)
        {
            case FETCH -> FetchRequestCodec.LATEST_VERSION;
            case PRODUCE -> KafkaApiExtensions.PRODUCE_LATEST_VERSION;
            default -> -1;
        };
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        final ApiGroup group = routes.get(key);
        return group == null ? -1 : group.minVersion(key);
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        final ApiGroup group = routes.get(request.apiKey());
        if (group == null)
        {
            return CompletableFuture.failedFuture(new UnsupportedVersionException(
                "API " + request.apiKey() + " is not served by this broker"));
        }
        return group.handle(context, request);
    }

    @Override
    public MirrorRequestHandler mirrorHandler()
    {
        return mirrorHandler;
    }
}
