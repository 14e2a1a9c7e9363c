package io.syncmirror.broker.authorization;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;

import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * Authorizes every request before the broker's handlers see it, as Kafka's request handlers do, with the
 * broker's {@link BrokerAuthorizer}: one place holds the table of which operation on which resource each API
 * needs (docs/security.md lists it). Produce and Metadata are split as Kafka splits them (the topics the caller
 * may use go on, the others are answered TOPIC_AUTHORIZATION_FAILED), ListGroups and ListTransactions leave out
 * what the caller may not describe; Fetch answers a denied topic's partitions
 * TOPIC_AUTHORIZATION_FAILED, and a consumer's fetches are kept sessionless, so that every fetch names, and
 * authorizes, every partition it reads. The topic and config admin APIs and OffsetCommit are split by resource
 * ({@link ResourceSplits}), as are ListOffsets, OffsetForLeaderEpoch, DescribeProducers, DescribeGroups,
 * OffsetFetch, CreatePartitions, DeleteRecords and DeleteGroups ({@link PartialAnswers}); the other APIs are
 * answered with their own error response when any resource they name is denied (stricter than Kafka for a request
 * that mixes allowed and denied resources: TxnOffsetCommit, OffsetDelete, ConsumerGroupDescribe and the
 * transaction APIs). An API the
 * table does not name needs CLUSTER_ACTION on the cluster (brokers, super users); the cluster-mirroring RPCs have
 * their own table ({@link MirrorRpcAuthorization}).
 *
 * <p>Thread-safe: stateless beyond its immutable collaborators.
 */
public final class RequestAuthorization implements RequestHandler
{

    private final RequestHandler delegate;
    private final BrokerAuthorizer authorizer;
    private final Function<Uuid, String> topicNames;
    private final Predicate<String> topicExists;
    private final MirrorRequestHandler mirrorHandler;
    private final boolean controllerListener;

    /**
     * @param topicNames         a topic id's name in this broker's image, or null when unknown
     * @param topicExists        whether this broker's image holds a topic of that name
     * @param controllerListener whether {@code delegate} serves the controller listener, where every request but
     *                           DescribeCluster and DescribeQuorum comes from a broker or a voter (CLUSTER_ACTION;
     *                           a broker forwards a client's change only after authorizing the client itself)
     */
    public RequestAuthorization(final RequestHandler delegate, final BrokerAuthorizer authorizer,
        final Function<Uuid, String> topicNames, final Predicate<String> topicExists,
        final boolean controllerListener)
    {
        this.controllerListener = controllerListener;
        this.delegate = delegate;
        this.authorizer = authorizer;
        this.topicNames = topicNames;
        this.topicExists = topicExists;
        this.mirrorHandler = delegate.mirrorHandler() == null ? null :
            new MirrorRpcAuthorization(delegate.mirrorHandler(), authorizer);
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        return delegate.maxVersion(key);
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        return delegate.minVersion(key);
    }

    @Override
    public short maxVersionBeyondKafka(final ApiKeys key)
    {
        return delegate.maxVersionBeyondKafka(key);
    }

    @Override
    public MirrorRequestHandler mirrorHandler()
    {
        return mirrorHandler;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (controllerListener)
        {
            final ApiException denied = switch (request.apiKey())
            {
                case DESCRIBE_CLUSTER -> null;
                case DESCRIBE_QUORUM -> clusterAllows(context, AclOperation.DESCRIBE) ? null :
                    new ClusterAuthorizationException("DescribeQuorum needs DESCRIBE on the cluster");
                default -> clusterAllows(context, AclOperation.CLUSTER_ACTION) ? null :
                    new ClusterAuthorizationException(request.apiKey() + " on the controller listener needs "
                        + "CLUSTER_ACTION on the cluster");
            };
            return denied == null ? delegate.handle(context, request) :
                CompletableFuture.completedFuture(request.getErrorResponse(0, denied));
        }
        switch (request.apiKey())
        {
            case PRODUCE:
                return produce(context, (ProduceRequest) request);
            case METADATA:
                return metadata(context, (MetadataRequest) request);
            case FETCH:
                return fetch(context, (FetchRequest) request);
            case LIST_GROUPS:
                // As Kafka: DESCRIBE on the cluster lists every group, else those the caller may describe.
                return clusterAllows(context, AclOperation.DESCRIBE) ? delegate.handle(context, request) :
                    delegate.handle(context, request).thenApply(response ->
                    {
                        if (response instanceof ListGroupsResponse listed)
                        {
                            listed.data().groups().removeIf(group -> !authorizer.authorize(context,
                                AclOperation.DESCRIBE, ResourceType.GROUP, group.groupId(), false));
                        }
                        return response;
                    });
            case LIST_TRANSACTIONS:
                return delegate.handle(context, request).thenApply(response ->
                {
                    if (response instanceof ListTransactionsResponse listed)
                    {
                        listed.data().transactionStates().removeIf(state -> !authorizer.authorize(context,
                            AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, state.transactionalId(), false));
                    }
                    return response;
                });
            default:
                final ApiException denied = Permissions.check(this, context, request);
                if (denied != null)
                {
                    return CompletableFuture.completedFuture(request.getErrorResponse(0, denied));
                }
                CompletableFuture<AbstractResponse> split = ResourceSplits.handle(this, context, request, delegate);
                if (split == null)
                {
                    split = PartialAnswers.handle(this, context, request, delegate);
                }
                return split != null ? split : delegate.handle(context, request);
        }
    }

