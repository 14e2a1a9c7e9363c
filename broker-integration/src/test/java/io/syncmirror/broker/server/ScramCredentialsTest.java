package io.syncmirror.broker.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScramCredentialsTest
{
    @TempDir
    Path dir;

    @Test
    @DisplayName("reads salted credentials by mechanism and user; a bad line, a missing file and too few "
        + "iterations are refused naming the key")
    void shouldReadCredentialsAndRefuseBadOnes() throws Exception
    {
        final String bob = ScramCredentialUtils.credentialToString(
            new ScramFormatter(ScramMechanism.SCRAM_SHA_256).generateCredential("bob-secret", 4096));
        final Path good = Files.writeString(dir.resolve("good.properties"), "SCRAM-SHA-256.bob=" + bob + "\n");
        final Map<String, Map<String, ScramCredential>> read = ScramCredentials.load(good.toString());
        assertEquals(4096, read.get("SCRAM-SHA-256").get("bob").iterations());
        assertEquals(Map.of(), ScramCredentials.load(null));

        final String weak = ScramCredentialUtils.credentialToString(
            new ScramFormatter(ScramMechanism.SCRAM_SHA_256).generateCredential("x", 100));
        for (final String line : new String[] {"MD5.bob=" + bob, "SCRAM-SHA-256.bob=not-a-credential",
            "SCRAM-SHA-256.=" + bob, "SCRAM-SHA-256.weak=" + weak})
        {
            final Path bad = Files.writeString(dir.resolve("bad.properties"), line + "\n");
            final ConfigException e = assertThrows(ConfigException.class, () -> ScramCredentials.load(bad.toString()),
                line);
            assertTrue(e.getMessage().contains(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG), e.getMessage());
        }
        assertThrows(ConfigException.class, () -> ScramCredentials.load(dir.resolve("missing").toString()));
    }
}
