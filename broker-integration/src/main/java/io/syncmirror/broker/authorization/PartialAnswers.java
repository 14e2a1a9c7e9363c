package io.syncmirror.broker.authorization;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.resource.ResourceType;

import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * Per-resource answers, as Kafka's handlers give them, for the APIs whose resources are independent: the
 * resources the caller may not use are answered with their authorization error and the others are served.
 * <ul>
 * <li>Reads (ListOffsets and OffsetForLeaderEpoch of consumers, DescribeProducers: DESCRIBE or READ on each topic;
 * DescribeGroups: DESCRIBE on each group; OffsetFetch: DESCRIBE on each group and topic; a batched
 * FindCoordinator: DESCRIBE on each group or transactional id): the broker's handler answers the request, then the denied resources'
 * entries are replaced by their error, so nothing of them is answered.</li>
 * <li>Changes (CreatePartitions: ALTER, DeleteRecords: DELETE on each topic; DeleteGroups: DELETE on each group):
 * only the allowed resources reach the handler, in a request of their own, and the denied ones' errors are added
 * to its answer.</li>
 * </ul>
 * A request with nothing denied is not handled here, except OffsetFetch, whose all-topics form names no topic to
 * check beforehand. Stateless.
 */
final class PartialAnswers
{
    private PartialAnswers()
    {
    }

    /** The answer to {@code request} when some resource it names is denied and its API is one of these, else null. */
    static CompletableFuture<AbstractResponse> handle(final RequestAuthorization auth, final RequestContext context,
        final AbstractRequest request, final RequestHandler delegate)
    {
        return switch (request.apiKey())
        {
            case LIST_OFFSETS -> ((ListOffsetsRequest)request).replicaId() >= 0 ? null :
                listOffsets(auth, context, (ListOffsetsRequest)request, delegate);
            case OFFSET_FOR_LEADER_EPOCH -> ((OffsetsForLeaderEpochRequest)request).data().replicaId() >= 0 ? null :
                offsetsForLeaderEpoch(auth, context, (OffsetsForLeaderEpochRequest)request, delegate);
            case DESCRIBE_PRODUCERS -> describeProducers(auth, context, (DescribeProducersRequest)request, delegate);
            case DESCRIBE_GROUPS -> describeGroups(auth, context, (DescribeGroupsRequest)request, delegate);
            case OFFSET_FETCH -> offsetFetch(auth, context, (OffsetFetchRequest)request, delegate);
            case FIND_COORDINATOR -> request.version() < 4 ? null :
                findCoordinators(auth, context, (FindCoordinatorRequest)request, delegate);
            case CREATE_PARTITIONS -> createPartitions(auth, context, (CreatePartitionsRequest)request, delegate);
            case DELETE_RECORDS -> deleteRecords(auth, context, (DeleteRecordsRequest)request, delegate);
            case DELETE_GROUPS -> deleteGroups(auth, context, (DeleteGroupsRequest)request, delegate);
            default -> null;
        };
    }

    private static Set<String> denied(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final ResourceType type, final List<String> names)
    {
        final Set<String> denied = new HashSet<>();
        for (final String name : names)
        {
            if (name != null && !auth.allowed(context, operation, type, name))
            {
                denied.add(name);
            }
        }
        return denied;
    }

    /** The handler's answer to the whole request, rewritten by {@code deny} (an error of another shape as is). */
    private static <T extends AbstractResponse> CompletableFuture<AbstractResponse> rewrite(
        final RequestContext context, final AbstractRequest request, final RequestHandler delegate,
        final Class<T> type, final Consumer<T> deny)
    {
        return delegate.handle(context, request).thenApply(response ->
        {
            if (type.isInstance(response))
            {
                deny.accept(type.cast(response));
            }
            return response;
        });
    }

    /**
     * The handler's answer to {@code allowed} (the request without its denied resources) with the denied ones'
     * errors added by {@code addDenied}; {@code empty} when every resource is denied.
     */
    private static <T extends AbstractResponse> CompletableFuture<AbstractResponse> split(
        final RequestContext context, final boolean anyAllowed, final AbstractRequest allowed, final T empty,
        final RequestHandler delegate, final Class<T> type, final Consumer<T> addDenied)
    {
        if (!anyAllowed)
        {
            addDenied.accept(empty);
            return CompletableFuture.completedFuture(empty);
        }
        return rewrite(context, allowed, delegate, type, addDenied);
    }

