package io.syncmirror.broker.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Salted SCRAM credentials read from the file {@value SecurityConfig#SCRAM_CREDENTIALS_FILE_CONFIG} names, one per
 * line, {@code <mechanism>.<user>=salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>}: Kafka's own
 * credential format ({@code ScramCredentialUtils}), which holds no password. Stateless.
 */
final class ScramCredentials
{
    private ScramCredentials()
    {
    }

    /**
     * The credentials by mechanism, then user; empty when {@code file} is null.
     *
     * @throws ConfigException the file cannot be read, or a line names an unknown mechanism, holds a malformed
     *                         credential or fewer iterations than the mechanism allows
     */
    static Map<String, Map<String, ScramCredential>> load(final String file)
    {
        final Map<String, Map<String, ScramCredential>> credentials = new HashMap<>();
        if (file == null)
        {
            return credentials;
        }
        final Properties lines = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8))
        {
            lines.load(reader);
        }
        catch (final IOException | IllegalArgumentException e)
        {
            throw new ConfigException(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, file, "cannot be read: " + e);
        }
        for (final String key : lines.stringPropertyNames())
        {
            final int dot = key.indexOf('.');
            final ScramMechanism mechanism = dot < 0 ? null : ScramMechanism.forMechanismName(key.substring(0, dot));
            if (mechanism == null || dot == key.length() - 1)
            {
                throw new ConfigException(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, file, "'" + key + "' is not "
                    + "<mechanism>.<user> with a mechanism of " + ScramMechanism.mechanismNames());
            }
            final ScramCredential credential;
            try
            {
                credential = ScramCredentialUtils.credentialFromString(lines.getProperty(key));
            }
            catch (final RuntimeException e)
            {
                throw new ConfigException(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, file, "the credential of '"
                    + key + "' is not salt=..,stored_key=..,server_key=..,iterations=..: " + e.getMessage());
            }
            if (credential.iterations() < mechanism.minIterations())
            {
                throw new ConfigException(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, file, "'" + key + "' has "
                    + credential.iterations() + " iterations, fewer than " + mechanism.minIterations());
            }
            credentials.computeIfAbsent(mechanism.mechanismName(), m -> new HashMap<>())
                .put(key.substring(dot + 1), credential);
        }
        return credentials;
    }
}
