package io.syncmirror.broker.controller;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.MetadataRecord;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AlterUserScramCredentials on the controller: Kafka's validation, its errors and messages, and the records. */
class ScramControlTest
{
    private static final byte SHA_256 = 1;
    private static final byte SHA_512 = 2;

    private final ScramControl scram = new ScramControl();

    @Test
    @DisplayName("an upsertion records the stored and server keys Kafka's formatter derives from the salted "
        + "password, never the salted password itself, and a login with the password verifies against them")
    void shouldRecordTheKeysOfTheSaltedPassword() throws Exception
    {
        final ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        final byte[] salt = formatter.secureRandomBytes();
        final byte[] salted = formatter.saltedPassword("carol-secret", salt, 8192);
        final ScramControl.Alteration done = scram.alter(new AlterUserScramCredentialsRequestData().setUpsertions(
            List.of(upsert("carol", SHA_512, 8192, salt, salted))));
        assertEquals(Map.of("carol", Errors.NONE), errors(done.response()));
        assertEquals(1, done.records().size());
        final MetadataRecord.UserScramCredential record = (MetadataRecord.UserScramCredential)done.records().get(0);
        final ScramCredential expected = formatter.generateCredential(salt, salted, 8192);
        assertArrayEquals(expected.storedKey(), record.storedKey());
        assertArrayEquals(expected.serverKey(), record.serverKey());
        assertArrayEquals(salt, record.salt());
        assertEquals(8192, record.iterations());
        assertTrue(!java.util.Arrays.equals(salted, record.storedKey()) &&
            !java.util.Arrays.equals(salted, record.serverKey()), "the salted password is not stored");
    }

    @Test
    @DisplayName("Kafka's refusals: empty name and too few or too many iterations UNACCEPTABLE_CREDENTIAL, an "
        + "unknown mechanism UNSUPPORTED_SASL_MECHANISM, deleting a credential that does not exist "
        + "RESOURCE_NOT_FOUND, a user named twice DUPLICATE_RESOURCE with none of its changes made; the others go on")
    void shouldRefuseAsKafkaDoes()
    {
        replayUpsert("dave", SHA_256);
        replayUpsert("twice", SHA_256);
        final AlterUserScramCredentialsRequestData request = new AlterUserScramCredentialsRequestData()
            .setDeletions(List.of(delete("dave", SHA_256), delete("nobody", SHA_512), delete("twice", SHA_256)))
            .setUpsertions(List.of(upsert("", SHA_512, 4096), upsert("few", SHA_512, 4095),
                upsert("many", SHA_256, ScramControl.MAX_ITERATIONS + 1), upsert("odd", (byte)9, 4096),
                upsert("twice", SHA_512, 4096), upsert("erin", SHA_256, ScramControl.MAX_ITERATIONS)));
        final ScramControl.Alteration done = scram.alter(request);
        final Map<String, Errors> errors = errors(done.response());
        assertEquals(Errors.NONE, errors.get("dave"));
        assertEquals(Errors.RESOURCE_NOT_FOUND, errors.get("nobody"));
        assertEquals(Errors.UNACCEPTABLE_CREDENTIAL, errors.get(""));
        assertEquals(Errors.UNACCEPTABLE_CREDENTIAL, errors.get("few"));
        assertEquals(Errors.UNACCEPTABLE_CREDENTIAL, errors.get("many"));
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, errors.get("odd"));
        assertEquals(Errors.DUPLICATE_RESOURCE, errors.get("twice"));
        assertEquals(Errors.NONE, errors.get("erin"));
        assertEquals(8, errors.size(), "one result per user: " + errors);
        assertEquals("Too few iterations", message(done.response(), "few"));
        assertEquals("Too many iterations", message(done.response(), "many"));
        assertEquals("A user credential cannot be altered twice in the same request",
            message(done.response(), "twice"));
        assertNull(message(done.response(), "erin"));
        assertEquals(List.of(new MetadataRecord.RemoveUserScramCredential("dave", SHA_256)),
            done.records().subList(0, 1));
        assertEquals(2, done.records().size(), "dave's deletion and erin's credential only: " + done.records());
    }

    @Test
    @DisplayName("replayed credentials are held per user and mechanism, deletions remove them, and a snapshot "
        + "restates what is held")
    void shouldReplayAndSnapshot()
    {
        replayUpsert("frank", SHA_256);
        replayUpsert("frank", SHA_512);
        scram.replay(new MetadataRecord.RemoveUserScramCredential("frank", SHA_256));
        assertTrue(scram.has("frank", SHA_512));
        assertTrue(!scram.has("frank", SHA_256));
        final List<MetadataRecord> snapshot = new java.util.ArrayList<>();
        scram.snapshot(snapshot::add);
        assertEquals(1, snapshot.size());
        final ScramControl rebuilt = new ScramControl();
        snapshot.forEach(r -> rebuilt.replay((MetadataRecord.UserScramCredential)r));
        assertTrue(rebuilt.has("frank", SHA_512));
    }

    private void replayUpsert(final String user, final byte mechanism)
    {
        scram.replay(new MetadataRecord.UserScramCredential(user, mechanism, new byte[16], new byte[32],
            new byte[32], 4096));
    }

    private static AlterUserScramCredentialsRequestData.ScramCredentialDeletion delete(final String user,
        final byte mechanism)
    {
        return new AlterUserScramCredentialsRequestData.ScramCredentialDeletion().setName(user)
            .setMechanism(mechanism);
    }

    private static AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsert(final String user,
        final byte mechanism, final int iterations)
    {
        return upsert(user, mechanism, iterations, new byte[16], new byte[mechanism == SHA_256 ? 32 : 64]);
    }

    private static AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsert(final String user,
        final byte mechanism, final int iterations, final byte[] salt, final byte[] saltedPassword)
    {
        return new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion().setName(user)
            .setMechanism(mechanism).setIterations(iterations).setSalt(salt).setSaltedPassword(saltedPassword);
    }

    private static Map<String, Errors> errors(final AlterUserScramCredentialsResponseData response)
    {
        final Map<String, Errors> out = new HashMap<>();
        response.results().forEach(r -> out.put(r.user(), Errors.forCode(r.errorCode())));
        return out;
    }

    private static String message(final AlterUserScramCredentialsResponseData response, final String user)
    {
        return response.results().stream().filter(r -> r.user().equals(user)).findFirst().orElseThrow()
            .errorMessage();
    }
}
