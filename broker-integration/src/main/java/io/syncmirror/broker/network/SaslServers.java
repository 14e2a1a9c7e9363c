package io.syncmirror.broker.network;

import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainServerCallbackHandler;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramServerCallbackHandler;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;

/**
 * The SASL mechanisms one listener serves, with Kafka's own SASL servers and callback handlers: PLAIN checks a
 * password against the listener's JAAS {@code user_<name>} options ({@code PlainServerCallbackHandler}), SCRAM
 * verifies the client's proof against salted credentials ({@code ScramServerCallbackHandler}); the exchanges
 * themselves are Kafka's {@code PlainSaslServer} and {@code ScramSaslServer}. Thread-safe: the handlers are, and
 * each connection gets a server of its own.
 *
 * <p>Kafka's {@code SaslServerAuthenticator} runs these over Kafka's own socket transport, which this broker does
 * not use; {@link SaslAuthentication} runs the same exchange (SaslHandshake, then SaslAuthenticate) over Netty.
 */
public final class SaslServers implements AutoCloseable
{
    /** The mechanisms served: GSSAPI needs Kerberos, OAUTHBEARER a token validator, neither built. */
    public static final Set<String> SERVED = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    private final List<String> enabled;
    private final Map<String, AuthenticateCallbackHandler> handlers;
    private final int maxReceiveBytes;

    private SaslServers(final List<String> enabled, final Map<String, AuthenticateCallbackHandler> handlers,
        final int maxReceiveBytes)
    {
        this.enabled = List.copyOf(enabled);
        this.handlers = Map.copyOf(handlers);
        this.maxReceiveBytes = maxReceiveBytes;
    }

    /**
     * The servers of listener {@code listenerName}.
     *
     * @param enabled          {@code sasl.enabled.mechanisms}, each one of {@link #SERVED}
     * @param jaasConfigs      the listener's {@code listener.name.<name>.<mechanism>.sasl.jaas.config} values
     *                         (Kafka's {@code Password}) under their key without the listener prefix,
     *                         {@code <mechanism>.sasl.jaas.config}, as Kafka's {@code JaasContext} reads them; PLAIN
     *                         needs one
     * @param scramCredentials the broker's SCRAM credentials (the file's and the cluster metadata's)
     * @param maxReceiveBytes  {@code sasl.server.max.receive.size}: the largest frame before authentication
     * @throws IllegalArgumentException a mechanism is not served, or PLAIN has no JAAS configuration
     */
    public static SaslServers create(final String listenerName, final List<String> enabled,
        final Map<String, ?> jaasConfigs, final ScramCredentialStore scramCredentials, final int maxReceiveBytes)
    {
        if (enabled.isEmpty())
        {
            throw new IllegalArgumentException("listener " + listenerName + " enables no SASL mechanism");
        }
        final Map<String, AuthenticateCallbackHandler> handlers = new HashMap<>();
        try
        {
            for (final String mechanism : enabled)
            {
                if (!SERVED.contains(mechanism))
                {
                    throw new IllegalArgumentException("SASL mechanism " + mechanism + " on listener " + listenerName
                        + " is not served (only " + SERVED + ")");
                }
                if (mechanism.equals(PlainSaslServer.PLAIN_MECHANISM))
                {
                    final List<AppConfigurationEntry> entries = JaasContext.loadServerContext(
                        new ListenerName(listenerName), mechanism, jaasConfigs).configurationEntries();
                    final PlainServerCallbackHandler plain = new PlainServerCallbackHandler();
                    plain.configure(jaasConfigs, mechanism, entries);
                    handlers.put(mechanism, plain);
                }
                else
                {
                    final ScramServerCallbackHandler scram = new ScramServerCallbackHandler(
                        scramCredentials.cache(mechanism),
                        new DelegationTokenCache(ScramMechanism.mechanismNames()));
                    scram.configure(jaasConfigs, mechanism, List.of());
                    handlers.put(mechanism, scram);
                }
            }
        }
        catch (final RuntimeException e)
        {
            closeAll(handlers.values());
            throw e;
        }
        return new SaslServers(enabled, handlers, maxReceiveBytes);
    }

    public List<String> enabledMechanisms()
    {
        return enabled;
    }

    boolean enables(final String mechanism)
    {
        return handlers.containsKey(mechanism);
    }

    /** The largest frame a connection may send before it has authenticated. */
    int maxReceiveBytes()
    {
        return maxReceiveBytes;
    }

    /** A new server for one connection's exchange in {@code mechanism}, one {@link #enables} said yes to. */
    SaslServer newServer(final String mechanism) throws SaslException
    {
        final AuthenticateCallbackHandler handler = handlers.get(mechanism);
        if (mechanism.equals(PlainSaslServer.PLAIN_MECHANISM))
        {
            return new PlainSaslServer(handler);
        }
        try
        {
            return new ScramSaslServer(ScramMechanism.forMechanismName(mechanism), Map.of(), handler);
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new SaslException("this JVM has no " + mechanism + " hash", e);
        }
    }

    private static void closeAll(final java.util.Collection<AuthenticateCallbackHandler> handlers)
    {
        for (final AuthenticateCallbackHandler handler : handlers)
        {
            try
            {
                handler.close();
            }
            catch (final RuntimeException e)
            {
                // Best effort: the listener is going away, and the handlers hold no outside resource.
            }
        }
    }

    @Override
    public void close()
    {
        closeAll(handlers.values());
    }
}
