package io.syncmirror.protocol;

import java.io.IOException;
import java.net.Socket;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslFactory;

/**
 * How a {@link MirrorWireClient} secures its connection, from Kafka client settings ({@code security.protocol}
 * and the {@code ssl.*} keys, Kafka's names and meanings): in plaintext, or in TLS configured by Kafka's own
 * {@link SslFactory}, so that the keystore, truststore, protocols, cipher suites and hostname verification
 * ({@code ssl.endpoint.identification.algorithm}, {@code https} by default) are exactly those a Kafka client with
 * the same settings would use. Thread-safe and immutable; build one per set of settings and share it (it loads
 * the stores once).
 *
 * <p>SASL is not served by this client: settings naming SASL_PLAINTEXT or SASL_SSL give a security whose every
 * connection fails with an {@link IOException} that says so, never a plaintext or unauthenticated connection.
 */
public final class WireSecurity
{
    /** No TLS: the socket as connected. */
    public static final WireSecurity PLAINTEXT = new WireSecurity(SecurityProtocol.PLAINTEXT, null, null, null);

    private final SecurityProtocol protocol;
    private final SslFactory sslFactory;
    private final SSLContext sslContext;
    private final String refusal;

    private WireSecurity(final SecurityProtocol protocol, final SslFactory sslFactory, final SSLContext sslContext,
        final String refusal)
    {
        this.protocol = protocol;
        this.sslFactory = sslFactory;
        this.sslContext = sslContext;
        this.refusal = refusal;
    }

    /**
     * The security Kafka client settings ask for; settings without {@code security.protocol} are plaintext.
     *
     * @throws ConfigException a setting is invalid, or a store cannot be loaded (Kafka's message names which)
     */
    public static WireSecurity forClientConfigs(final Map<String, ?> configs)
    {
        final Object named = configs.get("security.protocol");
        final String name = named == null ? "PLAINTEXT" : named.toString().trim().toUpperCase(Locale.ROOT);
        if (!SecurityProtocol.names().contains(name))
        {
            throw new ConfigException("security.protocol", named, "not one of " + SecurityProtocol.names());
        }
        final SecurityProtocol protocol = SecurityProtocol.forName(name);
        switch (protocol)
        {
            case PLAINTEXT:
                return PLAINTEXT;
            case SSL:
                return tls(configs);
            default:
                return new WireSecurity(protocol, null, null, "security.protocol=" + protocol + " is not served by "
                    + "the mirror RPC client yet (PLAINTEXT and SSL are): refused rather than sent without it");
        }
    }

    private static WireSecurity tls(final Map<String, ?> configs)
    {
        final ConfigDef definition = new ConfigDef();
        SslConfigs.addClientSslSupport(definition);
        final Map<String, Object> known = new HashMap<>();
        configs.forEach((key, value) ->
        {
            if (definition.names().contains(key))
            {
                known.put(key, value);
            }
        });
        final Map<String, ?> parsed = new AbstractConfig(definition, known, false).values();
        if (parsed.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG) != null)
        {
            throw new ConfigException(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG,
                parsed.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG), "the mirror RPC client needs Kafka's default "
                + "engine factory (it takes the factory's SSLContext)");
        }
        final SslFactory factory = new SslFactory(ConnectionMode.CLIENT);
        factory.configure(parsed);
        final SSLContext context = ((DefaultSslEngineFactory)factory.sslEngineFactory()).sslContext();
        return new WireSecurity(SecurityProtocol.SSL, factory, context, null);
    }

    public SecurityProtocol protocol()
    {
        return protocol;
    }

    /**
     * {@code connected}, a socket connected to {@code host:port}, secured: returned as is in plaintext; for TLS
     * a socket layered over it whose handshake has completed, with the parameters (protocols, cipher suites,
     * hostname verification) of the engine Kafka's factory makes for that peer.
     *
     * @throws IOException the handshake failed (an untrusted certificate, a host name it does not name), or the
     *                     settings ask for a protocol this client does not serve
     */
    Socket secure(final Socket connected, final String host, final int port) throws IOException
    {
        refuseIfUnserved();
        if (sslFactory == null)
        {
            return connected;
        }
        final SSLEngine template = sslFactory.createSslEngine(host, port);
        final SSLSocket socket = (SSLSocket)sslContext.getSocketFactory().createSocket(connected, host, port, true);
        socket.setUseClientMode(true);
        socket.setSSLParameters(template.getSSLParameters());
        socket.startHandshake();
        return socket;
    }

    /** Throws when these settings ask for a protocol this client does not serve: before any connection is made. */
    void refuseIfUnserved() throws IOException
    {
        if (refusal != null)
        {
            throw new IOException(refusal);
        }
    }

    @Override
    public String toString()
    {
        return protocol.name;
    }
}
