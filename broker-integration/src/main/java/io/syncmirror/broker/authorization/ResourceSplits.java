package io.syncmirror.broker.authorization;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.resource.ResourceType;

import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * The admin and commit APIs split by resource as Kafka's handlers split them: the resources the caller may use go
 * on to the broker's handler in a request of their own, the others are answered with their resource's
 * authorization error, and the two answers are joined (a request with nothing denied goes on as it is). Topics:
 * CreateTopics (CREATE on the cluster or the topic), DeleteTopics (DELETE), OffsetCommit (READ, after the group's
 * READ); configs: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs (DESCRIBE_CONFIGS / ALTER_CONFIGS on the
 * topic, the group, or the cluster for a broker). Stateless.
 */
final class ResourceSplits
{
    private ResourceSplits()
    {
    }

    /** The split of {@code request}, or null when {@code request} is not one of these APIs. */
    static CompletableFuture<AbstractResponse> handle(final RequestAuthorization auth, final RequestContext context,
        final AbstractRequest request, final RequestHandler delegate)
    {
        return switch (request.apiKey())
        {
            case CREATE_TOPICS -> createTopics(auth, context, (CreateTopicsRequest)request, delegate);
            case DELETE_TOPICS -> deleteTopics(auth, context, (DeleteTopicsRequest)request, delegate);
            case OFFSET_COMMIT -> offsetCommit(auth, context, (OffsetCommitRequest)request, delegate);
            case DESCRIBE_CONFIGS -> describeConfigs(auth, context, (DescribeConfigsRequest)request, delegate);
            case ALTER_CONFIGS -> alterConfigs(auth, context, (AlterConfigsRequest)request, delegate);
            case INCREMENTAL_ALTER_CONFIGS -> incrementalAlterConfigs(auth, context,
                (IncrementalAlterConfigsRequest)request, delegate);
            default -> null;
        };
    }

