package io.syncmirror.broker.network;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.security.authenticator.CredentialCache;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The SCRAM credentials a broker's SASL servers check logins against, in Kafka's own {@link CredentialCache} (one
 * cache per mechanism, shared by every listener): the bootstrap credentials (the credentials file, read at start,
 * as Kafka's {@code kafka-storage.sh format --add-scram} seeds the first users) overlaid by those of the cluster
 * metadata, which an operator alters with AlterUserScramCredentials ({@code kafka-configs.sh --entity-type users}).
 * A user in both logs in with the metadata's credential; a metadata credential deleted falls back to the file's.
 *
 * <p>Thread-safety: {@link #apply} runs on the broker's metadata thread only; logins read the caches from any event
 * loop (Kafka's caches are concurrent maps), so a login sees a user's old or new credential, never a mix.
 */
public final class ScramCredentialStore
{
    private final CredentialCache caches = new CredentialCache();
    /** Mechanism name, then user: the file's credentials. */
    private final Map<String, Map<String, ScramCredential>> bootstrap;
    /** Mechanism name, then user: what the caches hold now. Metadata thread only. */
    private final Map<String, Map<String, ScramCredential>> current = new HashMap<>();

    /** A store of {@code bootstrap}'s credentials (mechanism name, then user) until metadata is applied. */
    public ScramCredentialStore(final Map<String, Map<String, ScramCredential>> bootstrap)
    {
        this.bootstrap = Map.copyOf(Objects.requireNonNull(bootstrap, "bootstrap"));
        for (final String mechanism : ScramMechanism.mechanismNames())
        {
            caches.createCache(mechanism, ScramCredential.class);
            current.put(mechanism, new HashMap<>());
        }
        apply(Map.of());
    }

    /** The cache of {@code mechanism} (a SCRAM mechanism name), for its SASL server's callback handler. */
    CredentialCache.Cache<ScramCredential> cache(final String mechanism)
    {
        return caches.cache(mechanism, ScramCredential.class);
    }

    /**
     * Makes the caches hold the bootstrap credentials overlaid by {@code metadata} (mechanism name, then user): the
     * credentials the cluster metadata holds now, in full. Metadata thread only.
     */
    public void apply(final Map<String, Map<String, ScramCredential>> metadata)
    {
        for (final String mechanism : ScramMechanism.mechanismNames())
        {
            final Map<String, ScramCredential> wanted = new HashMap<>(bootstrap.getOrDefault(mechanism, Map.of()));
            wanted.putAll(metadata.getOrDefault(mechanism, Map.of()));
            final CredentialCache.Cache<ScramCredential> cache = cache(mechanism);
            final Map<String, ScramCredential> held = current.get(mechanism);
            for (final String user : Map.copyOf(held).keySet())
            {
                if (!wanted.containsKey(user))
                {
                    cache.remove(user);
                    held.remove(user);
                }
            }
            wanted.forEach((user, credential) ->
            {
                if (held.get(user) != credential)
                {
                    cache.put(user, credential);
                    held.put(user, credential);
                }
            });
        }
    }
}
