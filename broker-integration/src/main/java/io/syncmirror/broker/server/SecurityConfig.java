package io.syncmirror.broker.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SslClientAuth;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder;

import io.syncmirror.broker.network.SaslServers;
import io.syncmirror.broker.network.ScramCredentialStore;

/**
 * The broker's security settings, read as Kafka reads them: {@code listener.security.protocol.map} gives each
 * listener its protocol, Kafka's {@code ssl.*} keys configure TLS, and every one of them may be set for one
 * listener alone with the {@code listener.name.<name>.} prefix, which then wins. Immutable once built.
 *
 * <p>Served: PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512). An SSL or SASL_SSL
 * listener without a keystore stops the broker at startup (Kafka would find that out only at the first handshake),
 * and so do SASL settings it cannot honour. Listeners may differ in protocol (a PLAINTEXT one inside, an SSL one
 * outside): each client is answered with the addresses of the listener it connected to.
 *
 * <p>The broker's own connections (to other brokers' inter-broker listener, to the controllers' listener, and its
 * clients of its own cluster) use the settings of the listener they connect to, as Kafka's broker does: its
 * keystore is its client certificate, its truststore the peers' CA.
 */
public final class SecurityConfig
{
    /** Kafka's key: the mechanism the brokers log in to the controllers' SASL listener with. */
    public static final String SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG = "sasl.mechanism.controller.protocol";
    /** Where the SCRAM credentials a SASL listener checks are, until they live in the cluster metadata. */
    public static final String SCRAM_CREDENTIALS_FILE_CONFIG = "syncmirror.sasl.scram.credentials.file";

    /** Kafka's client-side {@code ssl.*} keys, the ones a client of a TLS listener is configured with. */
    private static final List<String> CLIENT_SSL_KEYS = clientSslKeys();

    private final BrokerConfig config;
    private final List<String> controllerNames;
    private final Map<String, SecurityProtocol> protocols = new LinkedHashMap<>();

    /** Adds Kafka's TLS keys (the client ones, and the broker's {@code ssl.client.auth} and principal keys). */
    public static void define(final ConfigDef definition)
    {
        final ConfigDef ssl = new ConfigDef();
        SslConfigs.addClientSslSupport(ssl);
        ssl.define(BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG, Type.STRING,
                SslClientAuth.NONE.name().toLowerCase(Locale.ROOT),
                ConfigDef.ValidString.in("required", "requested", "none"), Importance.MEDIUM,
                BrokerSecurityConfigs.SSL_CLIENT_AUTH_DOC)
            .define(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG, Type.STRING,
                BrokerSecurityConfigs.DEFAULT_SSL_PRINCIPAL_MAPPING_RULES, Importance.LOW,
                BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_DOC)
            .define(BrokerSecurityConfigs.PRINCIPAL_BUILDER_CLASS_CONFIG, Type.CLASS,
                DefaultKafkaPrincipalBuilder.class, Importance.MEDIUM,
                BrokerSecurityConfigs.PRINCIPAL_BUILDER_CLASS_DOC)
            .define(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG, Type.LIST,
                BrokerSecurityConfigs.DEFAULT_SASL_ENABLED_MECHANISMS, Importance.MEDIUM,
                "The SASL mechanisms a SASL listener serves (Kafka's key and default, GSSAPI); served are "
                    + SaslServers.SERVED + ".")
            .define(BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG, Type.INT,
                BrokerSecurityConfigs.DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE, ConfigDef.Range.atLeast(1), Importance.LOW,
                BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_DOC)
            .define(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG, Type.LONG,
                BrokerSecurityConfigs.DEFAULT_CONNECTIONS_MAX_REAUTH_MS, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Kafka's re-authentication interval; not served, so only 0 is accepted on a SASL listener.")
            .define(BrokerSecurityConfigs.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG, Type.STRING,
                SaslConfigs.DEFAULT_SASL_MECHANISM, Importance.MEDIUM,
                "The mechanism the brokers log in to a SASL inter-broker listener with (Kafka's key and default).")
            .define(SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG, Type.STRING, SaslConfigs.DEFAULT_SASL_MECHANISM,
                Importance.MEDIUM, "The mechanism the nodes log in to a SASL controller listener with (Kafka's key "
                    + "and default).")
            .define(SCRAM_CREDENTIALS_FILE_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "A properties file of salted SCRAM credentials, one per line: <mechanism>.<user>=salt=<base64>,"
                    + "stored_key=<base64>,server_key=<base64>,iterations=<n> (Kafka's own credential format); "
                    + "never a password.");
        for (final ConfigDef.ConfigKey key : ssl.configKeys().values())
        {
            if (!definition.configKeys().containsKey(key.name))
            {
                definition.define(key);
            }
        }
    }

    /**
     * Checks every listener and advertised listener: a name the map does not give a protocol is refused as Kafka
     * refuses it (but a controller listener while the map is not set, which Kafka maps to PLAINTEXT), and so is an
     * SSL or SASL_SSL listener without a keystore.
     */
    SecurityConfig(final BrokerConfig config, final List<BrokerConfig.Listener> listeners,
        final List<String> controllerNames)
    {
        this.config = config;
        this.controllerNames = List.copyOf(controllerNames);
        final String mapKey = BrokerConfig.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG;
        final List<String> entries = config.getList(mapKey);
        final Map<String, SecurityProtocol> map = new HashMap<>();
        for (final String entry : entries)
        {
            final int colon = entry.indexOf(':');
            final String protocol = colon < 0 ? "" : entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            if (colon <= 0 || !SecurityProtocol.names().contains(protocol))
            {
                throw new ConfigException(mapKey, entries, "'" + entry + "' is not NAME:PROTOCOL with a protocol of "
                    + SecurityProtocol.names());
            }
            map.put(entry.substring(0, colon).trim().toUpperCase(Locale.ROOT), SecurityProtocol.forName(protocol));
        }
        final boolean mapSet = config.originals().containsKey(mapKey);
        for (final BrokerConfig.Listener listener : listeners)
        {
            SecurityProtocol protocol = map.get(listener.name().toUpperCase(Locale.ROOT));
            if (protocol == null && !mapSet && controllerNames.contains(listener.name()))
            {
                protocol = SecurityProtocol.PLAINTEXT;
            }
            if (protocol == null)
            {
                throw new ConfigException(mapKey, entries, "no security protocol for listener " + listener.name());
            }
            protocols.put(listener.name(), protocol);
            if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL)
            {
                requireKeystore(listener.name());
            }
        }
        // A broker that is no voter connects to the controllers' listener without serving it.
        for (final String controller : controllerNames)
        {
            final SecurityProtocol protocol = map.get(controller.toUpperCase(Locale.ROOT));
            if (protocol == null && mapSet)
            {
                throw new ConfigException(mapKey, entries, "no security protocol for controller listener " +
                    controller);
            }
            protocols.putIfAbsent(controller, protocol == null ? SecurityProtocol.PLAINTEXT : protocol);
        }
    }

