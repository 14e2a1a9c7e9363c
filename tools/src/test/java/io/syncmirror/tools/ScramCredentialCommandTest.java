package io.syncmirror.tools;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScramCredentialCommandTest
{
    private record Result(int exit, String out, String err)
    {
    }

    private static Result run(final String password, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = ScramCredentialCommand.run(args, new ByteArrayInputStream(
            password.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("prints <mechanism>.<user>= a salted credential that verifies the password, and never the password")
    void shouldPrintASaltedCredentialThatVerifiesThePassword() throws Exception
    {
        final Result result = run("bob-secret\n", "--mechanism", "SCRAM-SHA-512", "--user", "bob", "--iterations",
            "8192");
        assertEquals(0, result.exit(), result.err());
        final String line = result.out().strip();
        assertTrue(line.startsWith("SCRAM-SHA-512.bob=salt="), line);
        assertFalse(line.contains("bob-secret"), line);
        final ScramCredential credential = ScramCredentialUtils.credentialFromString(line.substring(line.indexOf('=')
            + 1));
        assertEquals(8192, credential.iterations());
        final ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        final byte[] salted = formatter.saltedPassword("bob-secret", credential.salt(), credential.iterations());
        assertTrue(Arrays.equals(credential.storedKey(), formatter.storedKey(formatter.clientKey(salted))));
    }

    @Test
    @DisplayName("bad arguments and a missing password exit 2 with one line naming the problem")
    void shouldRejectBadArguments()
    {
        for (final String[] args : new String[][] {
            {"--mechanism", "MD5", "--user", "bob"},
            {"--mechanism", "SCRAM-SHA-256"},
            {"--mechanism", "SCRAM-SHA-256", "--user", "bob", "--iterations", "10"},
            {"--mechanism", "SCRAM-SHA-256", "--user", "bob", "--bogus", "1"},
            {"--user"}})
        {
            final Result result = run("secret\n", args);
            assertEquals(2, result.exit(), String.join(" ", args));
            assertTrue(result.err().startsWith("Error: "), result.err());
        }
        assertEquals(2, run("", "--mechanism", "SCRAM-SHA-256", "--user", "bob").exit());
    }
}
