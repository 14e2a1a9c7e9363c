package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;

import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * SCRAM credentials in the cluster metadata, as a Kafka broker serves them: DescribeUserScramCredentials answered
 * from this broker's image (mechanisms and iterations only; Kafka's errors for a duplicate or unknown user), and
 * AlterUserScramCredentials forwarded to the controller, which salts nothing itself (the client sends the salted
 * password) and records the stored and server keys. An alteration is answered once this broker's image shows it
 * (or after {@link MetadataApis#MAX_APPLY_WAIT_MS}), so the next Describe here, and the next login, see it.
 *
 * <p>Thread-safe: the image is immutable; forwarded requests complete on the controller client's or the metadata
 * thread.
 */
public final class ScramCredentialApis implements RequestHandler
{
    private static final String DUPLICATE_USER =
        "Cannot describe SCRAM credentials for the same user twice in a single request: ";
    private static final String NO_SUCH_USER = "Attempt to describe a user credential that does not exist: ";

    private final BrokerMetadataApplier metadata;
    private final NodeClient controller;

    public ScramCredentialApis(final BrokerMetadataApplier metadata, final NodeClient controller)
    {
        this.metadata = metadata;
        this.controller = controller;
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        return key == ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS || key == ApiKeys.ALTER_USER_SCRAM_CREDENTIALS ?
            key.latestVersion() : -1;
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        return key.oldestVersion();
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (request instanceof DescribeUserScramCredentialsRequest describe)
        {
            return CompletableFuture.completedFuture(new DescribeUserScramCredentialsResponse(
                describe(metadata.image(), describe.data())));
        }
        if (request instanceof AlterUserScramCredentialsRequest alter)
        {
            return alter(alter);
        }
        return CompletableFuture.failedFuture(new InvalidRequestException("not a SCRAM API: " + request.apiKey()));
    }

    /** Kafka's answer from {@code image}: every user when none is named, each named user once. */
    static DescribeUserScramCredentialsResponseData describe(final MetadataImage image,
        final DescribeUserScramCredentialsRequestData request)
    {
        final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> credentials = image.scramCredentials();
        // User name, then whether it was named twice.
        final Map<String, Boolean> users = new LinkedHashMap<>();
        if (request.users() == null || request.users().isEmpty())
        {
            credentials.keySet().forEach(user -> users.put(user, false));
        }
        else
        {
            request.users().forEach(user -> users.put(user.name(), users.containsKey(user.name())));
        }
        final DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        users.forEach((user, twice) ->
        {
            final DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult result =
                new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult().setUser(user);
            final Map<Byte, MetadataRecord.UserScramCredential> held = credentials.get(user);
            if (twice)
            {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code()).setErrorMessage(DUPLICATE_USER + user);
            }
            else if (held == null || held.isEmpty())
            {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code()).setErrorMessage(NO_SUCH_USER + user);
            }
            else
            {
                final List<DescribeUserScramCredentialsResponseData.CredentialInfo> infos = new ArrayList<>();
                held.values().forEach(credential -> infos.add(
                    new DescribeUserScramCredentialsResponseData.CredentialInfo()
                        .setMechanism(credential.mechanism()).setIterations(credential.iterations())));
                result.setCredentialInfos(infos);
            }
            response.results().add(result);
        });
        return response;
    }

    private CompletableFuture<AbstractResponse> alter(final AlterUserScramCredentialsRequest request)
    {
        final AlterUserScramCredentialsRequestData data = request.data();
        return controller.<AlterUserScramCredentialsResponse>send(
                new AlterUserScramCredentialsRequest.Builder(data))
            .thenCompose(response -> metadata.await(shows(data, response.data()))
                .orTimeout(MetadataApis.MAX_APPLY_WAIT_MS, TimeUnit.MILLISECONDS)
                .handle((image, timedOut) -> (AbstractResponse)response));
    }

    /** Whether an image holds every change the controller accepted: upserted credentials, deleted ones gone. */
    private static Predicate<MetadataImage> shows(final AlterUserScramCredentialsRequestData request,
        final AlterUserScramCredentialsResponseData response)
    {
        final List<String> accepted = new ArrayList<>();
        response.results().forEach(result ->
        {
            if (result.errorCode() == Errors.NONE.code())
            {
                accepted.add(result.user());
            }
        });
        return image ->
        {
            final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> held = image.scramCredentials();
            for (final AlterUserScramCredentialsRequestData.ScramCredentialDeletion deletion : request.deletions())
            {
                if (accepted.contains(deletion.name()) &&
                    held.getOrDefault(deletion.name(), Map.of()).containsKey(deletion.mechanism()))
                {
                    return false;
                }
            }
            for (final AlterUserScramCredentialsRequestData.ScramCredentialUpsertion upsertion : request.upsertions())
            {
                final MetadataRecord.UserScramCredential credential =
                    held.getOrDefault(upsertion.name(), Map.of()).get(upsertion.mechanism());
                if (accepted.contains(upsertion.name()) && (credential == null ||
                    !java.util.Arrays.equals(credential.salt(), upsertion.salt())))
                {
                    return false;
                }
            }
            return true;
        };
    }
}
