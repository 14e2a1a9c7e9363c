package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;

/**
 * ListTransactions and DescribeTransactions over the {@link TransactionCoordinator}'s state, as Kafka's
 * coordinator answers them ({@code kafka-transactions.sh list}, {@code describe} and {@code find-hanging}, Admin's
 * {@code listTransactions} and {@code describeTransactions}). Thread-safe: each call reads one snapshot of the
 * coordinator's ids.
 *
 * <p>State names are Kafka's ({@code Ongoing}, {@code PrepareCommit}, ...), the ones Admin's
 * {@code TransactionState.parse} reads. ListTransactions filters as Kafka does: by state (names it does not know
 * come back in {@code unknownStateFilters}), producer id, duration (v1: running longer than {@code durationFilter}
 * ms) and transactional id pattern (v2, a Java regex that must match the whole id); ids that expired (Dead) are
 * never listed.
 */
public final class TransactionAdminApis
{
    private static final Map<TransactionState, String> KAFKA_NAMES = new EnumMap<>(TransactionState.class);

    static
    {
        KAFKA_NAMES.put(TransactionState.EMPTY, "Empty");
        KAFKA_NAMES.put(TransactionState.ONGOING, "Ongoing");
        KAFKA_NAMES.put(TransactionState.PREPARE_COMMIT, "PrepareCommit");
        KAFKA_NAMES.put(TransactionState.PREPARE_ABORT, "PrepareAbort");
        KAFKA_NAMES.put(TransactionState.COMPLETE_COMMIT, "CompleteCommit");
        KAFKA_NAMES.put(TransactionState.COMPLETE_ABORT, "CompleteAbort");
        KAFKA_NAMES.put(TransactionState.DEAD, "Dead");
        KAFKA_NAMES.put(TransactionState.PREPARE_EPOCH_FENCE, "PrepareEpochFence");
    }

    private final TransactionCoordinator transactions;
    private final LongSupplier clock;

    public TransactionAdminApis(final TransactionCoordinator transactions, final LongSupplier clock)
    {
        this.transactions = transactions;
        this.clock = clock;
    }

    /** Kafka's name of {@code state}. */
    static String kafkaName(final TransactionState state)
    {
        return KAFKA_NAMES.get(state);
    }

    public ListTransactionsResponse listTransactions(final ListTransactionsRequest request)
    {
        final ListTransactionsRequestData asked = request.data();
        final ListTransactionsResponseData data = new ListTransactionsResponseData();
        final Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        final List<String> unknown = new ArrayList<>();
        for (final String name : asked.stateFilters())
        {
            final Optional<TransactionState> state = stateNamed(name);
            if (state.isPresent())
            {
                states.add(state.get());
            }
            else
            {
                unknown.add(name);
            }
        }
        data.setUnknownStateFilters(unknown);
        final Pattern pattern;
        try
        {
            final String regex = asked.transactionalIdPattern();
            pattern = regex == null || regex.isEmpty() ? null : Pattern.compile(regex);
        }
        catch (final PatternSyntaxException e)
        {
            return new ListTransactionsResponse(data.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
        }
        final TransactionCoordinator.TransactionListing listing = transactions.transactions();
        if (listing.loading())
        {
            return new ListTransactionsResponse(data.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
        }
        final Set<Long> producerIds = new HashSet<>(asked.producerIdFilters());
        final long now = clock.getAsLong();
        for (final TransactionCoordinator.TransactionView view : listing.transactions())
        {
            final TransactionLogRecord state = view.state();
            if (state.state() == TransactionState.DEAD
                || !producerIds.isEmpty() && !producerIds.contains(state.producerId())
                || !states.isEmpty() && !states.contains(state.state())
                || asked.durationFilter() >= 0 && now - state.startTimestampMs() <= asked.durationFilter()
                || pattern != null && !pattern.matcher(view.transactionalId()).matches())
            {
                continue;
            }
            data.transactionStates().add(new ListTransactionsResponseData.TransactionState()
                .setTransactionalId(view.transactionalId()).setProducerId(state.producerId())
                .setTransactionState(kafkaName(state.state())));
        }
        return new ListTransactionsResponse(data);
    }

    public DescribeTransactionsResponse describeTransactions(final DescribeTransactionsRequest request)
    {
        final DescribeTransactionsResponseData data = new DescribeTransactionsResponseData();
        for (final String id : request.data().transactionalIds())
        {
            final DescribeTransactionsResponseData.TransactionState answer =
                new DescribeTransactionsResponseData.TransactionState().setTransactionalId(id);
            data.transactionStates().add(answer);
            final Errors error = id == null || id.isEmpty() ? Errors.TRANSACTIONAL_ID_NOT_FOUND
                : transactions.coordinatorError(id);
            if (error != Errors.NONE)
            {
                answer.setErrorCode(error.code());
                continue;
            }
            final Optional<TransactionLogRecord> found = transactions.transactionState(id);
            if (found.isEmpty() || found.get().state() == TransactionState.DEAD)
            {
                answer.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
                continue;
            }
            final TransactionLogRecord state = found.get();
            answer.setTransactionState(kafkaName(state.state())).setTransactionTimeoutMs(state.timeoutMs())
                .setTransactionStartTimeMs(state.startTimestampMs()).setProducerId(state.producerId())
                .setProducerEpoch(state.producerEpoch());
            final Map<String, List<Integer>> byTopic = new TreeMap<>();
            for (final TopicPartition partition : state.partitions())
            {
                byTopic.computeIfAbsent(partition.topic(), t -> new ArrayList<>()).add(partition.partition());
            }
            final DescribeTransactionsResponseData.TopicDataCollection topics =
                new DescribeTransactionsResponseData.TopicDataCollection();
            byTopic.forEach((topic, partitions) -> topics.add(new DescribeTransactionsResponseData.TopicData()
                .setTopic(topic).setPartitions(partitions)));
            answer.setTopics(topics);
        }
        return new DescribeTransactionsResponse(data);
    }

    private static Optional<TransactionState> stateNamed(final String name)
    {
        for (final Map.Entry<TransactionState, String> entry : KAFKA_NAMES.entrySet())
        {
            if (entry.getValue().equals(name))
            {
                return Optional.of(entry.getKey());
            }
        }
        return Optional.empty();
    }
}
