package io.syncmirror.broker.metadata;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.security.scram.ScramCredential;

import io.syncmirror.broker.network.ScramCredentialStore;

/**
 * Hands the SCRAM credentials of each new image to the broker's {@link ScramCredentialStore}, so that a credential
 * altered or deleted through the controller takes effect for the next login on every broker. An image whose
 * credentials are the previous map instance changed none and costs one comparison.
 *
 * <p>Runs on the broker's metadata thread (an image listener), and once on the thread that registers it with the
 * image current then: synchronized, and an image older than the last applied is skipped.
 */
public final class ScramCredentialsFeed implements Consumer<MetadataImage>
{
    private final ScramCredentialStore store;
    private Map<String, Map<Byte, MetadataRecord.UserScramCredential>> applied;
    private long appliedOffset = Long.MIN_VALUE;

    public ScramCredentialsFeed(final ScramCredentialStore store)
    {
        this.store = store;
    }

    @Override
    public synchronized void accept(final MetadataImage image)
    {
        final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> credentials = image.scramCredentials();
        if (credentials == applied || image.appliedOffset() < appliedOffset)
        {
            return;
        }
        final Map<String, Map<String, ScramCredential>> byMechanism = new HashMap<>();
        credentials.forEach((user, held) -> held.values().forEach(credential ->
        {
            final ScramMechanism mechanism = ScramMechanism.fromType(credential.mechanism());
            if (mechanism != ScramMechanism.UNKNOWN)
            {
                byMechanism.computeIfAbsent(mechanism.mechanismName(), m -> new HashMap<>()).put(user,
                    new ScramCredential(credential.salt(), credential.storedKey(), credential.serverKey(),
                        credential.iterations()));
            }
        }));
        store.apply(byMechanism);
        applied = credentials;
        appliedOffset = image.appliedOffset();
    }
}
