package io.syncmirror.broker.network;

import java.net.InetAddress;

import org.apache.kafka.common.requests.RequestHeader;

/**
 * Where a request came from: its header, the client's address and the connection it arrived on.
 *
 * @param header       the parsed request header (api key, version, correlation id, client id)
 * @param clientAddress the peer's address
 * @param connectionId a broker-unique id of the connection, stable for its lifetime (fetch sessions and
 *                     per-connection state key on it)
 * @param listenerName the listener the connection was accepted on
 */
public record RequestContext(RequestHeader header, InetAddress clientAddress, long connectionId, String listenerName)
{
}
