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
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder;

/**
 * The broker's security settings, read as Kafka reads them: {@code listener.security.protocol.map} gives each
 * listener its protocol, Kafka's {@code ssl.*} keys configure TLS, and every one of them may be set for one
 * listener alone with the {@code listener.name.<name>.} prefix, which then wins. Immutable once built.
 *
 * <p>Served: PLAINTEXT and SSL. A listener mapped to SASL_PLAINTEXT or SASL_SSL stops the broker at startup rather
 * than be served without its authentication, and so does an SSL listener without a keystore (Kafka would find
 * that out only at the first handshake), and broker listeners of different protocols: the broker registers one
 * endpoint and gives it to every client, so a client on the other protocol would be sent where it cannot speak.
 * The controllers' listener may differ.
 *
 * <p>The broker's own connections (to other brokers' inter-broker listener, to the controllers' listener, and its
 * clients of its own cluster) use the settings of the listener they connect to, as Kafka's broker does: its
 * keystore is its client certificate, its truststore the peers' CA.
 */
public final class SecurityConfig
{
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
                DefaultKafkaPrincipalBuilder.class, Importance.MEDIUM, BrokerSecurityConfigs.PRINCIPAL_BUILDER_CLASS_DOC);
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
     * refuses it (but a controller listener while the map is not set, which Kafka maps to PLAINTEXT), and so is a
     * protocol this broker does not serve, or an SSL listener without a keystore.
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
            if (protocol != SecurityProtocol.PLAINTEXT && protocol != SecurityProtocol.SSL)
            {
                throw new ConfigException(mapKey, entries, "listener " + listener.name() + " is " + protocol +
                    ", which this broker does not serve yet (PLAINTEXT and SSL): it refuses to start rather than serve"
                    + " it without its authentication");
            }
            protocols.put(listener.name(), protocol);
            if (protocol == SecurityProtocol.SSL)
            {
                requireKeystore(listener.name());
            }
        }
        final Map<String, SecurityProtocol> served = new LinkedHashMap<>(protocols);
        served.keySet().removeAll(controllerNames);
        if (new java.util.HashSet<>(served.values()).size() > 1)
        {
            // The broker registers one endpoint, its first advertised listener, and answers Metadata with it
            // whatever listener asked: a client on another protocol would be sent where it cannot speak.
            throw new ConfigException(mapKey, entries, "the broker listeners " + served + " differ in security "
                + "protocol; this broker advertises one endpoint to every client (its first advertised listener), so "
                + "its client listeners must share one protocol");
        }
        // A broker that is no voter connects to the controllers' listener without serving it.
        for (final String controller : controllerNames)
        {
            final SecurityProtocol protocol = map.get(controller.toUpperCase(Locale.ROOT));
            if (protocol == null && mapSet)
            {
                throw new ConfigException(mapKey, entries, "no security protocol for controller listener " + controller);
            }
            protocols.putIfAbsent(controller, protocol == null ? SecurityProtocol.PLAINTEXT : protocol);
        }
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