    /**
     * The SASL settings: mechanisms this broker serves, no re-authentication, and on a SASL listener that carries
     * the brokers' own links (the inter-broker one, the controllers') a mechanism of Kafka's
     * {@code sasl.mechanism.inter.broker.protocol} / {@code sasl.mechanism.controller.protocol} that the listener
     * enables, with a login module the brokers log in with.
     */
    void checkSasl(final String interBrokerListener, final List<String> brokerListeners)
    {
        for (final Map.Entry<String, SecurityProtocol> entry : protocols.entrySet())
        {
            final SecurityProtocol protocol = entry.getValue();
            if (protocol != SecurityProtocol.SASL_PLAINTEXT && protocol != SecurityProtocol.SASL_SSL)
            {
                continue;
            }
            final String name = entry.getKey();
            if (name.equals(interBrokerListener) || controllerNames.contains(name))
            {
                final String key = linkMechanismKey(name);
                final String mechanism = config.getString(key);
                if (!SaslServers.SERVED.contains(mechanism))
                {
                    throw new ConfigException(key, mechanism, "listener " + name + " is " + protocol + " and carries "
                        + "the brokers' own links: name a mechanism of " + SaslServers.SERVED);
                }
                if (config.originals().get(jaasKey(name, mechanism)) == null)
                {
                    throw new ConfigException(jaasKey(name, mechanism), null, "the brokers log in to listener " + name
                        + " with " + mechanism + ": this login module's username and password");
                }
            }
            if (!brokerListeners.contains(name))
            {
                continue;
            }
            final Map<String, Object> values = listenerConfigs(name);
            @SuppressWarnings("unchecked")
            final List<String> mechanisms =
                (List<String>)values.get(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG);
            for (final String mechanism : mechanisms)
            {
                if (!SaslServers.SERVED.contains(mechanism))
                {
                    throw new ConfigException(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG, mechanisms,
                        "listener " + name + " enables " + mechanism + ", which this broker does not serve (it serves "
                            + SaslServers.SERVED + ")");
                }
            }
            if ((Long)values.get(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG) != 0L)
            {
                throw new ConfigException(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG,
                    values.get(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG), "re-authentication is not "
                        + "served; leave it 0 on listener " + name);
            }
        }
    }

    /** The key naming the mechanism the brokers log in to {@code listenerName} with (Kafka's keys). */
    private String linkMechanismKey(final String listenerName)
    {
        return controllerNames.contains(listenerName) ? SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG :
            BrokerSecurityConfigs.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG;
    }

    /** Kafka's {@code listener.name.<name>.<mechanism>.sasl.jaas.config}. */
    private static String jaasKey(final String listenerName, final String mechanism)
    {
        return new ListenerName(listenerName).saslMechanismConfigPrefix(mechanism) + SaslConfigs.SASL_JAAS_CONFIG;
    }

