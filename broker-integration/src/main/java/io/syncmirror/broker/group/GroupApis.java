package io.syncmirror.broker.group;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.coordinator.group.GroupCoordinator;

import io.syncmirror.broker.coordinator.CoordinatorLogs;
import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.AuthorizableContext;
import io.syncmirror.broker.network.RequestContext;

/**
 * The group APIs of the broker, served by Kafka's group coordinator: JoinGroup, SyncGroup, Heartbeat, LeaveGroup
 * (the classic protocol, protocol types {@code consumer}, {@code connect} and any other), ConsumerGroupHeartbeat
 * and ConsumerGroupDescribe (KIP-848), OffsetCommit, OffsetFetch, OffsetDelete, TxnOffsetCommit, DescribeGroups,
 * ListGroups and DeleteGroups, over every version kafka-clients 4.4 knows. Thread-safety: stateless itself.
 *
 * <p>This class does what Kafka's request layer does before and after the coordinator: it answers partitions of
 * topics this cluster does not have (UNKNOWN_TOPIC_OR_PARTITION, or UNKNOWN_TOPIC_ID for the topic-id versions)
 * without asking the coordinator, turns topic ids into names for it and names back into ids for the answer,
 * normalizes the old single-group and single-member request shapes, and fills in authorized operations when asked
 * (every operation: the broker has no authorizer yet). The coordinator decides everything else, including what
 * each request version means.
 */
public final class GroupApis
{
    /** What a group resource allows without an authorizer, as DescribeGroups reports it when asked. */
    private static final int GROUP_OPERATIONS = Utils.to32BitField(Set.of(AclOperation.READ.code(),
        AclOperation.DESCRIBE.code(), AclOperation.DELETE.code()));

    /**
     * The APIs served. Streams groups (KIP-1071's StreamsGroupHeartbeat and StreamsGroupDescribe) are not: the
     * broker would also have to create the internal topics the coordinator asks for, and Kafka Streams 4.4 uses the
     * classic protocol unless told otherwise. Share groups are not served either.
     */
    private static final Set<ApiKeys> KEYS = EnumSet.of(ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT,
        ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_DELETE,
        ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.DELETE_GROUPS,
        ApiKeys.CONSUMER_GROUP_HEARTBEAT, ApiKeys.CONSUMER_GROUP_DESCRIBE);

    private final GroupCoordinator coordinator;
    private final MetadataView metadata;

    public GroupApis(final GroupCoordinator coordinator, final MetadataView metadata)
    {
        this.coordinator = coordinator;
        this.metadata = metadata;
    }

    /** Whether this class serves {@code key}. */
    public boolean handles(final ApiKeys key)
    {
        return KEYS.contains(key);
    }

    /** The highest version served: Kafka 4.4's; -1 for an API not served here. */
    public short maxVersion(final ApiKeys key)
    {
        return handles(key) ? key.latestVersion() : -1;
    }

    public short minVersion(final ApiKeys key)
    {
        return handles(key) ? key.oldestVersion() : -1;
    }

    /** Handles one request of an API this class serves; a coordinator failure is answered as its error. */
    public CompletableFuture<AbstractResponse> handle(final RequestContext requestContext,
        final AbstractRequest request)
    {
        final AuthorizableContext context = new AuthorizableContext(requestContext);
        final CompletableFuture<AbstractResponse> answer;
        try
        {
            answer = dispatch(context, request);
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.completedFuture(request.getErrorResponse(e));
        }
        return answer.exceptionally(error -> request.getErrorResponse(CoordinatorLogs.unwrap(error)));
    }

