package io.syncmirror.broker.controller;

import java.security.NoSuchAlgorithmException;
import java.security.InvalidKeyException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's SCRAM credentials, as Kafka's {@code ScramControlManager} keeps them: one salted credential per
 * user and mechanism, replayed from {@link MetadataRecord.UserScramCredential} and
 * {@link MetadataRecord.RemoveUserScramCredential}. AlterUserScramCredentials is validated as Kafka validates it
 * (the same errors and messages) and turned into records; the client's salted password becomes the stored and
 * server keys here, so no record holds anything a client could log in with.
 *
 * <p>Thread-safety: the controller's event thread, as all controller state.
 */
final class ScramControl
{
    /** Kafka's upper bound on a credential's iterations (its {@code ScramControlManager.MAX_ITERATIONS}). */
    static final int MAX_ITERATIONS = 16384;
    private static final String TWICE = "A user credential cannot be altered twice in the same request";

    /** User, then mechanism type: sorted, so a snapshot writes them in one order. */
    private final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> credentials = new TreeMap<>();

    void replay(final MetadataRecord.UserScramCredential record)
    {
        credentials.computeIfAbsent(record.user(), u -> new TreeMap<>()).put(record.mechanism(), record);
    }

    void replay(final MetadataRecord.RemoveUserScramCredential record)
    {
        final Map<Byte, MetadataRecord.UserScramCredential> user = credentials.get(record.user());
        if (user != null)
        {
            user.remove(record.mechanism());
            if (user.isEmpty())
            {
                credentials.remove(record.user());
            }
        }
    }

    /** The records that restore this state: every credential. */
    void snapshot(final Consumer<MetadataRecord> out)
    {
        credentials.values().forEach(user -> user.values().forEach(out));
    }

    boolean has(final String user, final byte mechanism)
    {
        final Map<Byte, MetadataRecord.UserScramCredential> found = credentials.get(user);
        return found != null && found.containsKey(mechanism);
    }

    /** The outcome of an AlterUserScramCredentials: its answer and the records that make it so. */
    record Alteration(AlterUserScramCredentialsResponseData response, List<MetadataRecord> records)
    {
    }

    /**
     * Kafka's AlterUserScramCredentials: deletions, then upsertions; a user named twice in one request (in either
     * list) is refused with DUPLICATE_RESOURCE and none of its changes are made; each other user's change is
     * validated on its own (an empty name or too few or too many iterations UNACCEPTABLE_CREDENTIAL, an unknown
     * mechanism UNSUPPORTED_SASL_MECHANISM, deleting what does not exist RESOURCE_NOT_FOUND).
     */
    Alteration alter(final AlterUserScramCredentialsRequestData request)
    {
        final Map<String, AlterUserScramCredentialsRequestData.ScramCredentialDeletion> deletions =
            new LinkedHashMap<>();
        final Map<String, AlterUserScramCredentialsRequestData.ScramCredentialUpsertion> upsertions =
            new LinkedHashMap<>();
        final Map<String, ApiError> errors = new LinkedHashMap<>();
        for (final AlterUserScramCredentialsRequestData.ScramCredentialDeletion deletion : request.deletions())
        {
            if (errors.containsKey(deletion.name()))
            {
                continue;
            }
            if (deletions.remove(deletion.name()) != null)
            {
                errors.put(deletion.name(), new ApiError(Errors.DUPLICATE_RESOURCE, TWICE));
                continue;
            }
            final ApiError error = validateDeletion(deletion);
            if (error.isFailure())
            {
                errors.put(deletion.name(), error);
            }
            else
            {
                deletions.put(deletion.name(), deletion);
            }
        }
        for (final AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsertion : request.upsertions())
        {
            if (errors.containsKey(upsertion.name()))
            {
                continue;
            }
            if (deletions.remove(upsertion.name()) != null || upsertions.remove(upsertion.name()) != null)
            {
                errors.put(upsertion.name(), new ApiError(Errors.DUPLICATE_RESOURCE, TWICE));
                continue;
            }
            final ApiError error = validateUpsertion(upsertion);
            if (error.isFailure())
            {
                errors.put(upsertion.name(), error);
            }
            else
            {
                upsertions.put(upsertion.name(), upsertion);
            }
        }
        final AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
        final List<MetadataRecord> records = new ArrayList<>();
        for (final AlterUserScramCredentialsRequestData.ScramCredentialDeletion deletion : deletions.values())
        {
            records.add(new MetadataRecord.RemoveUserScramCredential(deletion.name(), deletion.mechanism()));
            response.results().add(result(deletion.name(), ApiError.NONE));
        }
        for (final AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsertion : upsertions.values())
        {
            try
            {
                records.add(credential(upsertion));
                response.results().add(result(upsertion.name(), ApiError.NONE));
            }
            catch (final NoSuchAlgorithmException | InvalidKeyException e)
            {
                errors.put(upsertion.name(), ApiError.fromThrowable(e));
            }
        }
        errors.forEach((user, error) -> response.results().add(result(user, error)));
        return new Alteration(response, records);
    }

    private ApiError validateDeletion(final AlterUserScramCredentialsRequestData.ScramCredentialDeletion deletion)
    {
        final ApiError error = validateNameAndMechanism(deletion.name(), deletion.mechanism());
        if (error.isFailure())
        {
            return error;
        }
        if (!has(deletion.name(), deletion.mechanism()))
        {
            return new ApiError(Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist");
        }
        return ApiError.NONE;
    }

    private static ApiError validateUpsertion(
        final AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsertion)
    {
        final ApiError error = validateNameAndMechanism(upsertion.name(), upsertion.mechanism());
        if (error.isFailure())
        {
            return error;
        }
        if (upsertion.iterations() < internal(upsertion.mechanism()).minIterations())
        {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
        }
        if (upsertion.iterations() > MAX_ITERATIONS)
        {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
        }
        return ApiError.NONE;
    }

    private static ApiError validateNameAndMechanism(final String user, final byte mechanism)
    {
        if (user.isEmpty())
        {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (ScramMechanism.fromType(mechanism) == ScramMechanism.UNKNOWN)
        {
            return new ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        return ApiError.NONE;
    }

    /** The record of an upsertion: the salted password turned into the stored and server keys. */
    private static MetadataRecord.UserScramCredential credential(
        final AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsertion)
        throws NoSuchAlgorithmException, InvalidKeyException
    {
        final ScramFormatter formatter = new ScramFormatter(internal(upsertion.mechanism()));
        return new MetadataRecord.UserScramCredential(upsertion.name(), upsertion.mechanism(), upsertion.salt(),
            formatter.storedKey(formatter.clientKey(upsertion.saltedPassword())),
            formatter.serverKey(upsertion.saltedPassword()), upsertion.iterations());
    }

    private static org.apache.kafka.common.security.scram.internals.ScramMechanism internal(final byte type)
    {
        return org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(
            ScramMechanism.fromType(type).mechanismName());
    }

    private static AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult result(final String user,
        final ApiError error)
    {
        return new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult().setUser(user)
            .setErrorCode(error.error().code()).setErrorMessage(error.isFailure() ? error.message() : null);
    }
}
