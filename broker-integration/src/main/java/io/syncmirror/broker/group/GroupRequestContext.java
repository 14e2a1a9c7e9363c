package io.syncmirror.broker.group;

import java.net.InetAddress;

import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

import io.syncmirror.broker.network.RequestContext;

/**
 * A request's context as Kafka's embedded components read it (the group coordinator reads the request version
 * from it, e.g. to decide whether a JoinGroup must first ask for a member id). Immutable. Every listener is
 * plaintext without authentication today, so the principal is Kafka's anonymous one.
 */
record GroupRequestContext(RequestContext context) implements AuthorizableRequestContext
{
    @Override
    public String listenerName()
    {
        return context.listenerName();
    }

    @Override
    public SecurityProtocol securityProtocol()
    {
        return SecurityProtocol.PLAINTEXT;
    }

    @Override
    public KafkaPrincipal principal()
    {
        return KafkaPrincipal.ANONYMOUS;
    }

    @Override
    public InetAddress clientAddress()
    {
        return context.clientAddress();
    }

    @Override
    public int requestType()
    {
        return context.header().apiKey().id;
    }

    @Override
    public int requestVersion()
    {
        return context.header().apiVersion();
    }

    @Override
    public String clientId()
    {
        return context.header().clientId();
    }

    @Override
    public int correlationId()
    {
        return context.header().correlationId();
    }
}
