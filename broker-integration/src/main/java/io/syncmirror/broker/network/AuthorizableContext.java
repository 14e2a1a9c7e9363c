package io.syncmirror.broker.network;

import java.net.InetAddress;

import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * A request's context as Kafka's embedded components read it: its authorizer (who asks, from where, on which
 * listener) and its group coordinator (which reads the request version, e.g. to decide whether a JoinGroup must
 * first ask for a member id). A cluster-mirroring RPC's context has no Kafka request header: its type, version and
 * correlation id read as -1. Immutable.
 */
public record AuthorizableContext(RequestContext request) implements AuthorizableRequestContext
{
    @Override
    public String listenerName()
    {
        return request.listenerName();
    }

    @Override
    public SecurityProtocol securityProtocol()
    {
        return request.securityProtocol();
    }

    @Override
    public KafkaPrincipal principal()
    {
        return request.principal();
    }

    @Override
    public InetAddress clientAddress()
    {
        return request.clientAddress();
    }

    @Override
    public int requestType()
    {
        return request.header() == null ? -1 : request.header().apiKey().id;
    }

    @Override
    public int requestVersion()
    {
        return request.header() == null ? -1 : request.header().apiVersion();
    }

    @Override
    public String clientId()
    {
        return request.header() == null ? "" : request.header().clientId();
    }

    @Override
    public int correlationId()
    {
        return request.header() == null ? -1 : request.header().correlationId();
    }
}