    private CompletableFuture<AbstractResponse> dispatch(final AuthorizableContext context,
        final AbstractRequest request)
    {
        final short version = request.version();
        switch (request.apiKey())
        {
            case JOIN_GROUP:
                return coordinator.joinGroup(context, ((JoinGroupRequest)request).data(), BufferSupplier.NO_CACHING)
                    .thenApply(data -> new JoinGroupResponse(data, version));
            case SYNC_GROUP:
                return syncGroup(context, (SyncGroupRequest)request);
            case HEARTBEAT:
                return coordinator.heartbeat(context, ((HeartbeatRequest)request).data())
                    .thenApply(HeartbeatResponse::new);
            case LEAVE_GROUP:
                return leaveGroup(context, (LeaveGroupRequest)request);
            case CONSUMER_GROUP_HEARTBEAT:
                return coordinator.consumerGroupHeartbeat(context, ((ConsumerGroupHeartbeatRequest)request).data())
                    .thenApply(ConsumerGroupHeartbeatResponse::new);
            case CONSUMER_GROUP_DESCRIBE:
                return consumerGroupDescribe(context, (ConsumerGroupDescribeRequest)request);
            case OFFSET_COMMIT:
                return offsetCommit(context, (OffsetCommitRequest)request);
            case TXN_OFFSET_COMMIT:
                return txnOffsetCommit(context, (TxnOffsetCommitRequest)request);
            case OFFSET_FETCH:
                return offsetFetch(context, (OffsetFetchRequest)request);
            case OFFSET_DELETE:
                return offsetDelete(context, (OffsetDeleteRequest)request);
            case DESCRIBE_GROUPS:
                return describeGroups(context, (DescribeGroupsRequest)request);
            case LIST_GROUPS:
                return coordinator.listGroups(context, ((ListGroupsRequest)request).data())
                    .thenApply(ListGroupsResponse::new);
            case DELETE_GROUPS:
                return coordinator.deleteGroups(context, ((DeleteGroupsRequest)request).data().groupsNames(),
                    BufferSupplier.NO_CACHING).thenApply(results ->
                        new DeleteGroupsResponse(new DeleteGroupsResponseData().setResults(results)));
            default:
                throw new UnsupportedVersionException("not a group API: " + request.apiKey());
        }
    }

    // ----------------------------------------------------------------------------------------------- membership

    private CompletableFuture<AbstractResponse> syncGroup(final AuthorizableContext context,
        final SyncGroupRequest request)
    {
        if (!request.areMandatoryProtocolTypeAndNamePresent())
        {
            // From v5 the protocol type and name are mandatory, as Kafka's request layer checks.
            return CompletableFuture.completedFuture(request.getErrorResponse(
                Errors.INCONSISTENT_GROUP_PROTOCOL.exception()));
        }
        return coordinator.syncGroup(context, request.data(), BufferSupplier.NO_CACHING)
            .thenApply(SyncGroupResponse::new);
    }

    private CompletableFuture<AbstractResponse> leaveGroup(final AuthorizableContext context,
        final LeaveGroupRequest request)
    {
        final short version = request.version();
        // v0-v2 name one member by its id; the coordinator takes the members list of v3+.
        final LeaveGroupRequestData normalized = new LeaveGroupRequestData().setGroupId(request.data().groupId())
            .setMembers(request.members());
        return coordinator.leaveGroup(context, normalized).thenApply(data -> new LeaveGroupResponse(data.members(),
            Errors.forCode(data.errorCode()), data.throttleTimeMs(), version));
    }

    private CompletableFuture<AbstractResponse> consumerGroupDescribe(final AuthorizableContext context,
        final ConsumerGroupDescribeRequest request)
    {
        final boolean includeOperations = request.data().includeAuthorizedOperations();
        return coordinator.consumerGroupDescribe(context, request.data().groupIds()).thenApply(groups ->
        {
            if (includeOperations)
            {
                for (final ConsumerGroupDescribeResponseData.DescribedGroup group : groups)
                {
                    if (group.errorCode() == Errors.NONE.code())
                    {
                        group.setAuthorizedOperations(GROUP_OPERATIONS);
                    }
                }
            }
            return new ConsumerGroupDescribeResponse(new ConsumerGroupDescribeResponseData().setGroups(groups));
        });
    }