    boolean allowed(final RequestContext context, final AclOperation operation, final ResourceType type,
        final String name)
    {
        return authorizer.authorize(context, operation, type, name);
    }

    boolean allowedAny(final RequestContext context, final AclOperation operation, final ResourceType type)
    {
        return authorizer.authorizeAny(context, operation, type);
    }

    boolean clusterAllows(final RequestContext context, final AclOperation operation)
    {
        return allowed(context, operation, ResourceType.CLUSTER, Resource.CLUSTER_NAME);
    }

    /** A topic's name: as named, else by its id in this broker's image (null when neither). */
    String topicName(final String name, final Uuid id)
    {
        if (name != null && !name.isEmpty())
        {
            return name;
        }
        return id == null || Uuid.ZERO_UUID.equals(id) ? null : topicNames.apply(id);
    }

    // ----------------------------------------------------------------------------------------------- Produce

    private CompletableFuture<AbstractResponse> produce(final RequestContext context, final ProduceRequest request)
    {
        final ProduceRequestData data = request.data();
        if (data.transactionalId() != null &&
            !allowed(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId()))
        {
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                new TransactionalIdAuthorizationException("Transactional id " + data.transactionalId() +
                    " is not authorized")));
        }
        final ProduceRequestData.TopicProduceDataCollection allowedTopics =
            new ProduceRequestData.TopicProduceDataCollection();
        final List<ProduceRequestData.TopicProduceData> deniedTopics = new ArrayList<>();
        for (final ProduceRequestData.TopicProduceData topic : data.topicData())
        {
            final String name = topicName(topic.name(), topic.topicId());
            // An id this broker does not know names nothing to protect: the handler answers UNKNOWN_TOPIC_ID.
            if (name == null || allowed(context, AclOperation.WRITE, ResourceType.TOPIC, name))
            {
                allowedTopics.add(topic.duplicate());
            }
            else
            {
                deniedTopics.add(topic);
            }
        }
        if (deniedTopics.isEmpty())
        {
            return delegate.handle(context, request);
        }
        final ProduceResponseData denied = new ProduceResponseData();
        for (final ProduceRequestData.TopicProduceData topic : deniedTopics)
        {
            final ProduceResponseData.TopicProduceResponse answer = new ProduceResponseData.TopicProduceResponse()
                .setName(topic.name()).setTopicId(topic.topicId());
            topic.partitionData().forEach(p -> answer.partitionResponses().add(
                new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
            denied.responses().add(answer);
        }
        if (allowedTopics.isEmpty())
        {
            return CompletableFuture.completedFuture(new ProduceResponse(denied));
        }
        final ProduceRequestData allowedData = new ProduceRequestData().setAcks(data.acks())
            .setTimeoutMs(data.timeoutMs()).setTransactionalId(data.transactionalId()).setTopicData(allowedTopics);
        return delegate.handle(context, new ProduceRequest(allowedData, request.version())).thenApply(response ->
        {
            if (response instanceof ProduceResponse produced)
            {
                denied.responses().forEach(topic -> produced.data().responses().add(topic.duplicate()));
            }
            return response;
        });
    }

    // ---------------------------------------------------------------------------------------------- Metadata

    private CompletableFuture<AbstractResponse> metadata(final RequestContext context, final MetadataRequest request)
    {
        final MetadataRequestData data = request.data();
        if (request.isAllTopics())
        {
            return delegate.handle(context, request).thenApply(response ->
            {
                if (response instanceof MetadataResponse answered)
                {
                    answered.data().topics().removeIf(topic -> !authorizer.authorize(context,
                        AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name(), false));
                }
                return response;
            });
        }
        final List<MetadataRequestData.MetadataRequestTopic> allowedTopics = new ArrayList<>();
        final List<MetadataResponseData.MetadataResponseTopic> deniedTopics = new ArrayList<>();
        final boolean autoCreate = request.version() < 4 || data.allowAutoTopicCreation();
        for (final MetadataRequestData.MetadataRequestTopic topic : data.topics())
        {
            final String name = topicName(topic.name(), topic.topicId());
            final boolean described = name == null || allowed(context, AclOperation.DESCRIBE, ResourceType.TOPIC,
                name);
            // A topic it would auto-create needs CREATE, on the cluster or on the topic, as in Kafka.
            final boolean creatable = name == null || !autoCreate || topicExists.test(name) ||
                clusterAllows(context, AclOperation.CREATE) ||
                allowed(context, AclOperation.CREATE, ResourceType.TOPIC, name);
            if (described && creatable)
            {
                allowedTopics.add(topic.duplicate());
            }
            else
            {
                deniedTopics.add(new MetadataResponseData.MetadataResponseTopic().setName(topic.name())
                    .setTopicId(topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId())
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setIsInternal(false));
            }
        }
        if (deniedTopics.isEmpty())
        {
            return delegate.handle(context, request);
        }
        final MetadataRequestData allowedData = data.duplicate().setTopics(allowedTopics);
        return delegate.handle(context, new MetadataRequest(allowedData, request.version())).thenApply(response ->
        {
            if (response instanceof MetadataResponse answered)
            {
                deniedTopics.forEach(topic -> answered.data().topics().add(topic));
            }
            return response;
        });
    }

    // ------------------------------------------------------------------------------------------------- Fetch

    private CompletableFuture<AbstractResponse> fetch(final RequestContext context, final FetchRequest request)
    {
        if (request.replicaId() >= 0)
        {
            // A follower's fetch: brokers replicate with CLUSTER_ACTION on the cluster.
            return clusterAllows(context, AclOperation.CLUSTER_ACTION) ? delegate.handle(context, request) :
                CompletableFuture.completedFuture(request.getErrorResponse(0,
                    new ClusterAuthorizationException("Fetching as replica " + request.replicaId() +
                        " needs CLUSTER_ACTION on the cluster")));
        }
        if (context.mirrorReplicaInfo().isPresent() && !clusterAllows(context, AclOperation.CLUSTER_ACTION))
        {
            // A sync destination's report moves this cluster's high watermark: a broker-to-broker act.
            return CompletableFuture.completedFuture(request.getErrorResponse(0, new ClusterAuthorizationException(
                "A fetch reporting a sync mirror's replicas needs CLUSTER_ACTION on the cluster")));
        }
        final FetchRequestData data = request.data();
        final LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> denied = new LinkedHashMap<>();
        for (final FetchRequestData.FetchTopic topic : data.topics())
        {
            final String name = topicName(topic.topic(), topic.topicId());
            if (name != null && !allowed(context, AclOperation.READ, ResourceType.TOPIC, name))
            {
                topic.partitions().forEach(p -> denied.put(new TopicIdPartition(
                    topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId(), p.partition(), topic.topic()),
                    FetchResponse.partitionResponse(p.partition(), Errors.TOPIC_AUTHORIZATION_FAILED)));
            }
        }
        if (!denied.isEmpty())
        {
            return CompletableFuture.completedFuture(FetchResponse.of(Errors.NONE, 0,
                FetchMetadata.INVALID_SESSION_ID, denied, List.of()));
        }
        if (data.sessionId() != FetchMetadata.INVALID_SESSION_ID)
        {
            // No consumer session is ever made here (below); the client starts over with a full fetch.
            return CompletableFuture.completedFuture(FetchResponse.of(Errors.FETCH_SESSION_ID_NOT_FOUND, 0,
                FetchMetadata.INVALID_SESSION_ID, new LinkedHashMap<>(), List.of()));
        }
        if (data.sessionEpoch() == FetchMetadata.INITIAL_EPOCH)
        {
            // Sessionless: an incremental fetch would leave out the partitions it already holds, unauthorized anew.
            final FetchRequestData full = data.duplicate().setSessionEpoch(FetchMetadata.FINAL_EPOCH);
            return delegate.handle(context, new FetchRequest(full, request.version()));
        }
        return delegate.handle(context, request);
    }
}
