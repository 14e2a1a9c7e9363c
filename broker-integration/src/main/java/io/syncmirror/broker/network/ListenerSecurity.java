package io.syncmirror.broker.network;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.security.sasl.SaslServer;

import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.KafkaPrincipalBuilder;
import org.apache.kafka.common.security.auth.SaslAuthenticationContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.auth.SslAuthenticationContext;
import org.apache.kafka.common.security.ssl.SslFactory;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.apache.kafka.common.utils.Utils;

/**
 * How one listener secures its connections: its security protocol, its SASL mechanisms ({@link SaslServers}) on a
 * SASL listener, and for TLS the server side of Kafka's own
 * {@link SslFactory} (keystore, truststore, protocols, cipher suites and {@code ssl.client.auth}, all read as Kafka
 * reads them) and the principal builder Kafka's broker uses ({@code principal.builder.class}, by default Kafka's
 * {@code DefaultKafkaPrincipalBuilder} with {@code ssl.principal.mapping.rules}). Thread-safe: Kafka's factory and
 * principal builder are, and each connection gets an engine of its own.
 *
 * <p>TLS runs in Netty's {@link SslHandler} over the JDK's {@code SSLEngine} that Kafka's factory builds, so the
 * engine is configured exactly as a Kafka broker's would be. A connection's principal is built once, when its
 * handshake completes; a plaintext connection's is Kafka's {@code ANONYMOUS}, as Kafka's plaintext channels' is.
 */
public final class ListenerSecurity implements AutoCloseable
{
    private final String listenerName;
    private final SecurityProtocol protocol;
    private final SslFactory sslFactory;
    private final SaslServers sasl;
    private final KafkaPrincipalBuilder principalBuilder;

    private ListenerSecurity(final String listenerName, final SecurityProtocol protocol, final SslFactory sslFactory,
        final SaslServers sasl, final KafkaPrincipalBuilder principalBuilder)
    {
        this.listenerName = Objects.requireNonNull(listenerName, "listenerName");
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.sslFactory = sslFactory;
        this.sasl = sasl;
        this.principalBuilder = principalBuilder;
    }

    /** A plaintext listener: no TLS, every connection's principal {@code ANONYMOUS}. */
    public static ListenerSecurity plaintext(final String listenerName)
    {
        return new ListenerSecurity(listenerName, SecurityProtocol.PLAINTEXT, null, null, null);
    }

    /**
     * A TLS listener configured from {@code listenerConfigs}: the broker's settings with the listener's own
     * ({@code listener.name.<name>.}) overriding them, parsed, as Kafka hands them to its channel builders.
     *
     * @throws org.apache.kafka.common.KafkaException the keystore or truststore cannot be loaded, or a setting is
     *                                                invalid (Kafka's message names what)
     */
    public static ListenerSecurity ssl(final String listenerName, final Map<String, ?> listenerConfigs)
    {
        return create(listenerName, SecurityProtocol.SSL, listenerConfigs, null);
    }

    /**
     * A listener of {@code protocol}: TLS for SSL and SASL_SSL, configured from {@code listenerConfigs} as in
     * {@link #ssl}; SASL with {@code sasl} for SASL_PLAINTEXT and SASL_SSL (which it then owns and closes).
     */
    public static ListenerSecurity create(final String listenerName, final SecurityProtocol protocol,
        final Map<String, ?> listenerConfigs, final SaslServers sasl)
    {
        final boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        final boolean saslProtocol = protocol == SecurityProtocol.SASL_PLAINTEXT ||
            protocol == SecurityProtocol.SASL_SSL;
        if (saslProtocol != (sasl != null))
        {
            throw new IllegalArgumentException("listener " + listenerName + " is " + protocol + ": SASL servers "
                + (saslProtocol ? "needed" : "not expected"));
        }
        SslFactory factory = null;
        try
        {
            if (tls)
            {
                factory = new SslFactory(ConnectionMode.SERVER, null, false);
                factory.configure(listenerConfigs);
            }
            final String rules = (String)listenerConfigs.get(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG);
            final KafkaPrincipalBuilder builder = ChannelBuilders.createPrincipalBuilder(listenerConfigs, null,
                SslPrincipalMapper.fromRules(rules == null ? BrokerSecurityConfigs.DEFAULT_SSL_PRINCIPAL_MAPPING_RULES :
                    rules));
            return new ListenerSecurity(listenerName, protocol, factory, sasl, builder);
        }
        catch (final RuntimeException e)
        {
            if (factory != null)
            {
                Utils.closeQuietly(factory, "ssl factory of listener " + listenerName);
            }
            throw e;
        }
    }

    public String listenerName()
    {
        return listenerName;
    }

    public SecurityProtocol protocol()
    {
        return protocol;
    }

    /** Whether connections on this listener are encrypted: a response must then be bytes, not a file region. */
    public boolean encrypted()
    {
        return sslFactory != null;
    }

    /** The listener's SASL mechanisms, or null when it authenticates no one with SASL. */
    SaslServers sasl()
    {
        return sasl;
    }

    /** A new server-side TLS handler for {@code channel}, or null on a plaintext listener. */
    SslHandler newSslHandler(final SocketChannel channel)
    {
        if (sslFactory == null)
        {
            return null;
        }
        final InetSocketAddress peer = channel.remoteAddress();
        final SSLEngine engine = sslFactory.createSslEngine(peer.getHostString(), peer.getPort());
        return new SslHandler(engine);
    }

    /**
     * The principal of a connection whose TLS handshake completed with {@code session}; on a SASL_SSL listener the
     * SASL exchange names it instead, and this is ANONYMOUS until then.
     */
    KafkaPrincipal principal(final SSLSession session, final InetAddress clientAddress)
    {
        return sasl != null ? KafkaPrincipal.ANONYMOUS :
            principalBuilder.build(new SslAuthenticationContext(session, clientAddress, listenerName));
    }

    /** The principal of a connection whose SASL exchange with {@code server} completed. */
    KafkaPrincipal saslPrincipal(final SaslServer server, final InetAddress clientAddress,
        final Optional<SSLSession> sslSession)
    {
        return principalBuilder.build(new SaslAuthenticationContext(server, protocol, clientAddress, listenerName,
            sslSession));
    }

    @Override
    public void close()
    {
        if (sslFactory != null)
        {
            Utils.closeQuietly(sslFactory, "ssl factory of listener " + listenerName);
        }
        if (sasl != null)
        {
            sasl.close();
        }
    }
}