    private CompletableFuture<AbstractResponse> describeGroups(final AuthorizableContext context,
        final DescribeGroupsRequest request)
    {
        final DescribeGroupsRequestData data = request.data();
        return coordinator.describeGroups(context, data.groups()).thenApply(groups ->
        {
            for (final DescribeGroupsResponseData.DescribedGroup group : groups)
            {
                group.setAuthorizedOperations(data.includeAuthorizedOperations()
                    && group.errorCode() == Errors.NONE.code() ? GROUP_OPERATIONS
                    : DescribeGroupsResponse.AUTHORIZED_OPERATIONS_OMITTED);
            }
            return new DescribeGroupsResponse(new DescribeGroupsResponseData().setGroups(groups));
        });
    }

    // ----------------------------------------------------------------------------------------------- offsets

    /** A topic of a request as this cluster knows it: its name and id, or the error for its partitions. */
    private record ResolvedTopic(String name, Uuid id, TopicMetadata topic, Errors error)
    {
        boolean hasPartition(final int partition)
        {
            return topic != null && partition >= 0 && partition < topic.partitions().size();
        }
    }

    private ResolvedTopic resolve(final boolean useTopicIds, final String name, final Uuid id)
    {
        final Optional<TopicMetadata> topic = useTopicIds ? metadata.topic(id) : metadata.topic(name);
        if (topic.isEmpty())
        {
            return new ResolvedTopic(useTopicIds ? "" : name, useTopicIds ? id : Uuid.ZERO_UUID, null,
                useTopicIds ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        return new ResolvedTopic(topic.get().name(), topic.get().id(), topic.get(), Errors.NONE);
    }

    /** Where a request topic's partition this cluster cannot take goes: the answer's builder, with its error. */
    @FunctionalInterface
    private interface Rejection
    {
        void reject(Uuid topicId, String topicName, int partition, Errors error);
    }

    /**
     * The partitions of one request topic that this cluster has, for the coordinator; each other one is answered
     * through {@code rejection} with the topic's error, or UNKNOWN_TOPIC_OR_PARTITION when only the partition is
     * missing. {@code answerId} and {@code answerName} name the topic as the answer's version does.
     */
    private static <P> List<P> knownPartitions(final ResolvedTopic resolved, final Uuid answerId,
        final String answerName, final List<P> partitions, final ToIntFunction<P> index, final Rejection rejection)
    {
        final List<P> known = new ArrayList<>();
        for (final P partition : partitions)
        {
            final int partitionIndex = index.applyAsInt(partition);
            if (resolved.error() != Errors.NONE)
            {
                rejection.reject(answerId, answerName, partitionIndex, resolved.error());
            }
            else if (resolved.hasPartition(partitionIndex))
            {
                known.add(partition);
            }
            else
            {
                rejection.reject(answerId, answerName, partitionIndex, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
        return known;
    }

    private CompletableFuture<AbstractResponse> offsetCommit(final AuthorizableContext context,
        final OffsetCommitRequest request)
    {
        final OffsetCommitRequestData data = request.data();
        final boolean useTopicIds = OffsetCommitResponse.useTopicIds(request.version());
        final OffsetCommitResponse.Builder response = OffsetCommitResponse.newBuilder(useTopicIds);
        final List<OffsetCommitRequestData.OffsetCommitRequestTopic> known = new ArrayList<>();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics())
        {
            final ResolvedTopic resolved = resolve(useTopicIds, topic.name(), topic.topicId());
            final List<OffsetCommitRequestData.OffsetCommitRequestPartition> valid = knownPartitions(resolved,
                useTopicIds ? topic.topicId() : Uuid.ZERO_UUID, useTopicIds ? "" : topic.name(), topic.partitions(),
                OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex, response::addPartition);
            if (!valid.isEmpty())
            {
                known.add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(resolved.name())
                    .setTopicId(resolved.id()).setPartitions(valid));
            }
        }
        if (known.isEmpty())
        {
            return CompletableFuture.completedFuture(response.build());
        }
        final OffsetCommitRequestData forCoordinator = data.duplicate().setTopics(known);
        return coordinator.commitOffsets(context, forCoordinator, BufferSupplier.NO_CACHING).thenApply(answer ->
        {
            if (!useTopicIds)
            {
                answer.topics().forEach(topic -> topic.setTopicId(Uuid.ZERO_UUID));
            }
            else
            {
                answer.topics().forEach(topic -> topic.setName(""));
            }
            return response.merge(answer).build();
        });
    }

    private CompletableFuture<AbstractResponse> txnOffsetCommit(final AuthorizableContext context,
        final TxnOffsetCommitRequest request)
    {
        final TxnOffsetCommitRequestData data = request.data();
        final boolean useTopicIds = TxnOffsetCommitResponse.useTopicIds(request.version());
        final TxnOffsetCommitResponse.Builder response = TxnOffsetCommitResponse.newBuilder(useTopicIds);
        final List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        for (final TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : data.topics())
        {
            final ResolvedTopic resolved = resolve(useTopicIds, topic.name(), topic.topicId());
            final List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition> valid = knownPartitions(resolved,
                useTopicIds ? topic.topicId() : Uuid.ZERO_UUID, useTopicIds ? "" : topic.name(), topic.partitions(),
                TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex, response::addPartition);
            if (!valid.isEmpty())
            {
                known.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(resolved.name())
                    .setTopicId(resolved.id()).setPartitions(valid));
            }
        }
        if (known.isEmpty())
        {
            return CompletableFuture.completedFuture(response.build());
        }
        final TxnOffsetCommitRequestData forCoordinator = data.duplicate().setTopics(known);
        return coordinator.commitTransactionalOffsets(context, forCoordinator, BufferSupplier.NO_CACHING)
            .thenApply(answer ->
            {
                answer.topics().forEach(topic ->
                {
                    if (useTopicIds)
                    {
                        topic.setName("");
                    }
                    else
                    {
                        topic.setTopicId(Uuid.ZERO_UUID);
                    }
                });
                return response.merge(answer).build();
            });
    }

    private CompletableFuture<AbstractResponse> offsetFetch(final AuthorizableContext context,
        final OffsetFetchRequest request)
    {
        final short version = request.version();
        final boolean useTopicIds = OffsetFetchRequest.useTopicIds(version);
        final List<OffsetFetchRequestData.OffsetFetchRequestGroup> groups;
        if (version < OffsetFetchRequest.BATCH_MIN_VERSION)
        {
            // v0-v7 carry one group at the top level; null topics mean "every committed partition".
            final OffsetFetchRequestData.OffsetFetchRequestGroup group =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(request.data().groupId());
            if (request.data().topics() == null)
            {
                group.setTopics(null);
            }
            else
            {
                for (final OffsetFetchRequestData.OffsetFetchRequestTopic topic : request.data().topics())
                {
                    group.topics().add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(topic.name())
                        .setPartitionIndexes(topic.partitionIndexes()));
                }
            }
            groups = List.of(group);
        }
        else
        {
            groups = request.data().groups();
        }
        final boolean requireStable = request.requireStable();
        final List<CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup>> answers = new ArrayList<>();
        for (final OffsetFetchRequestData.OffsetFetchRequestGroup group : groups)
        {
            answers.add(fetchGroup(context, group, useTopicIds, requireStable));
        }
        return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(ignored ->
        {
            final List<OffsetFetchResponseData.OffsetFetchResponseGroup> results = new ArrayList<>();
            for (final CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup> answer : answers)
            {
                results.add(answer.join());
            }
            return new OffsetFetchResponse.Builder(results).build(version);
        });
    }

    private CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup> fetchGroup(
        final AuthorizableContext context, final OffsetFetchRequestData.OffsetFetchRequestGroup group,
        final boolean useTopicIds, final boolean requireStable)
    {
        final List<OffsetFetchResponseData.OffsetFetchResponseTopics> unknown = new ArrayList<>();
        final OffsetFetchRequestData.OffsetFetchRequestGroup forCoordinator =
            new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group.groupId())
                .setMemberId(group.memberId()).setMemberEpoch(group.memberEpoch());
        if (group.topics() == null)
        {
            forCoordinator.setTopics(null);
        }
        else
        {
            for (final OffsetFetchRequestData.OffsetFetchRequestTopics topic : group.topics())
            {
                if (!useTopicIds)
                {
                    forCoordinator.topics().add(topic);
                    continue;
                }
                final Optional<TopicMetadata> byId = metadata.topic(topic.topicId());
                if (byId.isPresent())
                {
                    forCoordinator.topics().add(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setName(byId.get().name()).setTopicId(topic.topicId())
                        .setPartitionIndexes(topic.partitionIndexes()));
                }
                else
                {
                    final OffsetFetchResponseData.OffsetFetchResponseTopics answer =
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(topic.topicId());
                    for (final int index : topic.partitionIndexes())
                    {
                        answer.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                            .setPartitionIndex(index).setCommittedOffset(-1L)
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                    }
                    unknown.add(answer);
                }
            }
        }
        return coordinator.fetchOffsets(context, forCoordinator, requireStable).thenApply(answer ->
        {
            if (useTopicIds)
            {
                final List<OffsetFetchResponseData.OffsetFetchResponseTopics> withIds = new ArrayList<>();
                for (final OffsetFetchResponseData.OffsetFetchResponseTopics topic : answer.topics())
                {
                    // A topic deleted since its offsets were committed has no id to answer with.
                    metadata.topic(topic.name()).ifPresent(t -> withIds.add(topic.setTopicId(t.id()).setName("")));
                }
                withIds.addAll(unknown);
                answer.setTopics(withIds);
            }
            return answer;
        });
    }