    /**
     * The SASL servers of SASL listener {@code listenerName}: its mechanisms, the JAAS configurations Kafka reads
     * for them ({@code listener.name.<name>.<mechanism>.sasl.jaas.config}) and the SCRAM credentials file.
     *
     * @throws ConfigException a mechanism's configuration is missing or the credentials cannot be read
     */
    public SaslServers saslServers(final String listenerName, final ScramCredentialStore scramCredentials)
    {
        final Map<String, Object> values = listenerConfigs(listenerName);
        @SuppressWarnings("unchecked")
        final List<String> mechanisms = (List<String>)values.get(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG);
        final Map<String, Object> jaas = new HashMap<>();
        for (final String mechanism : mechanisms)
        {
            // Kafka's JaasContext reads the key as the listener's channel builder sees it: the prefix stripped.
            final String stripped = ListenerName.saslMechanismPrefix(mechanism) + SaslConfigs.SASL_JAAS_CONFIG;
            final Object value = config.originals().get(jaasKey(listenerName, mechanism));
            if (value != null)
            {
                jaas.put(stripped, value instanceof Password password ? password : new Password(value.toString()));
            }
        }
        try
        {
            return SaslServers.create(listenerName, mechanisms, jaas, scramCredentials,
                (Integer)values.get(BrokerSecurityConfigs.SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG));
        }
        catch (final IllegalArgumentException e)
        {
            throw new ConfigException("listener " + listenerName + ": " + e.getMessage());
        }
    }

    /**
     * The broker's SCRAM credential store, seeded with the credentials file
     * ({@value #SCRAM_CREDENTIALS_FILE_CONFIG}; none when unset); the cluster metadata's are applied to it later.
     *
     * @throws ConfigException the file cannot be read or holds a malformed credential
     */
    public ScramCredentialStore scramCredentialStore()
    {
        return new ScramCredentialStore(ScramCredentials.load(config.getString(SCRAM_CREDENTIALS_FILE_CONFIG)));
    }

    /** The security protocol of {@code listenerName}, one of the broker's listeners. */
    public SecurityProtocol protocol(final String listenerName)
    {
        final SecurityProtocol protocol = protocols.get(listenerName);
        if (protocol == null)
        {
            throw new IllegalArgumentException("no listener " + listenerName);
        }
        return protocol;
    }

    /**
     * Every setting as {@code listenerName} sees it, parsed: the broker's, with the listener's own
     * ({@code listener.name.<name>.}) in their place, as Kafka hands them to the listener's channel builder.
     */
    public Map<String, Object> listenerConfigs(final String listenerName)
    {
        return config.valuesWithPrefixOverride(new ListenerName(listenerName).configPrefix());
    }

    /**
     * The Kafka client settings for a connection to {@code listenerName} of a node configured as this one is:
     * {@code security.protocol} and the listener's client-side {@code ssl.*} keys. Empty for a PLAINTEXT listener.
     */
    public Map<String, Object> clientConfigs(final String listenerName)
    {
        final SecurityProtocol protocol = protocol(listenerName);
        if (protocol == SecurityProtocol.PLAINTEXT)
        {
            return Map.of();
        }
        final Map<String, Object> values = listenerConfigs(listenerName);
        final Map<String, Object> client = new HashMap<>();
        client.put("security.protocol", protocol.name);
        if (protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL)
        {
            // As Kafka's brokers log in: the listener's login module for the inter-broker (or controller) mechanism.
            final String mechanism = config.getString(linkMechanismKey(listenerName));
            client.put(SaslConfigs.SASL_MECHANISM, mechanism);
            final Object jaas = config.originals().get(jaasKey(listenerName, mechanism));
            if (jaas != null)
            {
                client.put(SaslConfigs.SASL_JAAS_CONFIG, jaas instanceof Password p ? p :
                    new Password(jaas.toString()));
            }
        }
        for (final String key : CLIENT_SSL_KEYS)
        {
            final Object value = values.get(key);
            if (value != null)
            {
                client.put(key, value);
            }
        }
        return client;
    }

    /**
     * The Kafka client settings for a connection to the controllers' listener (the first of
     * {@code controller.listener.names}); empty (plaintext) when none is named, as Kafka maps an unnamed one.
     */
    public Map<String, Object> controllerClientConfigs()
    {
        return controllerNames.isEmpty() ? Map.of() : clientConfigs(controllerNames.get(0));
    }

    private void requireKeystore(final String listenerName)
    {
        final Map<String, Object> values = listenerConfigs(listenerName);
        if (values.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG) == null &&
            values.get(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG) == null)
        {
            final String prefix = new ListenerName(listenerName).configPrefix();
            throw new ConfigException(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, null, "listener " + listenerName +
                " is SSL but has no keystore: set " + SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG + " or " + prefix +
                SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG + " (or the PEM " +
                SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG + ")");
        }
    }

    private static List<String> clientSslKeys()
    {
        final ConfigDef ssl = new ConfigDef();
        SslConfigs.addClientSslSupport(ssl);
        return new ArrayList<>(ssl.names());
    }
}
