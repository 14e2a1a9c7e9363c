package io.syncmirror.protocol;

import java.io.IOException;
import java.net.Socket;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslFactory;

/**
 * How a {@link MirrorWireClient} secures its connection, from Kafka client settings ({@code security.protocol},
 * the {@code ssl.*} keys, {@code sasl.mechanism} and {@code sasl.jaas.config}, Kafka's names and meanings):
 * plaintext; TLS configured by Kafka's own {@link SslFactory}, so that the keystore, truststore, protocols, cipher
 * suites and hostname verification ({@code ssl.endpoint.identification.algorithm}, {@code https} by default) are
 * exactly those a Kafka client with the same settings would use; and SASL PLAIN or SCRAM with the user name and
 * password of the {@code sasl.jaas.config} login module, as Kafka's clients log in (PLAIN through the JDK's
 * client, SCRAM through Kafka's {@code ScramSaslClient}). Thread-safe and immutable; build one per set of settings
 * and share it (it loads the stores once).
 *
 * <p>Settings this client cannot honour (GSSAPI, OAUTHBEARER) give a security whose every connection fails with an
 * {@link IOException} that says so, before any byte is sent: never a plaintext or unauthenticated connection.
 */
public final class WireSecurity
{
    /** No TLS: the socket as connected. */
    public static final WireSecurity PLAINTEXT = new WireSecurity(SecurityProtocol.PLAINTEXT, null, null, null, null);

    private final SecurityProtocol protocol;
    private final SslFactory sslFactory;
    private final SSLContext sslContext;
    private final SaslLogin sasl;
    private final String refusal;

    /** The SASL mechanism and the credentials the client logs in with. */
    record SaslLogin(String mechanism, String username, Password password)
    {
    }

    private WireSecurity(final SecurityProtocol protocol, final SslFactory sslFactory, final SSLContext sslContext,
        final SaslLogin sasl, final String refusal)
    {
        this.protocol = protocol;
        this.sslFactory = sslFactory;
        this.sslContext = sslContext;
        this.sasl = sasl;
        this.refusal = refusal;
    }

    /**
     * The security Kafka client settings ask for; settings without {@code security.protocol} are plaintext.
     *
     * @throws ConfigException a setting is invalid, a store cannot be loaded (Kafka's message names which), or a
     *                         SASL login module has no user name or password
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
        if (protocol == SecurityProtocol.PLAINTEXT)
        {
            return PLAINTEXT;
        }
        final ConfigDef definition = new ConfigDef();
        SslConfigs.addClientSslSupport(definition);
        SaslConfigs.addClientSaslSupport(definition);
        final Map<String, Object> known = new HashMap<>();
        configs.forEach((key, value) ->
        {
            if (definition.names().contains(key))
            {
                known.put(key, value);
            }
        });
        final Map<String, ?> parsed = new AbstractConfig(definition, known, false).values();
        SslFactory factory = null;
        SSLContext context = null;
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL)
        {
            if (parsed.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG) != null)
            {
                throw new ConfigException(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG,
                    parsed.get(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG), "the mirror RPC client needs Kafka's "
                    + "default engine factory (it takes the factory's SSLContext)");
            }
            factory = new SslFactory(ConnectionMode.CLIENT);
            factory.configure(parsed);
            context = ((DefaultSslEngineFactory)factory.sslEngineFactory()).sslContext();
        }
        if (protocol == SecurityProtocol.SSL)
        {
            return new WireSecurity(protocol, factory, context, null, null);
        }
        final String mechanism = (String)parsed.get(SaslConfigs.SASL_MECHANISM);
        if (!mechanism.equals("PLAIN") && ScramMechanism.forMechanismName(mechanism) == null)
        {
            return new WireSecurity(protocol, factory, context, null, "sasl.mechanism=" + mechanism + " is not "
                + "served by the mirror RPC client (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are): refused rather than "
                + "sent without it");
        }
        return new WireSecurity(protocol, factory, context, login(mechanism, parsed), null);
    }

    /** The user name and password of the {@code sasl.jaas.config} login module, as Kafka's client login reads it. */
    private static SaslLogin login(final String mechanism, final Map<String, ?> parsed)
    {
        final List<AppConfigurationEntry> entries = JaasContext.loadClientContext(parsed).configurationEntries();
        final String username = JaasContext.configEntryOption(entries, "username", null);
        final String password = JaasContext.configEntryOption(entries, "password", null);
        if (username == null || password == null)
        {
            throw new ConfigException(SaslConfigs.SASL_JAAS_CONFIG, "(hidden)", "its login module needs username and "
                + "password options for " + mechanism);
        }
        return new SaslLogin(mechanism, username, new Password(password));
    }

    public SecurityProtocol protocol()
    {
        return protocol;
    }

    /** The SASL login this security performs after connecting, or null for none. */
    SaslLogin sasl()
    {
        return sasl;
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

    /** A SASL client for one login to {@code host}, with the settings' user name and password. */
    SaslClient newSaslClient(final String host) throws SaslException
    {
        final javax.security.auth.callback.CallbackHandler credentials = callbacks ->
        {
            for (final Callback callback : callbacks)
            {
                if (callback instanceof NameCallback name)
                {
                    name.setName(sasl.username());
                }
                else if (callback instanceof PasswordCallback password)
                {
                    password.setPassword(sasl.password().value().toCharArray());
                }
                else if (callback instanceof ScramExtensionsCallback extensions)
                {
                    extensions.extensions(Map.of());
                }
                else
                {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        };
        final ScramMechanism scram = ScramMechanism.forMechanismName(sasl.mechanism());
        if (scram == null)
        {
            return Sasl.createSaslClient(new String[] {sasl.mechanism()}, null, "kafka", host, Map.of(),
                credentials);
        }
        try
        {
            return new ScramSaslClient(scram, credentials);
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new SaslException("this JVM has no " + scram.hashAlgorithm(), e);
        }
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