    private CompletableFuture<AbstractResponse> offsetDelete(final AuthorizableContext context,
        final OffsetDeleteRequest request)
    {
        final OffsetDeleteRequestData data = request.data();
        final OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection known =
            new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        final OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection unknown =
            new OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection();
        for (final OffsetDeleteRequestData.OffsetDeleteRequestTopic topic : data.topics())
        {
            final OffsetDeleteResponseData.OffsetDeleteResponseTopic rejected =
                new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(topic.name());
            final Rejection answered = (id, name, partition, error) -> rejected.partitions().add(
                new OffsetDeleteResponseData.OffsetDeleteResponsePartition().setPartitionIndex(partition)
                    .setErrorCode(error.code()));
            final OffsetDeleteRequestData.OffsetDeleteRequestTopic valid =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(topic.name()).setPartitions(
                    knownPartitions(resolve(false, topic.name(), Uuid.ZERO_UUID), Uuid.ZERO_UUID, topic.name(),
                        topic.partitions(), OffsetDeleteRequestData.OffsetDeleteRequestPartition::partitionIndex,
                        answered));
            if (!valid.partitions().isEmpty())
            {
                known.add(valid);
            }
            if (!rejected.partitions().isEmpty())
            {
                unknown.add(rejected);
            }
        }
        final Function<OffsetDeleteResponseData, AbstractResponse> withUnknown = answer ->
        {
            for (final OffsetDeleteResponseData.OffsetDeleteResponseTopic topic : unknown)
            {
                final OffsetDeleteResponseData.OffsetDeleteResponseTopic existing = answer.topics().find(topic.name());
                if (existing == null)
                {
                    answer.topics().add(topic.duplicate());
                }
                else
                {
                    topic.partitions().forEach(p -> existing.partitions().add(p.duplicate()));
                }
            }
            return new OffsetDeleteResponse(answer);
        };
        return coordinator.deleteOffsets(context, new OffsetDeleteRequestData().setGroupId(data.groupId())
            .setTopics(known), BufferSupplier.NO_CACHING).thenApply(withUnknown);
    }
}