    // -------------------------------------------------------------------------------------------------- reads

    private static CompletableFuture<AbstractResponse> listOffsets(final RequestAuthorization auth,
        final RequestContext context, final ListOffsetsRequest request, final RequestHandler delegate)
    {
        final List<ListOffsetsRequestData.ListOffsetsTopic> topics = request.data().topics();
        final Set<String> denied = denied(auth, context, AclOperation.DESCRIBE, ResourceType.TOPIC,
            topics.stream().map(ListOffsetsRequestData.ListOffsetsTopic::name).toList());
        if (denied.isEmpty())
        {
            return null;
        }
        return rewrite(context, request, delegate, ListOffsetsResponse.class, response ->
        {
            final List<ListOffsetsResponseData.ListOffsetsTopicResponse> answered = response.data().topics();
            answered.removeIf(t -> denied.contains(t.name()));
            for (final ListOffsetsRequestData.ListOffsetsTopic topic : topics)
            {
                if (denied.contains(topic.name()))
                {
                    final ListOffsetsResponseData.ListOffsetsTopicResponse refused =
                        new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
                    topic.partitions().forEach(p -> refused.partitions().add(
                        new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    answered.add(refused);
                }
            }
        });
    }

    private static CompletableFuture<AbstractResponse> offsetsForLeaderEpoch(final RequestAuthorization auth,
        final RequestContext context, final OffsetsForLeaderEpochRequest request, final RequestHandler delegate)
    {
        final List<OffsetForLeaderEpochRequestData.OffsetForLeaderTopic> topics =
            List.copyOf(request.data().topics());
        final Set<String> denied = denied(auth, context, AclOperation.DESCRIBE, ResourceType.TOPIC,
            topics.stream().map(OffsetForLeaderEpochRequestData.OffsetForLeaderTopic::topic).toList());
        if (denied.isEmpty())
        {
            return null;
        }
        return rewrite(context, request, delegate, OffsetsForLeaderEpochResponse.class, response ->
        {
            final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection answered =
                response.data().topics();
            answered.removeIf(t -> denied.contains(t.topic()));
            for (final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : topics)
            {
                if (denied.contains(topic.topic()))
                {
                    final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult refused =
                        new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topic.topic());
                    topic.partitions().forEach(p -> refused.partitions().add(
                        new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(p.partition())
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    answered.add(refused);
                }
            }
        });
    }

    private static CompletableFuture<AbstractResponse> describeProducers(final RequestAuthorization auth,
        final RequestContext context, final DescribeProducersRequest request, final RequestHandler delegate)
    {
        final Set<String> denied = denied(auth, context, AclOperation.READ, ResourceType.TOPIC,
            request.data().topics().stream().map(t -> t.name()).toList());
        if (denied.isEmpty())
        {
            return null;
        }
        return rewrite(context, request, delegate, DescribeProducersResponse.class, response ->
        {
            final List<DescribeProducersResponseData.TopicResponse> answered = response.data().topics();
            answered.removeIf(t -> denied.contains(t.name()));
            request.data().topics().stream().filter(t -> denied.contains(t.name())).forEach(topic ->
            {
                final DescribeProducersResponseData.TopicResponse refused =
                    new DescribeProducersResponseData.TopicResponse().setName(topic.name());
                topic.partitionIndexes().forEach(p -> refused.partitions().add(
                    new DescribeProducersResponseData.PartitionResponse().setPartitionIndex(p)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                answered.add(refused);
            });
        });
    }

    private static CompletableFuture<AbstractResponse> describeGroups(final RequestAuthorization auth,
        final RequestContext context, final DescribeGroupsRequest request, final RequestHandler delegate)
    {
        final List<String> groups = request.data().groups();
        final Set<String> denied = denied(auth, context, AclOperation.DESCRIBE, ResourceType.GROUP, groups);
        if (denied.isEmpty())
        {
            return null;
        }
        return rewrite(context, request, delegate, DescribeGroupsResponse.class, response ->
        {
            final List<DescribeGroupsResponseData.DescribedGroup> answered = response.data().groups();
            answered.removeIf(g -> denied.contains(g.groupId()));
            groups.stream().filter(denied::contains).distinct().forEach(group -> answered.add(
                DescribeGroupsResponse.groupError(group, Errors.GROUP_AUTHORIZATION_FAILED)));
        });
    }

    /**
     * OffsetFetch, as Kafka answers it: a group the caller may not describe is answered GROUP_AUTHORIZATION_FAILED;
     * of the others, a topic the caller may not describe is answered TOPIC_AUTHORIZATION_FAILED when the request
     * names it, and left out when it asks for every topic. Always rewritten: the all-topics form names no topic.
     */
    private static CompletableFuture<AbstractResponse> offsetFetch(final RequestAuthorization auth,
        final RequestContext context, final OffsetFetchRequest request, final RequestHandler delegate)
    {
        final OffsetFetchRequestData data = request.data();
        return rewrite(context, request, delegate, OffsetFetchResponse.class, response ->
        {
            // Each topic is checked once, however many groups name it.
            final java.util.Map<String, Boolean> describable = new java.util.HashMap<>();
            final java.util.function.Predicate<String> denied = topic -> !describable.computeIfAbsent(topic,
                name -> auth.allowed(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name));
            final OffsetFetchResponseData answer = response.data();
            if (data.groups().isEmpty())
            {
                // Versions before 8: one group, its topics at the top level.
                if (!auth.allowed(context, AclOperation.DESCRIBE, ResourceType.GROUP, data.groupId()))
                {
                    answer.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).topics().clear();
                    return;
                }
                for (final java.util.Iterator<OffsetFetchResponseData.OffsetFetchResponseTopic> it =
                    answer.topics().iterator(); it.hasNext(); )
                {
                    final OffsetFetchResponseData.OffsetFetchResponseTopic topic = it.next();
                    if (!denied.test(topic.name()))
                    {
                        continue;
                    }
                    if (data.topics() == null)
                    {
                        it.remove();
                        continue;
                    }
                    topic.partitions().forEach(p -> p.setCommittedOffset(-1).setCommittedLeaderEpoch(-1)
                        .setMetadata("").setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
                return;
            }
            final Set<String> allTopics = new HashSet<>();
            data.groups().stream().filter(g -> g.topics() == null).forEach(g -> allTopics.add(g.groupId()));
            for (final OffsetFetchResponseData.OffsetFetchResponseGroup group : answer.groups())
            {
                if (!auth.allowed(context, AclOperation.DESCRIBE, ResourceType.GROUP, group.groupId()))
                {
                    group.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()).topics().clear();
                    continue;
                }
                for (final java.util.Iterator<OffsetFetchResponseData.OffsetFetchResponseTopics> it =
                    group.topics().iterator(); it.hasNext(); )
                {
                    final OffsetFetchResponseData.OffsetFetchResponseTopics topic = it.next();
                    if (!denied.test(auth.topicName(topic.name(), topic.topicId())))
                    {
                        continue;
                    }
                    if (allTopics.contains(group.groupId()))
                    {
                        it.remove();
                        continue;
                    }
                    topic.partitions().forEach(p -> p.setCommittedOffset(-1).setCommittedLeaderEpoch(-1)
                        .setMetadata("").setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
            }
        });
    }

    /** A batched FindCoordinator (version 4+): DESCRIBE on each group or transactional id, answered per key. */
    private static CompletableFuture<AbstractResponse> findCoordinators(final RequestAuthorization auth,
        final RequestContext context, final FindCoordinatorRequest request, final RequestHandler delegate)
    {
        final boolean transactions =
            request.data().keyType() == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id();
        final Set<String> denied = denied(auth, context, AclOperation.DESCRIBE, transactions ?
            ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP, request.data().coordinatorKeys());
        if (denied.isEmpty())
        {
            return null;
        }
        final Errors error = transactions ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED :
            Errors.GROUP_AUTHORIZATION_FAILED;
        final FindCoordinatorRequestData allowed = request.data().duplicate();
        allowed.coordinatorKeys().removeIf(denied::contains);
        return split(context, !allowed.coordinatorKeys().isEmpty(), new FindCoordinatorRequest.Builder(allowed)
            .build(request.version()), new FindCoordinatorResponse(new FindCoordinatorResponseData()), delegate,
            FindCoordinatorResponse.class, response -> denied.forEach(key -> response.data().coordinators().add(
                new FindCoordinatorResponseData.Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1)
                    .setErrorCode(error.code()).setErrorMessage(error.message()))));
    }

    // ------------------------------------------------------------------------------------------------ changes

    private static CompletableFuture<AbstractResponse> createPartitions(final RequestAuthorization auth,
        final RequestContext context, final CreatePartitionsRequest request, final RequestHandler delegate)
    {
        final Set<String> denied = denied(auth, context, AclOperation.ALTER, ResourceType.TOPIC,
            request.data().topics().stream().map(CreatePartitionsRequestData.CreatePartitionsTopic::name).toList());
        if (denied.isEmpty())
        {
            return null;
        }
        final CreatePartitionsRequestData allowed = request.data().duplicate();
        allowed.topics().removeIf(t -> denied.contains(t.name()));
        return split(context, !allowed.topics().isEmpty(), new CreatePartitionsRequest.Builder(allowed).build(request.version()),
            new CreatePartitionsResponse(new CreatePartitionsResponseData()), delegate, CreatePartitionsResponse.class,
            response -> denied.forEach(name -> response.data().results().add(
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(name)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()))));
    }

    private static CompletableFuture<AbstractResponse> deleteRecords(final RequestAuthorization auth,
        final RequestContext context, final DeleteRecordsRequest request, final RequestHandler delegate)
    {
        final List<DeleteRecordsRequestData.DeleteRecordsTopic> topics = request.data().topics();
        final Set<String> denied = denied(auth, context, AclOperation.DELETE, ResourceType.TOPIC,
            topics.stream().map(DeleteRecordsRequestData.DeleteRecordsTopic::name).toList());
        if (denied.isEmpty())
        {
            return null;
        }
        final DeleteRecordsRequestData allowed = request.data().duplicate();
        allowed.topics().removeIf(t -> denied.contains(t.name()));
        return split(context, !allowed.topics().isEmpty(), new DeleteRecordsRequest.Builder(allowed)
            .build(request.version()), new DeleteRecordsResponse(new DeleteRecordsResponseData()), delegate,
            DeleteRecordsResponse.class, response ->
            {
                final DeleteRecordsResponseData.DeleteRecordsTopicResultCollection answered = response.data().topics();
                topics.stream().filter(t -> denied.contains(t.name())).forEach(topic ->
                {
                    final DeleteRecordsResponseData.DeleteRecordsTopicResult refused =
                        new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(topic.name());
                    topic.partitions().forEach(p -> refused.partitions().add(
                        new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                            .setPartitionIndex(p.partitionIndex())
                            .setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    answered.add(refused);
                });
            });
    }

    private static CompletableFuture<AbstractResponse> deleteGroups(final RequestAuthorization auth,
        final RequestContext context, final DeleteGroupsRequest request, final RequestHandler delegate)
    {
        final Set<String> denied = denied(auth, context, AclOperation.DELETE, ResourceType.GROUP,
            request.data().groupsNames());
        if (denied.isEmpty())
        {
            return null;
        }
        final DeleteGroupsRequestData allowed = request.data().duplicate();
        allowed.groupsNames().removeIf(denied::contains);
        return split(context, !allowed.groupsNames().isEmpty(), new DeleteGroupsRequest.Builder(allowed)
            .build(request.version()), new DeleteGroupsResponse(new DeleteGroupsResponseData()), delegate,
            DeleteGroupsResponse.class, response -> denied.forEach(group -> response.data().results().add(
                new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(group)
                    .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()))));
    }
}
