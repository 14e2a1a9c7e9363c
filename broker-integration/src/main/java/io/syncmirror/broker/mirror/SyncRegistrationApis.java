package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.mirror.SyncRegistrationLedger.Entry;
import io.syncmirror.broker.mirror.SyncRegistrationLedger.RegisterTopic;
import io.syncmirror.broker.mirror.SyncRegistrationLedger.Result;
import io.syncmirror.protocol.MirrorErrorResponses;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

/**
 * RegisterMirrorSyncTopic and UnregisterMirrorSyncTopic (source role) as a source broker answers them: on the
 * broker that owns the mirror's sync registration ledger ({@link SyncLedgerOwner}: the leader of the
 * {@code __mirror_state} partition its ledger record hashes to), and from any other broker passed on to that
 * leader once, marked {@code LedgerOwnerOnly} so that it is never passed on again (a receiver that no longer leads
 * answers NOT_COORDINATOR, and the broker that passed it on finds the new leader and tries again, until the mirror
 * request timeout). Each admitted change is committed at the controller before its topic is answered.
 *
 * <p>Thread-safety: {@link #register} and {@link #unregister} block (routing, the ledger's append, the controller's
 * commit); callers run them off the network threads. Stateless apart from its collaborators.
 */
public final class SyncRegistrationApis
{
    private static final long RETRY_BACKOFF_MS = 50;
    /** Answers that mean "the ledger's owner moved or is not ready": found again and retried while time is left. */
    private static final Set<Short> RETRIABLE = Set.of(Errors.NOT_COORDINATOR.code(),
        Errors.COORDINATOR_NOT_AVAILABLE.code(), Errors.COORDINATOR_LOAD_IN_PROGRESS.code());

    /** Sends one request to another broker's listener; IOException when it got no answer. */
    @FunctionalInterface
    interface BrokerSender
    {
        ApiMessage send(BrokerEndpoint broker, ApiMessage request, Class<? extends ApiMessage> type) throws IOException;
    }

    /** Creates {@code __mirror_state} when it does not exist yet and returns its partition count; blocking. */
    @FunctionalInterface
    public interface LedgerTopic
    {
        int partitions() throws Exception;
    }

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final SyncLedgerOwner owner;
    private final LedgerTopic ledgerTopic;
    private final BrokerSender sender;
    private final long timeoutMs;
    private final LongSupplier clockMs;
    private final RetryWait retryWait;

    SyncRegistrationApis(final int brokerId, final Supplier<MetadataImage> image, final SyncLedgerOwner owner,
        final LedgerTopic ledgerTopic, final BrokerSender sender, final long timeoutMs, final LongSupplier clockMs,
        final MirrorCoordinator.MetadataWaiter metadataWaiter)
    {
        this.brokerId = brokerId;
        this.image = image;
        this.retryWait = new RetryWait(image, metadataWaiter, RETRY_BACKOFF_MS, clockMs);
        this.owner = owner;
        this.ledgerTopic = ledgerTopic;
        this.sender = sender;
        this.timeoutMs = timeoutMs;
        this.clockMs = clockMs;
    }

    RegisterMirrorSyncTopicResponseData register(final RegisterMirrorSyncTopicRequestData request)
    {
        final String invalid = MirrorDefinition.invalidNameReason(request.mirrorName());
        if (invalid != null)
        {
            return (RegisterMirrorSyncTopicResponseData)MirrorErrorResponses.errorResponse(request, 0,
                Errors.INVALID_REQUEST.code(), invalid);
        }
        return route(request, request.mirrorName(), request.ledgerOwnerOnly(),
            partition -> registerAsOwner(partition, request), RegisterMirrorSyncTopicResponseData.class);
    }

    UnregisterMirrorSyncTopicResponseData unregister(final UnregisterMirrorSyncTopicRequestData request)
    {
        final String invalid = MirrorDefinition.invalidNameReason(request.mirrorName());
        if (invalid != null)
        {
            return new UnregisterMirrorSyncTopicResponseData().setErrorCode(Errors.INVALID_REQUEST.code())
                .setErrorMessage(invalid);
        }
        return route(request, request.mirrorName(), request.ledgerOwnerOnly(),
            partition -> unregisterAsOwner(partition, request), UnregisterMirrorSyncTopicResponseData.class);
    }

    // ------------------------------------------------------------------------------------------------------
    // Routing to the ledger's owner.
    // ------------------------------------------------------------------------------------------------------