    private static CompletableFuture<AbstractResponse> createTopics(final RequestAuthorization auth,
        final RequestContext context, final CreateTopicsRequest request, final RequestHandler delegate)
    {
        if (auth.clusterAllows(context, AclOperation.CREATE))
        {
            return delegate.handle(context, request);
        }
        final CreateTopicsRequestData allowed = request.data().duplicate();
        allowed.topics().clear();
        final CreateTopicsResponseData denied = new CreateTopicsResponseData();
        for (final CreateTopicsRequestData.CreatableTopic topic : request.data().topics())
        {
            if (auth.allowed(context, AclOperation.CREATE, ResourceType.TOPIC, topic.name()))
            {
                allowed.topics().add(topic.duplicate());
            }
            else
            {
                denied.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(topic.name())
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage("Authorization failed."));
            }
        }
        if (denied.topics().isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.topics().isEmpty())
        {
            return CompletableFuture.completedFuture(new CreateTopicsResponse(denied));
        }
        return delegate.handle(context, new CreateTopicsRequest(allowed, request.version())).thenApply(response ->
        {
            if (response instanceof CreateTopicsResponse created)
            {
                denied.topics().forEach(t -> created.data().topics().add(t.duplicate()));
            }
            return response;
        });
    }

    private static CompletableFuture<AbstractResponse> deleteTopics(final RequestAuthorization auth,
        final RequestContext context, final DeleteTopicsRequest request, final RequestHandler delegate)
    {
        final Predicate<String> mayDelete = name -> name == null ||
            auth.allowed(context, AclOperation.DELETE, ResourceType.TOPIC, name);
        final DeleteTopicsRequestData allowed = request.data().duplicate();
        allowed.topicNames().clear();
        allowed.topics().clear();
        final DeleteTopicsResponseData denied = new DeleteTopicsResponseData();
        for (final String name : request.data().topicNames())
        {
            if (mayDelete.test(name))
            {
                allowed.topicNames().add(name);
            }
            else
            {
                denied.responses().add(deniedTopic(name, null));
            }
        }
        for (final DeleteTopicsRequestData.DeleteTopicState topic : request.data().topics())
        {
            final String name = auth.topicName(topic.name(), topic.topicId());
            if (mayDelete.test(name))
            {
                allowed.topics().add(topic.duplicate());
            }
            else
            {
                denied.responses().add(deniedTopic(topic.name(), topic.topicId()));
            }
        }
        if (denied.responses().isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.topicNames().isEmpty() && allowed.topics().isEmpty())
        {
            return CompletableFuture.completedFuture(new DeleteTopicsResponse(denied));
        }
        return delegate.handle(context, new DeleteTopicsRequest.Builder(allowed).build(request.version()))
            .thenApply(response ->
            {
                if (response instanceof DeleteTopicsResponse deleted)
                {
                    denied.responses().forEach(t -> deleted.data().responses().add(t.duplicate()));
                }
                return response;
            });
    }

    private static DeleteTopicsResponseData.DeletableTopicResult deniedTopic(final String name,
        final org.apache.kafka.common.Uuid id)
    {
        final DeleteTopicsResponseData.DeletableTopicResult result = new DeleteTopicsResponseData
            .DeletableTopicResult().setName(name).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
            .setErrorMessage("Authorization failed.");
        return id == null ? result : result.setTopicId(id);
    }

    private static CompletableFuture<AbstractResponse> offsetCommit(final RequestAuthorization auth,
        final RequestContext context, final OffsetCommitRequest request, final RequestHandler delegate)
    {
        final OffsetCommitRequestData allowed = request.data().duplicate();
        allowed.topics().clear();
        final List<OffsetCommitResponseData.OffsetCommitResponseTopic> denied = new ArrayList<>();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic topic : request.data().topics())
        {
            final String name = auth.topicName(topic.name(), topic.topicId());
            if (name == null || auth.allowed(context, AclOperation.READ, ResourceType.TOPIC, name))
            {
                allowed.topics().add(topic.duplicate());
            }
            else
            {
                final OffsetCommitResponseData.OffsetCommitResponseTopic answer =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(topic.name())
                        .setTopicId(topic.topicId());
                topic.partitions().forEach(p -> answer.partitions().add(
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                denied.add(answer);
            }
        }
        if (denied.isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.topics().isEmpty())
        {
            return CompletableFuture.completedFuture(new OffsetCommitResponse(new OffsetCommitResponseData()
                .setTopics(denied)));
        }
        return delegate.handle(context, new OffsetCommitRequest(allowed, request.version())).thenApply(response ->
        {
            if (response instanceof OffsetCommitResponse committed)
            {
                committed.data().topics().addAll(denied);
            }
            return response;
        });
    }

    /** The authorization error of a config resource the caller may not {@code operation}, or NONE. */
    private static Errors configError(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final byte type, final String name)
    {
        return switch (ConfigResource.Type.forId(type))
        {
            case TOPIC -> auth.allowed(context, operation, ResourceType.TOPIC, name) ? Errors.NONE :
                Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> auth.allowed(context, operation, ResourceType.GROUP, name) ? Errors.NONE :
                Errors.GROUP_AUTHORIZATION_FAILED;
            default -> auth.clusterAllows(context, operation) ? Errors.NONE : Errors.CLUSTER_AUTHORIZATION_FAILED;
        };
    }

    private static CompletableFuture<AbstractResponse> describeConfigs(final RequestAuthorization auth,
        final RequestContext context, final DescribeConfigsRequest request, final RequestHandler delegate)
    {
        final DescribeConfigsRequestData allowed = request.data().duplicate();
        allowed.resources().clear();
        final List<DescribeConfigsResponseData.DescribeConfigsResult> denied = new ArrayList<>();
        for (final DescribeConfigsRequestData.DescribeConfigsResource resource : request.data().resources())
        {
            final Errors error = configError(auth, context, AclOperation.DESCRIBE_CONFIGS, resource.resourceType(),
                resource.resourceName());
            if (error == Errors.NONE)
            {
                allowed.resources().add(resource.duplicate());
            }
            else
            {
                denied.add(new DescribeConfigsResponseData.DescribeConfigsResult().setErrorCode(error.code())
                    .setErrorMessage(error.message()).setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()));
            }
        }
        if (denied.isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.resources().isEmpty())
        {
            return CompletableFuture.completedFuture(new DescribeConfigsResponse(new DescribeConfigsResponseData()
                .setResults(denied)));
        }
        return delegate.handle(context, new DescribeConfigsRequest(allowed, request.version())).thenApply(response ->
        {
            if (response instanceof DescribeConfigsResponse described)
            {
                described.data().results().addAll(denied);
            }
            return response;
        });
    }

    private static CompletableFuture<AbstractResponse> alterConfigs(final RequestAuthorization auth,
        final RequestContext context, final AlterConfigsRequest request, final RequestHandler delegate)
    {
        final AlterConfigsRequestData allowed = request.data().duplicate();
        allowed.resources().clear();
        final List<AlterConfigsResponseData.AlterConfigsResourceResponse> denied = new ArrayList<>();
        for (final AlterConfigsRequestData.AlterConfigsResource resource : request.data().resources())
        {
            final Errors error = configError(auth, context, AclOperation.ALTER_CONFIGS, resource.resourceType(),
                resource.resourceName());
            if (error == Errors.NONE)
            {
                allowed.resources().add(resource.duplicate());
            }
            else
            {
                denied.add(new AlterConfigsResponseData.AlterConfigsResourceResponse().setErrorCode(error.code())
                    .setErrorMessage(error.message()).setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()));
            }
        }
        if (denied.isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.resources().isEmpty())
        {
            return CompletableFuture.completedFuture(new AlterConfigsResponse(new AlterConfigsResponseData()
                .setResponses(denied)));
        }
        return delegate.handle(context, new AlterConfigsRequest(allowed, request.version())).thenApply(response ->
        {
            if (response instanceof AlterConfigsResponse altered)
            {
                altered.data().responses().addAll(denied);
            }
            return response;
        });
    }

    private static CompletableFuture<AbstractResponse> incrementalAlterConfigs(final RequestAuthorization auth,
        final RequestContext context, final IncrementalAlterConfigsRequest request, final RequestHandler delegate)
    {
        final IncrementalAlterConfigsRequestData allowed = request.data().duplicate();
        allowed.resources().clear();
        final List<IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> denied = new ArrayList<>();
        for (final IncrementalAlterConfigsRequestData.AlterConfigsResource resource : request.data().resources())
        {
            final Errors error = configError(auth, context, AclOperation.ALTER_CONFIGS, resource.resourceType(),
                resource.resourceName());
            if (error == Errors.NONE)
            {
                allowed.resources().add(resource.duplicate());
            }
            else
            {
                denied.add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setErrorCode(error.code()).setErrorMessage(error.message())
                    .setResourceType(resource.resourceType()).setResourceName(resource.resourceName()));
            }
        }
        if (denied.isEmpty())
        {
            return delegate.handle(context, request);
        }
        if (allowed.resources().isEmpty())
        {
            return CompletableFuture.completedFuture(new IncrementalAlterConfigsResponse(
                new IncrementalAlterConfigsResponseData().setResponses(denied)));
        }
        return delegate.handle(context, new IncrementalAlterConfigsRequest(allowed, request.version()))
            .thenApply(response ->
            {
                if (response instanceof IncrementalAlterConfigsResponse altered)
                {
                    altered.data().responses().addAll(denied);
                }
                return response;
            });
    }
}
