package io.syncmirror.broker.server;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

import io.syncmirror.broker.network.RequestContext;

/** A set of APIs one component serves (data path, metadata, coordinators, controller), for the dispatcher. */
public interface ApiGroup
{
    /** The highest version of {@code key} this group serves, or -1 when it does not serve the key. */
    short maxVersion(ApiKeys key);

    short minVersion(ApiKeys key);

    CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request);
}