    /** Answers a request as the ledger's owner, given the ledger's partition. */
    @FunctionalInterface
    private interface AsOwner<T extends ApiMessage>
    {
        T answer(int partition);
    }

    /**
     * Answers here when this broker owns the mirror's ledger, else passes the request (marked
     * {@code LedgerOwnerOnly}) to the partition's leader; a request already marked is answered here or refused
     * NOT_COORDINATOR. Owner changes and owners not ready yet are retried until the mirror request timeout.
     */
    private <T extends ApiMessage> T route(final ApiMessage request, final String mirrorName,
        final boolean ledgerOwnerOnly, final AsOwner<T> asOwner, final Class<T> type)
    {
        final int partitions;
        try
        {
            partitions = ledgerTopic.partitions();
        }
        catch (final Exception e)
        {
            return type.cast(MirrorErrorResponses.errorResponse(request, 0, Errors.COORDINATOR_NOT_AVAILABLE.code(),
                "the sync registration ledger's topic " + MirrorStateStore.TOPIC + " is not available: " +
                    e.getMessage()));
        }
        final int partition = SyncLedgerOwner.partitionFor(mirrorName, partitions);
        final long deadlineMs = clockMs.getAsLong() + timeoutMs;
        T answer = null;
        String why;
        while (true)
        {
            final MetadataImage decidedOn = retryWait.current();
            if (owner.owns(partition) || ledgerOwnerOnly)
            {
                answer = asOwner.answer(partition);
                why = "broker " + brokerId + " answered " + errorsOf(answer);
            }
            else
            {
                final Optional<BrokerEndpoint> leader = leaderOf(partition);
                if (leader.isEmpty())
                {
                    why = MirrorStateStore.TOPIC + "-" + partition + " has no leader that is not this broker yet";
                }
                else
                {
                    try
                    {
                        answer = type.cast(sender.send(leader.get(), markedForOwner(request), type));
                        why = "broker " + leader.get().id() + " answered " + errorsOf(answer);
                    }
                    catch (final IOException e)
                    {
                        why = "broker " + leader.get().id() + " did not answer: " + e.getMessage();
                    }
                }
            }
            if (ledgerOwnerOnly || answer != null && !retriable(answer) || clockMs.getAsLong() >= deadlineMs)
            {
                break;
            }
            answer = null;
            if (!retryWait.awaitChange(decidedOn, deadlineMs))
            {
                break;
            }
        }
        if (answer != null)
        {
            return answer;
        }
        return type.cast(MirrorErrorResponses.errorResponse(request, 0, Errors.COORDINATOR_NOT_AVAILABLE.code(),
            "no owner of the sync registration ledger of mirror '" + mirrorName + "' (" + MirrorStateStore.TOPIC +
                "-" + partition + ") answered within " + timeoutMs + " ms: " + why));
    }

    /** The live leader of a {@code __mirror_state} partition when it is another broker. */
    private Optional<BrokerEndpoint> leaderOf(final int partition)
    {
        final MetadataImage current = image.get();
        final Optional<TopicMetadata> topic = current.topic(MirrorStateStore.TOPIC);
        if (topic.isEmpty() || partition >= topic.get().partitions().size())
        {
            return Optional.empty();
        }
        final PartitionState state = topic.get().partitions().get(partition);
        return state.leader() < 0 || state.leader() == brokerId ? Optional.empty() : current.broker(state.leader());
    }

    private static ApiMessage markedForOwner(final ApiMessage request)
    {
        if (request instanceof RegisterMirrorSyncTopicRequestData register)
        {
            return new RegisterMirrorSyncTopicRequestData().setMirrorName(register.mirrorName())
                .setTopics(register.topics()).setDriverEpoch(register.driverEpoch()).setLedgerOwnerOnly(true);
        }
        final UnregisterMirrorSyncTopicRequestData unregister = (UnregisterMirrorSyncTopicRequestData)request;
        return new UnregisterMirrorSyncTopicRequestData().setMirrorName(unregister.mirrorName())
            .setTopics(unregister.topics()).setRelease(unregister.release()).setDriverEpoch(unregister.driverEpoch())
            .setLedgerOwnerOnly(true);
    }

    private static boolean retriable(final ApiMessage answer)
    {
        for (final short code : MirrorErrorResponses.errorCodes(answer))
        {
            if (RETRIABLE.contains(code))
            {
                return true;
            }
        }
        return false;
    }

