package io.syncmirror.broker.metadata;

/** A registered broker and the address clients reach it on (its advertised listener). */
public record BrokerEndpoint(int id, String host, int port, String rack)
{
}
