package io.syncmirror.broker.network;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * A SCRAM credentials file for SASL tests ({@code syncmirror.sasl.scram.credentials.file}): a SCRAM-SHA-512
 * credential for each user and password, salted as Kafka salts them. Stateless.
 */
public final class TestScramCredentials
{
    private TestScramCredentials()
    {
    }

    /** Writes {@code file} with a credential per user of {@code passwords} and returns it. */
    public static Path write(final Path file, final Map<String, String> passwords) throws Exception
    {
        final Properties credentials = new Properties();
        for (final Map.Entry<String, String> entry : passwords.entrySet())
        {
            credentials.put("SCRAM-SHA-512." + entry.getKey(), ScramCredentialUtils.credentialToString(
                new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential(entry.getValue(), 4096)));
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            credentials.store(writer, null);
        }
        return file;
    }
}