    private static String errorsOf(final ApiMessage answer)
    {
        final List<String> names = new ArrayList<>();
        for (final short code : MirrorErrorResponses.errorCodes(answer))
        {
            names.add(Errors.forCode(code).name());
        }
        return names.toString();
    }

    // ------------------------------------------------------------------------------------------------------
    // The owner's answers.
    // ------------------------------------------------------------------------------------------------------

    private RegisterMirrorSyncTopicResponseData registerAsOwner(final int partition,
        final RegisterMirrorSyncTopicRequestData request)
    {
        final List<RegisterMirrorSyncTopicResponseData.TopicResult> results = new ArrayList<>();
        final List<RegisterTopic> admissible = new ArrayList<>();
        final MetadataImage current = image.get();
        for (final RegisterMirrorSyncTopicRequestData.TopicState topic : request.topics())
        {
            final Optional<TopicMetadata> found = resolve(current, topic.topicId(), topic.topicName());
            if (found.isEmpty())
            {
                results.add(TopicResults.registered(topic.topicName(), Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "this source cluster has no topic '" + topic.topicName() + "' with id " + topic.topicId()));
            }
            else
            {
                admissible.add(new RegisterTopic(found.get().name(), found.get().id(), topic.recoveryPromotion()));
            }
        }
        if (admissible.isEmpty())
        {
            return new RegisterMirrorSyncTopicResponseData().setTopics(results);
        }
        try
        {
            for (final Result r : owner.withLedger(partition, ledger -> ledger.register(request.mirrorName(),
                admissible, request.driverEpoch())))
            {
                results.add(new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName(r.topicName())
                    .setErrorCode(r.errorCode()).setErrorMessage(r.errorMessage()));
            }
        }
        catch (final RuntimeException e)
        {
            for (final RegisterTopic topic : admissible)
            {
                results.add(TopicResults.registered(topic.topicName(), Errors.forException(e), failure(e)));
            }
        }
        return new RegisterMirrorSyncTopicResponseData().setTopics(results);
    }

    private UnregisterMirrorSyncTopicResponseData unregisterAsOwner(final int partition,
        final UnregisterMirrorSyncTopicRequestData request)
    {
        final UnregisterMirrorSyncTopicResponseData response = new UnregisterMirrorSyncTopicResponseData();
        final MetadataImage current = image.get();
        final List<Entry> topics = new ArrayList<>();
        for (final UnregisterMirrorSyncTopicRequestData.TopicState topic : request.topics())
        {
            final Optional<TopicMetadata> found = resolve(current, topic.topicId(), topic.topicName());
            if (found.isEmpty())
            {
                if (!request.release() && !Uuid.ZERO_UUID.equals(topic.topicId()))
                {
                    // A destination unregistering a topic deleted here: nothing gates on it any more.
                    topics.add(new Entry(topic.topicName(), topic.topicId(), false));
                    continue;
                }
                return response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage(
                    "this source cluster has no topic '" + topic.topicName() + "'");
            }
            topics.add(new Entry(found.get().name(), found.get().id(), false));
        }
        try
        {
            final List<Result> results = owner.withLedger(partition, ledger -> ledger.unregister(
                request.mirrorName(), topics, request.release(), request.driverEpoch()));
            for (final Result r : results)
            {
                // Unknown topic ids of a clean unregister are already gone: not an error.
                if (r.errorCode() != Errors.NONE.code() && r.errorCode() != Errors.UNKNOWN_TOPIC_ID.code())
                {
                    return response.setErrorCode(r.errorCode()).setErrorMessage("topic '" + r.topicName() + "': " +
                        r.errorMessage());
                }
            }
            return response;
        }
        catch (final RuntimeException e)
        {
            return response.setErrorCode(Errors.forException(e).code()).setErrorMessage(failure(e));
        }
    }

    private static String failure(final RuntimeException e)
    {
        return e instanceof NotCoordinatorException ? e.getMessage() :
            "the sync registration ledger could not record it: " + e.getMessage();
    }

    static Optional<TopicMetadata> resolve(final MetadataImage current, final Uuid topicId, final String topicName)
    {
        if (topicId != null && !Uuid.ZERO_UUID.equals(topicId))
        {
            return current.topic(topicId);
        }
        return topicName == null || topicName.isEmpty() ? Optional.empty() : current.topic(topicName);
    }
}
