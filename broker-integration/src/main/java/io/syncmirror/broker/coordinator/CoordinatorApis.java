package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.RequestContext;

/**
 * The transaction coordinator's APIs and FindCoordinator: FindCoordinator (group and transaction keys),
 * InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and WriteTxnMarkers, over the
 * {@link TransactionCoordinator} and the {@link TxnMarkerWriter}, and ListTransactions and DescribeTransactions
 * ({@link TransactionAdminApis}); the group APIs are served by Kafka's group
 * coordinator (see {@code io.syncmirror.broker.group}). Thread-safe (stateless itself).
 *
 * <p>Versions: only the classic transaction protocol (TV1) is served, so EndTxn stops at v4 (v5 means TV2
 * semantics); clients that see no finalized {@code transaction.version} 2 send AddPartitionsToTxn v3 or lower and
 * TxnOffsetCommit v4 or lower themselves. PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH to versions that
 * predate it.
 */
public final class CoordinatorApis
{
    private static final Map<ApiKeys, short[]> VERSIONS = new EnumMap<>(ApiKeys.class);

    static
    {
        VERSIONS.put(ApiKeys.FIND_COORDINATOR, new short[] {0, 6});
        VERSIONS.put(ApiKeys.INIT_PRODUCER_ID, new short[] {0, 5});
        VERSIONS.put(ApiKeys.ADD_PARTITIONS_TO_TXN, new short[] {0, 5});
        VERSIONS.put(ApiKeys.ADD_OFFSETS_TO_TXN, new short[] {0, 4});
        VERSIONS.put(ApiKeys.END_TXN, new short[] {0, 4});
        VERSIONS.put(ApiKeys.WRITE_TXN_MARKERS, new short[] {1, 2});
        VERSIONS.put(ApiKeys.LIST_TRANSACTIONS, new short[] {0, ApiKeys.LIST_TRANSACTIONS.latestVersion()});
        VERSIONS.put(ApiKeys.DESCRIBE_TRANSACTIONS, new short[] {0, ApiKeys.DESCRIBE_TRANSACTIONS.latestVersion()});
    }

    private final TransactionCoordinator transactions;
    private final GroupOffsetsPort groups;
    private final TxnMarkerWriter markers;
    private final MetadataView metadata;
    private final TransactionAdminApis admin;

    public CoordinatorApis(final TransactionCoordinator transactions, final GroupOffsetsPort groups,
        final TxnMarkerWriter markers, final MetadataView metadata, final TransactionAdminApis admin)
    {
        this.transactions = transactions;
        this.groups = groups;
        this.markers = markers;
        this.metadata = metadata;
        this.admin = admin;
    }

    /** Whether this class serves {@code key}. */
    public static boolean handles(final ApiKeys key)
    {
        return VERSIONS.containsKey(key);
    }

    /** The highest version served, or -1 for an API not served here. */
    public short maxVersion(final ApiKeys key)
    {
        final short[] range = VERSIONS.get(key);
        return range == null ? -1 : range[1];
    }

    public short minVersion(final ApiKeys key)
    {
        final short[] range = VERSIONS.get(key);
        return range == null ? -1 : range[0];
    }

