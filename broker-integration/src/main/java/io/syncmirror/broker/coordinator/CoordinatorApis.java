package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.RequestContext;

/**
 * The coordinator APIs of the broker: FindCoordinator, InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
 * EndTxn, TxnOffsetCommit, WriteTxnMarkers, OffsetCommit, OffsetFetch, ListGroups and DescribeGroups, over the
 * {@link TransactionCoordinator}, the {@link OffsetCoordinator} and the {@link TxnMarkerWriter}. Thread-safe
 * (stateless itself).
 *
 * <p>Versions: only the classic transaction protocol (TV1) is served, so EndTxn stops at v4 and TxnOffsetCommit at
 * v4 (v5+ mean TV2 semantics, v6 topic ids); clients that see no finalized {@code transaction.version} send
 * AddPartitionsToTxn v3 or lower themselves. PRODUCER_FENCED is answered as INVALID_PRODUCER_EPOCH to versions that
 * predate it.
 *
 * <p>Groups: every group is a classic group without members whose only state is its committed offsets, so
 * ListGroups and DescribeGroups answer it as Kafka answers such a simple group: state Empty, type classic, protocol
 * type "" (which Admin's consumer-group listing and description accept).
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
        VERSIONS.put(ApiKeys.TXN_OFFSET_COMMIT, new short[] {0, 4});
        VERSIONS.put(ApiKeys.WRITE_TXN_MARKERS, new short[] {1, 2});
        VERSIONS.put(ApiKeys.OFFSET_COMMIT, new short[] {2, 10});
        VERSIONS.put(ApiKeys.OFFSET_FETCH, new short[] {1, 10});
        VERSIONS.put(ApiKeys.LIST_GROUPS, new short[] {0, 5});
        VERSIONS.put(ApiKeys.DESCRIBE_GROUPS, new short[] {0, 6});
    }

    private final TransactionCoordinator transactions;
    private final OffsetCoordinator offsets;
    private final TxnMarkerWriter markers;
    private final MetadataView metadata;

    public CoordinatorApis(final TransactionCoordinator transactions, final OffsetCoordinator offsets,
        final TxnMarkerWriter markers, final MetadataView metadata)
    {
        this.transactions = transactions;
        this.offsets = offsets;
        this.markers = markers;
        this.metadata = metadata;
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
                    return CompletableFuture.completedFuture(findCoordinator((FindCoordinatorRequest) request, version));
                case INIT_PRODUCER_ID:
                    return initProducerId((InitProducerIdRequest) request, version);
                case ADD_PARTITIONS_TO_TXN:
                    return addPartitions((AddPartitionsToTxnRequest) request, version);
                case ADD_OFFSETS_TO_TXN:
                    return addOffsets((AddOffsetsToTxnRequest) request, version);
                case END_TXN:
                    return endTxn((EndTxnRequest) request, version);
                case TXN_OFFSET_COMMIT:
                    return txnOffsetCommit((TxnOffsetCommitRequest) request, version);
                case WRITE_TXN_MARKERS:
                    return markers.write(((WriteTxnMarkersRequest) request).data())
                        .thenApply(WriteTxnMarkersResponse::new);
                case OFFSET_COMMIT:
                    return offsetCommit((OffsetCommitRequest) request, version);
                case OFFSET_FETCH:
                    return CompletableFuture.completedFuture(offsetFetch((OffsetFetchRequest) request, version));
                case LIST_GROUPS:
                    return CompletableFuture.completedFuture(listGroups((ListGroupsRequest) request, version));
                case DESCRIBE_GROUPS:
                    return CompletableFuture.completedFuture(describeGroups((DescribeGroupsRequest) request,
                        version));
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

    private AbstractResponse findCoordinator(final FindCoordinatorRequest request, final short version)
    {
        final FindCoordinatorRequestData data = request.data();
        final byte keyType = version >= 1 ? data.keyType() : FindCoordinatorRequest.CoordinatorType.GROUP.id();
        if (version < FindCoordinatorRequest.MIN_BATCHED_VERSION)
        {
            final Lookup lookup = lookup(keyType, data.key());
            return FindCoordinatorResponse.prepareOldResponse(lookup.error, lookup.node);
        }
        final FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        for (final String key : data.coordinatorKeys())
        {
            final Lookup lookup = lookup(keyType, key);
            response.coordinators().add(FindCoordinatorResponse.prepareCoordinatorResponse(lookup.error, key,
                lookup.node));
        }
        return new FindCoordinatorResponse(response);
    }

    private record Lookup(Errors error, Node node)
    {
    }

    private Lookup lookup(final byte keyType, final String key)
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
            partition = offsets.partitionFor(key).partition();
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
                offsets.ensureTopic();
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
        final Optional<BrokerEndpoint> leader = metadata.broker(partitions.get(partition).leader());
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
            offsets.ensureTopic();
        }
        return transactions.addPartitions(request.data().transactionalId(), request.data().producerId(),
            request.data().producerEpoch(), List.of(offsets.partitionFor(groupId)))
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

    private CompletableFuture<AbstractResponse> txnOffsetCommit(final TxnOffsetCommitRequest request,
        final short version)
    {
        final TxnOffsetCommitRequestData data = request.data();
        final Map<TopicPartition, OffsetCoordinator.CommittedOffset> committed = new LinkedHashMap<>();
        for (final TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : data.topics())
        {
            for (final TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition partition : topic.partitions())
            {
                committed.put(new TopicPartition(topic.name(), partition.partitionIndex()),
                    new OffsetCoordinator.CommittedOffset(partition.committedOffset(),
                        partition.committedLeaderEpoch(), partition.committedMetadata(), -1L));
            }
        }
        final String memberId = version >= 3 ? data.memberId() : "";
        final int generationId = version >= 3 ? data.generationIdOrMemberEpoch() : -1;
        final String groupInstanceId = version >= 3 ? data.groupInstanceId() : null;
        return offsets.commitTransactionalOffsets(data.groupId(), data.producerId(), data.producerEpoch(), memberId,
            generationId, groupInstanceId, committed, TxnOffsetCommitRequest.supportsGroupIdNotFoundError(version))
            .thenApply(errors ->
            {
                final Map<String, TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic> topics =
                    new LinkedHashMap<>();
                for (final Map.Entry<TopicPartition, Errors> entry : errors.entrySet())
                {
                    topics.computeIfAbsent(entry.getKey().topic(),
                        name -> new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(name))
                        .partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition()
                            .setPartitionIndex(entry.getKey().partition()).setErrorCode(entry.getValue().code()));
                }
                return new TxnOffsetCommitResponse(new TxnOffsetCommitResponseData()
                    .setTopics(new ArrayList<>(topics.values())));
            });
    }

    // ---------------------------------------------------------------------------------------------- offsets

    private CompletableFuture<AbstractResponse> offsetCommit(final OffsetCommitRequest request, final short version)
    {
        final OffsetCommitRequestData data = request.data();
        final boolean useTopicIds = OffsetCommitResponse.useTopicIds(version);
        final Map<TopicPartition, OffsetCoordinator.CommittedOffset> committed = new LinkedHashMap<>();
        final Map<TopicPartition, Errors> rejected = new HashMap<>();
        final Map<TopicPartition, Uuid> idOf = new HashMap<>();
        final List<TopicPartition> order = new ArrayList<>();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics())
        {
            final String name;
            final Errors topicError;
            if (useTopicIds)
            {
                final Optional<TopicMetadata> byId = metadata.topic(topic.topicId());
                name = byId.map(TopicMetadata::name).orElse(topic.topicId().toString());
                topicError = byId.isPresent() ? Errors.NONE : Errors.UNKNOWN_TOPIC_ID;
            }
            else
            {
                name = topic.name();
                topicError = metadata.topic(name).isPresent() ? Errors.NONE : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            }
            for (final OffsetCommitRequestData.OffsetCommitRequestPartition partition : topic.partitions())
            {
                final TopicPartition tp = new TopicPartition(name, partition.partitionIndex());
                order.add(tp);
                idOf.put(tp, topic.topicId());
                if (topicError != Errors.NONE)
                {
                    rejected.put(tp, topicError);
                    continue;
                }
                committed.put(tp, new OffsetCoordinator.CommittedOffset(partition.committedOffset(),
                    partition.committedLeaderEpoch(), partition.committedMetadata(), -1L));
            }
        }
        final String groupInstanceId = version >= 7 ? data.groupInstanceId() : null;
        return offsets.commitOffsets(data.groupId(), data.memberId(), data.generationIdOrMemberEpoch(),
            groupInstanceId, committed, version >= 9).thenApply(errors ->
            {
                final OffsetCommitResponseData response = new OffsetCommitResponseData();
                final Map<String, OffsetCommitResponseData.OffsetCommitResponseTopic> topics = new LinkedHashMap<>();
                for (final TopicPartition tp : order)
                {
                    final Errors error = rejected.containsKey(tp) ? rejected.get(tp)
                        : errors.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR);
                    final String key = useTopicIds ? idOf.get(tp).toString() : tp.topic();
                    topics.computeIfAbsent(key, k ->
                    {
                        final OffsetCommitResponseData.OffsetCommitResponseTopic topic =
                            new OffsetCommitResponseData.OffsetCommitResponseTopic();
                        return useTopicIds ? topic.setTopicId(idOf.get(tp)) : topic.setName(tp.topic());
                    }).partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                        .setPartitionIndex(tp.partition()).setErrorCode(error.code()));
                }
                response.setTopics(new ArrayList<>(topics.values()));
                return new OffsetCommitResponse(response);
            });
    }

    private AbstractResponse offsetFetch(final OffsetFetchRequest request, final short version)
    {
        final OffsetFetchRequestData data = request.data();
        final boolean requireStable = version >= 7 && data.requireStable();
        final boolean useTopicIds = OffsetFetchRequest.useTopicIds(version);
        final List<OffsetFetchResponseData.OffsetFetchResponseGroup> groups = new ArrayList<>();
        if (version < OffsetFetchRequest.BATCH_MIN_VERSION)
        {
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics = null;
            if (data.topics() != null)
            {
                topics = new ArrayList<>();
                for (final OffsetFetchRequestData.OffsetFetchRequestTopic topic : data.topics())
                {
                    topics.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(topic.name())
                        .setPartitionIndexes(topic.partitionIndexes()));
                }
            }
            groups.add(fetchGroup(data.groupId(), topics, requireStable, false, version));
        }
        else
        {
            for (final OffsetFetchRequestData.OffsetFetchRequestGroup group : data.groups())
            {
                groups.add(fetchGroup(group.groupId(), group.topics(), requireStable, useTopicIds, version));
            }
        }
        return new OffsetFetchResponse.Builder(groups).build(version);
    }

    private OffsetFetchResponseData.OffsetFetchResponseGroup fetchGroup(final String groupId,
        final List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics, final boolean requireStable,
        final boolean useTopicIds, final short version)
    {
        List<TopicPartition> requested = null;
        final Map<TopicPartition, Errors> unknownIds = new LinkedHashMap<>();
        final Map<String, Uuid> ids = new HashMap<>();
        if (topics != null)
        {
            requested = new ArrayList<>();
            for (final OffsetFetchRequestData.OffsetFetchRequestTopics topic : topics)
            {
                String name = topic.name();
                if (useTopicIds)
                {
                    final Optional<TopicMetadata> byId = metadata.topic(topic.topicId());
                    name = byId.map(TopicMetadata::name).orElse(null);
                    if (name == null)
                    {
                        for (final int index : topic.partitionIndexes())
                        {
                            unknownIds.put(new TopicPartition(topic.topicId().toString(), index),
                                Errors.UNKNOWN_TOPIC_ID);
                        }
                        ids.put(topic.topicId().toString(), topic.topicId());
                        continue;
                    }
                    ids.put(name, topic.topicId());
                }
                for (final int index : topic.partitionIndexes())
                {
                    requested.add(new TopicPartition(name, index));
                }
            }
        }
        final OffsetCoordinator.GroupOffsets fetched = offsets.fetchOffsets(groupId, requested, requireStable);
        final OffsetFetchResponseData.OffsetFetchResponseGroup group =
            new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(groupId)
                .setErrorCode(fetched.error().code());
        final Map<TopicPartition, OffsetCoordinator.FetchedOffset> results = new LinkedHashMap<>(fetched.offsets());
        if (fetched.error() != Errors.NONE)
        {
            if (version >= 2 || requested == null)
            {
                return group;
            }
            // v1 has no group-level error: each requested partition carries it.
            for (final TopicPartition tp : requested)
            {
                results.put(tp, new OffsetCoordinator.FetchedOffset(-1L, -1, "", fetched.error()));
            }
            group.setErrorCode(Errors.NONE.code());
        }
        for (final Map.Entry<TopicPartition, Errors> entry : unknownIds.entrySet())
        {
            results.put(entry.getKey(), new OffsetCoordinator.FetchedOffset(-1L, -1, "", entry.getValue()));
        }
        final Map<String, OffsetFetchResponseData.OffsetFetchResponseTopics> byTopic = new LinkedHashMap<>();
        for (final Map.Entry<TopicPartition, OffsetCoordinator.FetchedOffset> entry : results.entrySet())
        {
            final String name = entry.getKey().topic();
            Uuid topicId = ids.get(name);
            if (useTopicIds && topicId == null)
            {
                final Optional<TopicMetadata> byName = metadata.topic(name);
                if (byName.isEmpty())
                {
                    // A deleted topic has no id to answer with.
                    continue;
                }
                topicId = byName.get().id();
            }
            final Uuid id = topicId;
            final OffsetCoordinator.FetchedOffset offset = entry.getValue();
            byTopic.computeIfAbsent(name, n ->
            {
                final OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                    new OffsetFetchResponseData.OffsetFetchResponseTopics();
                return useTopicIds ? topic.setTopicId(id) : topic.setName(n);
            }).partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                .setPartitionIndex(entry.getKey().partition()).setCommittedOffset(offset.offset())
                .setCommittedLeaderEpoch(offset.leaderEpoch()).setMetadata(offset.metadata())
                .setErrorCode(offset.error().code()));
        }
        return group.setTopics(new ArrayList<>(byTopic.values()));
    }

    // ------------------------------------------------------------------------------------------------ groups

    /** The state of every group served here: no group has members. */
    static final String GROUP_STATE_EMPTY = "Empty";
    /** Kafka's answer for a group that does not exist. */
    static final String GROUP_STATE_DEAD = "Dead";
    /** The type of every group served here, spelt as Kafka's coordinator answers it (clients parse any case). */
    static final String GROUP_TYPE_CLASSIC = "classic";
    /** The protocol type of a group that has only committed offsets, as Kafka answers it. */
    static final String SIMPLE_GROUP_PROTOCOL_TYPE = "";

    private AbstractResponse listGroups(final ListGroupsRequest request, final short version)
    {
        final ListGroupsRequestData data = request.data();
        final OffsetCoordinator.GroupListing listing = offsets.listGroups();
        final ListGroupsResponseData response = new ListGroupsResponseData().setErrorCode(listing.error().code());
        // Filters match case-insensitively, as Kafka's coordinator matches them; an empty filter passes all.
        final boolean stateMatches = version < 4 || matches(data.statesFilter(), GROUP_STATE_EMPTY);
        final boolean typeMatches = version < 5 || matches(data.typesFilter(), GROUP_TYPE_CLASSIC);
        if (stateMatches && typeMatches)
        {
            for (final String groupId : listing.groupIds())
            {
                final ListGroupsResponseData.ListedGroup group = new ListGroupsResponseData.ListedGroup()
                    .setGroupId(groupId).setProtocolType(SIMPLE_GROUP_PROTOCOL_TYPE);
                if (version >= 4)
                {
                    group.setGroupState(GROUP_STATE_EMPTY);
                }
                if (version >= 5)
                {
                    group.setGroupType(GROUP_TYPE_CLASSIC);
                }
                response.groups().add(group);
            }
        }
        return new ListGroupsResponse(response);
    }

    private static boolean matches(final List<String> filter, final String value)
    {
        if (filter == null || filter.isEmpty())
        {
            return true;
        }
        for (final String wanted : filter)
        {
            if (wanted != null && wanted.toLowerCase(Locale.ROOT).equals(value.toLowerCase(Locale.ROOT)))
            {
                return true;
            }
        }
        return false;
    }

    private AbstractResponse describeGroups(final DescribeGroupsRequest request, final short version)
    {
        final DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (final String groupId : request.data().groups())
        {
            final OffsetCoordinator.GroupExistence existence = offsets.groupExists(groupId);
            if (existence.error() != Errors.NONE)
            {
                response.groups().add(DescribeGroupsResponse.groupError(groupId, existence.error()));
            }
            else if (existence.exists())
            {
                response.groups().add(new DescribeGroupsResponseData.DescribedGroup().setGroupId(groupId)
                    .setErrorCode(Errors.NONE.code()).setGroupState(GROUP_STATE_EMPTY)
                    .setProtocolType(SIMPLE_GROUP_PROTOCOL_TYPE).setProtocolData("")
                    .setAuthorizedOperations(DescribeGroupsResponse.AUTHORIZED_OPERATIONS_OMITTED));
            }
            else
            {
                // Since v6 an unknown group is an error; before, it is described as a dead group without error.
                final DescribeGroupsResponseData.DescribedGroup dead = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(groupId).setGroupState(GROUP_STATE_DEAD).setProtocolType(SIMPLE_GROUP_PROTOCOL_TYPE)
                    .setProtocolData("").setAuthorizedOperations(DescribeGroupsResponse.AUTHORIZED_OPERATIONS_OMITTED);
                if (version >= 6)
                {
                    dead.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.");
                }
                response.groups().add(dead);
            }
        }
        return new DescribeGroupsResponse(response);
    }
}