    /** Handles one request of an API this class serves; exceptional only for a bug (answered as an error). */
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        try
        {
            final short version = request.version();
            switch (request.apiKey())
            {
                case FIND_COORDINATOR:
                    return CompletableFuture.completedFuture(findCoordinator((FindCoordinatorRequest) request, version,
                        context.listenerName()));
                case INIT_PRODUCER_ID:
                    return initProducerId((InitProducerIdRequest) request, version);
                case ADD_PARTITIONS_TO_TXN:
                    return addPartitions((AddPartitionsToTxnRequest) request, version);
                case ADD_OFFSETS_TO_TXN:
                    return addOffsets((AddOffsetsToTxnRequest) request, version);
                case END_TXN:
                    return endTxn((EndTxnRequest) request, version);
                case WRITE_TXN_MARKERS:
                    return markers.write(((WriteTxnMarkersRequest) request).data())
                        .thenApply(WriteTxnMarkersResponse::new);
                case LIST_TRANSACTIONS:
                    return CompletableFuture.completedFuture(admin.listTransactions((ListTransactionsRequest) request));
                case DESCRIBE_TRANSACTIONS:
                    return CompletableFuture.completedFuture(admin.describeTransactions(
                        (DescribeTransactionsRequest) request));
                default:
                    return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "not a coordinator API: " + request.apiKey()));
            }
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ---------------------------------------------------------------------------------------- FindCoordinator

    private AbstractResponse findCoordinator(final FindCoordinatorRequest request, final short version,
        final String listenerName)
    {
        final FindCoordinatorRequestData data = request.data();
        final byte keyType = version >= 1 ? data.keyType() : FindCoordinatorRequest.CoordinatorType.GROUP.id();
        if (version < FindCoordinatorRequest.MIN_BATCHED_VERSION)
        {
            final Lookup lookup = lookup(keyType, data.key(), listenerName);
            return FindCoordinatorResponse.prepareOldResponse(lookup.error, lookup.node);
        }
        final FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        for (final String key : data.coordinatorKeys())
        {
            final Lookup lookup = lookup(keyType, key, listenerName);
            response.coordinators().add(FindCoordinatorResponse.prepareCoordinatorResponse(lookup.error, key,
                lookup.node));
        }
        return new FindCoordinatorResponse(response);
    }

    private record Lookup(Errors error, Node node)
    {
    }

    /** The coordinator of {@code key}, at the listener the request came in on (Kafka's answer). */
    private Lookup lookup(final byte keyType, final String key, final String listenerName)
    {
        final String topic;
        final int partition;
        if (key == null || key.isEmpty())
        {
            return new Lookup(Errors.INVALID_REQUEST, Node.noNode());
        }
        if (keyType == FindCoordinatorRequest.CoordinatorType.GROUP.id())
        {
            topic = CoordinatorConfig.CONSUMER_OFFSETS_TOPIC;
            partition = groups.partitionFor(key).partition();
        }
        else if (keyType == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id())
        {
            topic = CoordinatorConfig.TRANSACTION_STATE_TOPIC;
            partition = transactions.partitionFor(key).partition();
        }
        else
        {
            // Share groups are not served.
            return new Lookup(Errors.INVALID_REQUEST, Node.noNode());
        }
        final Optional<TopicMetadata> metadataOfTopic = metadata.topic(topic);
        if (metadataOfTopic.isEmpty())
        {
            if (topic.equals(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC))
            {
                groups.ensureTopic();
            }
            else
            {
                transactions.ensureTopic();
            }
            return new Lookup(Errors.COORDINATOR_NOT_AVAILABLE, Node.noNode());
        }
        final List<PartitionState> partitions = metadataOfTopic.get().partitions();
        if (partition >= partitions.size() || partitions.get(partition).leader() < 0)
        {
            return new Lookup(Errors.COORDINATOR_NOT_AVAILABLE, Node.noNode());
        }
        final Optional<BrokerEndpoint> leader = metadata.broker(partitions.get(partition).leader())
            .flatMap(endpoint -> endpoint.at(listenerName));
        if (leader.isEmpty())
        {
            return new Lookup(Errors.COORDINATOR_NOT_AVAILABLE, Node.noNode());
        }
        final BrokerEndpoint endpoint = leader.get();
        return new Lookup(Errors.NONE, new Node(endpoint.id(), endpoint.host(), endpoint.port(), endpoint.rack()));
    }

    // ------------------------------------------------------------------------------------------ transactions

    private static Errors fenced(final Errors error, final short version, final short firstVersionWithFenced)
    {
        return error == Errors.PRODUCER_FENCED && version < firstVersionWithFenced ? Errors.INVALID_PRODUCER_EPOCH
            : error;
    }

    private CompletableFuture<AbstractResponse> initProducerId(final InitProducerIdRequest request,
        final short version)
    {
        final InitProducerIdRequestData data = request.data();
        final long expectedProducerId = version >= 3 ? data.producerId() : -1L;
        final short expectedEpoch = version >= 3 ? data.producerEpoch() : (short) -1;
        return transactions.initProducerId(data.transactionalId(), data.transactionTimeoutMs(), expectedProducerId,
            expectedEpoch).thenApply(result -> new InitProducerIdResponse(new InitProducerIdResponseData()
                .setErrorCode(fenced(result.error(), version, (short) 4).code())
                .setProducerId(result.producerId()).setProducerEpoch(result.producerEpoch())));
    }

    private CompletableFuture<AbstractResponse> addPartitions(final AddPartitionsToTxnRequest request,
        final short version)
    {
        final AddPartitionsToTxnRequestData data = request.data();
        if (version <= 3)
        {
            final List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(data.v3AndBelowTopics());
            return addPartitionsOf(data.v3AndBelowTransactionalId(), data.v3AndBelowProducerId(),
                data.v3AndBelowProducerEpoch(), partitions, version).thenApply(errors ->
                {
                    final AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData()
                        .setResultsByTopicV3AndBelow(AddPartitionsToTxnResponse.resultForTransaction(
                            AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors).topicResults());
                    return new AddPartitionsToTxnResponse(response);
                });
        }
        final AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection results =
            new AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection();
        final List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (final AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction txn : data.transactions())
        {
            final List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(txn.topics());
            final CompletableFuture<Map<TopicPartition, Errors>> outcome = txn.verifyOnly()
                ? CompletableFuture.completedFuture(transactions.verifyPartitions(txn.transactionalId(),
                    txn.producerId(), txn.producerEpoch(), partitions))
                : addPartitionsOf(txn.transactionalId(), txn.producerId(), txn.producerEpoch(), partitions, version);
            pending.add(outcome.thenAccept(errors ->
            {
                synchronized (results)
                {
                    results.add(AddPartitionsToTxnResponse.resultForTransaction(txn.transactionalId(), errors));
                }
            }));
        }
        return CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).thenApply(ignored ->
            new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setResultsByTransaction(results)));
    }

    private CompletableFuture<Map<TopicPartition, Errors>> addPartitionsOf(final String transactionalId,
        final long producerId, final short producerEpoch, final List<TopicPartition> partitions, final short version)
    {
        final Map<TopicPartition, Errors> unknown = new HashMap<>();
        for (final TopicPartition tp : partitions)
        {
            if (!partitionExists(tp))
            {
                unknown.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
        if (!unknown.isEmpty())
        {
            final Map<TopicPartition, Errors> errors = new HashMap<>();
            for (final TopicPartition tp : partitions)
            {
                errors.put(tp, unknown.getOrDefault(tp, Errors.OPERATION_NOT_ATTEMPTED));
            }
            return CompletableFuture.completedFuture(errors);
        }
        return transactions.addPartitions(transactionalId, producerId, producerEpoch, partitions).thenApply(error ->
        {
            final Errors answered = fenced(error, version, (short) 2);
            final Map<TopicPartition, Errors> errors = new HashMap<>();
            for (final TopicPartition tp : partitions)
            {
                errors.put(tp, answered);
            }
            return errors;
        });
    }

    private boolean partitionExists(final TopicPartition tp)
    {
        final Optional<TopicMetadata> topic = metadata.topic(tp.topic());
        return topic.isPresent() && tp.partition() >= 0 && tp.partition() < topic.get().partitions().size();
    }

    private CompletableFuture<AbstractResponse> addOffsets(final AddOffsetsToTxnRequest request, final short version)
    {
        final String groupId = request.data().groupId();
        if (metadata.topic(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC).isEmpty())
        {
            // The markers of this transaction must reach the group's offsets partition: make sure it will exist.
            groups.ensureTopic();
        }
        return transactions.addPartitions(request.data().transactionalId(), request.data().producerId(),
            request.data().producerEpoch(), List.of(groups.partitionFor(groupId)))
            .thenApply(error -> new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData()
                .setErrorCode(fenced(error, version, (short) 2).code())));
    }

    private CompletableFuture<AbstractResponse> endTxn(final EndTxnRequest request, final short version)
    {
        return transactions.endTransaction(request.data().transactionalId(), request.data().producerId(),
            request.data().producerEpoch(), request.data().committed())
            .thenApply(error -> new EndTxnResponse(new EndTxnResponseData()
                .setErrorCode(fenced(error, version, (short) 2).code())));
    }
}
